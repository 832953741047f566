// The model's coverage: what the analyser could not follow, recorded where it
// decided, one small program per shape (cases/coverage_*.c).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "analyze/analyze.h"
#include "model/program_model.h"

using namespace perfcast;

namespace {

const std::string kCases = std::string(PERFCAST_SOURCE_DIR) + "/tests/analyze/cases/";

model::Coverage coverage_of(const std::string& name, std::map<std::string, double> branch_probabilities = {}) {
  analyze::AnalyzeOptions o;
  o.sources = {kCases + name};
  o.mca = false;
  o.branch_probabilities = std::move(branch_probabilities);
  model::ProgramModel m = analyze::analyze_model(o);
  EXPECT_TRUE(m.coverage.has_value()) << name;
  return m.coverage.value_or(model::Coverage{});
}

}  // namespace

// A kernel called through a struct's function pointer: the call is listed with
// its line and caller; both kernels it may land on are reachable (their
// address is taken in main) and none of their instructions is priced.
TEST(Coverage, CallThroughAFunctionPointerIsListedWithItsSite) {
  model::Coverage c = coverage_of("coverage_callback.c");
  ASSERT_EQ(c.unresolved_calls.size(), 1u);
  EXPECT_EQ(c.unresolved_calls[0].kind, "indirect");
  EXPECT_EQ(c.unresolved_calls[0].caller, "main");
  EXPECT_EQ(c.unresolved_calls[0].site, "coverage_callback.c:27");
  EXPECT_EQ(c.unresolved_calls[0].callee, "");
  EXPECT_EQ(c.functions_defined, 3);    // main, gravity, spring
  EXPECT_EQ(c.functions_reachable, 3);  // the kernels through the pointer main takes
  EXPECT_GT(c.instructions_priced, 0);
  EXPECT_LT(c.priced_share(), 0.9) << c.instructions_priced << " of " << c.instructions;
  EXPECT_TRUE(c.unknown_loops.empty());
}

// A convergence loop: its trip count is a parameter, listed with its line.
TEST(Coverage, DataDependentWhileLoopIsListedAsUnknownTrips) {
  model::Coverage c = coverage_of("coverage_while.c");
  ASSERT_EQ(c.unknown_loops.size(), 1u);
  EXPECT_EQ(c.unknown_loops[0].site, "coverage_while.c:11");
  EXPECT_EQ(c.unknown_loops[0].trip_count, "main.loop1.trips");
  EXPECT_EQ(c.unknown_loops[0].function, "main");
  EXPECT_NE(c.unknown_loops[0].why.find("data"), std::string::npos) << c.unknown_loops[0].why;
  EXPECT_TRUE(c.unresolved_calls.empty());
  EXPECT_EQ(c.functions_reachable, 1);
}

// A branch on a value the code computes: listed with the 0.5 it is priced at;
// once the user gives its probability it is no guess and is not listed.
TEST(Coverage, UnguessableBranchIsListedWithItsGuess) {
  model::Coverage c = coverage_of("coverage_branch.c");
  ASSERT_EQ(c.guessed_branches.size(), 1u);
  EXPECT_EQ(c.guessed_branches[0].site, "coverage_branch.c:13");
  EXPECT_EQ(c.guessed_branches[0].probability, 0.5);
  EXPECT_EQ(c.guessed_branches[0].why, "data-dependent condition");
  model::Coverage given = coverage_of("coverage_branch.c", {{"coverage_branch.c:13", 0.9}});
  EXPECT_TRUE(given.guessed_branches.empty());
  EXPECT_EQ(given.instructions, c.instructions);
}
