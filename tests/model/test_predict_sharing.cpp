// predict with what the ranks of a node share (memory.LEVEL.bandwidth_by_cores,
// node.busy_slowdown): every rank the mapping places on a node computes at
// once, so k = ranks on the node. Weak scaling on one 16-core node: each rank
// does the same work at 1 and at 16 ranks, so the ratio of the two times is
// what the machine file says sharing costs.
#include <gtest/gtest.h>

#include "machine/machine_io.h"
#include "model/predict.h"
#include "model_text.h"

using namespace perfcast;
using namespace perfcast::model;
using perfcast::testing::model_from;

namespace {

const char* kSixteenCores = R"(
name = "sixteen"
[node]
count = 1
cores = 16
flops_per_core = "1 Gflop/s"
busy_slowdown = 1.09
[memory]
L1 = { size = "32 KiB", bandwidth = "100 GB/s" }
DRAM = { bandwidth = "9 GB/s", bandwidth_by_cores = { cores = [1, 2, 4, 16], per_core = ["9 GB/s", "8 GB/s", "6 GB/s", "3 GB/s"] } }
[network]
latency = "1 us"
bandwidth = "10 GB/s"
)";

Prediction run(const std::string& item, int np, const std::vector<std::string>& overrides = {}) {
  auto m = model_from(R"({"main": {"body": [)" + item + "]}}");
  return predict(m, symbolic_costs(m), machine::load_machine_string(kSixteenCores, "sixteen.toml", ".", overrides), np,
                 {});
}

const char* kMemoryBound = R"({"kind": "compute", "flops_double": 1e6, "load_bytes": 9e9})";
const char* kComputeBound = R"({"kind": "compute", "flops_double": 1e9, "load_bytes": 1e3})";

TEST(PredictSharing, SixteenRanksOnANodeCostWhatTheTableAndTheClockSay) {
  // Memory-bound: 9 GB/s alone, 3 GB/s each with 16 streaming: 3x.
  const Prediction one = run(kMemoryBound, 1), sixteen = run(kMemoryBound, 16);
  EXPECT_DOUBLE_EQ(one.refined_time_s, 1.0);
  EXPECT_DOUBLE_EQ(sixteen.refined_time_s, 3.0);
  EXPECT_DOUBLE_EQ(sixteen.predicted_time_s / one.predicted_time_s, 3.0) << "the plain formula shares alike";
  EXPECT_EQ(sixteen.ranks[5].ranks_on_node, 16);
  // Compute-bound: only the clock, 1.09x with all 16 cores busy.
  const Prediction c1 = run(kComputeBound, 1), c16 = run(kComputeBound, 16);
  EXPECT_DOUBLE_EQ(c1.refined_time_s, 1.0);
  EXPECT_DOUBLE_EQ(c16.refined_time_s / c1.refined_time_s, 1.09);
  // 4 ranks: the table's point at 4 (6 GB/s), and 3 of 15 steps to 1.09.
  EXPECT_DOUBLE_EQ(run(kMemoryBound, 4).refined_time_s, 1.5);
  EXPECT_DOUBLE_EQ(run(kComputeBound, 4).refined_time_s, 1.018);
}

TEST(PredictSharing, WithoutTheKeysSixteenRanksCostWhatOneDoes) {
  // No table and no node_bandwidth: a core streams as if alone, whatever the
  // ranks beside it (today's behaviour for such files).
  const std::vector<std::string> plain = {"node.busy_slowdown=1", "memory.DRAM={ bandwidth = \"9 GB/s\" }"};
  EXPECT_DOUBLE_EQ(run(kMemoryBound, 16, plain).refined_time_s, run(kMemoryBound, 1, plain).refined_time_s);
  EXPECT_DOUBLE_EQ(run(kComputeBound, 16, plain).refined_time_s, 1.0);
}

TEST(PredictSharing, RanksBeyondTheCoresTimeShareThem) {
  // 32 ranks on the 16 cores: the tables see 16 streaming (3 GB/s each, the
  // clock 1.09x), and each rank has half a core, so twice the 16-rank times.
  const Prediction sixteen = run(kMemoryBound, 16), thirty_two = run(kMemoryBound, 32);
  EXPECT_DOUBLE_EQ(thirty_two.refined_time_s, 2 * 3.0);
  EXPECT_DOUBLE_EQ(thirty_two.predicted_time_s, 2 * sixteen.predicted_time_s);
  EXPECT_DOUBLE_EQ(run(kComputeBound, 32).refined_time_s, 2 * 1.09);
  // 24 ranks: 1.5 ranks a core, the tables still at 16.
  EXPECT_DOUBLE_EQ(run(kMemoryBound, 24).refined_time_s, 1.5 * 3.0);
  const auto& p = thirty_two.placement;
  EXPECT_TRUE(p.oversubscribed());
  EXPECT_EQ(p.ranks, 32);
  EXPECT_EQ(p.cores, 16);
  EXPECT_EQ(p.oversubscribed_nodes, 1);
  EXPECT_DOUBLE_EQ(p.ranks_per_core, 2.0);
  EXPECT_FALSE(sixteen.placement.oversubscribed());
}

TEST(PredictSharing, WithoutTheKeysRanksBeyondTheCoresStillTimeShareThem) {
  // No table, no node_bandwidth, no busy clock: on its own core a rank
  // streams as if alone, but two ranks on a core each have it half the time.
  const std::vector<std::string> plain = {"node.busy_slowdown=1", "memory.DRAM={ bandwidth = \"9 GB/s\" }"};
  EXPECT_DOUBLE_EQ(run(kMemoryBound, 32, plain).refined_time_s, 2.0);
  EXPECT_DOUBLE_EQ(run(kComputeBound, 32, plain).refined_time_s, 2.0);
  EXPECT_DOUBLE_EQ(run(kComputeBound, 32, plain).predicted_time_s, 2.0);
}

}  // namespace
