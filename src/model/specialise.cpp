#include "model/specialise.h"

#include <set>

#include "model/costs.h"
#include "model/item_walks.h"

namespace perfcast::model {

namespace {

// Whether every name `e` reads is one of `independent`.
bool uses_only(const Expr& e, const std::set<std::string>& independent) {
  for (const auto& name : expr::free_names(e))
    if (!independent.count(name)) return false;
  return true;
}

class Specialiser {
 public:
  Specialiser(const ProgramModel& model, const expr::Bindings& fixed) : model_(model), fixed_(fixed) {}

  void function(Function& fn) {
    std::set<std::string> shadowed = loop_indices(fn.body);
    shadowed.insert(fn.parameters.begin(), fn.parameters.end());
    substitution_.clear();
    for (const auto& [name, value] : fixed_)
      if (!shadowed.count(name)) substitution_.emplace(name, constant(value));
    items(fn.body);
  }

 private:
  static Expr constant(const expr::Value& v) { return v.is_integer() ? expr::integer(v.integer()) : expr::real(v.real()); }

  void items(Items& list) {
    if (!substitution_.empty()) substitute_in(list, substitution_, AfterSubstitution::Simplified);
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

ProgramModel specialised(const ProgramModel& model, const expr::Bindings& fixed) {
  ProgramModel out = model;
  Specialiser specialiser(model, fixed);
  for (auto& [name, fn] : out.functions) specialiser.function(fn);
  return out;
}

}  // namespace perfcast::model
