// apps/bfs: Graph500-style BFS run with the pinned Open MPI. Every run asserts
// the communicator size it got; the graph and the roots do not depend on the
// rank count, so levels and reached counts per root must too.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/app_run.h"

using perfcast::testing::AppRun;
using perfcast::testing::run_app;

namespace {

const std::vector<std::string> kSmall = {"--scale", "12", "--edgefactor", "16", "--roots", "4", "--seed", "7"};

const char* const kRules[] = {"rule1_tree", "rule2_tree_edge_levels", "rule3_graph_edge_levels",
                              "rule4_spans_component", "rule5_tree_edges_in_graph"};

std::string describe(const AppRun& run) {
  return "exit " + std::to_string(run.process.exit_code) + "\nstdout:\n" + run.process.stdout_text +
         "\nstderr:\n" + run.process.stderr_text;
}

// Runs bfs and checks what every good run must show.
AppRun run_passing(int ranks, const std::vector<std::string>& args) {
  AppRun run = run_app("bfs", ranks, args);
  EXPECT_FALSE(run.process.timed_out) << describe(run);
  EXPECT_EQ(run.process.exit_code, 0) << describe(run);
  EXPECT_TRUE(run.result.is_object()) << describe(run);
  if (!run.result.is_object()) return run;
  EXPECT_EQ(run.result["app"], "bfs");
  EXPECT_EQ(run.result["ranks"], ranks) << describe(run);
  EXPECT_EQ(run.result["check"], "passed") << describe(run);
  return run;
}

void expect_same_search(const nlohmann::json& a, const nlohmann::json& b) {
  for (const char* key : {"vertices", "edges", "self_loops", "adjacency_entries", "root_vertices", "levels",
                          "reached", "component_edges"})
    EXPECT_EQ(a[key], b[key]) << key << " differs between " << a["ranks"] << " and " << b["ranks"] << " ranks";
}

}  // namespace

TEST(Bfs, ValidationPassesOnTwoRanks) {
  AppRun run = run_passing(2, kSmall);
  ASSERT_TRUE(run.result.is_object());
  const auto& r = run.result;
  EXPECT_EQ(r["scale"], 12);
  EXPECT_EQ(r["edgefactor"], 16);
  EXPECT_EQ(r["vertices"], 4096);
  EXPECT_EQ(r["edges"], 4096 * 16);
  EXPECT_EQ(r["roots"], 4);
  ASSERT_EQ(r["levels"].size(), 4u);
  ASSERT_EQ(r["reached"].size(), 4u);
  ASSERT_EQ(r["times_s"].size(), 4u);
  for (int k = 0; k < 4; ++k) {
    EXPECT_GE(r["levels"][k].get<int>(), 2);
    EXPECT_GT(r["reached"][k].get<long>(), 1);
    EXPECT_LE(r["reached"][k].get<long>(), 4096);
    EXPECT_GT(r["component_edges"][k].get<long>(), 0);
    EXPECT_GT(r["times_s"][k].get<double>(), 0);
  }
  EXPECT_GT(r["time_s"].get<double>(), 0);
  EXPECT_GT(r["teps_harmonic_mean"].get<double>(), 0);
  // Two ranks own half the vertices each: the search ships pairs between them.
  EXPECT_GT(r["pairs_exchanged"][0].get<long>(), 0);
  for (const char* rule : kRules) {
    EXPECT_EQ(r["validation"][rule]["passed"], true) << rule;
    EXPECT_EQ(r["validation"][rule]["violations"], 0) << rule;
  }
  EXPECT_EQ(r["validation"]["searches"], 4);
  EXPECT_EQ(r["validation"]["failed_searches"], 0);
}

TEST(Bfs, OneRankExchangesNothingAndMatchesTwoRanks) {
  AppRun one = run_passing(1, kSmall);
  AppRun two = run_passing(2, kSmall);
  ASSERT_TRUE(one.result.is_object() && two.result.is_object());
  expect_same_search(one.result, two.result);
  for (const auto& pairs : one.result["pairs_exchanged"]) EXPECT_EQ(pairs, 0);
}

TEST(Bfs, FourRanksMatchOneRankOversubscribed) {
  RecordProperty("oversubscribed", "true");
  AppRun one = run_passing(1, kSmall);
  AppRun four = run_passing(4, kSmall);
  ASSERT_TRUE(one.result.is_object() && four.result.is_object());
  expect_same_search(one.result, four.result);
}

TEST(Bfs, RepeatsTimeAndValidateEverySearch) {
  AppRun run = run_passing(2, {"--scale", "10", "--roots", "2", "--repeats", "3", "--seed", "3"});
  ASSERT_TRUE(run.result.is_object());
  EXPECT_EQ(run.result["repeats"], 3);
  EXPECT_EQ(run.result["levels"].size(), 2u);
  EXPECT_EQ(run.result["times_s"].size(), 6u);
  EXPECT_EQ(run.result["validation"]["searches"], 6);
  EXPECT_EQ(run.result["validation"]["inconsistent_repeats"], 0);
}

TEST(Bfs, DifferentSeedGivesDifferentGraph) {
  AppRun a = run_passing(1, {"--scale", "10", "--roots", "2", "--seed", "1"});
  AppRun b = run_passing(1, {"--scale", "10", "--roots", "2", "--seed", "2"});
  ASSERT_TRUE(a.result.is_object() && b.result.is_object());
  EXPECT_NE(a.result["root_vertices"], b.result["root_vertices"]);
}

TEST(Bfs, CorruptedParentFailsValidation) {
  std::vector<std::string> args = kSmall;
  args.push_back("--corrupt-parent");
  AppRun run = run_app("bfs", 2, args);
  EXPECT_FALSE(run.process.timed_out);
  EXPECT_NE(run.process.exit_code, 0) << describe(run);
  ASSERT_TRUE(run.result.is_object()) << describe(run);
  EXPECT_EQ(run.result["ranks"], 2);
  EXPECT_EQ(run.result["check"], "failed");
  // The damaged vertex becomes its own parent: cut off from the root.
  EXPECT_EQ(run.result["validation"]["rule1_tree"]["passed"], false);
  EXPECT_EQ(run.result["validation"]["failed_searches"], 1);
}

TEST(Bfs, BadArgumentsExitNonZeroNamingTheOption) {
  struct Case {
    std::vector<std::string> args;
    std::string option;
  };
  const std::vector<Case> cases = {{{"--scale", "abc"}, "--scale"},
                                   {{"--edgefactor", "0"}, "--edgefactor"},
                                   {{"--frobnicate"}, "--frobnicate"}};
  // Each failing launch costs mpirun ~2 s to tear down: keep the list short.
  for (const auto& c : cases) {
    AppRun run = run_app("bfs", 1, c.args);
    EXPECT_NE(run.process.exit_code, 0) << c.option << "\n" << describe(run);
    EXPECT_NE(run.process.stderr_text.find(c.option), std::string::npos) << describe(run);
    EXPECT_TRUE(run.result.is_null()) << "no result line expected for " << c.option;
  }
}

TEST(Bfs, HelpListsTheOptions) {
  AppRun run = run_app("bfs", 1, {"--help"});
  EXPECT_EQ(run.process.exit_code, 0) << describe(run);
  for (const char* opt : {"--scale", "--edgefactor", "--roots", "--seed", "--repeats"})
    EXPECT_NE(run.process.stdout_text.find(opt), std::string::npos) << opt;
}

// --roots 0: the graph is generated and built as for any run (the same graph
// as a 1-root run's), then no search: a baseline of the set-up, whose timed
// figures are 0 and whose per-root arrays are empty.
TEST(Bfs, ZeroRootsBuildsTheGraphAndSearchesNothing) {
  AppRun none = run_passing(2, {"--scale", "10", "--roots", "0", "--seed", "3"});
  AppRun one = run_passing(2, {"--scale", "10", "--roots", "1", "--seed", "3"});
  ASSERT_TRUE(none.result.is_object() && one.result.is_object());
  EXPECT_EQ(none.result["roots"], 0);
  for (const char* key : {"root_vertices", "levels", "reached", "component_edges", "pairs_exchanged", "times_s"})
    EXPECT_TRUE(none.result[key].empty()) << key << ": " << none.result[key];
  EXPECT_EQ(none.result["time_s"], 0.0);
  EXPECT_EQ(none.result["validation"]["searches"], 0);
  for (const char* key : {"vertices", "edges", "self_loops", "adjacency_entries"})
    EXPECT_EQ(none.result[key], one.result[key]) << key;
  EXPECT_GT(one.result["time_s"].get<double>(), 0.0);
}
