#include "model/item_walks.h"

namespace perfcast::model {

namespace {

void collect_loop_indices(const Items& items, std::set<std::string>& out) {
  for (const Item& item : items) {
    if (const auto* l = std::get_if<LoopItem>(&item.body)) {
      if (!l->var.empty()) out.insert(l->var);
      collect_loop_indices(l->body, out);
    } else if (const auto* b = std::get_if<BranchItem>(&item.body)) {
      collect_loop_indices(b->then_items, out);
      collect_loop_indices(b->else_items, out);
    }
  }
}

}  // namespace

void substitute_in(Item& item, const expr::Substitution& values, AfterSubstitution after) {
  for_each_expression(item, [&](Expr& e) {
    Expr replaced = expr::substitute(e, values);
    if (after == AfterSubstitution::Kept)
      e = std::move(replaced);
    else if (!(replaced == e))
      e = expr::simplify_or_keep(replaced);
  });
  if (auto* l = std::get_if<LoopItem>(&item.body)) {
    substitute_in(l->body, values, after);
  } else if (auto* b = std::get_if<BranchItem>(&item.body)) {
    substitute_in(b->then_items, values, after);
    substitute_in(b->else_items, values, after);
  }
}

void substitute_in(Items& items, const expr::Substitution& values, AfterSubstitution after) {
  for (Item& item : items) substitute_in(item, values, after);
}

Items substituted_items(Items body, const expr::Substitution& values) {
  substitute_in(body, values, AfterSubstitution::Simplified);
  return body;
}

std::set<std::string> loop_indices(const Items& body) {
  std::set<std::string> out;
  collect_loop_indices(body, out);
  return out;
}

std::size_t item_count(const Items& body) {
  std::size_t n = body.size();
  for (const Item& item : body) {
    if (const auto* l = std::get_if<LoopItem>(&item.body)) n += item_count(l->body);
    if (const auto* b = std::get_if<BranchItem>(&item.body)) n += item_count(b->then_items) + item_count(b->else_items);
  }
  return n;
}

std::size_t item_count(const ProgramModel& model) {
  std::size_t n = 0;
  for (const auto& [name, fn] : model.functions) n += item_count(fn.body);
  return n;
}

}  // namespace perfcast::model
