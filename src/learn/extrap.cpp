#include "learn/extrap.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <Eigen/Dense>
#include <fmt/format.h>

#include "support/error.h"

namespace perfcast::learn {

namespace {

std::string exponent_text(double e) {
  static const std::pair<double, const char*> fractions[] = {{0.25, "1/4"}, {1.0 / 3, "1/3"}, {0.5, "1/2"},
                                                              {2.0 / 3, "2/3"}, {0.75, "3/4"}, {1.25, "5/4"},
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

  // Least squares on relative residuals over the rows `use` says; returns
  // [c0, c_1, ...].
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

  static double evaluate(const std::vector<ExtrapTerm>& terms, const Eigen::VectorXd& c, double p, double n) {
    double t = c(0);
    for (size_t k = 0; k < terms.size(); ++k) t += c(static_cast<long>(k + 1)) * terms[k].value(p, n);
    return t;
  }

  double cv_error(const std::vector<ExtrapTerm>& terms) const {
    double sum = 0;
    size_t count = 0;
    std::vector<char> use(y.size());
    for (size_t f = 0; f < folds; ++f) {
      for (size_t i = 0; i < y.size(); ++i) use[i] = folds == 1 || fold[i] != f;
      Eigen::VectorXd c = solve(terms, use);
      for (size_t i = 0; i < y.size(); ++i) {
        if (folds > 1 && fold[i] != f) continue;
        double e = std::abs(evaluate(terms, c, p[i], n[i]) - y[i]) / y[i];
        sum += std::isfinite(e) ? e : 1e300;
        ++count;
      }
    }
    return count ? sum / static_cast<double>(count) : std::numeric_limits<double>::infinity();
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

Hypothesis search(const Search& s, bool with_n, size_t beam) {
  std::vector<ExtrapTerm> terms = candidate_terms(with_n);
  Hypothesis constant{{}, s.cv_error({})};
  std::vector<Hypothesis> singles;
  for (const auto& t : terms) singles.push_back({{t}, s.cv_error({t})});
  std::sort(singles.begin(), singles.end(), [](const auto& a, const auto& b) { return a.error < b.error; });
  Hypothesis best_one = singles.empty() ? constant : singles.front();
  Hypothesis best_two;
  for (size_t b = 0; b < std::min(beam, singles.size()); ++b)
    for (const auto& t : terms) {
      const ExtrapTerm& first = singles[b].terms[0];
      if (t.p_exponent == first.p_exponent && t.p_log == first.p_log && t.n_exponent == first.n_exponent &&
          t.n_log == first.n_log)
        continue;
      std::vector<ExtrapTerm> pair{first, t};
      double e = s.cv_error(pair);
      if (e < best_two.error) best_two = {pair, e};
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
