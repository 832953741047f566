#include "learn/linear.h"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "support/error.h"

namespace perfcast::learn {

namespace {

void scale_of(const std::vector<double>& y, double& mean, double& scale) {
  mean = std::accumulate(y.begin(), y.end(), 0.0) / static_cast<double>(std::max<size_t>(1, y.size()));
  double ss = 0;
  for (double v : y) ss += (v - mean) * (v - mean);
  scale = y.size() > 1 ? std::sqrt(ss / static_cast<double>(y.size())) : 0.0;
  if (!(scale > 0)) scale = 1;
}

std::vector<double> standard_targets(const std::vector<double>& y, double mean, double scale) {
  std::vector<double> out(y.size());
  for (size_t i = 0; i < y.size(); ++i) out[i] = (y[i] - mean) / scale;
  return out;
}

}  // namespace

Standardizer Standardizer::of(const Matrix& x) {
  Standardizer s;
  s.mean.assign(x.cols, 0.0);
  s.scale.assign(x.cols, 1.0);
  std::vector<double> column(x.rows);
  for (size_t c = 0; c < x.cols; ++c) {
    for (size_t r = 0; r < x.rows; ++r) column[r] = x.at(r, c);
    scale_of(column, s.mean[c], s.scale[c]);
  }
  return s;
}

void Standardizer::apply(const double* in, double* out) const {
  for (size_t c = 0; c < mean.size(); ++c) out[c] = (in[c] - mean[c]) / scale[c];
}

Matrix Standardizer::apply(const Matrix& x) const {
  Matrix out(x.rows, x.cols);
  for (size_t r = 0; r < x.rows; ++r) apply(x.row(r), out.row(r));
  return out;
}

double LinearModel::predict(const double* features) const {
  double s = 0;
  for (size_t c = 0; c < coefficients.size(); ++c)
    s += coefficients[c] * (features[c] - x_scaling.mean[c]) / x_scaling.scale[c];
  return y_mean + y_scale * s;
}

LinearModel fit_ridge(const Matrix& x, const std::vector<double>& y, const RidgeOptions& options) {
  LinearModel m;
  m.x_scaling = Standardizer::of(x);
  scale_of(y, m.y_mean, m.y_scale);
  Matrix z = m.x_scaling.apply(x);
  std::vector<double> t = standard_targets(y, m.y_mean, m.y_scale);
  Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> a(
      z.values.data(), static_cast<long>(z.rows), static_cast<long>(z.cols));
  Eigen::Map<const Eigen::VectorXd> b(t.data(), static_cast<long>(t.size()));
  Eigen::MatrixXd normal = a.transpose() * a;
  normal.diagonal().array() += options.lambda * static_cast<double>(x.rows);
  Eigen::VectorXd beta = normal.ldlt().solve(a.transpose() * b);
  m.coefficients.assign(beta.data(), beta.data() + beta.size());
  return m;
}

LinearModel fit_lasso(const Matrix& x, const std::vector<double>& y, const LassoOptions& options) {
  LinearModel m;
  m.x_scaling = Standardizer::of(x);
  scale_of(y, m.y_mean, m.y_scale);
  Matrix z = m.x_scaling.apply(x);
  std::vector<double> residual = standard_targets(y, m.y_mean, m.y_scale);
  const double n = static_cast<double>(x.rows);
  std::vector<double> norm_sq(x.cols, 0.0);
  for (size_t r = 0; r < z.rows; ++r)
    for (size_t c = 0; c < z.cols; ++c) norm_sq[c] += z.at(r, c) * z.at(r, c);
  m.coefficients.assign(x.cols, 0.0);
  for (size_t sweep = 0; sweep < options.max_sweeps; ++sweep) {
    double largest_change = 0;
    for (size_t c = 0; c < z.cols; ++c) {
      if (norm_sq[c] <= 0) continue;
      double old = m.coefficients[c];
      double rho = 0;
      for (size_t r = 0; r < z.rows; ++r) rho += z.at(r, c) * (residual[r] + old * z.at(r, c));
      rho /= n;
      double denom = norm_sq[c] / n;
      double updated = std::copysign(std::max(0.0, std::abs(rho) - options.alpha), rho) / denom;
      if (updated != old) {
        for (size_t r = 0; r < z.rows; ++r) residual[r] -= (updated - old) * z.at(r, c);
        m.coefficients[c] = updated;
        largest_change = std::max(largest_change, std::abs(updated - old));
      }
    }
    if (largest_change < options.tolerance) break;
  }
  return m;
}

double SvrModel::predict(const double* features) const {
  std::vector<double> z(x_scaling.mean.size());
  x_scaling.apply(features, z.data());
  double s = 0;
  for (size_t i = 0; i < support.rows; ++i) {
    double d2 = 0;
    const double* sv = support.row(i);
    for (size_t c = 0; c < z.size(); ++c) d2 += (sv[c] - z[c]) * (sv[c] - z[c]);
    s += dual[i] * (std::exp(-gamma * d2) + 1.0);
  }
  return y_mean + y_scale * s;
}

SvrModel fit_svr(const Matrix& x, const std::vector<double>& y, const SvrOptions& options) {
  if (x.rows > options.max_rows)
    throw UserError(fmt::format("svr keeps a kernel matrix of rows² numbers and takes at most {} rows; this set has {}",
                                options.max_rows, x.rows),
                    {}, "use --method et, or a smaller sample of the rows");
  SvrModel m;
  m.x_scaling = Standardizer::of(x);
  scale_of(y, m.y_mean, m.y_scale);
  m.gamma = options.gamma > 0 ? options.gamma : 1.0 / static_cast<double>(std::max<size_t>(1, x.cols));
  Matrix z = m.x_scaling.apply(x);
  std::vector<double> t = standard_targets(y, m.y_mean, m.y_scale);
  const size_t n = x.rows;
  Matrix kernel(n, n);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j <= i; ++j) {
      double d2 = 0;
      for (size_t c = 0; c < z.cols; ++c) d2 += (z.at(i, c) - z.at(j, c)) * (z.at(i, c) - z.at(j, c));
      kernel.at(i, j) = kernel.at(j, i) = std::exp(-m.gamma * d2) + 1.0;
    }
  std::vector<double> beta(n, 0.0), k_beta(n, 0.0);
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  Rng rng(options.seed);
  for (size_t sweep = 0; sweep < options.max_sweeps; ++sweep) {
    rng.shuffle(order);
    double largest_change = 0;
    for (size_t i : order) {
      double q = kernel.at(i, i);
      double g = k_beta[i] - t[i];
      double target = beta[i] - g / q;
      double updated = std::copysign(std::max(0.0, std::abs(target) - options.epsilon / q), target);
      updated = std::clamp(updated, -options.c, options.c);
      double delta = updated - beta[i];
      if (delta == 0) continue;
      const double* column = kernel.row(i);  // symmetric: row i is column i
      for (size_t r = 0; r < n; ++r) k_beta[r] += delta * column[r];
      beta[i] = updated;
      largest_change = std::max(largest_change, std::abs(delta));
    }
    if (largest_change < options.tolerance) break;
  }
  std::vector<size_t> kept;
  for (size_t i = 0; i < n; ++i)
    if (beta[i] != 0) kept.push_back(i);
  m.support = z.select_rows(kept);
  m.dual = select(beta, kept);
  return m;
}

}  // namespace perfcast::learn
