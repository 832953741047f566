// wave3d under callgrind at 2 ranks, minus a run with one time step (wave3d
// rejects --steps 0), so set-up and MPI start-up drop out: the
// leapfrog update (a static function inlined into main, found through its
// debug info) does 14 flops per interior point per step, exactly (the app is
// built with FP_CONTRACT OFF: no FMA).
#include <gtest/gtest.h>

#include <filesystem>

#include "counts/run.h"

namespace perfcast::counts {
namespace {

TEST(Wave3d, LeapfrogFlopsPerRankAreExact) {
  std::string app = std::string(PERFCAST_BINARY_DIR) + "/apps/wave3d";
  if (!std::filesystem::exists(app)) GTEST_SKIP() << "apps/wave3d is not built";
  const int ranks = 2, n = 8, steps = 3;
  // 8^3 over 2 ranks: px = 2, so each rank holds 4 x 8 x 8 points.
  const int64_t points_per_rank = (n / 2) * n * n;

  CallgrindRunOptions run;
  run.ranks = ranks;
  run.label = "steps";
  run.cache_sim = false;  // Dr/Dw are not needed here, and the run is twice as fast
  run.program = {app, "--n", std::to_string(n), "--steps", std::to_string(steps), "--repeats", "1"};
  CodeCache cache;
  auto with_steps = count_ranks(run_callgrind(run), cache);
  CallgrindRunOptions baseline = run;
  baseline.label = "onestep";
  baseline.program = {app, "--n", std::to_string(n), "--steps", "1", "--repeats", "1"};
  const int counted_steps = steps - 1;
  auto without_steps = count_ranks(run_callgrind(baseline), cache);
  ASSERT_EQ(with_steps.size(), 2u);
  ASSERT_EQ(without_steps.size(), 2u);

  for (int r = 0; r < ranks; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    auto diff = subtract(with_steps[r], without_steps[r]);
    const auto* step = diff.find("leapfrog_step");
    ASSERT_NE(step, nullptr);
    EXPECT_TRUE(step->inlined_only);  // static, inlined into main: known from the debug info
    EXPECT_EQ(step->flops_double(), 14 * points_per_rank * counted_steps);
    EXPECT_EQ(step->flops_single(), 0);
    EXPECT_EQ(step->fma_instructions, 0);
    EXPECT_TRUE(step->math_calls.empty());
    // Writes u_next once per point (8 bytes), reads u and u_prev at least once
    // (16). Not equal: inlined into main, the loop nest spills pointer
    // induction variables to the stack (add QWORD PTR [rsp+..],rax per row),
    // which the machine code really does and the source does not say.
    EXPECT_GE(step->store_bytes, 8 * points_per_rank * counted_steps);
    EXPECT_GE(step->load_bytes, 16 * points_per_rank * counted_steps);
    // main contains the inlined update, so its difference has at least those flops.
    const auto* main = diff.find("main");
    ASSERT_NE(main, nullptr);
    EXPECT_GE(main->flops_double(), step->flops_double());
  }
}

}  // namespace
}  // namespace perfcast::counts
