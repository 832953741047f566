// apps/lu run with the pinned Open MPI: the blocked LU with partial pivoting
// solves a random system to HPL's scaled-residual threshold on 1, 2 and 4
// ranks, on the default grid and on explicit ones (1 x 4, 4 x 1), with a last
// block narrower than nb; the figures it reports agree across grids; bad
// grids and arguments are refused. Small matrices: the suite takes seconds.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/app_checks.h"

using perfcast::testing::AppRun;
using perfcast::testing::run_app;

namespace {

// A sound run of lu (run_app_passing) and the figures of its own check.
nlohmann::json run_ok(int ranks, const std::vector<std::string>& args) {
  nlohmann::json j = perfcast::testing::run_app_passing("lu", ranks, args);
  if (j.empty()) return j;
  EXPECT_LT(j.value("residual", 1e300), 16.0);
  EXPECT_GE(j.value("residual", -1.0), 0.0);
  EXPECT_EQ(j.value("zero_pivots", -1), 0);
  EXPECT_GT(j.value("time_s", 0.0), 0.0);
  EXPECT_GT(j.value("gflops", 0.0), 0.0);
  EXPECT_TRUE(j.contains("times_s") && j["times_s"].is_array());
  return j;
}

// n = 101, nb = 8: 13 blocks, the last 5 wide; on 2 x 2 rows and columns split 56 + 45.
const std::vector<std::string> kSystem = {"--n", "101", "--nb", "8", "--repeats", "1"};

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

const nlohmann::json& reference() {
  static const nlohmann::json ref = run_ok(1, kSystem);
  return ref;
}

// The same system solved: A regenerated exactly (same norm), the same x to
// rounding whatever the grid.
void expect_same_system(const nlohmann::json& j) {
  EXPECT_EQ(j.value("n", 0), 101);
  EXPECT_EQ(j.value("blocks", 0), 13);
  EXPECT_EQ(j.value("norm_a", -1.0), reference().value("norm_a", -2.0));
  EXPECT_NEAR(j.value("norm_x", -1.0), reference().value("norm_x", -2.0), 1e-9 * reference().value("norm_x", 0.0));
}

}  // namespace

TEST(Lu, OneRankSolvesTheSystem) {
  const auto& j = reference();
  EXPECT_EQ(j.value("p", 0), 1);
  EXPECT_EQ(j.value("q", 0), 1);
  EXPECT_EQ(j.value("nb", 0), 8);
  // HPL's operation count, 2/3 n^3 + 3/2 n^2
  EXPECT_DOUBLE_EQ(j.value("flops", 0.0), 2.0 / 3.0 * 101 * 101 * 101 + 1.5 * 101 * 101);
  // ||A||_inf of a 101-column matrix of uniform [-0.5, 0.5) entries: about 101/4
  EXPECT_GT(j.value("norm_a", 0.0), 15.0);
  EXPECT_LT(j.value("norm_a", 1e9), 40.0);
}

TEST(Lu, TwoRanksOneByTwo) {
  auto j = run_ok(2, kSystem);
  EXPECT_EQ(j.value("p", 0), 1);
  EXPECT_EQ(j.value("q", 0), 2);
  expect_same_system(j);
}

TEST(Lu, FourRanksTwoByTwoOversubscribed) {
  RecordProperty("oversubscribed", "true");
  auto j = run_ok(4, kSystem);
  EXPECT_EQ(j.value("p", 0), 2);
  EXPECT_EQ(j.value("q", 0), 2);
  expect_same_system(j);
}

TEST(Lu, FourRanksInOneColumnAndInOneRowOversubscribed) {
  RecordProperty("oversubscribed", "true");
  auto column = run_ok(4, with(kSystem, {"--p", "4"}));  // every pivot search spans 4 ranks
  EXPECT_EQ(column.value("q", 0), 1);
  expect_same_system(column);
  auto row = run_ok(4, with(kSystem, {"--q", "4"}));  // every panel broadcast spans 4 ranks
  EXPECT_EQ(row.value("p", 0), 1);
  expect_same_system(row);
}

TEST(Lu, BlockOfOneAndBlockWiderThanTheMatrix) {
  auto narrow = run_ok(2, {"--n", "40", "--nb", "1", "--repeats", "1"});
  EXPECT_EQ(narrow.value("blocks", 0), 40);
  auto wide = run_ok(2, {"--n", "40", "--nb", "64", "--repeats", "1"});  // one panel, on rank 0's column
  EXPECT_EQ(wide.value("blocks", 0), 1);
  EXPECT_EQ(wide.value("norm_a", -1.0), narrow.value("norm_a", -2.0));
}

TEST(Lu, SeedsAndRepeats) {
  auto a = run_ok(2, {"--n", "64", "--nb", "16", "--seed", "7", "--repeats", "3"});
  auto b = run_ok(2, {"--n", "64", "--nb", "16", "--seed", "8", "--repeats", "1"});
  EXPECT_EQ(a["times_s"].size(), 3u);
  EXPECT_EQ(a.value("seed", 0), 7);
  EXPECT_NE(a.value("norm_a", -1.0), b.value("norm_a", -1.0));
}

TEST(Lu, BadArgumentsExitNonZero) {
  struct Case {
    int ranks;
    std::vector<std::string> args;
    std::string names;
  };
  const std::vector<Case> cases = {
      {1, {"--n", "0"}, "--n"},
      {2, {"--p", "3"}, "--p"},              // does not divide the ranks
      {2, {"--p", "2", "--q", "2"}, "--q"},  // 4 is not 2 ranks
      {1, {"--frobnicate"}, "--frobnicate"},
  };
  for (const auto& c : cases) {
    AppRun run = run_app("lu", c.ranks, c.args);
    EXPECT_NE(run.process.exit_code, 0) << c.names;
    EXPECT_NE(run.process.stderr_text.find(c.names), std::string::npos) << run.process.stderr_text;
    EXPECT_FALSE(run.result.is_object()) << c.names;
  }
}

TEST(Lu, HelpListsOptions) {
  AppRun run = run_app("lu", 1, {"--help"});
  EXPECT_EQ(run.process.exit_code, 0);
  for (const char* opt : {"--n", "--nb", "--p", "--q", "--seed", "--repeats"})
    EXPECT_NE(run.process.stdout_text.find(opt), std::string::npos) << opt;
}
