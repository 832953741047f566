// The simulator prices a compute burst with the node's ranks that compute at
// once (sim/costs.h): those in a burst when it starts, and those starting one
// at that same moment. Hand-computed times beside the simulated ones.
#include <gtest/gtest.h>

#include "sim_test_util.h"

namespace perfcast::sim::test {
namespace {

// One node of 4 cores; each core's DRAM bandwidth 4, 2 and 1 GB/s with 1, 2
// and 4 of them streaming (3: half way, 1.5 GB/s).
const char* kSharedNode = R"(
name = "shared"
[node]
count = 1
cores = 4
flops_per_core = "1 Gflop/s"
[memory]
DRAM = { bandwidth = "4 GB/s", bandwidth_by_cores = { cores = [1, 2, 4], per_core = ["4 GB/s", "2 GB/s", "1 GB/s"] } }
[network]
latency = "1 us"
bandwidth = "8 GB/s"
)";

Event streaming(double bytes) {
  Event e;
  e.kind = Kind::Compute;
  e.bytes_moved = bytes;
  return e;
}

TEST(SimSharing, BurstsArePricedByTheRanksComputingWhenTheyStart) {
  const auto m = machine::load_machine_string(kSharedNode, "shared", ".");
  const double bytes = 4e9, message_s = 1e-6 + 8 / 8e9;
  // At t = 0 ranks 0 and 1 stream and rank 3 runs a burst of given length
  // (a traced one: it holds its core for 3 s): k = 3 for ranks 0 and 1,
  // whichever the engine meets first. Rank 2 waits for rank 0's message and
  // streams after, when only rank 3's burst still runs: k = 2.
  std::vector<std::vector<Event>> job = {
      {streaming(bytes), send(2, 8)},
      {streaming(bytes)},
      {recv(0, 8), streaming(bytes)},
      {compute(3.0)},
  };
  const SimResult r = run(job, m);
  const double at_three = bytes / 1.5e9;  // 2.667 s
  EXPECT_DOUBLE_EQ(r.ranks[0].calc_s, at_three);
  EXPECT_DOUBLE_EQ(r.ranks[1].calc_s, at_three);
  EXPECT_DOUBLE_EQ(r.ranks[1].end_s, at_three);
  ASSERT_LT(at_three + message_s, 3.0) << "rank 2 starts while rank 3 computes";
  EXPECT_DOUBLE_EQ(r.ranks[2].calc_s, bytes / 2e9);
  EXPECT_DOUBLE_EQ(r.ranks[2].end_s, at_three + message_s + bytes / 2e9);
  EXPECT_DOUBLE_EQ(r.ranks[3].end_s, 3.0) << "a burst of given length keeps it";

  // Without rank 3, and rank 2 starting after both: k = 2, then 1.
  const SimResult two = run({{streaming(bytes), send(2, 8)}, {streaming(bytes)}, {recv(0, 8), streaming(bytes)}}, m);
  EXPECT_DOUBLE_EQ(two.ranks[0].calc_s, bytes / 2e9);
  EXPECT_DOUBLE_EQ(two.ranks[1].calc_s, bytes / 2e9);
  EXPECT_DOUBLE_EQ(two.ranks[2].calc_s, bytes / 4e9) << "alone on the node by then";
}

TEST(SimSharing, WithoutTheSharingKeysEveryRankOnTheNodeShares) {
  // The plain node_bandwidth share among the ranks the job places on the
  // node, whenever they compute (as before the sharing keys existed).
  const auto m = machine::load_machine_string(kSharedNode, "shared", ".",
                                              {"memory.DRAM={ bandwidth = \"4 GB/s\", node_bandwidth = \"4 GB/s\" }"});
  const double bytes = 4e9;
  const SimResult r = run({{streaming(bytes), send(2, 8)}, {streaming(bytes)}, {recv(0, 8), streaming(bytes)}}, m);
  for (int rank = 0; rank < 3; ++rank) EXPECT_DOUBLE_EQ(r.ranks[static_cast<size_t>(rank)].calc_s, bytes / (4e9 / 3));
}

Event flops(double count) {
  Event e;
  e.kind = Kind::Compute;
  e.flops = count;
  return e;
}

TEST(SimSharing, RanksBeyondTheCoresTimeShareThem) {
  // 8 ranks on the node's 4 cores, each doing 1 Gflop (1 s on a core of its
  // own at 1 Gflop/s): two ranks a core, so 2 s each, against 1 s for 4 ranks.
  const auto m = machine::load_machine_string(kSharedNode, "shared", ".");
  const SimResult four = run(std::vector<std::vector<Event>>(4, {flops(1e9)}), m);
  const SimResult eight = run(std::vector<std::vector<Event>>(8, {flops(1e9)}), m);
  EXPECT_DOUBLE_EQ(four.predicted_time_s, 1.0);
  EXPECT_DOUBLE_EQ(eight.predicted_time_s, 2.0);
  for (const auto& rank : eight.ranks) EXPECT_DOUBLE_EQ(rank.calc_s, 2.0);
  // Streaming 4 GB each: the table at 4 cores (1 GB/s each, never beyond
  // the cores: 8 do not stream at once), for half of a core's time: 8 s.
  const SimResult streams = run(std::vector<std::vector<Event>>(8, {streaming(4e9)}), m);
  EXPECT_DOUBLE_EQ(streams.predicted_time_s, 4e9 / 1e9 * 2);
  EXPECT_TRUE(eight.placement.oversubscribed());
  EXPECT_DOUBLE_EQ(eight.placement.ranks_per_core, 2.0);
  EXPECT_EQ(eight.placement.cores, 4);
  EXPECT_FALSE(four.placement.oversubscribed());
  // A rank alone at work still has half a core: its core-mate polls in MPI.
  const SimResult one_works = run({{flops(1e9)}, {}, {}, {}, {}, {}, {}, {}}, m);
  EXPECT_DOUBLE_EQ(one_works.predicted_time_s, 2.0);
}

TEST(SimSharing, WithoutTheSharingKeysRanksBeyondTheCoresStillTimeShareThem) {
  const auto m = machine::load_machine_string(kSharedNode, "shared", ".", {"memory.DRAM={ bandwidth = \"4 GB/s\" }"});
  EXPECT_DOUBLE_EQ(run(std::vector<std::vector<Event>>(8, {flops(1e9)}), m).predicted_time_s, 2.0);
  EXPECT_DOUBLE_EQ(run(std::vector<std::vector<Event>>(12, {streaming(4e9)}), m).predicted_time_s, 3.0);
  // A burst of given seconds is the source's own price: not stretched.
  EXPECT_DOUBLE_EQ(run(std::vector<std::vector<Event>>(8, {compute(3.0)}), m).predicted_time_s, 3.0);
}

}  // namespace
}  // namespace perfcast::sim::test
