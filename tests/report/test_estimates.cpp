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

}  // namespace
}  // namespace perfcast::report
