#include "learn/matrix.h"

#include <algorithm>
#include <cmath>

namespace perfcast::learn {

Matrix Matrix::select_rows(const std::vector<size_t>& which) const {
  Matrix out(which.size(), cols);
  for (size_t i = 0; i < which.size(); ++i) std::copy_n(row(which[i]), cols, out.row(i));
  return out;
}

Matrix Matrix::select_cols(const std::vector<size_t>& which) const {
  Matrix out(rows, which.size());
  for (size_t r = 0; r < rows; ++r)
    for (size_t j = 0; j < which.size(); ++j) out.at(r, j) = at(r, which[j]);
  return out;
}

std::vector<double> select(const std::vector<double>& v, const std::vector<size_t>& which) {
  std::vector<double> out;
  out.reserve(which.size());
  for (size_t i : which) out.push_back(v[i]);
  return out;
}

double quantile(std::vector<double>& values, double q) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  double pos = q * static_cast<double>(values.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, values.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return values[lo] + frac * (values[hi] - values[lo]);
}

}  // namespace perfcast::learn
