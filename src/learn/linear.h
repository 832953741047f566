// The paper's non-tree baselines, on standardised features (each column centred
// and divided by its standard deviation, the time centred and scaled too):
//   ridge  least squares with an L2 penalty λ·||β||², solved exactly;
//   lasso  least squares with an L1 penalty α·||β||₁ (objective
//          ||y - Xβ||²/(2n) + α||β||₁, scikit-learn's), by cyclic coordinate descent;
//   svr    ε-insensitive support vector regression with an RBF kernel
//          exp(-γ||x - x'||²), γ = 1/features by default, solved in the dual by
//          coordinate descent with the bias folded into the kernel (K + 1), so
//          there is no equality constraint and every step is a closed form.
#pragma once

#include <cstdint>
#include <vector>

#include "learn/matrix.h"

namespace perfcast::learn {

// Column means and standard deviations (1 for a constant column).
struct Standardizer {
  std::vector<double> mean, scale;
  static Standardizer of(const Matrix& x);
  Matrix apply(const Matrix& x) const;
  void apply(const double* in, double* out) const;
};

struct LinearModel {
  Standardizer x_scaling;
  double y_mean = 0, y_scale = 1;
  std::vector<double> coefficients;  // per standardised feature, in standardised time units
  double predict(const double* features) const;
};

struct RidgeOptions {
  double lambda = 1e-3;  // per row: the penalty is lambda·n·||β||²
};
LinearModel fit_ridge(const Matrix& x, const std::vector<double>& y, const RidgeOptions& options = {});

struct LassoOptions {
  double alpha = 1e-3;
  size_t max_sweeps = 2000;
  double tolerance = 1e-7;  // largest coefficient change in a sweep that ends the descent
};
LinearModel fit_lasso(const Matrix& x, const std::vector<double>& y, const LassoOptions& options = {});

struct SvrOptions {
  double c = 10;          // box constraint on each dual coefficient
  double epsilon = 0.01;  // insensitive zone, in standardised time units
  double gamma = 0;       // 0: 1 / features
  size_t max_sweeps = 500;
  double tolerance = 1e-5;
  size_t max_rows = 5000;  // the kernel matrix is rows² doubles
  uint64_t seed = 1;       // the order of the coordinates
};

struct SvrModel {
  Standardizer x_scaling;
  double y_mean = 0, y_scale = 1;
  double gamma = 1;
  Matrix support;            // standardised rows with a non-zero dual coefficient
  std::vector<double> dual;  // their coefficients
  double predict(const double* features) const;
};
SvrModel fit_svr(const Matrix& x, const std::vector<double>& y, const SvrOptions& options = {});

}  // namespace perfcast::learn
