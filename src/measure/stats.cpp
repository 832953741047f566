#include "measure/stats.h"

#include <algorithm>
#include <cmath>

#include "support/error.h"

namespace perfcast::measure {

double percentile(std::vector<double> values, double p) {
  if (values.empty()) throw UserError("no values to summarize");
  std::sort(values.begin(), values.end());
  double h = (static_cast<double>(values.size()) - 1) * p;
  auto lo = static_cast<size_t>(std::floor(h));
  size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (h - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

Summary summarize(const std::vector<double>& values) {
  Summary s;
  s.count = static_cast<int>(values.size());
  s.median = percentile(values, 0.5);
  s.q1 = percentile(values, 0.25);
  s.q3 = percentile(values, 0.75);
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  return s;
}

}  // namespace perfcast::measure
