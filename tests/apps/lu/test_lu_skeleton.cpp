// apps/lu/skeleton/lu_skel.c run by `perfcast simulate` against the real lu run
// by the pinned Open MPI with the same arguments: same MPI calls kind by kind
// (the two communicator splits, the panel's allreduces, the row broadcasts, the
// swap allreduces, the gather) and the same bytes handed to them (the real run
// counted by a preloaded PMPI shim, mpi_count.c; the skeleton's by its own
// tally), on the same grid; the flops it hands the simulator add up to the LU's
// operation count; and a predicted time that grows with n. 4 ranks are
// oversubscribed on this machine: the real run there serves counts only.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "skeleton_run.h"

namespace {

using perfcast::testing::RealRun;
using perfcast::testing::SkeletonRun;

void expect_same_as_real(int ranks, const std::vector<std::string>& args) {
  SCOPED_TRACE("ranks " + std::to_string(ranks));
  RealRun real = perfcast::testing::run_counted("lu", ranks, args);
  SkeletonRun sim = perfcast::testing::simulate_skeleton("lu_skel", ranks, args);
  perfcast::testing::expect_same_communication(sim, real, ranks);
  for (const char* key : {"n", "nb", "p", "q", "blocks", "repeats"})
    EXPECT_EQ(sim.skeleton.value(key, -1LL), real.app.result.value(key, -2LL)) << key;
  EXPECT_DOUBLE_EQ(sim.skeleton.value("flops", -1.0), real.app.result.value("flops", -2.0));
}

// 13 blocks, the last 5 wide: uneven shares on every grid
const std::vector<std::string> kSystem = {"--n", "101", "--nb", "8", "--repeats", "2"};

}  // namespace

TEST(LuSkeleton, SameCallsAsTheRealAppAtOneRank) { expect_same_as_real(1, kSystem); }
TEST(LuSkeleton, SameCallsAsTheRealAppAtTwoRanks) { expect_same_as_real(2, kSystem); }
TEST(LuSkeleton, SameCallsAsTheRealAppAtFourRanksOversubscribed) {
  RecordProperty("oversubscribed", "true");
  expect_same_as_real(4, kSystem);  // 2 x 2
}
TEST(LuSkeleton, SameCallsOnAFourByOneGridOversubscribed) {
  RecordProperty("oversubscribed", "true");
  expect_same_as_real(4, {"--n", "50", "--nb", "4", "--p", "4", "--repeats", "1"});
}

TEST(LuSkeleton, CountedFlopsAreTheLuOperationCount) {
  // the panel, dtrsm and dgemm flops summed over ranks: 2/3 n^3 to within the
  // O(n^2 nb) terms the formula leaves out (and its 3/2 n^2 for the solve)
  SkeletonRun sim = perfcast::testing::simulate_skeleton("lu_skel", 4, {"--n", "256", "--nb", "16", "--repeats", "1"});
  ASSERT_EQ(sim.process.exit_code, 0) << sim.process.stderr_text;
  ASSERT_TRUE(sim.skeleton.is_object()) << sim.process.stdout_text;
  const double formula = sim.skeleton.value("flops", 0.0), counted = sim.skeleton.value("simulated_flops", 0.0);
  EXPECT_NEAR(counted / formula, 1.0, 0.05);
  // a 2 x 2 grid: rank 0 does about a quarter of them
  EXPECT_NEAR(sim.skeleton.value("rank0_flops", 0.0) / counted, 0.25, 0.05);
}

TEST(LuSkeleton, PredictedTimeGrowsWithTheMatrix) {
  perfcast::testing::expect_time_grows_with_size("lu_skel", 2,
                                                 {{"--n", "64", "--nb", "16", "--repeats", "1"},
                                                  {"--n", "128", "--nb", "16", "--repeats", "1"},
                                                  {"--n", "256", "--nb", "16", "--repeats", "1"}});
}

TEST(LuSkeleton, BadArgumentsFailLikeTheApp) {
  SkeletonRun sim = perfcast::testing::simulate_skeleton("lu_skel", 2, {"--p", "3"});
  EXPECT_NE(sim.process.stderr_text.find("--p"), std::string::npos) << sim.process.stderr_text;
  EXPECT_TRUE(sim.skeleton.is_null());
}
