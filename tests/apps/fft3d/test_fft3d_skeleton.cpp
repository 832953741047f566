// apps/fft3d/skeleton/fft3d_skel.c run by `perfcast simulate` against the real
// fft3d run by the pinned Open MPI with the same arguments: same MPI calls kind
// by kind (the alltoall transposes, the barriers, the allreduces of the time
// and of the errors; with pencils the grid's communicator splits) and the same
// bytes handed to them (the real run counted by a preloaded PMPI shim,
// mpi_count.c; the skeleton's by its own tally), the same decomposition
// figures, with slabs and with pencils; and a predicted time that grows with
// the grid. 4 ranks are oversubscribed on this machine: the real run there
// serves counts only.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "skeleton_run.h"

namespace {

using perfcast::testing::RealRun;
using perfcast::testing::SkeletonRun;

void expect_same_as_real(int ranks, const std::vector<std::string>& args) {
  SCOPED_TRACE("ranks " + std::to_string(ranks));
  RealRun real = perfcast::testing::run_counted("fft3d", ranks, args);
  SkeletonRun sim = perfcast::testing::simulate_skeleton("fft3d_skel", ranks, args);
  perfcast::testing::expect_same_communication(sim, real, ranks);
  const bool pencils = real.app.result.value("decomposition", "") == "pencils";
  EXPECT_EQ(sim.skeleton.value("decomposition", ""), real.app.result.value("decomposition", "-"));
  std::vector<const char*> keys = {"nx", "ny", "nz", "alltoalls_per_round_trip", "repeats"};
  if (pencils)
    keys.insert(keys.end(), {"pr", "pc", "row_alltoall_bytes_per_peer", "column_alltoall_bytes_per_peer"});
  else
    keys.insert(keys.end(), {"planes_per_rank", "alltoall_bytes_per_peer"});
  for (const char* key : keys) EXPECT_EQ(sim.skeleton.value(key, -1LL), real.app.result.value(key, -2LL)) << key;
  EXPECT_DOUBLE_EQ(sim.skeleton.value("flops_per_round_trip", -1.0),
                   real.app.result.value("flops_per_round_trip", -2.0));
}

const std::vector<std::string> kGrid = {"--nx", "16", "--ny", "8", "--nz", "12", "--repeats", "3"};
const std::vector<std::string> kPencils = {"--nx", "8",        "--ny",   "12",        "--nz",
                                           "6",    "--decomp", "pencil", "--repeats", "2"};

}  // namespace

TEST(Fft3dSkeleton, SameCallsAsTheRealAppAtOneRank) { expect_same_as_real(1, kGrid); }
TEST(Fft3dSkeleton, SameCallsAsTheRealAppAtTwoRanks) { expect_same_as_real(2, kGrid); }
TEST(Fft3dSkeleton, SameCallsAsTheRealAppAtFourRanksOversubscribed) {
  RecordProperty("oversubscribed", "true");
  expect_same_as_real(4, kGrid);
}

TEST(Fft3dSkeleton, PencilsSameCallsAtOneRank) { expect_same_as_real(1, kPencils); }
TEST(Fft3dSkeleton, PencilsSameCallsAtTwoRanks) { expect_same_as_real(2, kPencils); }
TEST(Fft3dSkeleton, PencilsSameCallsAtFourRanksOversubscribed) {
  RecordProperty("oversubscribed", "true");
  expect_same_as_real(4, kPencils);  // 2 x 2: row and column communicators of 2
}

TEST(Fft3dSkeleton, PredictedTimeGrowsWithTheGrid) {
  perfcast::testing::expect_time_grows_with_size(
      "fft3d_skel", 2,
      {{"--n", "16", "--repeats", "1"}, {"--n", "32", "--repeats", "1"}, {"--n", "64", "--repeats", "1"}});
}

TEST(Fft3dSkeleton, BadArgumentsFailLikeTheApp) {
  SkeletonRun sim = perfcast::testing::simulate_skeleton("fft3d_skel", 4, {"--nx", "6", "--ny", "8"});
  EXPECT_NE(sim.process.stderr_text.find("--nx"), std::string::npos) << sim.process.stderr_text;
  EXPECT_TRUE(sim.skeleton.is_null());
}
