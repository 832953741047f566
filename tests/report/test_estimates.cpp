// A prediction as a list of named estimates: every method gives its time,
// its slowest rank and its per-rank figures, or why it has none.
#include <gtest/gtest.h>

#include "report/estimates.h"

namespace perfcast::report {
namespace {

// Two ranks; rank 1 slowest under the formula, rank 0 under MCA.
model::Prediction two_ranks() {
  model::Prediction p;
  p.np = 2;
  p.ranks.resize(2);
  p.ranks[0].time_s = 1.0, p.ranks[1].time_s = 2.0;
  p.ranks[0].mca_time_s = 3.0, p.ranks[1].mca_time_s = 1.5;
  p.ranks[0].refined_time_s = 0.5, p.ranks[1].refined_time_s = 0.75;
  p.predicted_time_s = 2.0, p.slowest_rank = 1;
  p.mca_available = true, p.mca_time_s = 3.0;
  p.footprint_note = "rank 0: a loop footprint does not evaluate (x)";
  p.refined_time_s = 0.75, p.refined_slowest_rank = 1;
  return p;
}

const Estimate& named(const std::vector<Estimate>& list, const std::string& name) {
  for (const auto& e : list)
    if (e.name == name) return e;
  throw std::runtime_error("no estimate " + name);
}

TEST(Estimates, EveryMethodInOrderWithItsFiguresOrItsReason) {
  auto list = prediction_estimates(two_ranks(), nullptr);
  std::vector<std::string> names;
  for (const auto& e : list) names.push_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"formula", "mca", "footprint", "refined", "noisy", "simulated",
                                             "simulated-noisy"}));

  const auto& formula = named(list, "formula");
  EXPECT_EQ(formula.time_s, 2.0);
  EXPECT_EQ(formula.slowest_rank, 1);
  EXPECT_EQ(formula.rank_time_s, (std::vector<double>{1.0, 2.0}));

  const auto& mca = named(list, "mca");
  EXPECT_EQ(mca.time_s, 3.0);
  EXPECT_EQ(mca.slowest_rank, 0) << "its own slowest rank, not the formula's";

  const auto& footprint = named(list, "footprint");
  EXPECT_FALSE(footprint.time_s);
  EXPECT_EQ(footprint.unavailable, "rank 0: a loop footprint does not evaluate (x)");
  EXPECT_TRUE(footprint.rank_time_s.empty());

  EXPECT_EQ(named(list, "refined").rank_time_s, (std::vector<double>{0.5, 0.75}));
  EXPECT_FALSE(named(list, "noisy").time_s);
  EXPECT_FALSE(named(list, "simulated").time_s);
  EXPECT_FALSE(named(list, "simulated").unavailable.empty());
  EXPECT_EQ(named(list, "simulated-noisy").unavailable, "the machine file has no node.noise");
  for (const auto& e : list) EXPECT_EQ(e.time_s.has_value(), e.unavailable.empty()) << e.name;
}

TEST(Estimates, NoiseIsAJobFigureAndTheSimulationGivesEachRanksEnd) {
  auto p = two_ranks();
  p.noise_available = true, p.noise_stretch = 1.2, p.noisy_time_s = 0.9;
  sim::SimResult s;
  s.ranks = {{0.4, 0.3, 0.1, 0.8}, {0.7, 0.0, 0.1, 0.8125}};
  s.predicted_time_s = 0.8125, s.slowest_rank = 1;
  auto list = prediction_estimates(p, &s);

  const auto& noisy = named(list, "noisy");
  EXPECT_EQ(noisy.time_s, 0.9);
  EXPECT_FALSE(noisy.slowest_rank) << "the expected slowest of the stretches is no one rank's";

  const auto& simulated = named(list, "simulated");
  EXPECT_EQ(simulated.engine, Estimate::Engine::Simulator);
  EXPECT_EQ(simulated.time_s, 0.8125);
  EXPECT_EQ(simulated.slowest_rank, 1);
  EXPECT_EQ(simulated.rank_time_s, (std::vector<double>{0.8, 0.8125}));
  EXPECT_EQ(named(list, "simulated-noisy").unavailable, "not simulated (predict --simulate runs it)");
}

// The simulation under noise is its own estimate beside the plain one, from
// its own run; for a timed part, its run minus its own baseline's.
TEST(Estimates, TheSimulationUnderNoiseIsItsOwnEstimate) {
  auto p = two_ranks();
  p.noise_available = true, p.noise_stretch = 1.2, p.noisy_time_s = 0.9;
  sim::SimResult plain, noisy, plain_base, noisy_base;
  plain.ranks = {{0.4, 0.3, 0.1, 0.8}, {0.7, 0.0, 0.1, 0.8125}};
  plain.predicted_time_s = 0.8125, plain.slowest_rank = 1;
  noisy.ranks = {{0.6, 0.3, 0.1, 1.0}, {0.9, 0.0, 0.1, 0.9}};
  noisy.predicted_time_s = 1.0, noisy.slowest_rank = 0;
  auto list = prediction_estimates(p, &plain, nullptr, &noisy);
  const auto& e = named(list, "simulated-noisy");
  EXPECT_EQ(e.engine, Estimate::Engine::Simulator);
  EXPECT_EQ(e.time_s, 1.0);
  EXPECT_EQ(e.slowest_rank, 0);
  EXPECT_EQ(e.rank_time_s, (std::vector<double>{1.0, 0.9}));
  EXPECT_EQ(named(list, "simulated").time_s, 0.8125) << "the plain simulation stays as it was";

  plain_base.ranks = {{0.1, 0, 0, 0.25}, {0.1, 0, 0, 0.25}};
  plain_base.predicted_time_s = 0.25;
  noisy_base.ranks = {{0.1, 0, 0, 0.5}, {0.1, 0, 0, 0.25}};
  noisy_base.predicted_time_s = 0.5;
  auto timed = prediction_estimates(p, &plain, &plain_base, &noisy, &noisy_base);
  EXPECT_EQ(named(timed, "simulated-noisy").time_s, 0.5);
  EXPECT_EQ(named(timed, "simulated-noisy").rank_time_s, (std::vector<double>{0.5, 0.65}));
  EXPECT_EQ(named(timed, "simulated").time_s, 0.5625);
}

// The estimate to read first: the noise's where the machine file has it (the
// simulated one where predict ran it), its range from the refined time to
// the run in the noise's slowest state; without noise the refined time, a
// lower bound with no upper end.
TEST(Estimates, TheFirstEstimateIsTheNoisesWithItsEnvelope) {
  auto p = two_ranks();
  auto quiet = first_estimate(prediction_estimates(p, nullptr), p);
  EXPECT_EQ(quiet.which, "refined");
  EXPECT_EQ(quiet.time_s, 0.75);
  EXPECT_EQ(quiet.fastest_state_s, 0.75);
  EXPECT_FALSE(quiet.slowest_state_s) << "no node.noise: no slowest state";
  EXPECT_FALSE(quiet.inside_envelope);

  sim::SimResult plain;
  plain.ranks = {{0.4, 0.3, 0.1, 0.8}, {0.7, 0.0, 0.1, 0.8125}};
  plain.predicted_time_s = 0.8125, plain.slowest_rank = 1;
  EXPECT_EQ(first_estimate(prediction_estimates(p, &plain), p).which, "simulated")
      << "without noise the simulation, which prices the waits, leads";

  p.noise_available = true, p.noise_stretch = 1.2, p.noisy_time_s = 0.9, p.noisy_slowest_state_time_s = 1.5;
  auto noisy = first_estimate(prediction_estimates(p, nullptr), p);
  EXPECT_EQ(noisy.which, "noisy");
  EXPECT_EQ(noisy.time_s, 0.9);
  EXPECT_EQ(noisy.fastest_state_s, 0.75);
  EXPECT_EQ(noisy.slowest_state_s, 1.5);
  EXPECT_EQ(noisy.inside_envelope, true);

  sim::SimResult under_noise;
  under_noise.ranks = {{0.6, 0.3, 0.1, 1.0}, {0.9, 0.0, 0.1, 0.9}};
  under_noise.predicted_time_s = 1.0, under_noise.slowest_rank = 0;
  auto simulated = first_estimate(prediction_estimates(p, &plain, nullptr, &under_noise), p);
  EXPECT_EQ(simulated.which, "simulated-noisy");
  EXPECT_EQ(simulated.time_s, 1.0);
  EXPECT_EQ(simulated.inside_envelope, true);

  // A simulation that overlaps what the refined time adds up lies below the range, and says so.
  under_noise.predicted_time_s = 0.5;
  EXPECT_EQ(first_estimate(prediction_estimates(p, &plain, nullptr, &under_noise), p).inside_envelope, false);

  // A timed part whose simulated difference is unavailable falls back to the noisy estimate.
  sim::SimResult longer_baseline = under_noise;
  longer_baseline.predicted_time_s = 2.0;
  auto timed = first_estimate(prediction_estimates(p, &plain, &plain, &under_noise, &longer_baseline), p);
  EXPECT_EQ(timed.which, "noisy");
}

}  // namespace
}  // namespace perfcast::report
