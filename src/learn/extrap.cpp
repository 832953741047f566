#include "learn/extrap.h"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "support/error.h"

namespace perfcast::learn {

namespace {

std::string exponent_text(double e) {
  static const std::pair<double, const char*> fractions[] = {{0.25, "1/4"},    {1.0 / 3, "1/3"}, {0.5, "1/2"},
                                                             {2.0 / 3, "2/3"}, {0.75, "3/4"},    {1.25, "5/4"},
                                                             {4.0 / 3, "4/3"}, {1.5, "3/2"}};
  for (auto [v, s] : fractions)
    if (std::abs(v - e) < 1e-9) return fmt::format("^({})", s);
  if (e == 1) return "";
  return fmt::format("^{}", e);
}

std::string factor_text(const std::string& name, double exponent, int log_power) {
  std::string out;
  if (exponent != 0) out = name + exponent_text(exponent);
  if (log_power > 0) {
    if (!out.empty()) out += "·";
    out += "log2(" + name + ")";
    if (log_power > 1) out += fmt::format("^{}", log_power);
  }
  return out;
}

double power_log(double v, double exponent, int log_power) {
  double out = exponent == 0 ? 1.0 : std::pow(v, exponent);
  if (log_power) out *= std::pow(std::log2(v), log_power);
  return out;
}

// One data set on which hypotheses are judged: the p and n of each row, the
// times, and the fold of each row.
struct Search {
  std::vector<double> p, n, y;
  std::vector<size_t> fold;
  size_t folds = 1;

  // Least squares on relative residuals over the rows `use` says, by QR for
  // the final fit; returns [c0, c_1, ...].
  Eigen::VectorXd solve(const std::vector<ExtrapTerm>& terms, const std::vector<char>& use) const {
    size_t rows = static_cast<size_t>(std::count(use.begin(), use.end(), 1));
    Eigen::MatrixXd a(static_cast<long>(rows), static_cast<long>(terms.size() + 1));
    Eigen::VectorXd b = Eigen::VectorXd::Ones(static_cast<long>(rows));
    long r = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      if (!use[i]) continue;
      a(r, 0) = 1.0 / y[i];
      for (size_t k = 0; k < terms.size(); ++k) a(r, static_cast<long>(k + 1)) = terms[k].value(p[i], n[i]) / y[i];
      ++r;
    }
    return a.colPivHouseholderQr().solve(b);
  }
};

// More terms or another size parameter must lower the error by 1 % and by more
// than rounding: noise alone, or a fit already exact, should not buy a term.
bool clearly_better(double error, double than) { return error < 0.99 * than - 1e-9; }

struct Hypothesis {
  std::vector<ExtrapTerm> terms;
  double error = std::numeric_limits<double>::infinity();
};

std::vector<ExtrapTerm> candidate_terms(bool with_n) {
  std::vector<ExtrapTerm> out;
  const auto& ex = extrap_exponents();
  std::vector<std::pair<double, int>> factors;
  for (double e : ex)
    for (int l = 0; l <= 2; ++l) factors.emplace_back(e, l);
  for (auto [pe, pl] : factors) {
    if (!with_n) {
      if (pe != 0 || pl != 0) out.push_back({pe, pl, 0, 0});
      continue;
    }
    for (auto [ne, nl] : factors)
      if (pe != 0 || pl != 0 || ne != 0 || nl != 0) out.push_back({pe, pl, ne, nl});
  }
  return out;
}

// Judges hypotheses fast: every candidate column is evaluated once, divided by
// the time (so a fit of the constant 1 is a fit of relative residuals) and
// scaled to unit norm (so the small normal equations stay well conditioned),
// and each fold's normal equations come from sums over its rows.
class Judge {
 public:
  Judge(const Search& s, const std::vector<ExtrapTerm>& terms) : s_(s), rows_(s.y.size()) {
    columns_.resize(terms.size() + 1, std::vector<double>(rows_));
    for (size_t i = 0; i < rows_; ++i) columns_[0][i] = 1.0 / s.y[i];
    for (size_t k = 0; k < terms.size(); ++k)
      for (size_t i = 0; i < rows_; ++i) columns_[k + 1][i] = terms[k].value(s.p[i], s.n[i]) / s.y[i];
    for (auto& c : columns_) {
      double norm = 0;
      for (double v : c) norm += v * v;
      norm = std::sqrt(norm);
      if (norm > 0 && std::isfinite(norm))
        for (double& v : c) v /= norm;
    }
  }

  // Mean relative error over the folds of the hypothesis made of the constant
  // and the terms at these indices (into the term list).
  double cv_error(const std::vector<size_t>& term_indices) const {
    const size_t k = term_indices.size() + 1;
    const double* cols[3];
    cols[0] = columns_[0].data();
    for (size_t j = 1; j < k; ++j) cols[j] = columns_[term_indices[j - 1] + 1].data();
    using Small = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 3, 3>;
    using SmallVector = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 3, 1>;
    std::vector<Small> gram(s_.folds, Small::Zero(static_cast<long>(k), static_cast<long>(k)));
    std::vector<SmallVector> rhs(s_.folds, SmallVector::Zero(static_cast<long>(k)));
    Small total_gram = Small::Zero(static_cast<long>(k), static_cast<long>(k));
    SmallVector total_rhs = SmallVector::Zero(static_cast<long>(k));
    for (size_t i = 0; i < rows_; ++i) {
      size_t f = s_.fold[i];
      for (size_t a = 0; a < k; ++a) {
        rhs[f](static_cast<long>(a)) += cols[a][i];
        for (size_t b = 0; b <= a; ++b) gram[f](static_cast<long>(a), static_cast<long>(b)) += cols[a][i] * cols[b][i];
      }
    }
    for (size_t f = 0; f < s_.folds; ++f) {
      total_gram += gram[f];
      total_rhs += rhs[f];
    }
    std::vector<SmallVector> coefficients(s_.folds);
    for (size_t f = 0; f < s_.folds; ++f) {
      Small g = s_.folds == 1 ? total_gram : Small(total_gram - gram[f]);
      SmallVector r = s_.folds == 1 ? total_rhs : SmallVector(total_rhs - rhs[f]);
      g = g.selfadjointView<Eigen::Lower>();
      Eigen::LDLT<Small> ldlt(g);
      if (ldlt.info() != Eigen::Success) return std::numeric_limits<double>::infinity();
      coefficients[f] = ldlt.solve(r);
      if (!coefficients[f].allFinite()) return std::numeric_limits<double>::infinity();
    }
    double sum = 0;
    for (size_t i = 0; i < rows_; ++i) {
      const SmallVector& c = coefficients[s_.fold[i]];
      double fit = 0;
      for (size_t a = 0; a < k; ++a) fit += c(static_cast<long>(a)) * cols[a][i];
      sum += std::abs(fit - 1.0);  // fit is the prediction over the time
    }
    return sum / static_cast<double>(rows_);
  }

 private:
  const Search& s_;
  size_t rows_;
  std::vector<std::vector<double>> columns_;  // [0]: the constant
};

Hypothesis search(const Search& s, bool with_n, size_t beam) {
  std::vector<ExtrapTerm> terms = candidate_terms(with_n);
  Judge judge(s, terms);
  Hypothesis constant{{}, judge.cv_error({})};
  std::vector<std::pair<double, size_t>> singles;  // (error, term)
  for (size_t t = 0; t < terms.size(); ++t) singles.emplace_back(judge.cv_error({t}), t);
  std::sort(singles.begin(), singles.end());
  Hypothesis best_one = constant;
  if (!singles.empty()) best_one = {{terms[singles.front().second]}, singles.front().first};
  Hypothesis best_two;
  for (size_t b = 0; b < std::min(beam, singles.size()); ++b)
    for (size_t t = 0; t < terms.size(); ++t) {
      size_t first = singles[b].second;
      if (t == first) continue;
      double e = judge.cv_error({first, t});
      if (e < best_two.error) best_two = {{terms[first], terms[t]}, e};
    }
  Hypothesis chosen = constant;
  if (clearly_better(best_one.error, chosen.error)) chosen = best_one;
  if (clearly_better(best_two.error, chosen.error)) chosen = best_two;
  return chosen;
}

std::optional<size_t> find_column(const std::vector<std::string>& names, const std::string& name) {
  auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) return std::nullopt;
  return static_cast<size_t>(it - names.begin());
}

bool all_positive(const Matrix& x, size_t col) {
  for (size_t r = 0; r < x.rows; ++r)
    if (!(x.at(r, col) > 0)) return false;
  return true;
}

}  // namespace

const std::vector<double>& extrap_exponents() {
  static const std::vector<double> e = {0, 0.25, 1.0 / 3, 0.5, 2.0 / 3, 0.75, 1, 1.25, 4.0 / 3, 1.5, 2, 3};
  return e;
}

double ExtrapTerm::value(double p, double n) const {
  return power_log(p, p_exponent, p_log) * (n_exponent == 0 && n_log == 0 ? 1.0 : power_log(n, n_exponent, n_log));
}

std::string ExtrapTerm::text(const std::string& p_name, const std::string& n_name) const {
  std::string a = factor_text(p_name, p_exponent, p_log), b = factor_text(n_name, n_exponent, n_log);
  if (a.empty()) return b;
  if (b.empty()) return a;
  return a + "·" + b;
}

double ExtrapModel::predict(double p, double n) const {
  double t = constant;
  for (size_t k = 0; k < terms.size(); ++k) t += coefficients[k] * terms[k].value(p, n);
  return t;
}

std::string ExtrapModel::formula() const {
  std::string out = fmt::format("{:.6g}", constant);
  for (size_t k = 0; k < terms.size(); ++k)
    out += fmt::format(" {} {:.6g}·{}", coefficients[k] < 0 ? "-" : "+", std::abs(coefficients[k]),
                       terms[k].text(process_feature, size_feature.empty() ? "n" : size_feature));
  return out;
}

ExtrapModel fit_extrap(const Matrix& x, const std::vector<std::string>& feature_names, const std::vector<double>& y,
                       const ExtrapOptions& options) {
  std::optional<size_t> p_col;
  std::string p_name = options.process_feature;
  if (!p_name.empty()) {
    p_col = find_column(feature_names, p_name);
    if (!p_col) throw UserError(fmt::format("no feature '{}' for the process count", p_name));
  } else {
    for (const char* name : {"ranks", "p", "np", "procs", "processes"})
      if ((p_col = find_column(feature_names, name))) {
        p_name = name;
        break;
      }
    if (!p_col)
      throw UserError("the Extra-P fit needs the process count: a ranks column or a feature named p, np or procs");
  }
  if (!all_positive(x, *p_col))
    throw UserError(fmt::format("the process count '{}' must be positive in every row", p_name));
  if (y.size() < 3) throw UserError("the Extra-P fit needs at least 3 rows");

  Search s;
  s.y = y;
  s.folds = std::clamp<size_t>(options.folds, 1, y.size());
  std::vector<size_t> order(y.size());
  std::iota(order.begin(), order.end(), 0);
  Rng rng(options.seed);
  rng.shuffle(order);
  s.fold.resize(y.size());
  for (size_t i = 0; i < order.size(); ++i) s.fold[order[i]] = i % s.folds;
  s.p.resize(y.size());
  for (size_t r = 0; r < x.rows; ++r) s.p[r] = x.at(r, *p_col);

  std::vector<std::optional<size_t>> size_candidates;
  if (!options.size_feature.empty()) {
    auto c = find_column(feature_names, options.size_feature);
    if (!c) throw UserError(fmt::format("no feature '{}' for the size parameter", options.size_feature));
    if (!all_positive(x, *c))
      throw UserError(fmt::format("the size parameter '{}' must be positive in every row", options.size_feature));
    size_candidates.push_back(c);
  } else {
    size_candidates.push_back(std::nullopt);
    for (size_t c = 0; c < x.cols; ++c)
      if (c != *p_col && all_positive(x, c)) size_candidates.push_back(c);
  }

  ExtrapModel best;
  Hypothesis best_h;
  std::optional<size_t> best_n;
  for (const auto& n_col : size_candidates) {
    s.n.assign(y.size(), 1.0);
    if (n_col)
      for (size_t r = 0; r < x.rows; ++r) s.n[r] = x.at(r, *n_col);
    Hypothesis h = search(s, n_col.has_value(), options.beam);
    if (clearly_better(h.error, best_h.error) || best_h.error == std::numeric_limits<double>::infinity()) {
      best_h = h;
      best_n = n_col;
    }
  }
  s.n.assign(y.size(), 1.0);
  if (best_n)
    for (size_t r = 0; r < x.rows; ++r) s.n[r] = x.at(r, *best_n);
  Eigen::VectorXd c = s.solve(best_h.terms, std::vector<char>(y.size(), 1));
  best.process_feature = p_name;
  best.size_feature = best_n ? feature_names[*best_n] : "";
  best.constant = c(0);
  best.terms = best_h.terms;
  for (size_t k = 0; k < best_h.terms.size(); ++k) best.coefficients.push_back(c(static_cast<long>(k + 1)));
  best.cv_error = best_h.error;
  return best;
}

}  // namespace perfcast::learn
