// apps/mg/skeleton/mg_skel.c run by `perfcast simulate` against the real mg
// run by the pinned Open MPI with the same arguments: same MPI calls kind by
// kind and same bytes handed to them (the real run counted by a preloaded PMPI
// shim, tests/apps/cg/mpi_count.c; the skeleton's calls by the simulator, its
// bytes by its own tally), the same process grid, level hierarchy,
// agglomeration and per-level halo traffic as mg reports; and a predicted time
// that grows with the grid. 8 ranks are oversubscribed on this machine.
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

void expect_same_as_real(int ranks, const std::vector<std::string>& args) {
  SCOPED_TRACE("ranks " + std::to_string(ranks));
  RealRun real = perfcast::testing::run_counted("mg", ranks, args);
  SkeletonRun sim = perfcast::testing::simulate_skeleton("mg_skel", ranks, args);
  perfcast::testing::expect_same_communication(sim, real, ranks);
  for (const char* key : {"px", "py", "pz", "n", "levels", "distributed_levels", "agglomerated_levels", "cycles",
                          "gather_bytes_per_cycle", "scatter_bytes_per_cycle"})
    EXPECT_EQ(sim.skeleton.value(key, -1LL), real.app.result.value(key, -2LL)) << key;
  EXPECT_EQ(sim.skeleton["halo_messages_per_cycle"], real.app.result["halo_messages_per_cycle"]);
  EXPECT_EQ(sim.skeleton["halo_bytes_per_cycle"], real.app.result["halo_bytes_per_cycle"]);
}

const std::vector<std::string> kJacobi = {"--n", "16", "--cycles", "3", "--repeats", "2"};

}  // namespace

TEST(MgSkeleton, SameCallsAsTheRealAppAtOneRank) { expect_same_as_real(1, kJacobi); }
TEST(MgSkeleton, SameCallsAsTheRealAppAtTwoRanks) { expect_same_as_real(2, kJacobi); }
TEST(MgSkeleton, SameCallsAsTheRealAppAtEightRanksOversubscribed) {
  RecordProperty("oversubscribed", "true");
  expect_same_as_real(8, with(kJacobi, {"--min-local", "2"}));  // 2x2x2 grid, gathers at level 3
}

TEST(MgSkeleton, RedBlackAndAllLevelsDistributed) {
  expect_same_as_real(2, {"--n", "16", "--cycles", "2", "--repeats", "1", "--smoother", "rbgs", "--min-local", "2",
                          "--px", "2", "--py", "1", "--pz", "1"});
}

TEST(MgSkeleton, PredictedTimeGrowsWithTheGrid) {
  perfcast::testing::expect_time_grows_with_size("mg_skel", 2,
                                                 {{"--n", "16", "--cycles", "2", "--repeats", "1"},
                                                  {"--n", "32", "--cycles", "2", "--repeats", "1"},
                                                  {"--n", "64", "--cycles", "2", "--repeats", "1"}});
}

TEST(MgSkeleton, BadProcessGridFailsLikeTheApp) {
  SkeletonRun sim = perfcast::testing::simulate_skeleton("mg_skel", 2, {"--n", "8", "--px", "3"});
  EXPECT_NE(sim.process.stderr_text.find("--px"), std::string::npos) << sim.process.stderr_text;
  EXPECT_TRUE(sim.skeleton.is_null());
}
