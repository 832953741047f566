// Every expression of a model names a loop's index only inside that loop
// (cases/flag_after_loop.c: a flag a loop sets, tested after it), so the
// model evaluates wherever its parameters are bound.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "analyze/analyze.h"
#include "model/costs.h"
#include "model/predict.h"
#include "model/program_model.h"
#include "support/expr.h"

using namespace perfcast;

namespace {

const std::string kCases = std::string(PERFCAST_SOURCE_DIR) + "/tests/analyze/cases/";

void loop_vars_of(const model::Items& items, std::set<std::string>& out) {
  for (const auto& item : items) {
    if (const auto* b = std::get_if<model::BranchItem>(&item.body)) {
      loop_vars_of(b->then_items, out);
      loop_vars_of(b->else_items, out);
    } else if (const auto* l = std::get_if<model::LoopItem>(&item.body)) {
      if (!l->var.empty()) out.insert(l->var);
      loop_vars_of(l->body, out);
    }
  }
}

// The loop indices `e` names that no loop around it binds, with where.
void out_of_scope(const expr::Expr& e, const std::set<std::string>& loop_vars, const std::set<std::string>& around,
                  const std::string& where, std::vector<std::string>& out) {
  for (const auto& name : expr::free_names(e))
    if (loop_vars.count(name) && !around.count(name)) out.push_back(name + " in " + where + ": " + expr::to_string(e));
}

void check_items(const model::Items& items, const std::set<std::string>& loop_vars, std::set<std::string> around,
                 std::vector<std::string>& out) {
  for (const auto& item : items) {
    const std::string where = "the item at line " + std::to_string(item.line);
    if (const auto* b = std::get_if<model::BranchItem>(&item.body)) {
      if (b->condition) out_of_scope(*b->condition, loop_vars, around, where, out);
      check_items(b->then_items, loop_vars, around, out);
      check_items(b->else_items, loop_vars, around, out);
    } else if (const auto* l = std::get_if<model::LoopItem>(&item.body)) {
      out_of_scope(l->trip_count, loop_vars, around, where, out);
      std::set<std::string> inside = around;
      if (!l->var.empty()) inside.insert(l->var);
      check_items(l->body, loop_vars, inside, out);
    } else if (const auto* c = std::get_if<model::ComputeItem>(&item.body)) {
      for (const auto* e : {&c->flops_double, &c->loads, &c->stores, &c->load_bytes, &c->store_bytes})
        out_of_scope(*e, loop_vars, around, where, out);
    } else if (const auto* call = std::get_if<model::CallItem>(&item.body)) {
      for (const auto& [param, arg] : call->args) out_of_scope(arg, loop_vars, around, where, out);
    }
  }
}

TEST(LoopScope, AFlagALoopSetsIsTestedAfterItWithoutItsIndex) {
  analyze::AnalyzeOptions o;
  o.sources = {kCases + "flag_after_loop.c"};
  o.mca = false;
  model::ProgramModel m = analyze::analyze_model(o);
  ASSERT_TRUE(m.functions.count("renumber"));
  for (const auto& [name, fn] : m.functions) {
    std::set<std::string> loop_vars;
    loop_vars_of(fn.body, loop_vars);
    std::vector<std::string> out;
    check_items(fn.body, loop_vars, {}, out);
    EXPECT_TRUE(out.empty()) << name << ": " << out.front();
  }
  // And it evaluates with every parameter given a number.
  expr::Bindings b{{"rank", 0}, {"size", 1}};
  for (const auto& p : m.parameters) b[p.name] = 8;
  b["ncols"] = 8;  // renumber's arguments
  b["nrows"] = 8;
  EXPECT_NO_THROW(model::evaluate_rank(model::symbolic_costs(m, "renumber"), b, 0));
}

}  // namespace
