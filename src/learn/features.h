// Feature engineering of the learned models: polynomial expansion and the two
// filtrations of Sun et al.
//
// Expansion of degree d adds every product of up to d features (x1, x1², x1·x2,
// ...): C(m+d, d) - 1 columns from m, so it is refused over a column limit, with
// a message to filter first.
// The time filter keeps the features known early: those whose epoch (the
// fraction of the run when the feature was last updated) is at most the
// threshold, so a prediction can be made after that much of a run.
// The importance filter keeps the most important features, in decreasing
// importance, until their importances sum to the fraction asked (the feature
// that crosses it is kept); features of zero importance are never kept.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "learn/matrix.h"

namespace perfcast::learn {

// A monomial: indices of input features multiplied together (repeats for powers),
// in non-decreasing order.
using Monomial = std::vector<uint32_t>;

struct Expansion {
  std::vector<Monomial> monomials;  // one per output column
  size_t inputs = 0;

  Matrix apply(const Matrix& x) const;
  void apply(const double* in, double* out) const;
  std::vector<std::string> names(const std::vector<std::string>& input_names) const;  // "n^2*p"
};

// Columns an expansion of m features to degree d has: C(m+d, d) - 1.
uint64_t expanded_column_count(size_t features, unsigned degree);

// Degree 1 is the identity. Throws UserError when the result would have more
// than max_columns columns.
Expansion polynomial_expansion(size_t features, unsigned degree, size_t max_columns = 5000);

// Indices of the features with epoch <= threshold.
std::vector<size_t> time_filter(const std::vector<double>& epochs, double threshold);

// Indices (into importances) of the features kept, most important first.
std::vector<size_t> importance_filter(const std::vector<double>& importances, double fraction);

}  // namespace perfcast::learn
