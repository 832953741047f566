// The analytic predictor on machines small enough to price by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "machine/machine_io.h"
#include "model/predict.h"
#include "model_text.h"
#include "support/error.h"

using namespace perfcast;
using namespace perfcast::model;
using perfcast::testing::model_from;

namespace {

const char* kTwoCoreNode = R"(
name = "hand"
[node]
count = 2
cores = 2
flops_per_core = "1 Gflop/s"
flops_per_core_single = "2 Gflop/s"
[memory]
L1 = { size = "32 KiB", bandwidth = "100 GB/s" }
DRAM = { bandwidth = "10 GB/s", node_bandwidth = "10 GB/s" }
[math]
sin = 50
[network]
latency = "10 us"
bandwidth = "1 GB/s"
intra_node_latency = "1 us"
intra_node_bandwidth = "4 GB/s"
)";

machine::Machine hand_machine(const std::vector<std::string>& overrides = {}) {
  return machine::load_machine_string(kTwoCoreNode, "hand.toml", ".", overrides);
}

Prediction run(const ProgramModel& m, const machine::Machine& machine, int np,
               std::map<std::string, expr::Value> params = {}, PredictOptions options = {}) {
  return predict(m, symbolic_costs(m), machine, np, params, options);
}

}  // namespace

TEST(Predict, PlainFormulaByHand) {
  // Each rank: 1e9 double flops, 1e9 bytes from DRAM; rank 0 sends 10 x 1 MB to rank 1.
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "compute", "flops_double": "1000000000", "load_bytes": "1000000000"},
      {"kind": "loop", "trip_count": 10, "body": [
        {"kind": "mpi", "op": "send", "peer": "select(rank == 0, 1, -1)", "bytes": "1000000"},
        {"kind": "mpi", "op": "recv", "peer": "select(rank == 1, 0, -1)", "bytes": "1000000"}]}]}})J");
  Prediction p = run(m, hand_machine(), 2);
  ASSERT_EQ(p.ranks.size(), 2u);
  const auto& r0 = p.ranks[0];
  // compute: 1e9 / 1e9 = 1 s. memory: two ranks share the node's 10 GB/s -> 5 GB/s each -> 0.2 s.
  EXPECT_DOUBLE_EQ(r0.compute_s, 1.0);
  EXPECT_DOUBLE_EQ(r0.memory_s, 0.2);
  EXPECT_FALSE(r0.memory_bound);
  // Both ranks on node 0 (block mapping, 2 cores): intra-node 1 us and 4 GB/s.
  EXPECT_NEAR(r0.latency_s, 10 * 1e-6, 1e-15);
  EXPECT_NEAR(r0.transfer_s, 10 * 1e6 / 4e9, 1e-15);
  EXPECT_NEAR(r0.time_s, 1.0 + 10e-6 + 2.5e-3, 1e-12);
  EXPECT_NEAR(p.ranks[1].time_s, 1.0, 1e-12);  // it only receives
  EXPECT_EQ(p.slowest_rank, 0);
  EXPECT_DOUBLE_EQ(p.predicted_time_s, r0.time_s);
  // all-L1: 1e9 / 100e9 = 0.01 s, still compute-bound.
  EXPECT_NEAR(p.time_s_if_all_in.at("L1"), 1.0 + 10e-6 + 2.5e-3, 1e-12);
}

TEST(Predict, RanksOnAnotherNodeUseTheNetwork) {
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "mpi", "op": "send", "peer": "select(rank == 0, 2, -1)", "bytes": "1000000"}]}})J");
  Prediction p = run(m, hand_machine(), 4);  // ranks 0,1 on node 0; 2,3 on node 1
  EXPECT_NEAR(p.ranks[0].latency_s, 10e-6, 1e-15);
  EXPECT_NEAR(p.ranks[0].transfer_s, 1e6 / 1e9, 1e-15);
}

TEST(Predict, MemoryBoundWhenBytesDominate) {
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "compute", "flops_double": "1000000", "load_bytes": "10000000000"}]}})J");
  Prediction p = run(m, hand_machine(), 1);
  // One rank alone on the node gets the full 10 GB/s: 1 s; compute 1 ms.
  EXPECT_TRUE(p.ranks[0].memory_bound);
  EXPECT_DOUBLE_EQ(p.predicted_time_s, 1.0);
}

TEST(Predict, WorkingSetPicksTheMemoryLevel) {
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "loop", "trip_count": "reps", "working_set_bytes": "ws", "body": [
        {"kind": "compute", "load_bytes": "ws"}]}]}})J",
                      R"J("parameters": {"ws": {}, "reps": {"default": "1000"}})J");
  auto in_cache = run(m, hand_machine(), 1, {{"ws", 16 * 1024}});
  EXPECT_DOUBLE_EQ(in_cache.ranks[0].memory_s, 1000.0 * 16 * 1024 / 100e9);
  auto in_dram = run(m, hand_machine(), 1, {{"ws", 1024 * 1024}});
  EXPECT_DOUBLE_EQ(in_dram.ranks[0].memory_s, 1000.0 * 1024 * 1024 / 10e9);
  // Forcing one level overrides the working set, as the plain formula does.
  auto forced = run(m, hand_machine(), 1, {{"ws", 16 * 1024}}, {.memory_level = "DRAM"});
  EXPECT_DOUBLE_EQ(forced.ranks[0].memory_s, 1000.0 * 16 * 1024 / 10e9);
  EXPECT_THROW(run(m, hand_machine(), 1, {{"ws", 1}}, {.memory_level = "L7"}), UserError);
}

TEST(Predict, MathCallsArePricedPerPrecision) {
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "compute", "math": {"sin": "1000000", "sinf": "1000000"}}]}})J");
  Prediction p = run(m, hand_machine(), 1);
  // 1e6 x 50 flops at 1 Gflop/s (double) + 1e6 x 50 flops at 2 Gflop/s (single).
  EXPECT_DOUBLE_EQ(p.ranks[0].math_flops, 1e8);
  EXPECT_DOUBLE_EQ(p.ranks[0].compute_s, 0.05 + 0.025);
}

TEST(Predict, WhatIfOverridesChangeThePrice) {
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "mpi", "op": "send", "peer": "select(rank == 0, 2, -1)", "bytes": "1000000000"}]}})J");
  double base = run(m, hand_machine(), 4).predicted_time_s;
  double faster = run(m, hand_machine({"network.bandwidth=\"2 GB/s\""}), 4).predicted_time_s;
  EXPECT_NEAR(base, 1.0 + 10e-6, 1e-9);
  EXPECT_NEAR(faster, 0.5 + 10e-6, 1e-9);
}

TEST(Predict, HeterogeneousNodesPriceEachRankOnItsOwnNode) {
  const char* hetero = R"(
name = "two kinds"
[[node_group]]
name = "fast"
count = 1
cores = 1
flops_per_core = "4 Gflop/s"
memory.DRAM = { bandwidth = "10 GB/s" }
[[node_group]]
name = "slow"
count = 1
cores = 1
flops_per_core = "1 Gflop/s"
memory.DRAM = { bandwidth = "10 GB/s" }
[network]
latency = "10 us"
bandwidth = "1 GB/s"
)";
  auto machine = machine::load_machine_string(hetero, "hetero.toml");
  auto m = model_from(R"J({"main": {"body": [{"kind": "compute", "flops_double": "4000000000"}]}})J");
  Prediction p = run(m, machine, 2);
  EXPECT_DOUBLE_EQ(p.ranks[0].compute_s, 1.0);
  EXPECT_DOUBLE_EQ(p.ranks[1].compute_s, 4.0);
  EXPECT_EQ(p.slowest_rank, 1);
}

// A sweep repeated `steps` times: the outermost loop with a footprint fetches
// its distinct bytes once per run from the level they fit in (the inner
// loop's footprint is superseded: its rows are reused within the sweep);
// every access still passes through L1, and the plain formula is unchanged.
TEST(Predict, FootprintsFetchDistinctBytesFromTheirLevel) {
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "compute", "load_bytes": "1000"},
      {"kind": "loop", "trip_count": "steps", "body": [
        {"kind": "loop", "trip_count": "rows",
         "footprint": {"bytes": "24 * rows * 8", "load_bytes": "16 * rows * 8", "store_bytes": "8 * rows * 8"},
         "body": [
          {"kind": "loop", "trip_count": "8",
           "footprint": {"bytes": "24 * 8", "load_bytes": "16 * 8", "store_bytes": "8 * 8"},
           "body": [{"kind": "compute", "flops_double": "14", "load_bytes": "64", "store_bytes": "8"}]}]}]}]}})J",
                      R"J("parameters": {"rows": {}, "steps": {"default": "100"}})J");
  for (auto [rows, level_bw] : {std::pair{100, 100e9}, {100000, 10e9}}) {  // 19 KiB in L1; 19 MiB in DRAM
    auto p = run(m, hand_machine(), 1, {{"rows", rows}});
    const auto& r = p.ranks[0];
    double points = 100.0 * rows * 8;
    ASSERT_TRUE(p.footprint_available);
    EXPECT_DOUBLE_EQ(r.counts.load_bytes, 1000 + 64 * points) << rows;  // counts: every access
    EXPECT_DOUBLE_EQ(r.memory_s, (1000 + 72 * points) / 10e9) << rows;  // plain: no working set -> DRAM
    EXPECT_DOUBLE_EQ(r.l1_access_s, 72 * points / 100e9) << rows;
    EXPECT_DOUBLE_EQ(r.traffic_s, 1000 / 10e9 + 100.0 * 24 * rows * 8 / level_bw) << rows;
    EXPECT_DOUBLE_EQ(r.footprint_time_s, std::max({14 * points / 1e9, r.l1_access_s, r.traffic_s})) << rows;
    EXPECT_DOUBLE_EQ(p.footprint_time_s, r.footprint_time_s);
  }
  auto plain = model_from(R"J({"main": {"body": [{"kind": "compute", "load_bytes": "8"}]}})J");
  EXPECT_FALSE(run(plain, hand_machine(), 1).footprint_available);
}

// The refined prediction bounds each site (loop nest) on its own and adds the
// sites: a compute-bound nest cannot lend its idle memory time to a
// memory-bound one, which the plain formula's one max over the totals does.
// With a serial fraction f on DRAM, a site costs max(core, traffic) + f * min.
TEST(Predict, RefinedPredictionBoundsEachSiteAndAddsThem) {
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "loop", "line": 10, "trip_count": "1000", "body": [
        {"kind": "compute", "flops_double": "1000000", "load_bytes": "8"}]},
      {"kind": "loop", "line": 20, "trip_count": "1000", "body": [
        {"kind": "compute", "flops_double": "8", "load_bytes": "1000000"}]}]}})J");
  // One rank: 1 Gflop/s, DRAM 10 GB/s. Nest 10: 1 s of flops, 0.8 us of bytes.
  // Nest 20: 8 us of flops, 0.1 s of bytes.
  auto p = run(m, hand_machine(), 1);
  const auto& r = p.ranks[0];
  ASSERT_EQ(r.sites.size(), 1u) << "loops without footprint or cycles are the function's rest";
  EXPECT_NEAR(r.time_s, 1.0 + 8e-6, 1e-12);  // plain: max(1.000008 s, 0.1000008 s)

  // Give each nest its own site (cycles at 1 GHz = the same time as flops / peak).
  auto sited = model_from(R"J({"main": {"body": [
      {"kind": "loop", "line": 10, "trip_count": "1000", "cycles_per_iteration": "1000000", "body": [
        {"kind": "compute", "flops_double": "1000000", "load_bytes": "8"}]},
      {"kind": "loop", "line": 20, "trip_count": "1000", "cycles_per_iteration": "8", "body": [
        {"kind": "compute", "flops_double": "8", "load_bytes": "1000000"}]}]}})J");
  auto q = run(sited, hand_machine({"node.clock=\"1 GHz\""}), 1);
  const auto& s = q.ranks[0];
  ASSERT_EQ(s.sites.size(), 2u);
  EXPECT_NEAR(q.predicted_time_s, 1.0 + 8e-6, 1e-12) << "the plain formula is unchanged";
  EXPECT_NEAR(q.refined_time_s, 1.0 + 0.1, 1e-9) << "compute-bound nest + memory-bound nest";
  for (const auto& site : s.sites) EXPECT_EQ(site.memory_bound, site.line == 20) << site.line;

  // Half of the shorter term does not overlap: nest 10 adds f * 0.8 us of
  // traffic to its 1 s of core, nest 20 f * 8 us of core to its 0.1 s of traffic.
  auto serial = run(sited, hand_machine({"node.clock=\"1 GHz\"", "memory.DRAM.serial_fraction=0.5"}), 1);
  EXPECT_NEAR(serial.refined_time_s, 1.0 + 0.5 * 0.8e-6 + 0.1 + 0.5 * 8e-6, 1e-12);
}

// Every MPI call costs the library's overhead (network.overhead, LogP o), a
// call to MPI_PROC_NULL and a waitall too; only real messages add latency.
TEST(Predict, EveryMpiCallCostsTheOverhead) {
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "loop", "trip_count": "10", "body": [
        {"kind": "mpi", "op": "isend", "peer": "select(rank == 0, 1, -1)", "bytes": "8"},
        {"kind": "mpi", "op": "irecv", "peer": "select(rank == 1, 0, -1)", "bytes": "8"},
        {"kind": "mpi", "op": "waitall"}]}]}})J");
  auto p = run(m, hand_machine({"network.overhead=\"100 ns\""}), 2);
  for (const auto& r : p.ranks) EXPECT_NEAR(r.overhead_s, 30 * 100e-9, 1e-15) << "rank " << r.counts.rank;
  EXPECT_NEAR(p.ranks[0].latency_s, 10 * 1e-6, 1e-15);  // 10 real sends, intra-node 1 us
  EXPECT_EQ(p.ranks[1].latency_s, 0);                    // its sends go to MPI_PROC_NULL
  EXPECT_NEAR(p.ranks[1].time_s, 30 * 100e-9, 1e-15);
}

// Traffic has two limits: one core's own bandwidth (in-core work takes from
// its misses in flight: the serial fraction adds part of it) and the node's
// bandwidth shared by the ranks streaming at once (a queue the in-core work
// hides behind). One rank alone: 0.1 s core, 0.1 s of traffic at 10 GB/s, f =
// 0.5: 0.15 s. Two ranks on the node: each gets 5 GB/s of the node's 10, so
// 0.2 s of traffic, which hides the core entirely.
TEST(Predict, SharedBandwidthHidesTheCoreWhereOneCoresOwnDoesNot) {
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "loop", "line": 10, "trip_count": "1000", "cycles_per_iteration": "100000", "body": [
        {"kind": "compute", "load_bytes": "1000000"}]}]}})J");
  auto machine = hand_machine({"node.clock=\"1 GHz\"", "memory.DRAM.serial_fraction=0.5"});
  EXPECT_NEAR(run(m, machine, 1).refined_time_s, 0.15, 1e-12);
  auto two = run(m, machine, 2);
  for (const auto& r : two.ranks) EXPECT_NEAR(r.refined_time_s, 0.2, 1e-12) << r.counts.rank;
}

// A loop's address streams pick the serial fraction from the machine's table
// (memory overlap_by_streams): one rank, 0.1 s of core against 0.1 s of DRAM
// traffic (core / memory 1). 7 streams, 2 of them following another along
// one array `gap` bytes behind: 5 lead, so a follower reuses from L1 (32 KiB)
// when 5 x gap fits, and counts half: 6 streams, f = 0.1 + 0.8 x 3/4 = 0.7,
// 0.17 s; far behind, 7 streams, f = 0.9, 0.19 s. A loop without streams
// takes the level's plain serial_fraction (0.5): 0.15 s.
TEST(Predict, AddressStreamsPickTheSerialFractionAndNearFollowersCountHalf) {
  auto model = [](const std::string& streams) {
    return model_from(R"J({"main": {"body": [
      {"kind": "loop", "line": 10, "trip_count": "1000", "cycles_per_iteration": "100000", )J" + streams +
                      R"J("body": [{"kind": "compute", "load_bytes": "1000000"}]}]}})J",
                      R"J("parameters": {"gap": {"default": "0"}})J");
  };
  auto machine = hand_machine({"node.clock=\"1 GHz\"", "memory.DRAM.serial_fraction=0.5",
                               "memory.DRAM.overlap_by_streams={ streams = [3, 7], core_over_memory = [1], "
                               "serial_fraction = [[0.1], [0.9]] }"});
  auto with_streams = model(R"J("streams": 7, "stream_offsets": [["0", "gap", "2 * gap"]], )J");
  auto near = run(with_streams, machine, 1, {{"gap", 1000}});
  ASSERT_EQ(near.ranks[0].sites.size(), 1u);
  EXPECT_EQ(near.ranks[0].sites[0].streams, 7);
  EXPECT_DOUBLE_EQ(near.ranks[0].sites[0].effective_streams, 6);
  EXPECT_NEAR(near.ranks[0].sites[0].serial_fraction, 0.7, 1e-12);
  EXPECT_NEAR(near.refined_time_s, 0.17, 1e-12);
  auto far = run(with_streams, machine, 1, {{"gap", 100000}});
  EXPECT_DOUBLE_EQ(far.ranks[0].sites[0].effective_streams, 7);
  EXPECT_NEAR(far.refined_time_s, 0.19, 1e-12);
  EXPECT_NEAR(run(model(""), machine, 1).refined_time_s, 0.15, 1e-12) << "no streams: the plain fraction";
}

// The refined prediction prices communication with what the machine measured:
// a message within a node by the one-way table for its size, a collective by
// its [[collective]] table (a communicator of one: nothing). The plain formula
// keeps latency + size / bandwidth beside it.
TEST(Predict, NoiseStretchesTheRefinedTimeByTheSlowestRanksExpectation) {
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "compute", "flops_double": "1000000000"},
      {"kind": "mpi", "op": "allreduce", "bytes": "8"}]}})J");
  // A core at full speed three quanta in four, at 2x the fourth; the run, one
  // step to its allreduce, is one quantum long (a longer step averages its
  // quanta: TheSlowestRankIsTakenOverAStepsQuantaNotOneQuantum).
  const std::string noise = "node.noise={ quantum = \"2 s\", stretch = [1.0, 1.0, 1.0, 2.0] }";
  auto one = run(m, hand_machine({noise}), 1);
  ASSERT_TRUE(one.noise_available);
  EXPECT_DOUBLE_EQ(one.noise_stretch, 1.25);
  EXPECT_DOUBLE_EQ(one.noisy_time_s, 1.25 * one.refined_time_s);
  // Two ranks wait for each other: slow unless both are fast, 1 - 0.75^2.
  auto two = run(m, hand_machine({noise}), 2);
  EXPECT_DOUBLE_EQ(two.noise_stretch, 1 + (1 - 0.75 * 0.75));
  EXPECT_DOUBLE_EQ(two.noisy_time_s, two.noise_stretch * two.refined_time_s);
  EXPECT_GT(two.noisy_time_s, two.refined_time_s);
  // A whole run in the slowest state: the top quantile, whatever the ranks.
  EXPECT_DOUBLE_EQ(one.noisy_slowest_state_time_s, 2 * one.refined_time_s);
  EXPECT_DOUBLE_EQ(two.noisy_slowest_state_time_s, 2 * two.refined_time_s);
  // Without noise in the machine file there is nothing to stretch by.
  auto quiet = run(m, hand_machine(), 2);
  EXPECT_FALSE(quiet.noise_available);
  EXPECT_DOUBLE_EQ(quiet.noise_stretch, 1);
}

// Noise stretches a site's in-core work, not the traffic it waits for: a
// co-tenant on the core takes its ports, not its misses in flight, and the
// memory levels' bandwidths are already medians measured on the host. The
// loop of SharedBandwidthHidesTheCoreWhereOneCoresOwnDoesNot: 0.1 s of core
// against 0.1 s of DRAM traffic, serial fraction 0.5; the noise's slow
// quantile doubles the core.
TEST(Predict, NoiseStretchesTheCoreNotTheTrafficItWaitsFor) {
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "loop", "line": 10, "trip_count": "1000", "cycles_per_iteration": "100000", "body": [
        {"kind": "compute", "load_bytes": "1000000"}]}]}})J");
  // The quantum as long as the run: the ranks' slowest of one quantum each.
  auto machine = hand_machine({"node.clock=\"1 GHz\"", "memory.DRAM.serial_fraction=0.5",
                               "node.noise={ quantum = \"1 s\", stretch = [1.0, 1.0, 1.0, 2.0] }"});
  // One rank alone: 0.15 s undisturbed; with the core at 0.2 s, max(0.2, 0.1)
  // + 0.5 x 0.1 = 0.25 s, so the slow quantile is 0.25 / 0.15, not 2.
  auto one = run(m, machine, 1);
  EXPECT_NEAR(one.refined_time_s, 0.15, 1e-12);
  EXPECT_NEAR(one.noise_stretch, 0.75 + 0.25 * (0.25 / 0.15), 1e-12);
  EXPECT_NEAR(site_time_with_core_stretched(one.ranks[0].sites[0], 2), 0.25, 1e-12);
  // Two ranks share the node's 10 GB/s: 0.2 s of traffic each, which hides even
  // the doubled core (0.2 + 0.5 x 0.1 = 0.25 s alone-bound, against 0.2 s): the
  // slow quantile is 0.25 / 0.2, where stretching the whole time would say 2.
  auto two = run(m, machine, 2);
  EXPECT_NEAR(two.refined_time_s, 0.2, 1e-12);
  const double slow = 0.25 / 0.2;
  EXPECT_NEAR(two.noise_stretch, 1 + (slow - 1) * (1 - 0.75 * 0.75), 1e-12);
  EXPECT_LT(two.noise_stretch, 1 + (1 - 0.75 * 0.75)) << "less than the whole time stretched";
}

// A loop the analyser found bound off the ports (its cycles beyond
// ports_cycles_per_iteration: its divides, its chains) is stretched by the divider's noise where the machine file
// measured one: a co-tenant on the core's ports hardly slows it. A port-bound
// loop beside it keeps the ports' noise, and the rank's stretch is the mix.
TEST(Predict, LoopsOffThePortsFeelTheDividersNoise) {
  auto divider = model_from(R"J({"main": {"body": [
      {"kind": "loop", "line": 10, "trip_count": "1000000", "cycles_per_iteration": "10", "ports_cycles_per_iteration": 2.5,
       "body": [{"kind": "compute", "flops_double": "2"}]}]}})J");
  auto mixed = model_from(R"J({"main": {"body": [
      {"kind": "loop", "line": 10, "trip_count": "1000000", "cycles_per_iteration": "10", "ports_cycles_per_iteration": 2.5,
       "body": [{"kind": "compute", "flops_double": "2"}]},
      {"kind": "loop", "line": 20, "trip_count": "1000000", "cycles_per_iteration": "10",
       "body": [{"kind": "compute", "flops_double": "2"}]}]}})J");
  const std::string clock = "node.clock=\"1 GHz\"";
  const std::string both = "node.noise={ quantum = \"20 us\", stretch = [1.0, 1.0, 1.0, 2.0], "
                           "divider_stretch = [1.0, 1.0, 1.0, 1.1] }";
  const std::string ports = "node.noise={ quantum = \"20 us\", stretch = [1.0, 1.0, 1.0, 2.0] }";

  auto p = run(divider, hand_machine({clock, both}), 1);
  ASSERT_EQ(p.ranks[0].sites.size(), 1u);
  EXPECT_NEAR(p.ranks[0].sites[0].off_ports_s, 7.5e-3, 1e-12) << "0.75 of 10 cycles x 1e6 at 1 GHz";
  EXPECT_TRUE(p.noise_off_ports_priced);
  // max(0.25 x 2, 1.1) in the disturbed quarter: 1.1.
  EXPECT_DOUBLE_EQ(p.noise_stretch, 0.75 + 0.25 * 1.1);
  // The same loop on a machine that measured only the ports' noise.
  auto unaware = run(divider, hand_machine({clock, ports}), 1);
  EXPECT_FALSE(unaware.noise_off_ports_priced);
  EXPECT_DOUBLE_EQ(unaware.noise_stretch, 1.25);
  // Half the time port-bound: the disturbed quarter is (2 + 1.1) / 2.
  auto m = run(mixed, hand_machine({clock, both}), 1);
  EXPECT_DOUBLE_EQ(m.ranks[0].sites[1].off_ports_s, 0);
  EXPECT_NEAR(m.noise_stretch, 0.75 + 0.25 * 1.55, 1e-12);
  EXPECT_NEAR(m.noisy_time_s, m.noise_stretch * m.refined_time_s, 1e-15);
}

// Ranks that meet every step (a wait, a collective) wait for the slowest of
// them step by step, and a step of k quanta takes the mean of k quanta's
// stretches, whose spread is one quantum's over sqrt(k). A divider-bound loop
// (3/4 of its cycles beyond the ports' need) takes the divider's noise, a
// port-bound one the ports'; at 4 quanta a step the slowest of two ranks is
// priced from the quantiles drawn halfway to their mean, and at one quantum a
// step from the quantum's own.
TEST(Predict, TheSlowestRankIsTakenOverAStepsQuantaNotOneQuantum) {
  auto loop = [](const std::string& cycles, const std::string& ports, const std::string& trips) {
    return model_from(R"J({"main": {"body": [
        {"kind": "loop", "line": 5, "trip_count": "100", "body": [
          {"kind": "loop", "line": 10, "trip_count": ")J" + trips + R"J(", "cycles_per_iteration": ")J" + cycles +
                      "\"" + ports + R"J(, "body": [{"kind": "compute", "flops_double": "2"}]},
          {"kind": "mpi", "op": "waitall"}]}]}})J");
  };
  auto machine = hand_machine({"node.clock=\"1 GHz\"",
                               "node.noise={ quantum = \"20 us\", stretch = [1.0, 1.0, 1.0, 2.0], "
                               "divider_stretch = [1.0, 1.0, 1.0, 1.1] }"});
  // 8000 iterations of 10 cycles at 1 GHz: a step of 80 us, 4 quanta.
  auto divider = run(loop("10", ", \"ports_cycles_per_iteration\": 2.5", "8000"), machine, 2);
  auto ports = run(loop("10", "", "8000"), machine, 2);
  for (const auto* p : {&divider, &ports}) {
    EXPECT_DOUBLE_EQ(p->ranks[0].sync_points, 100) << "one waitall a step";
    EXPECT_NEAR(p->ranks[0].noise_step_s, 80e-6, 1e-15);
  }
  // The divider loop's quantiles: max(0.25 x ports, divider) = [1, 1, 1, 1.1],
  // mean 1.025, drawn halfway to it; slow unless both ranks are fast, 1 - 0.75^2.
  EXPECT_NEAR(divider.ranks[0].sites[0].noise_stretch, 1.025, 1e-12);
  const double both_fast = 0.75 * 0.75;
  EXPECT_NEAR(divider.noise_stretch, both_fast * 1.0125 + (1 - both_fast) * 1.0625, 1e-12);
  EXPECT_NEAR(ports.ranks[0].sites[0].noise_stretch, 1.25, 1e-12);
  EXPECT_NEAR(ports.noise_stretch, both_fast * 1.125 + (1 - both_fast) * 1.625, 1e-12);
  EXPECT_LT(divider.noise_stretch, 1.1) << "the divider's noise, not the ports'";
  // One quantum a step: the slowest of the two ranks' quanta, as measured.
  auto short_steps = run(loop("10", "", "2000"), machine, 2);
  EXPECT_NEAR(short_steps.ranks[0].noise_step_s, 20e-6, 1e-15);
  EXPECT_NEAR(short_steps.noise_stretch, both_fast * 1.0 + (1 - both_fast) * 2.0, 1e-12);
  // A slow spell of the whole run does not average out over a step's quanta:
  // the top quantile of the loop's own mix, not narrowed (the divider loop's
  // max(0.25 x 2, 1.1), the port loop's 2).
  EXPECT_NEAR(divider.noisy_slowest_state_time_s, 1.1 * divider.refined_time_s, 1e-12);
  EXPECT_NEAR(ports.noisy_slowest_state_time_s, 2.0 * ports.refined_time_s, 1e-12);
  // One rank has no one to wait for: the mean, however its steps are cut.
  EXPECT_NEAR(run(loop("10", "", "8000"), machine, 1).noise_stretch, 1.25, 1e-12);
}

// The points where a rank may wait for another: collectives (on more than one
// rank), blocking receives and probes, waits; not sends, not the calls that
// only start a transfer, not a receive from MPI_PROC_NULL.
TEST(Predict, SyncPointsAreTheCallsThatMayWaitForAnotherRank) {
  RankCounts c;
  auto add = [&](mpi::Op op, double calls, std::optional<long long> peer = std::nullopt) {
    MpiCalls call;
    call.op = op;
    call.calls = calls;
    call.peer = peer;
    c.mpi.push_back(call);
  };
  add(mpi::Op::Send, 5, 1);
  add(mpi::Op::Isend, 7, 1);
  add(mpi::Op::Irecv, 7, 1);
  add(mpi::Op::Waitall, 7);
  add(mpi::Op::Recv, 3, 1);
  add(mpi::Op::Recv, 100, -1);
  add(mpi::Op::Sendrecv, 2, 1);
  add(mpi::Op::Allreduce, 11);
  add(mpi::Op::CommSplit, 1);
  EXPECT_DOUBLE_EQ(sync_points_of(c, 2), 7 + 3 + 2 + 11 + 1);
  EXPECT_DOUBLE_EQ(sync_points_of(c, 1), 7 + 3 + 2) << "a communicator of one waits for no one";
}

// A short loop whose chain restarts each run (a CSR row: `s = 0`, a few
// entries) is priced at its resource bound when the runs overlap: then all
// of its cycles are the ports' work and take the ports' noise, however long
// its chain in MCA's steady state. Long runs keep the chain's cycles off the
// ports. (cg's spmv: 0.61-0.67 of the steady state off the ports, priced at
// the ports' bound, measured as noisy as a port-bound loop: issue 5.)
TEST(Predict, ARestartingChainPricedAtThePortsBoundTakesThePortsNoise) {
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "loop", "line": 10, "trip_count": "1000000", "body": [
        {"kind": "loop", "line": 11, "trip_count": "T", "cycles_per_iteration": "max(12 * T / (T + 14), 4)",
         "ports_cycles_per_iteration": 4, "body": [{"kind": "compute", "flops_double": "2"}]}]}]}})J",
                      R"J("parameters": {"T": {}})J");
  auto machine = hand_machine({"node.clock=\"1 GHz\"",
                               "node.noise={ quantum = \"20 us\", stretch = [1.0, 1.0, 1.0, 2.0], "
                               "divider_stretch = [1.0, 1.0, 1.0, 1.1] }"});
  auto short_runs = run(m, machine, 1, {{"T", expr::Value(2)}});
  ASSERT_EQ(short_runs.ranks[0].sites.size(), 1u);
  EXPECT_DOUBLE_EQ(short_runs.ranks[0].sites[0].off_ports_s, 0) << "priced at the ports' bound: 4 cycles";
  EXPECT_DOUBLE_EQ(short_runs.noise_stretch, 1.25) << "the ports' noise, as a port-bound loop";
  auto long_runs = run(m, machine, 1, {{"T", expr::Value(1000)}});
  double cycles = 12.0 * 1000 / 1014;  // per iteration
  EXPECT_NEAR(long_runs.ranks[0].sites[0].off_ports_s, 1e6 * 1000 * (cycles - 4) / 1e9, 1e-9);
  double off = (cycles - 4) / cycles;
  EXPECT_NEAR(long_runs.noise_stretch, 0.75 + 0.25 * std::max((1 - off) * 2.0, 1.1), 1e-9);
}

// Both ranks send each other a face and receive the other's (a halo
// exchange): each send is half of an exchange step and takes the machine's
// measured step, not the one-way time; a send to a peer the rank never
// receives from stays one-way, and without an exchange table so does every send.
TEST(Predict, AMessageToAPeerItAlsoReceivesFromIsPricedAsAnExchange) {
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "loop", "trip_count": "10", "body": [
        {"kind": "mpi", "op": "irecv", "peer": "select(rank < 2, 1 - rank, -1)", "bytes": "1024"},
        {"kind": "mpi", "op": "isend", "peer": "select(rank < 2, 1 - rank, select(rank == 2, 3, -1))", "bytes": "1024"},
        {"kind": "mpi", "op": "waitall"}]}]}})J");
  const std::string one_way = "network.intra_node_one_way={ bytes = [8, 2048], time_s = [4e-7, 6e-7] }";
  const std::string exchange = "network.intra_node_exchange={ bytes = [8, 2048], time_s = [6e-7, 9e-7] }";
  auto p = run(m, hand_machine({one_way, exchange}), 4);  // ranks 0,1 on node 0; 2,3 on node 1
  // 1024 B: the exchange table halfway-ish, (1024 - 8) / 2040 of the way from 0.6 to 0.9 us.
  const double step = 6e-7 + (1024.0 - 8) / 2040 * 3e-7, trip = 4e-7 + (1024.0 - 8) / 2040 * 2e-7;
  for (int r : {0, 1}) {
    EXPECT_NEAR(p.ranks[r].refined_comm_s - p.ranks[r].overhead_s, 10 * step, 1e-15) << "rank " << r;
    EXPECT_EQ(p.ranks[r].exchange_messages, 10) << "rank " << r;
  }
  // Rank 2 sends to rank 3 on its node and receives from no one: one-way.
  EXPECT_NEAR(p.ranks[2].refined_comm_s - p.ranks[2].overhead_s, 10 * trip, 1e-15);
  EXPECT_EQ(p.ranks[2].exchange_messages, 0);
  auto without = run(m, hand_machine({one_way}), 4);
  EXPECT_NEAR(without.ranks[0].refined_comm_s - without.ranks[0].overhead_s, 10 * trip, 1e-15);
  EXPECT_EQ(without.ranks[0].exchange_messages, 0);
}

TEST(Predict, RefinedCommunicationUsesTheMachinesMeasuredTables) {
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "loop", "trip_count": "10", "body": [
        {"kind": "mpi", "op": "isend", "peer": "select(rank == 0, 1, -1)", "bytes": "3072"},
        {"kind": "mpi", "op": "irecv", "peer": "select(rank == 1, 0, -1)", "bytes": "3072"},
        {"kind": "mpi", "op": "waitall"},
        {"kind": "mpi", "op": "allreduce", "bytes": "8"}]}]}})J");
  const std::vector<std::string> tables = {
      "network.intra_node_one_way={ bytes = [8, 2048, 4096], time_s = [4e-7, 6e-7, 3.2e-6] }",
      "collective=[{ op = \"allreduce\", procs = [2], bytes = [8, 64], time_s = [[1.5e-6, 2e-6]] }]"};
  auto p = run(m, hand_machine(tables), 2);
  const auto& r0 = p.ranks[0];
  // Plain: 20 messages (10 sends, 10 allreduces) at 1 us, bytes at 4 GB/s: the
  // allreduce of a job on one node takes the intra-node figures too, not the
  // inter-node ones (10 us, 1 GB/s).
  EXPECT_NEAR(r0.latency_s, 20 * 1e-6, 1e-15);
  // Refined: 10 x the table at 3072 B (halfway from 0.6 to 3.2 us) + 10 x the
  // allreduce table at 8 B on 2 ranks.
  EXPECT_NEAR(r0.refined_comm_s, 10 * 1.9e-6 + 10 * 1.5e-6, 1e-15);
  EXPECT_NEAR(p.ranks[1].refined_comm_s, 10 * 1.5e-6, 1e-15) << "rank 1 sends to MPI_PROC_NULL";
  EXPECT_NEAR(r0.refined_time_s, r0.refined_comm_s, 1e-15) << "nothing but communication here";

  // One rank: the allreduce moves nothing, in the refined and the plain
  // formula alike (a communicator of one rank moves nothing); the call's
  // overhead stays.
  auto solo = model_from(R"J({"main": {"body": [{"kind": "mpi", "op": "allreduce", "bytes": "8"}]}})J");
  auto one = run(solo, hand_machine(tables), 1);
  EXPECT_EQ(one.ranks[0].refined_comm_s, one.ranks[0].overhead_s);
  EXPECT_EQ(one.ranks[0].latency_s, 0);
  EXPECT_EQ(one.ranks[0].transfer_s, 0);

  // Without the tables the refined communication is the plain one.
  auto plain = run(m, hand_machine(), 2);
  EXPECT_NEAR(plain.ranks[0].refined_comm_s,
              plain.ranks[0].overhead_s + plain.ranks[0].latency_s + plain.ranks[0].transfer_s, 1e-15);
}
