// Robust summaries of repeated measurements: on a noisy shared VM the mean is
// dragged by outliers, so perfcast reports the median and interquartile range.
#pragma once

#include <vector>

namespace perfcast::measure {

struct Summary {
  int count = 0;
  double median = 0;
  double q1 = 0;   // 25th percentile
  double q3 = 0;   // 75th percentile
  double min = 0;
  double max = 0;
  double iqr() const { return q3 - q1; }
  // IQR relative to the median: a quick "how noisy was this" figure.
  double relative_iqr() const { return median > 0 ? iqr() / median : 0; }
};

// Percentiles by linear interpolation between order statistics (Hyndman & Fan
// type 7, the default of R and NumPy), so figures match what users compute.
double percentile(std::vector<double> values, double p);
Summary summarize(const std::vector<double>& values);

}  // namespace perfcast::measure
