#include "model/probe_unpriced.h"

#include <fmt/format.h>

#include <functional>
#include <optional>

#include "model/costs.h"
#include "support/error.h"
#include "support/expr.h"

namespace perfcast::model {

namespace {

// The names in a divisor (of /, floordiv, ceildiv, mod) anywhere in `e`.
void add_divisor_names(const Expr& e, std::set<std::string>& names) {
  const expr::Kind k = e.kind();
  if (k == expr::Kind::Div || k == expr::Kind::FloorDiv || k == expr::Kind::CeilDiv || k == expr::Kind::Mod)
    names.merge(expr::free_names(e.operands()[1]));
  if (!e.is_constant() && k != expr::Kind::Name)
    for (const Expr& op : e.operands()) add_divisor_names(op, names);
}

}  // namespace

std::set<std::string> names_dividing(const ProgramModel& model) {
  std::set<std::string> names;
  auto read = [&](const Expr& e) { add_divisor_names(e, names); };
  std::function<void(const Items&)> walk = [&](const Items& items) {
    for (const Item& item : items) {
      if (const auto* c = std::get_if<ComputeItem>(&item.body)) {
        for (const Expr* e :
             {&c->flops_double, &c->flops_single, &c->loads, &c->stores, &c->load_bytes, &c->store_bytes})
          read(*e);
        for (const auto& [name, calls] : c->math_calls) read(calls);
      } else if (const auto* l = std::get_if<LoopItem>(&item.body)) {
        read(l->trip_count);
        if (l->working_set_bytes) read(*l->working_set_bytes);
        if (l->footprint) read(l->footprint->bytes), read(l->footprint->load_bytes), read(l->footprint->store_bytes);
        for (const auto& offsets : l->stream_offsets)
          for (const Expr& e : offsets) read(e);
        if (l->cycles_per_iteration) read(*l->cycles_per_iteration);
        if (l->overhead_cycles_per_iteration) read(*l->overhead_cycles_per_iteration);
        walk(l->body);
      } else if (const auto* b = std::get_if<BranchItem>(&item.body)) {
        if (b->condition) read(*b->condition);
        walk(b->then_items), walk(b->else_items);
      } else if (const auto* call = std::get_if<CallItem>(&item.body)) {
        for (const auto& [param, arg] : call->args) read(arg);
        for (const auto& arg : call->positional_args)
          if (arg) read(*arg);
      } else if (const auto* m = std::get_if<MpiItem>(&item.body)) {
        read(m->count), read(m->bytes);
        for (const auto* e : {&m->peer, &m->root, &m->level})
          if (*e) read(**e);
      }
    }
  };
  for (const auto& [name, fn] : model.functions) walk(fn.body);
  for (const Parameter& p : model.parameters)
    if (p.default_value) read(*p.default_value);
  return names;
}

namespace {

// The names the priced expressions of `costs` read once `known` is in: an
// expression that names none of `candidates` is taken as it is, one that does
// is substituted and simplified first (a side the bound values rule out
// becomes 0 and names nothing). The items' own count checks are not prices.
std::set<std::string> names_priced(const SymbolicCosts& costs, const expr::Substitution& known,
                                   const std::set<std::string>& candidates) {
  std::set<std::string> names;
  auto add = [&](const Expr& e) {
    std::set<std::string> free = expr::free_names(e);
    bool candidate = false;
    for (const auto& name : free) candidate = candidate || candidates.count(name);
    names.merge(candidate ? expr::free_names(expr::simplify(expr::substitute(e, known))) : free);
  };
  auto add_memory = [&](const std::vector<MemorySegment>& memory) {
    for (const auto& segment : memory) {
      if (segment.working_set_bytes) add(*segment.working_set_bytes);
      add(segment.load_bytes), add(segment.store_bytes);
    }
  };
  for (const auto& site : costs.sites) {
    for (const Expr* e : {&site.flops_double, &site.flops_single, &site.loads, &site.stores, &site.cycles,
                          &site.cycle_flops_double, &site.cycle_flops_single, &site.off_ports_cycles})
      add(*e);
    for (const auto& [_, calls] : site.math_calls) add(calls);
    add_memory(site.memory);
    for (const auto& offsets : site.stream_offsets)
      for (const Expr& e : offsets) add(e);
  }
  for (const auto& group : costs.mpi) {
    add(group.calls), add(group.bytes);
    if (group.peer) add(*group.peer);
    if (group.root) add(*group.root);
  }
  return names;
}

}  // namespace

void bind_parameters_pricing_nothing(ProgramModel& model, const std::string& origin,
                                     std::vector<ProbeFinding>& out) {
  std::set<std::string> candidates;
  expr::Substitution known;
  for (const Parameter& p : model.parameters) {
    if (!p.default_value) candidates.insert(p.name);
    else if (p.default_value->is_constant()) known.emplace(p.name, *p.default_value);
  }
  if (candidates.empty() || !model.functions.count(model.entry)) return;
  SymbolicCosts costs;
  try {
    costs = symbolic_costs(model);
  } catch (const UserError&) {
    return;  // predict names the reason; nothing is proven here
  }
  std::set<std::string> priced = names_priced(costs, known, candidates);
  // An indirect call still unbound prices nothing yet, but its arguments will
  // once its targets are bound (as the no-path rule keeps them).
  std::function<void(const Items&)> walk = [&](const Items& items) {
    for (const Item& item : items) {
      if (const auto* l = std::get_if<LoopItem>(&item.body)) walk(l->body);
      if (const auto* b = std::get_if<BranchItem>(&item.body)) walk(b->then_items), walk(b->else_items);
      if (const auto* call = std::get_if<CallItem>(&item.body); call && call->function.empty())
        for (const auto& arg : call->positional_args)
          if (arg) priced.merge(expr::free_names(*arg));
    }
  };
  for (const auto& [name, fn] : model.functions) walk(fn.body);
  // A default that is an expression prices the parameters it names.
  for (bool grew = true; grew;) {
    grew = false;
    for (const Parameter& p : model.parameters)
      if (p.default_value && priced.count(p.name))
        for (const auto& name : expr::free_names(*p.default_value)) grew |= priced.insert(name).second;
  }
  const std::set<std::string> dividing = names_dividing(model);
  for (Parameter& p : model.parameters) {
    if (p.default_value || priced.count(p.name)) continue;
    const double value = dividing.count(p.name) ? 1 : 0;
    bind_measure(p, value, fmt::format("{}, {}: no count or time the model prices names it at the run's values",
                                       origin, kPricesNothing));
    out.push_back({ProbeFinding::Kind::Value, "", p.name, value,
                   fmt::format("{} (no priced count names it at the run's values): {}", kPricesNothing, value)});
  }
}

}  // namespace perfcast::model
