// The Extra-P-style baseline (Calotoiu et al., SC13; Calotoiu et al. 2016 for
// several parameters): the performance model normal form over the process
// count p and one size parameter n,
//     t = c0 + Σ_k c_k · p^i_k · log2(p)^j_k · n^a_k · log2(n)^b_k,
// with i, a in {0, 1/4, 1/3, 1/2, 2/3, 3/4, 1, 5/4, 4/3, 3/2, 2, 3}, j, b in
// {0, 1, 2}, and at most two terms besides c0. Coefficients are fitted by least
// squares on relative residuals ((model - t) / t, so long and short runs weigh
// alike); the hypothesis kept is the one with the lowest k-fold cross-validated
// mean relative error, and one term is kept over two unless two are clearly
// better (1 % lower error). The two-term search is a beam: the best single
// terms, each extended by every second term.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "learn/matrix.h"

namespace perfcast::learn {

struct ExtrapTerm {
  double p_exponent = 0;
  int p_log = 0;
  double n_exponent = 0;
  int n_log = 0;
  double value(double p, double n) const;
  std::string text(const std::string& p_name, const std::string& n_name) const;  // "p^(1/2)·log2(p)"
};

struct ExtrapModel {
  std::string process_feature, size_feature;  // size_feature empty: p only
  double constant = 0;
  std::vector<ExtrapTerm> terms;
  std::vector<double> coefficients;
  double cv_error = 0;  // mean relative error of the chosen hypothesis

  double predict(double p, double n) const;
  std::string formula() const;  // "1.2 + 0.5·p^(1/2)·log2(p)"
};

struct ExtrapOptions {
  std::string process_feature;  // empty: the first of ranks, p, np, procs, processes
  std::string size_feature;     // empty: every other feature is tried and the best kept
  size_t folds = 5;
  uint64_t seed = 1;
  size_t beam = 24;  // single terms extended to two-term hypotheses
};

// The exponents the search draws from, as Extra-P's default search space.
const std::vector<double>& extrap_exponents();

// Fits on the columns of x named by feature_names. Throws UserError when no
// process feature is found or its values are not positive.
ExtrapModel fit_extrap(const Matrix& x, const std::vector<std::string>& feature_names, const std::vector<double>& y,
                       const ExtrapOptions& options = {});

}  // namespace perfcast::learn
