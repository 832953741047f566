// apps/cg/skeleton/cg_skel.c run by `perfcast simulate` against the real cg run
// by the pinned Open MPI with the same arguments: same MPI calls kind by kind
// and same bytes handed to them (the real run counted by a preloaded PMPI shim,
// mpi_count.c; the skeleton's calls by the simulator, its bytes by its own
// tally), the same z-slab decomposition, messages and flop count as cg
// reports; and a predicted time that grows with the grid. 8 ranks are
// oversubscribed on this machine: the real run there serves counts only.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "skeleton_run.h"

namespace {

using perfcast::testing::RealRun;
using perfcast::testing::SkeletonRun;

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

// Runs both at `ranks` and checks calls, bytes and cg's own figures.
void expect_same_as_real(int ranks, const std::vector<std::string>& real_args,
                         const std::vector<std::string>& skeleton_extra = {}) {
  SCOPED_TRACE("ranks " + std::to_string(ranks));
  RealRun real = perfcast::testing::run_counted("cg", ranks, real_args);
  SkeletonRun sim = perfcast::testing::simulate_skeleton("cg_skel", ranks, with(real_args, skeleton_extra));
  perfcast::testing::expect_same_communication(sim, real, ranks);
  for (const char* key : {"nx", "ny", "nz", "rows", "nnz", "planes_min", "planes_max", "iterations",
                          "halo_messages_per_iter", "halo_bytes_per_message", "allreduces_per_iter",
                          "allreduce_doubles_per_iter"})
    EXPECT_EQ(sim.skeleton.value(key, -1LL), real.app.result.value(key, -2LL)) << key;
  // the flops the skeleton hands the simulator per iteration, summed over ranks
  EXPECT_DOUBLE_EQ(sim.skeleton.value("flops_per_iter", -1.0), real.app.result.value("flops_per_iter", -2.0));
}

const std::vector<std::string> kFixed = {"--nx", "12", "--ny", "10", "--nz", "16", "--iters", "7", "--repeats", "2"};

}  // namespace

TEST(CgSkeleton, SameCallsAsTheRealAppAtOneRank) { expect_same_as_real(1, kFixed); }
TEST(CgSkeleton, SameCallsAsTheRealAppAtTwoRanks) { expect_same_as_real(2, kFixed); }
TEST(CgSkeleton, SameCallsAsTheRealAppAtEightRanksOversubscribed) {
  RecordProperty("oversubscribed", "true");
  expect_same_as_real(8, kFixed);  // 16 planes: two each
}

TEST(CgSkeleton, JacobiPlainDotsUnevenSplit) {
  // 13 planes over 2 ranks (7 + 6), the wider Jacobi reduction, one-double dots
  expect_same_as_real(2, {"--nx", "9", "--ny", "11", "--nz", "13", "--iters", "5", "--precond", "jacobi", "--dot",
                          "plain", "--repeats", "1"});
}

TEST(CgSkeleton, ToleranceRunWithTheRealIterationCount) {
  // The paper's way: the skeleton is told how many iterations the real solve took.
  const std::vector<std::string> args = {"--n", "12", "--tol", "1e-6", "--repeats", "1"};
  nlohmann::json real = perfcast::testing::run_app("cg", 2, args).result;
  ASSERT_TRUE(real.is_object());
  ASSERT_EQ(real.value("ranks", -1), 2);
  ASSERT_TRUE(real.value("converged", false));
  int iterations = real.value("iterations", 0);
  ASSERT_GT(iterations, 5);
  expect_same_as_real(2, args, {"--converged-iters", std::to_string(iterations)});
}

TEST(CgSkeleton, WithoutACountItEstimatesAnUpperBound) {
  const std::vector<std::string> args = {"--n", "12", "--tol", "1e-6", "--repeats", "1"};
  nlohmann::json real = perfcast::testing::run_app("cg", 1, args).result;
  ASSERT_TRUE(real.is_object());
  SkeletonRun sim = perfcast::testing::simulate_skeleton("cg_skel", 1, args);
  ASSERT_EQ(sim.process.exit_code, 0) << sim.process.stderr_text;
  ASSERT_EQ(sim.skeleton.value("ranks", -1), 1);
  EXPECT_EQ(sim.skeleton.value("iterations_source", ""), "estimate");
  // CG's Chebyshev bound: never fewer iterations than CG takes, not wildly more
  EXPECT_GE(sim.skeleton.value("iterations", 0), real.value("iterations", 1 << 30));
  EXPECT_LE(sim.skeleton.value("iterations", 1 << 30), 3 * real.value("iterations", 0));
}

TEST(CgSkeleton, PredictedTimeGrowsWithTheGrid) {
  perfcast::testing::expect_time_grows_with_size("cg_skel", 2,
                                                 {{"--n", "12", "--iters", "10", "--repeats", "1"},
                                                  {"--n", "20", "--iters", "10", "--repeats", "1"},
                                                  {"--n", "32", "--iters", "10", "--repeats", "1"}});
}

TEST(CgSkeleton, BadArgumentsFailLikeTheApp) {
  SkeletonRun sim = perfcast::testing::simulate_skeleton("cg_skel", 2, {"--nz", "1"});
  EXPECT_NE(sim.process.stderr_text.find("--nz"), std::string::npos) << sim.process.stderr_text;
  EXPECT_TRUE(sim.skeleton.is_null());
}
