// Walks over a model's items (model/item_walks.h): they reach the items a loop
// or either side of a branch holds, and a substitution keeps or simplifies what
// it changes as asked.
#include <gtest/gtest.h>

#include "model/item_walks.h"
#include "model_text.h"

using namespace perfcast;
using namespace perfcast::model;
using perfcast::testing::model_from;

namespace {

ProgramModel nested() {
  return model_from(R"J({
      "main": {"body": [
        {"kind": "compute", "flops_double": "n + 1"},
        {"kind": "loop", "var": "i", "trip_count": "n * 2", "body": [
          {"kind": "compute", "flops_double": "i"},
          {"kind": "branch", "condition": "n > 3", "then": [
            {"kind": "loop", "var": "j", "trip_count": "n", "body": [{"kind": "compute", "flops_double": "j"}]}],
           "else": [{"kind": "compute", "flops_double": "n - 1"}, {"kind": "call", "function": "f", "args": {"a": "n"}}]}]}]},
      "f": {"parameters": ["a"], "body": [{"kind": "compute", "flops_double": "a"}]}})J",
                    R"J("parameters": {"n": {}})J", "walks.json");
}

std::string text(const Expr& e) { return expr::to_string(e); }

}  // namespace

TEST(ItemWalks, CountsEveryNestedItem) {
  const ProgramModel m = nested();
  // main: compute, loop; the loop: compute, branch; then: loop (its compute);
  // else: compute, call. f: compute.
  EXPECT_EQ(item_count(m.functions.at("main").body), 8u);
  EXPECT_EQ(item_count(m), 9u);
}

TEST(ItemWalks, LoopIndicesOfNestedLoops) {
  EXPECT_EQ(loop_indices(nested().functions.at("main").body), (std::set<std::string>{"i", "j"}));
}

TEST(ItemWalks, SubstitutionReachesEveryItemAndKeepsOrSimplifies) {
  const Items body = nested().functions.at("main").body;
  const Items folded = substituted_items(body, {{"n", expr::integer(4)}});
  EXPECT_EQ(text(std::get<ComputeItem>(folded[0].body).flops_double), "5");
  const auto& loop = std::get<LoopItem>(folded[1].body);
  EXPECT_EQ(text(loop.trip_count), "8");
  const auto& branch = std::get<BranchItem>(loop.body[1].body);
  EXPECT_EQ(text(*branch.condition), "1") << "a test of numbers folds";
  EXPECT_EQ(text(std::get<LoopItem>(branch.then_items[0].body).trip_count), "4");
  EXPECT_EQ(text(std::get<ComputeItem>(branch.else_items[0].body).flops_double), "3");
  EXPECT_EQ(text(std::get<CallItem>(branch.else_items[1].body).args.at(0).second), "4");
  EXPECT_EQ(text(std::get<ComputeItem>(loop.body[0].body).flops_double), "i") << "what the substitution leaves alone";

  // Kept: a name for a name, the expression otherwise as the model wrote it.
  Items renamed = body;
  substitute_in(renamed, {{"n", expr::parse("f.loop_at3.n")}}, AfterSubstitution::Kept);
  const Expr want = expr::substitute(std::get<LoopItem>(body[1].body).trip_count, {{"n", expr::parse("f.loop_at3.n")}});
  EXPECT_EQ(std::get<LoopItem>(renamed[1].body).trip_count, want);
  EXPECT_EQ(text(std::get<ComputeItem>(
                     std::get<BranchItem>(std::get<LoopItem>(renamed[1].body).body[1].body).else_items[0].body)
                     .flops_double),
            text(expr::substitute(expr::parse("n - 1"), {{"n", expr::parse("f.loop_at3.n")}})));
}
