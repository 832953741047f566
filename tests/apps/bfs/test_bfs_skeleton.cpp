// apps/bfs/skeleton/bfs_skel.c run by `perfcast simulate` against the real bfs
// run by the pinned Open MPI with the same arguments, the skeleton being told
// each search's level count from the real run's JSON (the one data-dependent
// input it takes, as the BSIM paper takes an iteration count): same MPI calls
// kind by kind (the real run counted by a preloaded PMPI shim,
// tests/apps/cg/mpi_count.c), same bytes for every kind but MPI_Alltoallv,
// whose volumes the skeleton models (checked to be within a factor of the real
// ones); and a predicted time that grows with the scale. 8 ranks are
// oversubscribed on this machine.
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

// "--levels" "a,b,c" from the real run's per-root levels.
std::vector<std::string> levels_of(const nlohmann::json& real) {
  std::string list;
  for (const auto& levels : real["levels"]) list += (list.empty() ? "" : ",") + std::to_string(levels.get<int>());
  return {"--levels", list};
}

void expect_same_as_real(int ranks, const std::vector<std::string>& args) {
  SCOPED_TRACE("ranks " + std::to_string(ranks));
  RealRun real = perfcast::testing::run_counted("bfs", ranks, args);
  ASSERT_TRUE(real.app.result.is_object()) << real.app.process.stderr_text;
  SkeletonRun sim = perfcast::testing::simulate_skeleton("bfs_skel", ranks, with(args, levels_of(real.app.result)));
  perfcast::testing::expect_same_communication(sim, real, ranks, {"alltoallv"});
  for (const char* key : {"scale", "edgefactor", "vertices", "edges", "roots", "repeats"})
    EXPECT_EQ(sim.skeleton.value(key, -1LL), real.app.result.value(key, -2LL)) << key;
  EXPECT_EQ(sim.skeleton["levels"], real.app.result["levels"]);
  // The modelled all-to-all volume, against the real one: the right size, not exact.
  double modelled = static_cast<double>(sim.bytes["alltoallv"]);
  double measured = static_cast<double>(real.bytes["alltoallv"]);
  EXPECT_GT(measured, 0);
  EXPECT_GT(modelled, measured / 2) << "modelled " << modelled << " B, real " << measured << " B";
  EXPECT_LT(modelled, measured * 2) << "modelled " << modelled << " B, real " << measured << " B";
}

const std::vector<std::string> kSmall = {"--scale", "10", "--roots", "3", "--seed", "3", "--repeats", "2"};

}  // namespace

TEST(BfsSkeleton, SameCallsAsTheRealAppAtOneRank) { expect_same_as_real(1, kSmall); }
TEST(BfsSkeleton, SameCallsAsTheRealAppAtTwoRanks) { expect_same_as_real(2, kSmall); }
TEST(BfsSkeleton, SameCallsAsTheRealAppAtEightRanksOversubscribed) {
  RecordProperty("oversubscribed", "true");
  expect_same_as_real(8, kSmall);
}

TEST(BfsSkeleton, PredictedTimeGrowsWithScale) {
  auto runs = perfcast::testing::expect_time_grows_with_size(
      "bfs_skel", 2, {{"--scale", "10", "--roots", "2"}, {"--scale", "12", "--roots", "2"}, {"--scale", "14", "--roots", "2"}});
  EXPECT_EQ(runs.size(), 3u);
  for (const auto& sim : runs) EXPECT_EQ(sim.skeleton.value("levels_source", ""), "default");
}

TEST(BfsSkeleton, LevelsMustMatchTheRoots) {
  SkeletonRun sim = perfcast::testing::simulate_skeleton("bfs_skel", 1, {"--roots", "3", "--levels", "5,6"});
  EXPECT_NE(sim.process.stderr_text.find("--levels"), std::string::npos) << sim.process.stderr_text;
  EXPECT_TRUE(sim.skeleton.is_null());
}

// --roots 0 (the set-up alone): the skeleton draws no batch of candidate
// roots, as bfs does not, and makes the set-up's calls only.
TEST(BfsSkeleton, SameCallsAsTheRealAppWithZeroRoots) {
  expect_same_as_real(2, {"--scale", "10", "--roots", "0", "--seed", "3"});
}
