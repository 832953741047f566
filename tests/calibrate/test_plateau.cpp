// Plateau detection on synthetic bandwidth curves whose levels are known.
#include <cmath>

#include <gtest/gtest.h>

#include "machine/calibrate/plateau.h"

namespace perfcast::calibrate {
namespace {

constexpr double KiB = 1024, MiB = 1024 * KiB, GBps = 1e9;

struct TrueLevel {
  double size;       // 0 for DRAM
  double bandwidth;
};

const std::vector<TrueLevel> kZenLike = {
    {48 * KiB, 200 * GBps}, {1 * MiB, 100 * GBps}, {32 * MiB, 50 * GBps}, {0, 15 * GBps}};

// Deterministic noise in [-amplitude, +amplitude], different at each point.
double noise(int i, double amplitude) { return amplitude * std::sin(12.9898 * (i + 1) * 78.233); }

// ln(bandwidth) falls from each level to the next along a logistic of `width`
// octaves centred on the level's size, so the geometric mean of two levels is
// crossed exactly at the size.
std::vector<SweepPoint> curve(const std::vector<TrueLevel>& levels, int per_octave, double width_octaves,
                              double noise_amplitude = 0, double from = 4 * KiB, double to = 256 * MiB) {
  std::vector<SweepPoint> pts;
  int n = static_cast<int>(std::round(std::log2(to / from) * per_octave)) + 1;
  for (int i = 0; i < n; ++i) {
    double bytes = from * std::exp2(static_cast<double>(i) / per_octave);
    double y = std::log(levels.back().bandwidth);
    for (std::size_t k = 0; k + 1 < levels.size(); ++k) {
      double drop = std::log(levels[k].bandwidth / levels[k + 1].bandwidth);
      double t = (std::log2(levels[k].size) - std::log2(bytes)) / std::max(width_octaves, 1e-6);
      y += drop / (1 + std::exp(-t * 4));
    }
    pts.push_back({bytes, std::exp(y + noise(i, noise_amplitude))});
  }
  return pts;
}

void expect_levels(const std::vector<MemoryLevel>& got, const std::vector<TrueLevel>& want, double size_tolerance,
                   double bandwidth_tolerance) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < want.size(); ++k) {
    SCOPED_TRACE(got[k].name);
    bool dram = k + 1 == want.size();
    EXPECT_EQ(got[k].name, dram ? std::string("DRAM") : "L" + std::to_string(k + 1));
    if (!dram) {
      EXPECT_GT(got[k].size_bytes, want[k].size / size_tolerance) << "expected about " << want[k].size;
      EXPECT_LT(got[k].size_bytes, want[k].size * size_tolerance) << "expected about " << want[k].size;
    }
    EXPECT_NEAR(got[k].bandwidth / want[k].bandwidth, 1.0, bandwidth_tolerance);
  }
}

TEST(Plateaus, SharpStepsGiveTheSizesToWithinOneGridStep) {
  auto levels = memory_levels(curve(kZenLike, 4, 0.01));
  expect_levels(levels, kZenLike, std::exp2(0.25), 0.01);
  EXPECT_TRUE(levels.back().settled);
}

TEST(Plateaus, GradualTransitionsWithNoiseStillGiveFourLevels) {
  // Transitions one octave wide, 6 % noise: the shape a real sweep has.
  auto levels = memory_levels(curve(kZenLike, 4, 1.0, 0.06));
  expect_levels(levels, kZenLike, 1.3, 0.1);
}

TEST(Plateaus, QuickGridOfTwoPointsPerOctave) {
  auto levels = memory_levels(curve(kZenLike, 2, 0.7, 0.05));
  expect_levels(levels, kZenLike, 1.5, 0.1);
}

TEST(Plateaus, OneDisturbedSampleDoesNotSplitALevel) {
  auto pts = curve(kZenLike, 4, 0.5);
  pts[30].bandwidth *= 0.5;  // 4 KiB * 2^7.5 ~ 724 KiB, inside L2
  expect_levels(memory_levels(pts), kZenLike, 1.3, 0.05);
}

TEST(Plateaus, SlowerTinyWorkingSetsAreNotALevel) {
  // Call overhead makes the smallest working sets look slower than L1.
  auto pts = curve(kZenLike, 4, 0.5);
  for (int i = 0; i < 5; ++i) pts[i].bandwidth *= 0.4 + 0.1 * i;
  auto levels = memory_levels(pts);
  expect_levels(levels, kZenLike, 1.3, 0.05);
}

TEST(Plateaus, SweepEndingBeforeDramSettlesIsMarkedUnsettled) {
  // The curve is still falling past the L3 at the end of the sweep.
  std::vector<TrueLevel> three = {{48 * KiB, 200 * GBps}, {1 * MiB, 100 * GBps}, {32 * MiB, 50 * GBps},
                                  {0, 10 * GBps}};
  auto pts = curve(three, 4, 0.3, 0, 4 * KiB, 48 * MiB);
  auto levels = memory_levels(pts);
  ASSERT_FALSE(levels.empty());
  EXPECT_EQ(levels.back().name, "DRAM");
  EXPECT_FALSE(levels.back().settled);
  EXPECT_LT(levels.back().bandwidth, 50 * GBps / 1.2);
}

TEST(Plateaus, FlatCurveIsOneLevel) {
  auto levels = memory_levels(curve({{0, 20 * GBps}}, 4, 0.5, 0.03));
  ASSERT_EQ(levels.size(), 1u);
  EXPECT_EQ(levels[0].name, "DRAM");
  EXPECT_NEAR(levels[0].bandwidth / (20 * GBps), 1.0, 0.05);
}

TEST(Plateaus, TwoCacheLevelsAreNamedL1L2ThenDram) {
  std::vector<TrueLevel> two = {{32 * KiB, 120 * GBps}, {2 * MiB, 60 * GBps}, {0, 12 * GBps}};
  expect_levels(memory_levels(curve(two, 4, 0.5, 0.04)), two, 1.3, 0.08);
}

TEST(Plateaus, EmptySweepHasNoLevels) { EXPECT_TRUE(memory_levels({}).empty()); }

}  // namespace
}  // namespace perfcast::calibrate
