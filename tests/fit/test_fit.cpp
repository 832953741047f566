// Fits recover the models that made the data: lines, the paper's two-segment
// dgemm cost (0.173 then 0.165 ns/flop), with and without noise; the choice
// among models takes one segment for a line and two for the paper's data;
// leave-one-out errors match a hand computation; too few points say so.
#include <gtest/gtest.h>

#include "fit/fit.h"
#include "fit/synthetic.h"
#include "support/error.h"

namespace perfcast::fit {
namespace {

using namespace testing;

Measurements csv(const std::string& text, const std::string& source = "synthetic.csv") {
  return parse_measurements(text, "csv", source);
}

// The gap between measured sizes that holds `x`: a breakpoint found from data
// can only be placed to within it.
std::pair<double, double> gap_around(const std::vector<double>& sizes, double x) {
  for (size_t i = 0; i + 1 < sizes.size(); ++i)
    if (sizes[i] < x && x <= sizes[i + 1]) return {sizes[i], sizes[i + 1]};
  return {0, 0};
}

TEST(FitLinear, RecoversAnExactLine) {
  // t = 2 us + 0.3 ns/flop
  auto data = csv(csv_of({1e6, 2e6, 5e6, 1e7, 2e7, 5e7}, [](double x) { return 2e-6 + 0.3e-9 * x; }, Noise(0, 1)));
  FitResult r = fit_one(data, ModelKind::Linear, 1, true, false);
  ASSERT_EQ(r.model.segments.size(), 1u);
  EXPECT_NEAR(r.model.segments[0].intercept_s, 2e-6, 1e-15);
  EXPECT_NEAR(r.model.segments[0].slope_s_per_x / 0.3e-9, 1, 1e-12);
  EXPECT_NEAR(r.r_squared, 1, 1e-12);
  EXPECT_LT(r.max_abs_relative_error, 1e-12);
  ASSERT_TRUE(r.loo_mean_abs_relative_error);
  EXPECT_LT(*r.loo_mean_abs_relative_error, 1e-12);
}

TEST(FitLinear, ThroughTheOriginHasNoConstant) {
  auto data = csv(csv_of({1e7, 3e7, 1e8}, [](double x) { return kSlowSlope * x; }, Noise(0, 1)));
  FitResult r = fit_one(data, ModelKind::Linear, 1, true, true);
  EXPECT_EQ(r.model.segments[0].intercept_s, 0);
  EXPECT_NEAR(r.model.segments[0].slope_s_per_x / kSlowSlope, 1, 1e-12);
  EXPECT_EQ(r.model.parameter_count(), 1);
}

TEST(FitLinear, NoisyLineWithinTheNoise) {
  // 2 % noise, 5 repeats at 10 sizes: the median and the fit should land within 1.5 %.
  auto sizes = log_spaced(1e6, 1e9, 10);
  auto data = csv(csv_of(sizes, [](double x) { return 5e-6 + 0.25e-9 * x; }, Noise(0.02, 42), 5));
  ASSERT_EQ(data.samples.size(), 10u);
  EXPECT_EQ(data.samples[0].repeats, 5);
  FitResult r = fit_one(data, ModelKind::Linear, 1, true, false);
  EXPECT_NEAR(r.model.segments[0].slope_s_per_x / 0.25e-9, 1, 0.015);
  // The constant is 2 % of the smallest time, so the noise there bounds it.
  EXPECT_NEAR(r.model.segments[0].intercept_s, 5e-6, 0.02 * data.samples[0].time_s);
  ASSERT_TRUE(r.loo_mean_abs_relative_error);
  EXPECT_GT(*r.loo_mean_abs_relative_error, 1e-4);  // noise shows in cross-validation ...
  EXPECT_LT(*r.loo_mean_abs_relative_error, 0.02);  // ... but no more than the noise
}

TEST(FitPiecewise, RecoversThePapersTwoSegmentsExactly) {
  auto sizes = log_spaced(1e7, 1e10, 12);
  auto data = csv(csv_of(sizes, paper_time, Noise(0, 1)));
  FitResult r = fit_one(data, ModelKind::Piecewise, 2, false, false);
  ASSERT_EQ(r.model.segments.size(), 2u);
  ASSERT_EQ(r.model.breakpoints.size(), 1u);
  EXPECT_NEAR(r.model.segments[0].slope_s_per_x / kSlowSlope, 1, 1e-9);
  EXPECT_NEAR(r.model.segments[1].slope_s_per_x / kFastSlope, 1, 1e-9);
  EXPECT_NEAR(r.model.segments[0].intercept_s, 0, 1e-12);
  EXPECT_NEAR(r.model.segments[1].intercept_s, 0, 1e-12);
  auto [lo, hi] = gap_around(sizes, kPaperBreak);
  EXPECT_GT(r.model.breakpoints[0], lo);
  EXPECT_LT(r.model.breakpoints[0], hi);
  EXPECT_LT(r.max_abs_relative_error, 1e-9);

  // The paper's form exactly: each segment through the origin.
  FitResult o = fit_one(data, ModelKind::Piecewise, 2, false, true);
  EXPECT_EQ(o.model.segments[0].intercept_s, 0);
  EXPECT_NEAR(o.model.segments[0].slope_s_per_x / kSlowSlope, 1, 1e-12);
  EXPECT_NEAR(o.model.segments[1].slope_s_per_x / kFastSlope, 1, 1e-12);
  EXPECT_EQ(o.model.parameter_count(), 3);
}

TEST(FitPiecewise, RecoversThePapersSlopesThroughNoise) {
  // 1 % noise, 3 repeats at 16 sizes. The slopes differ by 4.6 %: a free
  // constant per segment leaves them within 2 %, the paper's form (through
  // the origin) within 0.5 %.
  auto sizes = log_spaced(1e7, 1e10, 16);
  auto data = csv(csv_of(sizes, paper_time, Noise(0.01, 2008), 3));
  auto [lo, hi] = gap_around(sizes, kPaperBreak);
  for (bool origin : {false, true}) {
    SCOPED_TRACE(origin);
    FitResult r = fit_one(data, ModelKind::Piecewise, 2, false, origin);
    double tolerance = origin ? 0.005 : 0.02;
    EXPECT_NEAR(r.model.segments[0].slope_s_per_x / kSlowSlope, 1, tolerance);
    EXPECT_NEAR(r.model.segments[1].slope_s_per_x / kFastSlope, 1, tolerance);
    EXPECT_GT(r.model.breakpoints[0], lo);
    EXPECT_LT(r.model.breakpoints[0], hi);
  }
}

TEST(FitPiecewise, ContinuousHingeFoundBetweenMeasuredSizes) {
  // t = 1 us + 0.2 ns·x, slope 0.5 ns above x = 3.5e6, continuous: the hinge
  // sits between the measured sizes 3e6 and 4e6 and must be found there.
  auto f = [](double x) { return 1e-6 + 0.2e-9 * x + (x > 3.5e6 ? 0.3e-9 * (x - 3.5e6) : 0); };
  std::vector<double> sizes = {1e6, 2e6, 3e6, 4e6, 5e6, 6e6, 7e6};
  auto data = csv(csv_of(sizes, f, Noise(0, 1)));
  FitResult r = fit_one(data, ModelKind::Piecewise, 2, true, false);
  ASSERT_EQ(r.model.breakpoints.size(), 1u);
  EXPECT_NEAR(r.model.breakpoints[0] / 3.5e6, 1, 1e-6);
  EXPECT_NEAR(r.model.segments[0].slope_s_per_x / 0.2e-9, 1, 1e-6);
  EXPECT_NEAR(r.model.segments[1].slope_s_per_x / 0.5e-9, 1, 1e-6);
  EXPECT_LT(r.max_abs_relative_error, 1e-8);
  // Continuity: both segments give the same time at the breakpoint.
  const auto& s = r.model.segments;
  double b = r.model.breakpoints[0];
  EXPECT_NEAR(s[0].intercept_s + s[0].slope_s_per_x * b, s[1].intercept_s + s[1].slope_s_per_x * b, 1e-15);
}

TEST(FitPiecewise, ThreeSegments) {
  auto f = [](double x) { return x < 4e6 ? 1e-9 * x : x < 8e6 ? 4e-3 + 2e-9 * (x - 4e6) : 12e-3 + 0.5e-9 * (x - 8e6); };
  std::vector<double> sizes;
  for (int i = 1; i <= 12; ++i) sizes.push_back(i * 1e6);
  auto data = csv(csv_of(sizes, f, Noise(0, 1)));
  FitResult r = fit_one(data, ModelKind::Piecewise, 3, true, false);
  ASSERT_EQ(r.model.breakpoints.size(), 2u);
  EXPECT_NEAR(r.model.breakpoints[0], 4e6, 1e-3);
  EXPECT_NEAR(r.model.breakpoints[1], 8e6, 1e-3);
  EXPECT_NEAR(r.model.segments[1].slope_s_per_x, 2e-9, 1e-18);
  EXPECT_LT(r.max_abs_relative_error, 1e-9);
}

TEST(FitPower, RecoversAnExponent) {
  // t = 3e-10 · n^2.5
  auto data = csv(csv_of({100, 200, 400, 800, 1600}, [](double n) { return 3e-10 * std::pow(n, 2.5); }, Noise(0, 1),
                         1, "n"));
  FitResult r = fit_one(data, ModelKind::Power, 1, true, false);
  EXPECT_NEAR(r.model.power_exponent, 2.5, 1e-12);
  EXPECT_NEAR(r.model.power_coefficient_s / 3e-10, 1, 1e-10);
  EXPECT_EQ(r.model.label(), "power");
}

// Noise can make a line look bent, and hide a bend: the choice is right most
// of the time, not always. Over 100 seeds the 1-SE rule chose the line for
// 91 noisy lines (1 % noise) and two segments for 96 of the paper's data sets
// (0.5 % noise); 20 seeds must do at least 16 and 17.
TEST(FitChoice, OneSegmentForAStraightLine) {
  auto sizes = log_spaced(1e6, 1e10, 14);
  auto line = [](double x) { return 1e-5 + 0.2e-9 * x; };
  EXPECT_EQ(fit(csv(csv_of(sizes, line, Noise(0, 1)))).best().model.kind, ModelKind::Linear);
  int linear = 0;
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    FitReport rep = fit(csv(csv_of(sizes, line, Noise(0.01, seed), 3)));
    linear += rep.best().model.kind == ModelKind::Linear;
  }
  EXPECT_GE(linear, 16);
}

TEST(FitChoice, TwoSegmentsForThePapersData) {
  auto sizes = log_spaced(1e7, 1e10, 16);
  FitReport exact = fit(csv(csv_of(sizes, paper_time, Noise(0, 1))));
  EXPECT_EQ(exact.best().model.segment_count(), 2) << exact.best().model.label();
  // The line was tried and lost on cross-validated error.
  ASSERT_EQ(exact.candidates[0].model.kind, ModelKind::Linear);
  EXPECT_GT(*exact.candidates[0].loo_mean_abs_relative_error, 2 * *exact.best().loo_mean_abs_relative_error);
  int two = 0;
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    FitReport rep = fit(csv(csv_of(sizes, paper_time, Noise(0.005, seed), 3)));
    two += rep.best().model.segment_count() == 2;
  }
  EXPECT_GE(two, 17);
}

TEST(FitChoice, PowerLawForACubicKernel) {
  auto data = csv(csv_of({64, 96, 128, 192, 256, 384, 512, 768}, [](double n) { return 2e-9 * n * n * n; },
                         Noise(0.01, 5), 3, "n"));
  EXPECT_EQ(fit(data).best().model.kind, ModelKind::Power);
}

TEST(FitLeaveOneOut, MatchesAHandComputation) {
  // (1,1) (2,2) (3,3) (4,5), unweighted:
  //  without (4,5): the line through the rest is t = x, predicting 4: error (4-5)/5 = -0.2;
  //  without (1,1): least squares on (2,2) (3,3) (4,5) gives t = 1.5x - 7/6, predicting 1/3 at x=1:
  //  error -2/3.
  auto data = csv("x,time_s\n1,1\n2,2\n3,3\n4,5\n");
  FitResult r = fit_one(data, ModelKind::Linear, 1, true, false, Weighting::Equal);
  ASSERT_TRUE(r.points[3].loo_relative_error);
  EXPECT_NEAR(*r.points[3].loo_predicted_s, 4, 1e-12);
  EXPECT_NEAR(*r.points[3].loo_relative_error, -0.2, 1e-12);
  EXPECT_NEAR(*r.points[0].loo_predicted_s, 1.0 / 3, 1e-12);
  EXPECT_NEAR(*r.points[0].loo_relative_error, -2.0 / 3, 1e-12);
  double mean = 0, max = 0;
  for (const auto& p : r.points) mean += std::abs(*p.loo_relative_error) / 4, max = std::max(max, std::abs(*p.loo_relative_error));
  EXPECT_DOUBLE_EQ(*r.loo_mean_abs_relative_error, mean);
  EXPECT_DOUBLE_EQ(*r.loo_max_abs_relative_error, max);
  // In-sample errors are smaller than cross-validated ones: the reason to report the latter.
  EXPECT_LT(r.max_abs_relative_error, max);
}

TEST(FitLeaveOneOut, RefitsSearchTheBreakpointAgain) {
  // Leaving out the first point above the break widens the gap; the refit
  // puts the handover at the new gap's middle, and the held-out point then
  // falls on the slow side: a 4.6 % error the in-sample fit cannot show.
  auto sizes = log_spaced(1e7, 1e10, 12);
  auto data = csv(csv_of(sizes, paper_time, Noise(0, 1)));
  FitResult r = fit_one(data, ModelKind::Piecewise, 2, false, false);
  EXPECT_LT(r.max_abs_relative_error, 1e-9);
  ASSERT_TRUE(r.loo_max_abs_relative_error);
  EXPECT_NEAR(*r.loo_max_abs_relative_error, kSlowSlope / kFastSlope - 1, 1e-6);
}

std::string what_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(FitErrors, TooFewPointsForALine) {
  // Five rows, but only two sizes: repeats are not more sizes.
  auto data = csv("flops,time_s\n1e6,1e-3\n1e6,1.1e-3\n1e6,0.9e-3\n2e6,2e-3\n2e6,2.1e-3\n", "two.csv");
  std::string msg = what_of([&] { fit(data); });
  EXPECT_NE(msg.find("two.csv"), std::string::npos) << msg;
  EXPECT_NE(msg.find("2 distinct flops values, but a line needs at least 3"), std::string::npos) << msg;
}

TEST(FitErrors, TooFewPointsForSegments) {
  auto data = csv(csv_of({1, 2, 3, 4, 5}, [](double x) { return x; }, Noise(0, 1)), "five.csv");
  FitOptions o;
  o.model = FitOptions::Choice::Piecewise;
  o.segments = 3;
  std::string msg = what_of([&] { fit(data, o); });
  EXPECT_NE(msg.find("five.csv"), std::string::npos) << msg;
  EXPECT_NE(msg.find("3 segments need at least 6 (2 per segment)"), std::string::npos) << msg;
  // Auto with the same data: the 3-segment models are skipped with a note, not an error.
  FitReport rep = fit(data);
  bool noted = false;
  for (const auto& n : rep.notes) noted |= n.find("piecewise 3") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(FitErrors, PowerLawNeedsPositiveSizes) {
  auto data = csv("n,time_s\n0,1\n1,2\n2,3\n3,4\n");
  FitOptions o;
  o.model = FitOptions::Choice::Power;
  EXPECT_NE(what_of([&] { fit(data, o); }).find("every n above 0"), std::string::npos);
  EXPECT_NO_THROW(fit(data));  // auto: the power law is skipped, the line fits
}

TEST(FitPredict, FlagsExtrapolation) {
  auto data = csv(csv_of({1e6, 2e6, 4e6}, [](double x) { return 1e-9 * x; }, Noise(0, 1)));
  FitResult r = fit_one(data, ModelKind::Linear, 1, true, false);
  EXPECT_FALSE(predict(data, r.model, 3e6).extrapolated);
  EXPECT_FALSE(predict(data, r.model, 4e6).extrapolated);
  EXPECT_TRUE(predict(data, r.model, 8e6).extrapolated);
  EXPECT_TRUE(predict(data, r.model, 1e5).extrapolated);
  EXPECT_NEAR(predict(data, r.model, 8e6).time_s, 8e-3, 1e-15);
}

}  // namespace
}  // namespace perfcast::fit
