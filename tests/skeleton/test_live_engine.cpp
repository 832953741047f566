// Live skeletons under the real engine (src/sim/engine.cpp) rather than the test
// driver: the engine must call the DataMover for every match, probe and
// collective, with the events that entered them, or the skeletons' own checks
// (their exit codes) fail.
#include <gtest/gtest.h>

#include <string>

#include "sim/engine.h"
#include "sim/sim_test_util.h"
#include "sim/skeleton/live_job.h"

namespace {

using perfcast::sim::simulate;
using perfcast::sim::SimOptions;
using perfcast::sim::skeleton::open_live_skeleton;

std::string skeleton(const char* name) { return std::string(SKELETON_DIR) + "/" + name; }

TEST(SkeletonEngine, ProbeStatusGivesSourceTagAndCount) {
  // probe.c: rank 0 receives messages of sizes it learns from MPI_Probe +
  // MPI_Get_count, some already arrived when it probes, some not yet, one
  // above the eager threshold. Exit code 50..57 names a failed check.
  auto machine = perfcast::sim::test::flat_machine();
  for (int n : {2, 5, 9}) {
    auto job = open_live_skeleton(skeleton("probe"), {}, n, {});
    SimOptions options;
    options.mover = job.get();
    auto result = simulate(*job, machine, options);
    for (int r = 0; r < n; ++r) EXPECT_EQ(job->exit_code(r), 0) << n << " ranks, rank " << r;
    // Rank 0 waits for the late senders (even ranks, up to 10 ms + 0.1 ms x rank).
    if (n > 2) {
      EXPECT_GT(result.ranks[0].end_s, 1e-2);
    }
    EXPECT_EQ(result.kind_counts[static_cast<size_t>(perfcast::events::Kind::Probe)], static_cast<unsigned>(n));
  }
}

TEST(SkeletonEngine, CollectivesMoveTheRightData) {
  // collectives.c checks every collective's data, communicator splits, a
  // Cartesian shift, probe + get_count with any source, test and waitany.
  auto machine = perfcast::sim::test::flat_machine();
  for (int n : {1, 2, 3, 8, 13}) {
    auto job = open_live_skeleton(skeleton("collectives"), {}, n, {});
    SimOptions options;
    options.mover = job.get();
    simulate(*job, machine, options);
    for (int r = 0; r < n; ++r) EXPECT_EQ(job->exit_code(r), r == n - 1 ? 3 : 0) << n << " ranks, rank " << r;
  }
}

}  // namespace
