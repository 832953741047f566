// apps/nbody/skeleton/nbody_skel.c run by `perfcast simulate` against the real
// nbody run by the pinned Open MPI with the same arguments: same MPI calls kind
// by kind and same bytes handed to them (the real run counted by a preloaded
// PMPI shim, tests/apps/cg/mpi_count.c; the skeleton's calls by the simulator,
// its bytes by its own tally), the same distribution of bodies and counts as
// nbody reports; and a predicted time that grows with the number of bodies,
// about as N^2 for direct forces. 8 ranks are oversubscribed on this machine.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "skeleton_run.h"

namespace {

using perfcast::testing::RealRun;
using perfcast::testing::SkeletonRun;

void expect_same_as_real(int ranks, const std::vector<std::string>& args) {
  SCOPED_TRACE("ranks " + std::to_string(ranks));
  RealRun real = perfcast::testing::run_counted("nbody", ranks, args);
  SkeletonRun sim = perfcast::testing::simulate_skeleton("nbody_skel", ranks, args);
  perfcast::testing::expect_same_communication(sim, real, ranks);
  for (const char* key : {"bodies", "steps", "repeats", "bodies_per_rank_min", "bodies_per_rank_max",
                          "force_evaluations", "allgathervs", "allgatherv_bytes"})
    EXPECT_EQ(sim.skeleton.value(key, -1LL), real.app.result.value(key, -2LL)) << key;
  EXPECT_EQ(sim.skeleton.value("force", ""), real.app.result.value("force", "?"));
  EXPECT_EQ(sim.skeleton.value("integrator", ""), real.app.result.value("integrator", "?"));
}

const std::vector<std::string> kLeapfrog = {"--bodies", "203", "--steps", "5", "--repeats", "2"};

}  // namespace

TEST(NbodySkeleton, SameCallsAsTheRealAppAtOneRank) { expect_same_as_real(1, kLeapfrog); }
TEST(NbodySkeleton, SameCallsAsTheRealAppAtTwoRanks) { expect_same_as_real(2, kLeapfrog); }
TEST(NbodySkeleton, SameCallsAsTheRealAppAtEightRanksOversubscribed) {
  RecordProperty("oversubscribed", "true");
  expect_same_as_real(8, kLeapfrog);  // 203 bodies: 26 on three ranks, 25 on five
}

TEST(NbodySkeleton, Rk4AndBarnesHutSameCalls) {
  expect_same_as_real(2, {"--bodies", "300", "--steps", "3", "--integrator", "rk4", "--force", "bh"});
}

TEST(NbodySkeleton, DirectInteractionsAreExact) {
  RealRun real = perfcast::testing::run_counted("nbody", 2, kLeapfrog);
  SkeletonRun sim = perfcast::testing::simulate_skeleton("nbody_skel", 2, kLeapfrog);
  ASSERT_TRUE(real.app.result.is_object()) << real.app.process.stderr_text;
  ASSERT_TRUE(sim.skeleton.is_object()) << sim.process.stderr_text;
  EXPECT_EQ(real.app.result.value("ranks", -1), 2);
  EXPECT_EQ(sim.skeleton.value("ranks", -1), 2);
  EXPECT_DOUBLE_EQ(sim.skeleton.value("interactions", -1.0), real.app.result.value("interactions", -2.0));
}

TEST(NbodySkeleton, PredictedTimeGrowsWithBodies) {
  auto runs = perfcast::testing::expect_time_grows_with_size(
      "nbody_skel", 2,
      {{"--bodies", "500", "--steps", "10"}, {"--bodies", "1000", "--steps", "10"}, {"--bodies", "2000", "--steps", "10"}});
  ASSERT_EQ(runs.size(), 3u);
  // direct forces dominate: doubling N about quadruples the integration
  for (size_t i = 1; i < runs.size(); ++i)
    EXPECT_NEAR(runs[i].skeleton.value("time_s", 0.0) / runs[i - 1].skeleton.value("time_s", 1.0), 4.0, 0.6)
        << "run " << i;
}

TEST(NbodySkeleton, BadArgumentsFailLikeTheApp) {
  SkeletonRun sim = perfcast::testing::simulate_skeleton("nbody_skel", 1, {"--force", "fmm"});
  EXPECT_NE(sim.process.stderr_text.find("--force"), std::string::npos) << sim.process.stderr_text;
  EXPECT_TRUE(sim.skeleton.is_null());
}
