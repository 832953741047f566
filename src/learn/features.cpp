#include "learn/features.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "support/error.h"

namespace perfcast::learn {

namespace {

void monomials_from(size_t features, unsigned degree, uint32_t first, Monomial& current, std::vector<Monomial>& out) {
  if (!current.empty()) out.push_back(current);
  if (current.size() == degree) return;
  for (uint32_t f = first; f < features; ++f) {
    current.push_back(f);
    monomials_from(features, degree, f, current, out);
    current.pop_back();
  }
}

}  // namespace

uint64_t expanded_column_count(size_t features, unsigned degree) {
  // C(m+d, d) computed incrementally; exact because each prefix is a binomial.
  long double c = 1;
  for (unsigned k = 1; k <= degree; ++k) c = c * static_cast<long double>(features + k) / k;
  return static_cast<uint64_t>(c + 0.5L) - 1;
}

Expansion polynomial_expansion(size_t features, unsigned degree, size_t max_columns) {
  if (degree < 1)
    throw UserError("the expansion degree is at least 1", {}, "--expand 1 keeps the features as they are");
  uint64_t count = expanded_column_count(features, degree);
  if (count > max_columns)
    throw UserError(fmt::format("an expansion of {} features to degree {} has {} columns, over the limit of {}",
                                features, degree, count, max_columns),
                    {}, "filter first: --time-filter and --importance-filter keep fewer features to expand");
  Expansion e;
  e.inputs = features;
  Monomial current;
  monomials_from(features, degree, 0, current, e.monomials);
  // Degree first, then lexicographic: the plain features stay the first columns.
  std::stable_sort(e.monomials.begin(), e.monomials.end(),
                   [](const Monomial& a, const Monomial& b) { return a.size() < b.size(); });
  return e;
}

void Expansion::apply(const double* in, double* out) const {
  for (size_t j = 0; j < monomials.size(); ++j) {
    double v = 1;
    for (uint32_t f : monomials[j]) v *= in[f];
    out[j] = v;
  }
}

Matrix Expansion::apply(const Matrix& x) const {
  Matrix out(x.rows, monomials.size());
  for (size_t r = 0; r < x.rows; ++r) apply(x.row(r), out.row(r));
  return out;
}

std::vector<std::string> Expansion::names(const std::vector<std::string>& input_names) const {
  std::vector<std::string> out;
  for (const auto& m : monomials) {
    std::string name;
    for (size_t i = 0; i < m.size();) {
      size_t j = i;
      while (j < m.size() && m[j] == m[i]) ++j;
      if (!name.empty()) name += "*";
      name += input_names[m[i]];
      if (j - i > 1) name += fmt::format("^{}", j - i);
      i = j;
    }
    out.push_back(name);
  }
  return out;
}

std::vector<size_t> time_filter(const std::vector<double>& epochs, double threshold) {
  std::vector<size_t> kept;
  for (size_t i = 0; i < epochs.size(); ++i)
    if (epochs[i] <= threshold) kept.push_back(i);
  return kept;
}

std::vector<size_t> importance_filter(const std::vector<double>& importances, double fraction) {
  std::vector<size_t> order(importances.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return importances[a] > importances[b]; });
  double total = std::accumulate(importances.begin(), importances.end(), 0.0);
  std::vector<size_t> kept;
  double sum = 0;
  for (size_t i : order) {
    if (importances[i] <= 0) break;
    kept.push_back(i);
    sum += importances[i];
    if (sum >= fraction * total * (1 - 1e-12)) break;
  }
  return kept;
}

}  // namespace perfcast::learn
