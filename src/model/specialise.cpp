#include "model/specialise.h"

#include <set>

#include "model/costs.h"

namespace perfcast::model {

namespace {

// Whether every name `e` reads is one of `independent`.
bool uses_only(const Expr& e, const std::set<std::string>& independent) {
  for (const auto& name : expr::free_names(e))
    if (!independent.count(name)) return false;
  return true;
}

void substitute_in(Items& list, const expr::Substitution& values) {
  for (Item& item : list) {
    for_each_expression(item, [&](Expr& e) {
      Expr replaced = expr::substitute(e, values);
      if (!(replaced == e)) e = expr::simplify_or_keep(replaced);
    });
    if (auto* l = std::get_if<LoopItem>(&item.body)) {
      substitute_in(l->body, values);
    } else if (auto* b = std::get_if<BranchItem>(&item.body)) {
      substitute_in(b->then_items, values);
      substitute_in(b->else_items, values);
    }
  }
}

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

class Specialiser {
 public:
  Specialiser(const ProgramModel& model, const expr::Bindings& fixed) : model_(model), fixed_(fixed) {}

  void function(Function& fn) {
    std::set<std::string> shadowed(fn.parameters.begin(), fn.parameters.end());
    collect_loop_indices(fn.body, shadowed);
    substitution_.clear();
    for (const auto& [name, value] : fixed_)
      if (!shadowed.count(name)) substitution_.emplace(name, constant(value));
    items(fn.body);
  }

 private:
  static Expr constant(const expr::Value& v) { return v.is_integer() ? expr::integer(v.integer()) : expr::real(v.real()); }

  void items(Items& list) {
    if (!substitution_.empty()) substitute_in(list, substitution_);
    calls(list);
  }

  void calls(Items& list) {
    for (Item& item : list) {
      if (auto* l = std::get_if<LoopItem>(&item.body)) {
        calls(l->body);
      } else if (auto* b = std::get_if<BranchItem>(&item.body)) {
        calls(b->then_items);
        calls(b->else_items);
      } else if (auto* call = std::get_if<CallItem>(&item.body)) {
        passed_unpassed(*call);
      }
    }
  }

  // A callee's parameter the call does not pass is bound at evaluation by the
  // job's value of that name; the callee keeps the name, so the call passes it.
  void passed_unpassed(CallItem& call) {
    auto callee = model_.functions.find(call.function);
    if (callee == model_.functions.end()) return;  // composing names the unknown callee
    for (const auto& param : callee->second.parameters) {
      auto value = fixed_.find(param);
      if (value == fixed_.end()) continue;
      bool passed = false;
      for (const auto& [name, arg] : call.args) passed = passed || name == param;
      if (!passed) call.args.emplace_back(param, constant(value->second));
    }
  }

  const ProgramModel& model_;
  const expr::Bindings& fixed_;
  expr::Substitution substitution_;
};

}  // namespace

expr::Bindings rank_independent_bindings(const ProgramModel& model,
                                         const std::map<std::string, expr::Value>& parameters, int size) {
  const expr::Bindings at_rank0 = bind_rank(model, parameters, 0, size);
  std::set<std::string> independent;
  for (const auto& [name, value] : at_rank0) independent.insert(name);
  independent.erase("rank");
  // Defaults and lets of a varying name vary: drop them until nothing changes.
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& p : model.parameters) {
      if (parameters.count(p.name) || !p.default_value || !independent.count(p.name)) continue;
      if (!uses_only(*p.default_value, independent)) independent.erase(p.name), changed = true;
    }
    for (const auto& [name, value] : model.lets)
      if (independent.count(name) && !uses_only(value, independent)) independent.erase(name), changed = true;
  }
  // A name bound to no number (Value::unknown) stays a name: evaluation
  // absorbs it behind a guard's 0, which a constant cannot say.
  expr::Bindings out;
  for (const auto& name : independent)
    if (const expr::Value& v = at_rank0.at(name); v.is_known()) out.emplace(name, v);
  return out;
}

Items substituted_items(Items body, const expr::Substitution& values) {
  substitute_in(body, values);
  return body;
}

std::set<std::string> loop_indices(const Items& body) {
  std::set<std::string> out;
  collect_loop_indices(body, out);
  return out;
}

ProgramModel specialised(const ProgramModel& model, const expr::Bindings& fixed) {
  ProgramModel out = model;
  Specialiser specialiser(model, fixed);
  for (auto& [name, fn] : out.functions) specialiser.function(fn);
  return out;
}

}  // namespace perfcast::model
