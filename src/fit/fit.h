// Cost models for compute blocks, fitted to measured kernel times: what a BSIM
// skeleton passes to BSIM_Add_time (Susukita et al., SC2008, priced dgemm at
// 0.173 ns per flop below a size and 0.165 above).
//
// Models:
//   linear     t = a + b·x                       (optionally a = 0)
//   piecewise  k segments (k = 1..3), each t = a_j + b_j·x, either continuous
//              (hinge regression) or not (one line per segment); breakpoints
//              searched exhaustively between the measured x
//   power      t = a·x^b                          (least squares in log-log)
// Fits minimise squared relative error by default: timing noise grows with the
// time, and data spanning decades would otherwise be fitted at the largest
// sizes only.
//
// Every model is judged by leave-one-out cross-validation (each point
// predicted by the model refitted without it, breakpoints searched again):
// the error a user should expect at a size that was not measured. The choice
// among models takes the fewest segments whose cross-validated error is within
// one standard error of the best (Breiman et al.'s 1-SE rule), so noise alone
// does not buy a second segment; among as many segments, the lowest error.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fit/measurements.h"

namespace perfcast::fit {

enum class ModelKind { Linear, Piecewise, Power };
enum class Join { Auto, Continuous, Discontinuous };
enum class Weighting { Relative, Equal };

const char* kind_name(ModelKind k);  // "linear", "piecewise", "power"

struct Segment {
  double x_from = 0;  // the segment holds x_from <= x < x_to (open at the ends of the model)
  double x_to = 0;
  double intercept_s = 0;
  double slope_s_per_x = 0;
};

// A fitted cost function. Linear models are one segment; power models have
// no segments.
struct Model {
  ModelKind kind = ModelKind::Linear;
  bool continuous = true;      // piecewise: whether the segments meet
  bool through_origin = false;
  std::vector<double> breakpoints;  // k-1, increasing; segment j ends where breakpoint j is
  std::vector<Segment> segments;
  double power_coefficient_s = 0;  // a in a·x^b
  double power_exponent = 0;       // b

  int segment_count() const { return static_cast<int>(segments.size()); }
  int parameter_count() const;    // free parameters, breakpoints included (for BIC)
  std::string label() const;      // "linear", "piecewise 2 (discontinuous)", "power"
  double predict_s(double x) const;
};

struct PointFit {
  double x = 0;
  double time_s = 0;
  double predicted_s = 0;
  double residual_s = 0;         // measured - predicted
  double relative_error = 0;     // (predicted - measured) / measured
  std::optional<double> loo_predicted_s;   // by the model refitted without this point
  std::optional<double> loo_relative_error;
};

struct FitResult {
  Model model;
  std::vector<PointFit> points;
  double r_squared = 0;           // 1 - SS_res/SS_tot, on the times themselves
  double rms_relative_error = 0;  // over the measured points
  double max_abs_relative_error = 0;
  double bic = 0;                 // n·ln(weighted RSS/n) + p·ln n
  // Leave-one-out: absent when a refit without one point has too few points.
  std::optional<double> loo_mean_abs_relative_error;
  std::optional<double> loo_max_abs_relative_error;
  std::optional<double> loo_standard_error;  // of the mean above
  std::optional<double> loo_rms_s;           // absolute, in seconds
};

struct FitOptions {
  enum class Choice { Auto, Linear, Piecewise, Power };
  Choice model = Choice::Auto;
  std::optional<int> segments;  // piecewise: 1..3 fixed; unset: chosen by cross-validation
  Join join = Join::Auto;       // piecewise: both tried unless fixed
  bool through_origin = false;  // linear and piecewise: no constant term (the paper's form)
  Weighting weighting = Weighting::Relative;
};

struct FitReport {
  std::vector<FitResult> candidates;  // every model tried, in a fixed order
  size_t chosen = 0;                  // index into candidates
  std::vector<std::string> notes;     // models skipped and why, for the user
  const FitResult& best() const { return candidates.at(chosen); }
};

// Throws UserError naming the measurements' file when there are too few
// distinct x for the model asked for (3 for a line, 2 per segment, 3 positive
// points for a power law).
FitReport fit(const Measurements& data, const FitOptions& options = {});

// One model, without the choosing (tests, and users who know the form).
// Throws UserError as above.
FitResult fit_one(const Measurements& data, ModelKind kind, int segments, bool continuous, bool through_origin,
                  Weighting weighting = Weighting::Relative);

struct Prediction {
  double x = 0;
  double time_s = 0;
  bool extrapolated = false;  // x outside the measured range
};
Prediction predict(const Measurements& data, const Model& model, double x);

}  // namespace perfcast::fit
