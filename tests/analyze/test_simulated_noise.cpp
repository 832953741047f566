// The simulation under the machine's measured noise
// (modelsim::simulate_model_under_noise): cases/time_loop.c, a step loop of n
// multiply-adds (2 flops and one 8-byte load a point) then an allreduce,
// analysed by clang and run on the simulator. Each rank's burst draws one
// quantile of the node's noise; its in-core work takes that quantile's
// stretch, its memory traffic none, and the allreduce waits for the slowest.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "analyze/analyze.h"
#include "machine/machine.h"
#include "machine/machine_io.h"
#include "model/program_model.h"
#include "modelsim/model_simulation.h"

using namespace perfcast;

namespace {

model::ProgramModel time_loop() {
  analyze::AnalyzeOptions o;
  o.sources = {std::string(PERFCAST_SOURCE_DIR) + "/tests/analyze/cases/time_loop.c"};
  o.mca = false;
  return analyze::analyze_model(o);
}

// One node of 8 cores at 1 Gflop/s, an L1 fast enough that its accesses (in-core
// work, stretched with it) never matter. `dram` sets whether the loop, whose
// array is past the L1, is bound by its flops (1 TB/s: 2 ns of flops against
// 0.008 ns of traffic a point) or by its traffic (1 GB/s: 8 ns a point, more
// than 2 ns stretched 3x); `noise` is the node's noise row, or none.
machine::Machine node(const std::string& dram, const std::string& noise) {
  return machine::load_machine_string(R"(
name = "noise-steps"
[node]
count = 1
cores = 8
flops_per_core = "1 Gflop/s"
)" + noise + R"(
[memory]
L1 = { size = "32 KiB", bandwidth = "10 TB/s" }
DRAM = { bandwidth = ")" + dram + R"(" }
[network]
latency = "1 us"
bandwidth = "10 GB/s"
)",
                                      "noise-steps.toml");
}

const std::string kFlopBound = "1 TB/s", kTrafficBound = "1 GB/s";

// A quantum as long as the tests' bursts or longer, so a burst takes one
// quantum's spread, unless a test says otherwise.
std::string noise_row(const std::vector<double>& stretch, const std::string& quantum = "1 ms") {
  std::string list;
  for (double s : stretch) list += (list.empty() ? "" : ", ") + std::to_string(s);
  return "noise = { quantum = \"" + quantum + "\", stretch = [" + list + "] }";
}

std::map<std::string, expr::Value> steps_of(int steps, std::int64_t n) { return {{"steps", steps}, {"n", n}}; }

void expect_same_times(const sim::SimResult& a, const sim::SimResult& b) {
  EXPECT_EQ(a.predicted_time_s, b.predicted_time_s);
  ASSERT_EQ(a.ranks.size(), b.ranks.size());
  for (size_t r = 0; r < a.ranks.size(); ++r) {
    EXPECT_EQ(a.ranks[r].calc_s, b.ranks[r].calc_s) << "rank " << r;
    EXPECT_EQ(a.ranks[r].end_s, b.ranks[r].end_s) << "rank " << r;
  }
}

TEST(SimulatedNoise, WithoutNoiseOrWithNoneMeasuredItIsTheSimulation) {
  const auto m = time_loop();
  const auto params = steps_of(20, 100'000);
  for (const std::string& noise : {std::string(), noise_row({1, 1, 1, 1})}) {
    SCOPED_TRACE(noise.empty() ? "no noise row" : noise);
    const auto machine = node(kFlopBound, noise);
    for (int np : {1, 3}) {
      const auto plain = modelsim::simulate_model(m, machine, np, params);
      const auto noisy = modelsim::simulate_model_under_noise(m, machine, np, params, 7);
      expect_same_times(plain, noisy);
    }
  }
}

// Every quantile s: every draw is s, so each rank's compute time is s times
// the undisturbed one where the flops bind and the same where the traffic does.
TEST(SimulatedNoise, AConstantStretchScalesTheInCoreWorkOnlyExactly) {
  const auto m = time_loop();
  const int np = 2;
  const auto params = steps_of(20, 100'000);
  const double s = 1.7;
  for (const auto& [dram, scale] : {std::pair{kFlopBound, s}, {kTrafficBound, 1.0}}) {
    SCOPED_TRACE(dram);
    const auto plain = modelsim::simulate_model(m, node(dram, ""), np, params);
    const auto noisy = modelsim::simulate_model_under_noise(m, node(dram, noise_row({s, s, s})), np, params, 1);
    // Hand-computed: 20 steps x 100'000 points x 2 ns (flops) or 8 ns (traffic).
    const double expected_plain_calc = 20 * 100'000 * (dram == kFlopBound ? 2e-9 : 8e-9);
    for (int r = 0; r < np; ++r) {
      std::cout << dram << " rank " << r << ": calc expected " << expected_plain_calc << " s, undisturbed "
                << plain.ranks[r].calc_s << " s, under stretch " << s << ": " << noisy.ranks[r].calc_s << " s\n";
      EXPECT_NEAR(plain.ranks[r].calc_s, expected_plain_calc, 1e-3 * expected_plain_calc);
      // Within 1e-6: the rest of main (388 bytes of traffic, 0.4 ns) does not stretch.
      EXPECT_NEAR(noisy.ranks[r].calc_s, scale * plain.ranks[r].calc_s, 1e-6 * plain.ranks[r].calc_s) << "rank " << r;
      // Equal but for rounding: the same messages, added to a later clock.
      EXPECT_NEAR(noisy.ranks[r].comm_s, plain.ranks[r].comm_s, 1e-9 * plain.ranks[r].comm_s)
          << "rank " << r << ": messages are not stretched";
    }
  }
}

// Spread quantiles, equally likely: 1, 1, 1, 2. One rank's steps average 1.25;
// R ranks' steps wait for the slowest of R draws, E = 2 - 0.75^R (1.44, 1.68,
// 1.90 at 2, 4, 8 ranks), which the waits at the allreduce give, no formula.
TEST(SimulatedNoise, EachStepWaitsForItsSlowestRanksDraw) {
  const auto m = time_loop();
  // 1000 steps: the mean of one rank's draws is within 0.014 (one standard
  // deviation) of 1.25, of 8 ranks' slowest within 0.01 of 1.90.
  const int steps = 1000;
  const std::int64_t n = 20'000;
  const auto params = steps_of(steps, n);
  const std::vector<double> spread = {1, 1, 1, 2};
  const auto noisy_node = node(kFlopBound, noise_row(spread));
  const auto mean_node = node(kFlopBound, noise_row({1.25}));
  const auto plain_node = node(kFlopBound, "");
  double previous = 0;
  for (int np : {1, 2, 4, 8}) {
    const auto plain = modelsim::simulate_model(m, plain_node, np, params);
    const auto mean = modelsim::simulate_model_under_noise(m, mean_node, np, params, 1);
    const auto noisy = modelsim::simulate_model_under_noise(m, noisy_node, np, params, 1);
    // The job's stretch of its compute: what the noise added over one rank's undisturbed compute.
    const double compute = plain.ranks[0].calc_s;
    const double stretch = 1 + (noisy.predicted_time_s - plain.predicted_time_s) / compute;
    const machine::Noise noise{.stretch = spread};
    const double expected = machine::expected_slowest_stretch(std::vector<const machine::Noise*>(np, &noise));
    std::cout << np << " ranks: undisturbed " << plain.predicted_time_s << " s, mean-stretched "
              << mean.predicted_time_s << " s, under noise " << noisy.predicted_time_s << " s: stretch " << stretch
              << ", expected slowest of " << np << " draws " << expected << "\n";
    EXPECT_NEAR(stretch, expected, 0.06) << np << " ranks";
    if (np >= 2) {
      EXPECT_GE(noisy.predicted_time_s, mean.predicted_time_s) << np << " ranks";
      EXPECT_GT(noisy.predicted_time_s, previous) << np << " ranks: more ranks, a slower slowest draw";
    }
    previous = noisy.predicted_time_s;
  }
}

// A burst of k quanta takes the mean of k draws (machine::noise_over_span):
// 40 us steps of 10 us quanta narrow 1, 1, 1, 2 by half towards their mean,
// to 1.125 and 1.625, and the job waits for the slowest of those.
TEST(SimulatedNoise, ABurstOfManyQuantaSpreadsLessThanOneQuantum) {
  const auto m = time_loop();
  const auto params = steps_of(1000, 20'000);  // 20'000 points x 2 ns: 40 us a step
  const std::vector<double> spread = {1, 1, 1, 2};
  const auto plain_node = node(kFlopBound, "");
  for (int np : {1, 4}) {
    const auto plain = modelsim::simulate_model(m, plain_node, np, params);
    const auto one_quantum = modelsim::simulate_model_under_noise(m, node(kFlopBound, noise_row(spread)), np, params, 1);
    const auto four = modelsim::simulate_model_under_noise(m, node(kFlopBound, noise_row(spread, "10 us")), np, params, 1);
    const double compute = plain.ranks[0].calc_s;
    const double stretch = 1 + (four.predicted_time_s - plain.predicted_time_s) / compute;
    const machine::Noise noise = machine::noise_over_span(machine::Noise{.quantum_s = 10e-6, .stretch = spread}, 40e-6);
    const double expected = machine::expected_slowest_stretch(std::vector<const machine::Noise*>(np, &noise));
    std::cout << np << " ranks: one quantum a step " << one_quantum.predicted_time_s << " s, four quanta a step "
              << four.predicted_time_s << " s: stretch " << stretch << ", expected " << expected << "\n";
    EXPECT_NEAR(stretch, expected, 0.04) << np << " ranks";
    if (np > 1) EXPECT_LT(four.predicted_time_s, one_quantum.predicted_time_s) << "a narrower spread, a faster slowest";
  }
}

TEST(SimulatedNoise, TheSameSeedGivesTheSameFigure) {
  const auto m = time_loop();
  const auto params = steps_of(50, 10'000);
  const auto machine = node(kFlopBound, noise_row({1, 1.2, 1.5, 2, 3}));
  const auto first = modelsim::simulate_model_under_noise(m, machine, 4, params, 42);
  const auto again = modelsim::simulate_model_under_noise(m, machine, 4, params, 42);
  expect_same_times(first, again);
  const auto other = modelsim::simulate_model_under_noise(m, machine, 4, params, 43);
  EXPECT_NE(other.predicted_time_s, first.predicted_time_s) << "the seed draws the quantiles";
}


// On a node whose sharing is measured (busy_slowdown), ranks that leave the
// allreduce together start their bursts at one moment and the engine prices
// each again as the others join (sim/costs.h). A burst keeps its number, so
// its draw: with a slowdown of 1 (prices as without it) the figure is the
// unmeasured node's, which a draw per pricing call would not give.
TEST(SimulatedNoise, ABurstPricedAgainKeepsItsDraw) {
  const auto m = time_loop();
  const auto params = steps_of(50, 10'000);
  const std::string noise = noise_row({1, 1.5, 2, 3});
  for (int np : {2, 4}) {
    const auto unmeasured = modelsim::simulate_model_under_noise(m, node(kFlopBound, noise), np, params, 3);
    const auto shared =
        modelsim::simulate_model_under_noise(m, node(kFlopBound, noise + "\nbusy_slowdown = 1"), np, params, 3);
    EXPECT_NEAR(shared.predicted_time_s, unmeasured.predicted_time_s, 1e-12 * unmeasured.predicted_time_s)
        << np << " ranks";
    for (int r = 0; r < np; ++r)
      EXPECT_NEAR(shared.ranks[r].calc_s, unmeasured.ranks[r].calc_s, 1e-12 * unmeasured.ranks[r].calc_s)
          << np << " ranks, rank " << r;
  }
}

}  // namespace
