#include "fit/fit.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <tuple>

#include <Eigen/Dense>
#include <fmt/format.h>

#include "support/error.h"

namespace perfcast::fit {

namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Spec {
  ModelKind kind = ModelKind::Linear;
  int segments = 1;
  bool continuous = true;
  bool origin = false;
  Weighting weighting = Weighting::Relative;
};

// The points a fit sees. x is divided by `scale` (the largest |x| of the whole
// data set) so that a column of flops near 1e10 and the constant column have
// comparable norms: least squares on the raw x loses digits.
struct Points {
  std::vector<double> u;  // x / scale, increasing, distinct
  std::vector<double> t;  // seconds
  double scale = 1;
  size_t size() const { return u.size(); }
};

double row_weight(double t, Weighting w) { return w == Weighting::Relative ? 1.0 / t : 1.0; }

struct LeastSquares {
  VectorXd coef;
  double weighted_rss = kInf;
  bool ok = false;
};

LeastSquares solve(const MatrixXd& a, const std::vector<double>& t, Weighting w) {
  const Eigen::Index n = a.rows();
  VectorXd sw(n), b(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    sw[i] = row_weight(t[static_cast<size_t>(i)], w);
    b[i] = sw[i] * t[static_cast<size_t>(i)];
  }
  MatrixXd aw = sw.asDiagonal() * a;
  Eigen::ColPivHouseholderQR<MatrixXd> qr(aw);
  LeastSquares r;
  if (qr.rank() < a.cols()) return r;
  r.coef = qr.solve(b);
  r.weighted_rss = (aw * r.coef - b).squaredNorm();
  r.ok = true;
  return r;
}

// A line through the points u[lo..hi) (indices).
struct Line {
  double a = 0, b = 0;  // t = a + b·u
  double weighted_rss = kInf;
  bool ok = false;
};

Line fit_line(const Points& p, size_t lo, size_t hi, bool origin, Weighting w) {
  const auto n = static_cast<Eigen::Index>(hi - lo);
  MatrixXd a(n, origin ? 1 : 2);
  std::vector<double> t(p.t.begin() + static_cast<long>(lo), p.t.begin() + static_cast<long>(hi));
  for (Eigen::Index i = 0; i < n; ++i) {
    double u = p.u[lo + static_cast<size_t>(i)];
    if (origin) a(i, 0) = u;
    else a(i, 0) = 1, a(i, 1) = u;
  }
  LeastSquares ls = solve(a, t, w);
  Line line;
  if (!ls.ok) return line;
  line.a = origin ? 0 : ls.coef[0];
  line.b = origin ? ls.coef[0] : ls.coef[1];
  line.weighted_rss = ls.weighted_rss;
  line.ok = true;
  return line;
}

// A model fitted in u, before it is turned back into x.
struct UModel {
  std::vector<double> breakpoints;                // in u
  std::vector<std::pair<double, double>> lines;   // (a, b) per segment, in u
  double weighted_rss = kInf;
};

// Continuous piecewise linear with fixed breakpoints: hinge regression
// t = a + b·u + sum_j c_j·max(0, u - beta_j), so the segments meet by construction.
UModel fit_hinge(const Points& p, const std::vector<double>& beta, bool origin, Weighting w) {
  const auto n = static_cast<Eigen::Index>(p.size());
  const int base = origin ? 1 : 2;
  MatrixXd a(n, base + static_cast<Eigen::Index>(beta.size()));
  for (Eigen::Index i = 0; i < n; ++i) {
    double u = p.u[static_cast<size_t>(i)];
    if (origin) a(i, 0) = u;
    else a(i, 0) = 1, a(i, 1) = u;
    for (size_t j = 0; j < beta.size(); ++j) a(i, base + static_cast<Eigen::Index>(j)) = std::max(0.0, u - beta[j]);
  }
  UModel m;
  LeastSquares ls = solve(a, p.t, w);
  if (!ls.ok) return m;
  double intercept = origin ? 0 : ls.coef[0];
  double slope = ls.coef[base - 1];
  m.lines.emplace_back(intercept, slope);
  for (size_t j = 0; j < beta.size(); ++j) {
    double c = ls.coef[base + static_cast<Eigen::Index>(j)];
    intercept -= c * beta[j];
    slope += c;
    m.lines.emplace_back(intercept, slope);
  }
  m.breakpoints = beta;
  m.weighted_rss = ls.weighted_rss;
  return m;
}

size_t count_in(const Points& p, double lo, double hi) {
  size_t n = 0;
  for (double u : p.u)
    if (u >= lo && u <= hi) ++n;
  return n;
}

// Each segment of a continuous model must hold 2 measured x (its ends count).
bool hinge_valid(const Points& p, const std::vector<double>& beta) {
  double lo = -kInf;
  for (size_t j = 0; j <= beta.size(); ++j) {
    double hi = j < beta.size() ? beta[j] : kInf;
    if (hi <= lo || count_in(p, lo, hi) < 2) return false;
    lo = hi;
  }
  return true;
}

double golden_section(const std::function<double(double)>& f, double lo, double hi, double& best_value) {
  const double g = (std::sqrt(5.0) - 1) / 2;
  double a = lo, b = hi;
  double c = b - g * (b - a), d = a + g * (b - a);
  double fc = f(c), fd = f(d);
  for (int it = 0; it < 60 && b - a > 1e-12 * std::max(1.0, std::abs(a)); ++it) {
    if (fc < fd) b = d, d = c, fd = fc, c = b - g * (b - a), fc = f(c);
    else a = c, c = d, fc = fd, d = a + g * (b - a), fd = f(d);
  }
  double x = fc < fd ? c : d;
  best_value = std::min(fc, fd);
  return x;
}

std::optional<UModel> fit_continuous(const Points& p, int k, bool origin, Weighting w) {
  if (p.size() < static_cast<size_t>(2 * k)) return std::nullopt;
  // Candidates: every interior measured x, and a few points inside each gap
  // (a hinge may sit between two sizes); the best is then refined locally.
  const int per_gap = p.size() > 20 ? 1 : 3;
  std::vector<double> cand;
  for (size_t i = 0; i + 1 < p.size(); ++i) {
    if (i > 0) cand.push_back(p.u[i]);
    for (int g = 1; g <= per_gap; ++g) cand.push_back(p.u[i] + (p.u[i + 1] - p.u[i]) * g / (per_gap + 1));
  }
  auto objective = [&](const std::vector<double>& beta) {
    if (!hinge_valid(p, beta)) return kInf;
    return fit_hinge(p, beta, origin, w).weighted_rss;
  };
  std::vector<size_t> best_idx;
  double best = kInf;
  std::vector<size_t> idx(static_cast<size_t>(k - 1));
  std::function<void(size_t, size_t)> search = [&](size_t level, size_t from) {
    if (level == idx.size()) {
      std::vector<double> beta;
      for (size_t i : idx) beta.push_back(cand[i]);
      double v = objective(beta);
      if (v < best) best = v, best_idx = idx;
      return;
    }
    for (size_t i = from; i < cand.size(); ++i) idx[level] = i, search(level + 1, i + 1);
  };
  search(0, 0);
  if (best_idx.empty()) return std::nullopt;

  std::vector<double> beta;
  for (size_t i : best_idx) beta.push_back(cand[i]);
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t j = 0; j < beta.size(); ++j) {
      size_t i = best_idx[j];
      double lo = i > 0 ? cand[i - 1] : p.u.front();
      double hi = i + 1 < cand.size() ? cand[i + 1] : p.u.back();
      std::vector<double> trial = beta;
      double value = kInf;
      double x = golden_section(
          [&](double b) {
            trial[j] = b;
            return objective(trial);
          },
          lo, hi, value);
      if (value < best) best = value, beta[j] = x;
    }
  }
  UModel m = fit_hinge(p, beta, origin, w);
  if (m.lines.empty()) return std::nullopt;
  return m;
}

// Where two fitted lines should hand over, between the last x of one segment
// and the first x of the next: where they cross if they cross in that gap
// (the model is then continuous there), else the middle of the gap.
double handover(double left_u, double right_u, const std::pair<double, double>& l, const std::pair<double, double>& r) {
  if (l.second != r.second) {
    double cross = (r.first - l.first) / (l.second - r.second);
    if (cross > left_u && cross < right_u) return cross;
  }
  return 0.5 * (left_u + right_u);
}

std::optional<UModel> fit_discontinuous(const Points& p, int k, bool origin, Weighting w) {
  const size_t n = p.size();
  if (n < static_cast<size_t>(2 * k)) return std::nullopt;
  std::optional<UModel> best;
  std::vector<size_t> cuts;  // segment j is [cuts[j-1], cuts[j]) in point indices
  std::function<void(size_t)> search = [&](size_t from) {
    if (cuts.size() == static_cast<size_t>(k - 1)) {
      UModel m;
      m.weighted_rss = 0;
      size_t lo = 0;
      for (size_t j = 0; j <= cuts.size(); ++j) {
        size_t hi = j < cuts.size() ? cuts[j] : n;
        Line line = fit_line(p, lo, hi, origin, w);
        if (!line.ok) return;
        m.lines.emplace_back(line.a, line.b);
        m.weighted_rss += line.weighted_rss;
        lo = hi;
      }
      if (!best || m.weighted_rss < best->weighted_rss) {
        for (size_t j = 0; j < cuts.size(); ++j)
          m.breakpoints.push_back(handover(p.u[cuts[j] - 1], p.u[cuts[j]], m.lines[j], m.lines[j + 1]));
        best = std::move(m);
      }
      return;
    }
    // Leave 2 points to every segment still to come.
    size_t remaining = static_cast<size_t>(k - 1) - cuts.size();
    for (size_t c = from + 2; c + 2 * remaining <= n; ++c) {
      cuts.push_back(c);
      search(c);
      cuts.pop_back();
    }
  };
  search(0);
  return best;
}

// Structural minimum of distinct x below which the least squares is not
// determined (used for the leave-one-out refits).
size_t structural_minimum(const Spec& s) {
  switch (s.kind) {
    case ModelKind::Linear: return s.origin ? 1 : 2;
    case ModelKind::Piecewise: return static_cast<size_t>(2 * s.segments);
    case ModelKind::Power: return 2;
  }
  return 2;
}

std::optional<Model> fit_points(const Points& p, const Spec& s) {
  if (p.size() < structural_minimum(s)) return std::nullopt;
  Model model;
  model.kind = s.kind;
  model.through_origin = s.origin;
  model.continuous = s.continuous;
  if (s.kind == ModelKind::Power) {
    // ln t = ln a + b ln x: unweighted in log space, where a residual already is
    // a relative error.
    const auto n = static_cast<Eigen::Index>(p.size());
    MatrixXd a(n, 2);
    std::vector<double> lt(p.size());
    for (Eigen::Index i = 0; i < n; ++i) {
      a(i, 0) = 1;
      a(i, 1) = std::log(p.u[static_cast<size_t>(i)]);
      lt[static_cast<size_t>(i)] = std::log(p.t[static_cast<size_t>(i)]);
    }
    LeastSquares ls = solve(a, lt, Weighting::Equal);
    if (!ls.ok) return std::nullopt;
    // t = e^c·u^b = e^c·scale^-b·x^b
    model.power_exponent = ls.coef[1];
    model.power_coefficient_s = std::exp(ls.coef[0] - ls.coef[1] * std::log(p.scale));
    return model;
  }
  UModel um;
  if (s.kind == ModelKind::Linear || s.segments == 1) {
    model.kind = ModelKind::Linear;
    Line line = fit_line(p, 0, p.size(), s.origin, s.weighting);
    if (!line.ok) return std::nullopt;
    um.lines.emplace_back(line.a, line.b);
  } else {
    auto fitted = s.continuous ? fit_continuous(p, s.segments, s.origin, s.weighting)
                               : fit_discontinuous(p, s.segments, s.origin, s.weighting);
    if (!fitted) return std::nullopt;
    um = std::move(*fitted);
  }
  for (double b : um.breakpoints) model.breakpoints.push_back(b * p.scale);
  for (size_t j = 0; j < um.lines.size(); ++j) {
    Segment seg;
    seg.intercept_s = um.lines[j].first;
    seg.slope_s_per_x = um.lines[j].second / p.scale;
    seg.x_from = j == 0 ? p.u.front() * p.scale : model.breakpoints[j - 1];
    seg.x_to = j + 1 == um.lines.size() ? p.u.back() * p.scale : model.breakpoints[j];
    model.segments.push_back(seg);
  }
  return model;
}

Points points_of(const Measurements& m, double scale, std::optional<size_t> without = std::nullopt) {
  Points p;
  p.scale = scale;
  for (size_t i = 0; i < m.samples.size(); ++i) {
    if (without && *without == i) continue;
    p.u.push_back(m.samples[i].x / scale);
    p.t.push_back(m.samples[i].time_s);
  }
  return p;
}

double scale_of(const Measurements& m) {
  double s = 0;
  for (const auto& smp : m.samples) s = std::max(s, std::abs(smp.x));
  return s > 0 ? s : 1;
}

std::string spec_label(const Spec& s) {
  Model m;
  m.kind = s.kind == ModelKind::Piecewise && s.segments == 1 ? ModelKind::Linear : s.kind;
  m.continuous = s.continuous;
  m.through_origin = s.origin;
  m.segments.resize(static_cast<size_t>(s.kind == ModelKind::Power ? 0 : s.segments));
  return m.label();
}

// What the user must supply, or nullopt when the data suffice.
std::optional<std::string> missing(const Measurements& m, const Spec& s) {
  size_t n = m.samples.size();
  const std::string& x = m.x_name;
  switch (s.kind) {
    case ModelKind::Linear:
      if (n < (s.origin ? 2u : 3u))
        return fmt::format("{} distinct {} value{}, but a line{} needs at least {}", n, x, n == 1 ? "" : "s",
                           s.origin ? " through the origin" : "", s.origin ? 2 : 3);
      break;
    case ModelKind::Piecewise:
      if (n < static_cast<size_t>(2 * s.segments))
        return fmt::format("{} distinct {} value{}, but {} segments need at least {} (2 per segment)", n, x,
                           n == 1 ? "" : "s", s.segments, 2 * s.segments);
      break;
    case ModelKind::Power: {
      size_t positive = 0;
      for (const auto& smp : m.samples) positive += smp.x > 0;
      if (positive < n) return fmt::format("a power law needs every {} above 0", x);
      if (n < 3) return fmt::format("{} distinct {} value{}, but a power law needs at least 3", n, x, n == 1 ? "" : "s");
      break;
    }
  }
  return std::nullopt;
}

FitResult evaluate(const Measurements& m, const Spec& s) {
  if (auto why = missing(m, s))
    throw UserError(*why, {m.source, std::nullopt, m.x_name}, "measure more sizes, or ask for a simpler --model");
  double scale = scale_of(m);
  std::optional<Model> model = fit_points(points_of(m, scale), s);
  if (!model)
    throw UserError(fmt::format("the {} model cannot be fitted: the {} values do not determine it",
                                spec_label(s), m.x_name),
                    {m.source, std::nullopt, m.x_name}, "measure more distinct sizes");
  FitResult r;
  r.model = *model;
  const size_t n = m.samples.size();
  double mean_t = 0;
  for (const auto& smp : m.samples) mean_t += smp.time_s / static_cast<double>(n);
  double ss_res = 0, ss_tot = 0, weighted_rss = 0, sum_rel2 = 0;
  for (const auto& smp : m.samples) {
    PointFit pf;
    pf.x = smp.x;
    pf.time_s = smp.time_s;
    pf.predicted_s = model->predict_s(smp.x);
    pf.residual_s = smp.time_s - pf.predicted_s;
    pf.relative_error = (pf.predicted_s - smp.time_s) / smp.time_s;
    ss_res += pf.residual_s * pf.residual_s;
    ss_tot += (smp.time_s - mean_t) * (smp.time_s - mean_t);
    double wr = row_weight(smp.time_s, s.weighting) * pf.residual_s;
    weighted_rss += s.kind == ModelKind::Power ? std::pow(std::log(smp.time_s / pf.predicted_s), 2) : wr * wr;
    sum_rel2 += pf.relative_error * pf.relative_error;
    r.max_abs_relative_error = std::max(r.max_abs_relative_error, std::abs(pf.relative_error));
    r.points.push_back(pf);
  }
  r.r_squared = ss_tot > 0 ? 1 - ss_res / ss_tot : (ss_res == 0 ? 1 : 0);
  r.rms_relative_error = std::sqrt(sum_rel2 / static_cast<double>(n));
  const double dn = static_cast<double>(n);
  r.bic = dn * std::log(std::max(weighted_rss / dn, std::numeric_limits<double>::min())) +
          model->parameter_count() * std::log(dn);

  // Leave-one-out: refit without each point, breakpoints searched again.
  std::vector<double> abs_rel;
  double sq_s = 0;
  for (size_t i = 0; i < n; ++i) {
    std::optional<Model> without = fit_points(points_of(m, scale, i), s);
    if (!without) {
      abs_rel.clear();
      break;
    }
    double pred = without->predict_s(m.samples[i].x);
    r.points[i].loo_predicted_s = pred;
    r.points[i].loo_relative_error = (pred - m.samples[i].time_s) / m.samples[i].time_s;
    abs_rel.push_back(std::abs(*r.points[i].loo_relative_error));
    sq_s += (pred - m.samples[i].time_s) * (pred - m.samples[i].time_s);
  }
  if (abs_rel.size() == n) {
    double mean = 0, var = 0;
    for (double e : abs_rel) mean += e / dn;
    for (double e : abs_rel) var += (e - mean) * (e - mean) / std::max(1.0, dn - 1);
    r.loo_mean_abs_relative_error = mean;
    r.loo_max_abs_relative_error = *std::max_element(abs_rel.begin(), abs_rel.end());
    r.loo_standard_error = std::sqrt(var / dn);
    r.loo_rms_s = std::sqrt(sq_s / dn);
  } else {
    for (auto& pf : r.points) pf.loo_predicted_s.reset(), pf.loo_relative_error.reset();
  }
  return r;
}

}  // namespace

const char* kind_name(ModelKind k) {
  switch (k) {
    case ModelKind::Linear: return "linear";
    case ModelKind::Piecewise: return "piecewise";
    case ModelKind::Power: return "power";
  }
  return "?";
}

int Model::parameter_count() const {
  const int per_line = through_origin ? 1 : 2;
  switch (kind) {
    case ModelKind::Linear: return per_line;
    case ModelKind::Power: return 2;
    case ModelKind::Piecewise: {
      const int k = segment_count();
      // A continuous model adds a slope change and a breakpoint per hinge; a
      // discontinuous one a whole line and a breakpoint per segment.
      return continuous ? per_line + 2 * (k - 1) : per_line * k + (k - 1);
    }
  }
  return 0;
}

std::string Model::label() const {
  std::string origin = through_origin ? ", through 0" : "";
  switch (kind) {
    case ModelKind::Linear: return "linear" + origin;
    case ModelKind::Power: return "power";
    case ModelKind::Piecewise:
      return fmt::format("piecewise {} ({}{})", segment_count(), continuous ? "continuous" : "discontinuous", origin);
  }
  return "?";
}

double Model::predict_s(double x) const {
  if (kind == ModelKind::Power) return power_coefficient_s * std::pow(x, power_exponent);
  size_t j = 0;
  while (j < breakpoints.size() && x >= breakpoints[j]) ++j;
  return segments[j].intercept_s + segments[j].slope_s_per_x * x;
}

FitResult fit_one(const Measurements& data, ModelKind kind, int segments, bool continuous, bool through_origin,
                  Weighting weighting) {
  if (kind == ModelKind::Piecewise && (segments < 1 || segments > 3))
    throw UserError(fmt::format("{} segments: expected 1, 2 or 3", segments), {}, "check --segments");
  return evaluate(data, Spec{kind, kind == ModelKind::Piecewise ? segments : 1, continuous, through_origin, weighting});
}

FitReport fit(const Measurements& data, const FitOptions& o) {
  using Choice = FitOptions::Choice;
  if (o.segments && (*o.segments < 1 || *o.segments > 3))
    throw UserError(fmt::format("{} segments: expected 1, 2 or 3", *o.segments), {}, "check --segments");
  if (o.segments && o.model != Choice::Piecewise && o.model != Choice::Auto)
    throw UserError("a number of segments only applies to the piecewise model", {}, "use --model piecewise");

  // The candidates, in a fixed order from simplest: ties go to the earlier.
  std::vector<Spec> specs;
  auto add = [&](ModelKind kind, int k, bool continuous) {
    specs.push_back(Spec{kind, k, continuous, o.through_origin, o.weighting});
  };
  auto add_piecewise = [&](int k) {
    if (k == 1) return add(ModelKind::Linear, 1, true);
    if (o.join != Join::Discontinuous) add(ModelKind::Piecewise, k, true);
    if (o.join != Join::Continuous) add(ModelKind::Piecewise, k, false);
  };
  bool piecewise_only = o.model == Choice::Piecewise || (o.model == Choice::Auto && o.segments);
  if (o.model == Choice::Linear) add(ModelKind::Linear, 1, true);
  if (o.model == Choice::Power) add(ModelKind::Power, 1, true);
  if (piecewise_only) {
    if (o.segments) add_piecewise(*o.segments);
    else for (int k = 1; k <= 3; ++k) add_piecewise(k);
  }
  if (o.model == Choice::Auto && !o.segments) {
    for (int k = 1; k <= 3; ++k) add_piecewise(k);
    add(ModelKind::Power, 1, true);
  }

  FitReport report;
  // The simplest candidate must fit, or the data are too few for what was asked.
  if (auto why = missing(data, specs.front()))
    throw UserError(*why, {data.source, std::nullopt, data.x_name},
                    specs.size() > 1 || specs.front().kind == ModelKind::Linear
                        ? "measure more sizes"
                        : "measure more sizes, or ask for a simpler --model");
  for (const Spec& s : specs) {
    if (auto why = missing(data, s)) {
      report.notes.push_back(fmt::format("{} not tried: {}", spec_label(s), *why));
      continue;
    }
    report.candidates.push_back(evaluate(data, s));
  }

  const auto& c = report.candidates;
  std::optional<size_t> best;
  for (size_t i = 0; i < c.size(); ++i)
    if (c[i].loo_mean_abs_relative_error &&
        (!best || *c[i].loo_mean_abs_relative_error < *c[*best].loo_mean_abs_relative_error))
      best = i;
  if (best) {
    // 1-SE rule; the absolute term lets exact data (all errors ~1e-16) pick the simplest.
    double threshold = *c[*best].loo_mean_abs_relative_error + *c[*best].loo_standard_error + 1e-9;
    // Simplicity is counted in segments, not parameters: a jump between two
    // measured sizes costs a continuous model a visible misfit, and the
    // paper's dgemm cost had one. Among equally simple models the lower
    // cross-validated error wins, except that a line goes before a power law
    // (flop-priced compute is linear in its work unless the data say not).
    auto key = [&](size_t i) {
      return std::make_tuple(std::max(1, c[i].model.segment_count()), c[i].model.kind == ModelKind::Power,
                             *c[i].loo_mean_abs_relative_error);
    };
    size_t chosen = *best;
    for (size_t i = 0; i < c.size(); ++i) {
      if (!c[i].loo_mean_abs_relative_error || *c[i].loo_mean_abs_relative_error > threshold) continue;
      if (key(i) < key(chosen)) chosen = i;
    }
    report.chosen = chosen;
    if (chosen != *best)
      report.notes.push_back(fmt::format(
          "chose {} over {}: its cross-validated error is within one standard error of the best, with fewer "
          "segments",
          c[chosen].model.label(), c[*best].model.label()));
  } else {
    size_t chosen = 0;
    for (size_t i = 1; i < c.size(); ++i)
      if (c[i].bic < c[chosen].bic) chosen = i;
    report.chosen = chosen;
    if (c.size() > 1)
      report.notes.push_back(
          "too few points to cross-validate any model: chosen by BIC; measure more sizes to learn the error at "
          "sizes not measured");
    else
      report.notes.push_back("too few points to cross-validate: measure more sizes to learn the error at sizes "
                             "not measured");
  }
  return report;
}

Prediction predict(const Measurements& data, const Model& model, double x) {
  return Prediction{x, model.predict_s(x), x < data.x_min() || x > data.x_max()};
}

}  // namespace perfcast::fit
