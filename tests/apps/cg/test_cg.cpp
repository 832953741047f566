// apps/cg run with the pinned Open MPI: CG reaches its tolerance and the recomputed
// residual confirms it; with the default reproducible (per-plane ordered) dot
// products the iteration count and the final residual are bit-identical at 1, 2
// and 4 ranks, even and uneven z-splits; fixed iteration counts, the Jacobi
// option and bad arguments behave. Small grids: the suite takes seconds.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/app_checks.h"

using perfcast::testing::AppRun;
using perfcast::testing::run_app;

namespace {

// A sound run of cg (run_app_passing) and the figures of its own check.
nlohmann::json run_ok(int ranks, const std::vector<std::string>& args) {
  nlohmann::json j = perfcast::testing::run_app_passing("cg", ranks, args);
  if (j.empty()) return j;
  EXPECT_TRUE(j.contains("time_s") && j["time_s"].is_number());
  EXPECT_TRUE(j.contains("times_s") && j["times_s"].is_array());
  return j;
}

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

// 30 planes: 15+15 at 2 ranks, 8+8+7+7 at 4 (uneven).
const std::vector<std::string> grid = {"--nx", "20", "--ny", "18", "--nz", "30", "--tol", "1e-8", "--repeats", "1"};

// The one-rank reference, run once for the whole suite.
const nlohmann::json& reference() {
  static const nlohmann::json ref = run_ok(1, grid);
  return ref;
}

void expect_same_solve(const nlohmann::json& a, const nlohmann::json& ref) {
  EXPECT_EQ(a.value("iterations", -1), ref.value("iterations", -2));
  // ordered dot products: every iterate is bit-identical, so is the final residual
  EXPECT_EQ(a.value("final_residual", -1.0), ref.value("final_residual", -2.0));
  EXPECT_EQ(a.value("residual_reduction", -1.0), ref.value("residual_reduction", -2.0));
}

}  // namespace

TEST(Cg, OneRankReachesTolerance) {
  const auto& j = reference();
  EXPECT_EQ(j.value("nx", 0), 20);
  EXPECT_EQ(j.value("ny", 0), 18);
  EXPECT_EQ(j.value("nz", 0), 30);
  EXPECT_TRUE(j.value("converged", false));
  EXPECT_GT(j.value("iterations", 0), 20);  // a real solve, not an eigenvector
  EXPECT_LT(j.value("iterations", 1 << 30), 1000);
  EXPECT_LT(j.value("residual_reduction", 1.0), 1e-8);
  EXPECT_NEAR(j.value("final_residual", 1.0) / j.value("initial_residual", 1e-300), j.value("residual_reduction", 1.0),
              1e-20);
  EXPECT_LT(j.value("error_rel", 1.0), 1e-5);
  EXPECT_EQ(j.value("halo_messages_per_iter", -1), 0);
  EXPECT_EQ(j.value("allreduces_per_iter", -1), 2);
  EXPECT_EQ(j.value("nnz", 0), 7 * 20 * 18 * 30 - 2 * (18 * 30 + 20 * 30 + 20 * 18));
}

TEST(Cg, SameIterationsAtOneAndTwoRanks) {
  auto two = run_ok(2, grid);
  expect_same_solve(two, reference());
  EXPECT_EQ(two.value("halo_messages_per_iter", -1), 2);
  EXPECT_EQ(two.value("halo_bytes_per_message", -1), 20 * 18 * 8);
  EXPECT_EQ(two.value("planes_min", 0), 15);
  EXPECT_EQ(two.value("planes_max", 0), 15);
}

TEST(Cg, SameIterationsAtFourRanksUnevenOversubscribed) {
  RecordProperty("oversubscribed", "true");
  auto four = run_ok(4, grid);
  expect_same_solve(four, reference());
  EXPECT_EQ(four.value("planes_min", 0), 7);
  EXPECT_EQ(four.value("planes_max", 0), 8);
  EXPECT_EQ(four.value("halo_messages_per_iter", -1), 6);
}

TEST(Cg, TwoRanksOddSplitMatchesOneRank) {
  const std::vector<std::string> odd = {"--nx", "9", "--ny", "11", "--nz", "13", "--repeats", "1"};
  auto one = run_ok(1, odd);
  auto two = run_ok(2, odd);  // 7 + 6 planes
  expect_same_solve(two, one);
  EXPECT_EQ(two.value("planes_max", 0), 7);
}

TEST(Cg, JacobiConvergesLikeUnpreconditioned) {
  // A constant diagonal: Jacobi only scales, so CG takes the same number of steps.
  auto jac = run_ok(2, with(grid, {"--precond", "jacobi"}));
  EXPECT_EQ(jac.value("precond", ""), "jacobi");
  EXPECT_EQ(jac.value("iterations", -1), reference().value("iterations", -2));
  EXPECT_LT(jac.value("residual_reduction", 1.0), 1e-8);
}

TEST(Cg, PlainDotsReachToleranceAtFourRanksOversubscribed) {
  RecordProperty("oversubscribed", "true");
  auto plain = run_ok(4, with(grid, {"--dot", "plain"}));
  EXPECT_EQ(plain.value("dot", ""), "plain");
  EXPECT_LT(plain.value("residual_reduction", 1.0), 1e-8);
  // a well-separated tolerance: rounding in the reduction order does not move the count
  EXPECT_EQ(plain.value("iterations", -1), reference().value("iterations", -2));
}

TEST(Cg, FixedIterationCountAndRepeats) {
  auto j = run_ok(2, {"--n", "16", "--iters", "25", "--repeats", "3"});
  EXPECT_EQ(j.value("iterations", -1), 25);
  EXPECT_EQ(j.value("fixed_iters", -1), 25);
  EXPECT_EQ(j["times_s"].size(), 3u);
  EXPECT_LT(j.value("error_anorm_reduction", 1.0), j.value("check_bound", 0.0));
  EXPECT_LT(j.value("residual_reduction", 1.0), 0.1);
}

TEST(Cg, NotConvergingWithinMaxItersFails) {
  AppRun run = run_app("cg", 1, {"--n", "16", "--max-iters", "3", "--repeats", "1"});
  EXPECT_NE(run.process.exit_code, 0);
  ASSERT_TRUE(run.result.is_object()) << run.process.stdout_text;
  EXPECT_EQ(run.result.value("ranks", -1), 1);
  EXPECT_EQ(run.result.value("check", ""), "failed");
  EXPECT_FALSE(run.result.value("converged", true));
}

TEST(Cg, BadArgumentsExitNonZero) {
  // (each failing launch costs mpirun ~2 s of teardown: few cases)
  struct Case {
    int ranks;
    std::vector<std::string> args;
    std::string names;
  };
  const std::vector<Case> cases = {
      {1, {"--n", "0"}, "--n"},
      {1, {"--precond", "ilu"}, "--precond"},
      {1, {"--frobnicate"}, "--frobnicate"},
      {1, {"--tol"}, "--tol"},
      {2, {"--nz", "1"}, "--nz"},  // fewer planes than ranks
  };
  for (const auto& c : cases) {
    AppRun run = run_app("cg", c.ranks, c.args);
    EXPECT_NE(run.process.exit_code, 0) << c.names;
    EXPECT_NE(run.process.stderr_text.find(c.names), std::string::npos) << run.process.stderr_text;
    EXPECT_FALSE(run.result.is_object()) << c.names;
  }
}

TEST(Cg, HelpListsOptions) {
  AppRun run = run_app("cg", 1, {"--help"});
  EXPECT_EQ(run.process.exit_code, 0);
  for (const char* opt : {"--n", "--tol", "--max-iters", "--iters", "--precond", "--repeats"})
    EXPECT_NE(run.process.stdout_text.find(opt), std::string::npos) << opt;
}
