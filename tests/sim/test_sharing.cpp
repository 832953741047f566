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

}  // namespace
}  // namespace perfcast::sim::test
