// The model's coverage: what the analyser could not follow, recorded where it
// decided, one small program per shape (cases/coverage_*.c).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
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

// The same call in the model: a call item without a function, at its site
// with the column, which prices nothing until a probe run binds it; the
// kernels it may land on are analysed and kept as candidates, with their
// priced instructions apart.
TEST(Coverage, CallThroughAFunctionPointerStaysInTheModelAsAnUnboundCall) {
  analyze::AnalyzeOptions o;
  o.sources = {kCases + "coverage_callback.c"};
  o.mca = false;
  model::ProgramModel m = analyze::analyze_model(o);
  std::vector<const model::CallItem*> calls;
  std::function<void(const model::Items&)> find = [&](const model::Items& items) {
    for (const auto& it : items) {
      if (const auto* c = std::get_if<model::CallItem>(&it.body); c && c->indirect) calls.push_back(c);
      if (const auto* l = std::get_if<model::LoopItem>(&it.body)) find(l->body);
      if (const auto* b = std::get_if<model::BranchItem>(&it.body)) find(b->then_items), find(b->else_items);
    }
  };
  find(m.functions.at("main").body);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]->function, "");
  EXPECT_EQ(calls[0]->site, "coverage_callback.c:27:5");
  ASSERT_TRUE(m.coverage.has_value());
  EXPECT_EQ(m.coverage->candidate_instructions_priced.size(), 2u);
  EXPECT_GT(m.coverage->candidate_instructions_priced.at("gravity"), 0);
  EXPECT_GT(m.coverage->candidate_instructions_priced.at("spring"), 0);
  EXPECT_TRUE(m.functions.count("gravity") && m.functions.count("spring"));
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
