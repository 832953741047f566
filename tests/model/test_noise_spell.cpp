// A noise whose states persist (machine::Noise::spell_s) in both estimates:
// predict's noisy time narrows a step's quantiles by the spells it holds, not
// the quanta, and the simulation keeps a rank's drawn quantile for a spell of
// its compute. A hand model: `steps` steps of 1e6 flops (1 ms at 1 Gflop/s)
// then an allreduce, on one node of 8 cores.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "machine/machine_io.h"
#include "model/predict.h"
#include "model_text.h"
#include "modelsim/model_simulation.h"

using namespace perfcast;
using perfcast::testing::model_from;

namespace {

const char* kEightCoreNode = R"(
name = "spell"
[node]
count = 1
cores = 8
flops_per_core = "1 Gflop/s"
[memory]
L1 = { size = "32 KiB", bandwidth = "100 GB/s" }
DRAM = { bandwidth = "10 GB/s" }
[network]
latency = "1 us"
bandwidth = "10 GB/s"
)";

machine::Machine node(const std::vector<std::string>& overrides) {
  return machine::load_machine_string(kEightCoreNode, "spell.toml", ".", overrides);
}

// Quanta of 1 us at 1x or 2x, equally likely; `spell` adds noise.spell when not empty.
std::string noise(const std::string& spell = "") {
  const std::string spell_key = spell.empty() ? "" : ", spell = \"" + spell + "\"";
  return "node.noise={ quantum = \"1 us\", stretch = [1.0, 2.0]" + spell_key + " }";
}

model::ProgramModel steps_model() {
  return model_from(R"J({"main": {"body": [
      {"kind": "loop", "line": 5, "trip_count": "steps", "body": [
        {"kind": "compute", "flops_double": "1000000"},
        {"kind": "mpi", "op": "allreduce", "bytes": "8"}]}]}})J",
                    R"J("parameters": {"steps": {}})J");
}

std::map<std::string, expr::Value> steps(int n) { return {{"steps", n}}; }

model::Prediction predict(const machine::Machine& machine, int np) {
  const auto m = steps_model();
  return model::predict(m, model::symbolic_costs(m), machine, np, steps(10));
}

// Two ranks, each step's stretch from [1, 2] narrowed by n towards 1.5: the
// slowest of two is the top one unless both are low, 1.5 + 0.25 n.
TEST(NoiseSpell, PredictNarrowsAStepByTheSpellsItHoldsNotItsQuanta) {
  const auto independent = predict(node({noise()}), 2);
  const double step_s = independent.ranks[0].noise_step_s;
  ASSERT_GT(step_s, 1e-3);  // the 1 ms of flops and the allreduce
  const double narrowed_by_quanta = 1 / std::sqrt(step_s / 1e-6);
  EXPECT_NEAR(independent.noise_stretch, 1.5 + 0.25 * narrowed_by_quanta, 1e-9);
  // A spell of a quarter millisecond: about 4 samples a step, the spread about halved.
  const auto quarter = predict(node({noise("0.25 ms")}), 2);
  EXPECT_NEAR(quarter.noise_stretch, 1.5 + 0.25 / std::sqrt(step_s / 0.25e-3), 1e-9);
  // A spell longer than the step: one quantum's spread, 0.25 x 1 + 0.75 x 2.
  const auto long_spell = predict(node({noise("2 ms")}), 2);
  EXPECT_DOUBLE_EQ(long_spell.noise_stretch, 1.75);
  std::cout << "step " << step_s << " s: stretch " << independent.noise_stretch << " (independent quanta), "
            << quarter.noise_stretch << " (0.25 ms spell), " << long_spell.noise_stretch << " (2 ms spell)\n";
  EXPECT_LT(independent.noise_stretch, quarter.noise_stretch);
  EXPECT_LT(quarter.noise_stretch, long_spell.noise_stretch);
}

// A spell longer than the whole run: each rank draws once and keeps it, so
// its compute is exactly 1x or 2x the undisturbed (a 1 ms burst within the
// spell is not narrowed), and the job waits for its slowest rank's state.
// Without the spell each 1 ms burst is 1000 independent quanta, all near
// 1.5x, and the figure differs.
TEST(NoiseSpell, ASpellLongerThanTheRunKeepsOneQuantilePerRank) {
  const auto m = steps_model();
  const int np = 8;
  const auto plain = modelsim::simulate_model(m, node({}), np, steps(50));
  std::set<double> states_seen;
  for (std::uint64_t seed : {1, 2, 3}) {
    const auto kept = modelsim::simulate_model_under_noise(m, node({noise("100 s")}), np, steps(50), seed);
    const auto independent = modelsim::simulate_model_under_noise(m, node({noise()}), np, steps(50), seed);
    double slowest_state = 0;
    for (int r = 0; r < np; ++r) {
      const double state = kept.ranks[r].calc_s / plain.ranks[r].calc_s;
      EXPECT_TRUE(std::abs(state - 1) < 1e-9 || std::abs(state - 2) < 1e-9)
          << "seed " << seed << ", rank " << r << ": compute at " << state << "x, not one quantile";
      states_seen.insert(std::round(state));
      slowest_state = std::max(slowest_state, state);
      const double mixed = independent.ranks[r].calc_s / plain.ranks[r].calc_s;
      EXPECT_NEAR(mixed, 1.5, 0.05) << "seed " << seed << ", rank " << r << ": bursts of 1000 independent quanta";
    }
    std::cout << "seed " << seed << ": undisturbed " << plain.predicted_time_s << " s, one state a rank "
              << kept.predicted_time_s << " s (slowest state " << slowest_state << "x), independent quanta "
              << independent.predicted_time_s << " s\n";
    // The job waits each step for the slowest rank, whose state holds: its compute, then the last allreduce.
    EXPECT_NEAR(kept.predicted_time_s, slowest_state * plain.ranks[0].calc_s,
                0.01 * plain.ranks[0].calc_s);
    EXPECT_GT(std::abs(kept.predicted_time_s - independent.predicted_time_s), 0.1 * plain.predicted_time_s);
  }
  EXPECT_EQ(states_seen.size(), 2u) << "over 24 ranks' draws, both states";
}

// A node that measured its sharing (busy_slowdown) has the engine price a
// cohort's bursts again as each rank joins (sim/costs.h). A burst priced again
// keeps the spell it started in and its seconds count once towards the
// rank's spells: with a slowdown of 1 the figure is the unmeasured node's.
TEST(NoiseSpell, ABurstPricedAgainCountsOnceTowardsItsRanksSpell) {
  const auto m = steps_model();
  for (int np : {2, 4}) {
    const auto unmeasured = modelsim::simulate_model_under_noise(m, node({noise("5 ms")}), np, steps(60), 3);
    const auto shared =
        modelsim::simulate_model_under_noise(m, node({noise("5 ms"), "node.busy_slowdown=1"}), np, steps(60), 3);
    EXPECT_NEAR(shared.predicted_time_s, unmeasured.predicted_time_s, 1e-12 * unmeasured.predicted_time_s)
        << np << " ranks";
    for (int r = 0; r < np; ++r)
      EXPECT_NEAR(shared.ranks[r].calc_s, unmeasured.ranks[r].calc_s, 1e-12 * unmeasured.ranks[r].calc_s)
          << np << " ranks, rank " << r;
  }
}

// A spell of 5 ms over 60 bursts of 1-2 ms: a rank's state changes every few
// bursts, so its compute lies between the two states, not at one of them,
// and the same seed gives the same figure.
TEST(NoiseSpell, ARankChangesStateFromSpellToSpell) {
  const auto m = steps_model();
  const auto plain = modelsim::simulate_model(m, node({}), 4, steps(60));
  const auto first = modelsim::simulate_model_under_noise(m, node({noise("5 ms")}), 4, steps(60), 9);
  const auto again = modelsim::simulate_model_under_noise(m, node({noise("5 ms")}), 4, steps(60), 9);
  EXPECT_EQ(first.predicted_time_s, again.predicted_time_s);
  for (int r = 0; r < 4; ++r) {
    const double state = first.ranks[r].calc_s / plain.ranks[r].calc_s;
    EXPECT_GT(state, 1.05) << "rank " << r << ": some spells slow";
    EXPECT_LT(state, 1.95) << "rank " << r << ": some spells fast";
  }
}

}  // namespace
