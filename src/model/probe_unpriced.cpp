#include "model/probe_unpriced.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>

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

// Whether `name` appears in `e` only compared for equality with a constant
// (`jd == 1`, `jd != 2`), those constants added to `against`.
bool only_compared_with_constants(const Expr& e, const std::string& name, std::set<double>& against) {
  if (e.kind() == expr::Kind::Name) return e.name() != name;
  if (e.is_constant()) return true;
  if (e.kind() == expr::Kind::Compare &&
      (e.comparison() == expr::Comparison::Eq || e.comparison() == expr::Comparison::Ne))
    for (int side : {0, 1}) {
      const Expr& own = e.operands()[side];
      const Expr& other = e.operands()[1 - side];
      if (own.kind() == expr::Kind::Name && own.name() == name && other.is_constant()) {
        against.insert(other.real_value());
        return true;
      }
    }
  return std::all_of(e.operands().begin(), e.operands().end(),
                     [&](const Expr& o) { return only_compared_with_constants(o, name, against); });
}

// Whether `e` holds one constant whatever `name` holds: `name` is only
// compared for equality with constants, and `e` is that constant with
// `name` equal to each of them and to none (a sweep's direction choosing
// the start and the end of a loop that runs over the same cells either way).
bool decides_nothing(const Expr& e, const std::string& name) {
  std::set<double> against;
  if (!only_compared_with_constants(e, name, against) || against.empty()) return false;
  std::vector<double> values(against.begin(), against.end());
  values.push_back(std::floor(*against.rbegin()) + 1);  // equal to none of them
  std::optional<double> first;
  for (double v : values) {
    const Expr value = v == std::trunc(v) ? expr::integer(static_cast<std::int64_t>(v)) : expr::real(v);
    const Expr s = expr::simplify(expr::substitute(e, {{name, value}}));
    if (!s.is_constant() || (first && s.real_value() != *first)) return false;
    first = s.real_value();
  }
  return true;
}

}  // namespace

std::set<std::string> names_dividing(const ProgramModel& model) {
  std::set<std::string> names;
  auto read = [&](const Expr& e) { add_divisor_names(e, names); };
  std::function<void(const Items&)> walk = [&](const Items& items) {
    for (const Item& item : items) {
      for_each_expression(item, read);
      if (const auto* l = std::get_if<LoopItem>(&item.body)) walk(l->body);
      if (const auto* b = std::get_if<BranchItem>(&item.body)) walk(b->then_items), walk(b->else_items);
    }
  };
  for (const auto& [name, fn] : model.functions) walk(fn.body);
  for (const Parameter& p : model.parameters)
    if (p.default_value) read(*p.default_value);
  return names;
}

namespace {

// What the model prices once `known` is in, walked over its items rather than
// composed (composing every side and loop before the 0s multiply them out
// takes gigabytes on a large application). A function prices something when
// one of its items does on a path the known values leave open: a compute
// item with a count not 0, a loop of trips not 0 whose body, cycles or
// traffic price something, a branch side not ruled out, a call of a function
// that prices something (an unknown callee is taken to), any MPI call. The
// names priced are those of such items' expressions (the loop's trips and
// traffic, the branch's test, the call's arguments that the callee prices),
// an unbound indirect call's arguments (its targets will price them once
// bound), and the callees' own names. A callee is walked with the constant
// values its call passes (a flag that rules out a side there), once per
// distinct set of them. Each answer may only keep more names than the
// composition would: a parameter it leaves out prices nothing.
class PricedNames {
 public:
  PricedNames(const ProgramModel& model, const expr::Substitution& known, const std::set<std::string>& candidates)
      : model_(model), known_(known), candidates_(candidates) {}

  // Throws UserError where the functions' calls form a cycle (which the
  // model cannot price either).
  std::set<std::string> of_entry() {
    for (bool grew = true; grew;) {  // which functions price something (context-free)
      grew = false;
      for (const auto& [name, fn] : model_.functions)
        if (!prices_[name] && items_price(fn.body, Walk{kNoContext, &kNone, &known_in(name)})) prices_[name] = grew = true;
    }
    return names_of(model_.entry, {});
  }

 private:
  static constexpr int kNoContext = 0;
  // A function walked with the constant values its call passes, by its id,
  // and the known values of the names it does not hold itself (known_in).
  struct Walk {
    int context;
    const expr::Substitution* values;
    const expr::Substitution* known;
  };
  static inline const expr::Substitution kNone;

  // The known values but those of `function`'s own parameters: a callee's
  // `n` is what its call passes, not a parameter of the model named so
  // (main's `n`).
  const expr::Substitution& known_in(const std::string& function) {
    auto done = known_in_.find(function);
    if (done != known_in_.end()) return done->second ? *done->second : known_;
    const auto& own = model_.functions.at(function).parameters;
    if (std::none_of(own.begin(), own.end(), [&](const std::string& p) { return known_.count(p) > 0; })) {
      known_in_[function] = nullptr;
      return known_;
    }
    auto& filtered = shadowed_.emplace_back(known_);
    for (const std::string& p : own) filtered.erase(p);
    known_in_[function] = &filtered;
    return filtered;
  }

  std::set<std::string> names_of(const std::string& function, const expr::Substitution& values) {
    std::string key = function;
    for (const auto& [name, value] : values) key += "\n" + name + "=" + value.str();
    auto done = names_.find(key);
    if (done != names_.end()) return done->second;
    if (!active_.insert(key).second)
      throw UserError(fmt::format("function '{}' calls itself (directly or not)", function));
    const int context = static_cast<int>(contexts_.size()) + 1;
    contexts_.push_back(values);
    std::set<std::string> found;
    add_items(model_.functions.at(function).body, Walk{context, &contexts_.back(), &known_in(function)}, found);
    active_.erase(key);
    return names_[key] = found;
  }

  // The expression with the call's values and the known ones in.
  Expr evaluated(const Expr& e, const Walk& w) const {
    Expr in = !w.values->empty() ? expr::substitute(e, *w.values) : e;
    return expr::simplify(expr::substitute(in, *w.known));
  }
  // Each expression is evaluated once a context (the walks may meet it again).
  std::optional<double> decided(const Expr& e, const Walk& w) const {
    if (e.is_constant()) return e.real_value();
    auto [it, fresh] = decided_.try_emplace({&e, w.context});
    if (fresh) {
      const Expr s = evaluated(e, w);
      if (s.is_constant()) it->second = s.real_value();
    }
    return it->second;
  }
  bool zero(const Expr& e, const Walk& w) const { return decided(e, w) == 0.0; }
  void add(const Expr& e, const Walk& w, std::set<std::string>& out) const {
    auto [it, fresh] = names_of_.try_emplace({&e, w.context});
    if (fresh) {
      std::set<std::string> free = expr::free_names(e);
      bool evaluate = false;
      // Known values in too where a name may fall out with them (decides_nothing).
      for (const auto& name : free)
        evaluate = evaluate || candidates_.count(name) || w.values->count(name) || w.known->count(name);
      const Expr s = evaluate ? evaluated(e, w) : e;
      it->second = evaluate ? expr::free_names(s) : std::move(free);
      // A name (a candidate, or a callee's parameter its calls pass one as)
      // whose value does not change the expression's is not priced by it.
      std::erase_if(it->second, [&](const std::string& n) { return decides_nothing(s, n); });
    }
    out.insert(it->second.begin(), it->second.end());
  }

  // The sides of a branch the values leave open: then, else.
  std::pair<bool, bool> open_sides(const BranchItem& b, const Walk& w) const {
    if (b.condition) {
      const std::optional<double> d = decided(*b.condition, w);
      return {!d || *d != 0, !d || *d == 0};
    }
    if (b.share) {
      const std::optional<double> d = decided(*b.share, w);
      return {!d || *d != 0, !d || *d != 1};
    }
    return {b.probability != 0, b.probability != 1};
  }

  bool callee_prices(const std::string& function) const {
    if (!model_.functions.count(function)) return true;
    auto it = prices_.find(function);
    return it != prices_.end() && it->second;
  }

  bool loop_prices_beyond_body(const LoopItem& l, const Walk& w) const {
    for (const auto* e : {&l.cycles_per_iteration, &l.overhead_cycles_per_iteration, &l.working_set_bytes})
      if (*e && !zero(**e, w)) return true;
    return l.footprint && !(zero(l.footprint->load_bytes, w) && zero(l.footprint->store_bytes, w));
  }

  bool item_prices(const Item& item, const Walk& w) const {
    if (const auto* c = std::get_if<ComputeItem>(&item.body)) {
      for (const Expr* e :
           {&c->flops_double, &c->flops_single, &c->loads, &c->stores, &c->load_bytes, &c->store_bytes})
        if (!zero(*e, w)) return true;
      for (const auto& [_, calls] : c->math_calls)
        if (!zero(calls, w)) return true;
      return false;
    }
    if (const auto* l = std::get_if<LoopItem>(&item.body))
      return !zero(l->trip_count, w) && (loop_prices_beyond_body(*l, w) || items_price(l->body, w));
    if (const auto* b = std::get_if<BranchItem>(&item.body)) {
      auto [then_open, else_open] = open_sides(*b, w);
      return (then_open && items_price(b->then_items, w)) || (else_open && items_price(b->else_items, w));
    }
    if (const auto* call = std::get_if<CallItem>(&item.body))
      return !call->function.empty() && callee_prices(call->function);
    return std::holds_alternative<MpiItem>(item.body);
  }
  bool items_price(const Items& items, const Walk& w) const {
    for (const Item& item : items)
      if (item_prices(item, w)) return true;
    return false;
  }
  void add_call(const CallItem& call, const Walk& w, std::set<std::string>& out) {
    if (call.function.empty()) {  // its targets will price its arguments once bound
      for (const auto& arg : call.positional_args)
        if (arg) add(*arg, w, out);
      return;
    }
    if (!callee_prices(call.function)) return;
    auto fn = model_.functions.find(call.function);
    if (fn == model_.functions.end()) {
      for (const auto& [param, arg] : call.args) add(arg, w, out);
      return;
    }
    expr::Substitution passed;
    for (const auto& [param, arg] : call.args)
      if (std::optional<double> v = decided(arg, w)) passed.emplace(param, Expr(*v));
    const std::set<std::string> callee = names_of(call.function, passed);
    for (const auto& [param, arg] : call.args)
      if (callee.count(param)) add(arg, w, out);
    const auto& locals = fn->second.parameters;
    for (const auto& name : callee)
      if (std::find(locals.begin(), locals.end(), name) == locals.end()) out.insert(name);
  }

  void add_items(const Items& items, const Walk& w, std::set<std::string>& out) {
    for (const Item& item : items) {
      if (const auto* c = std::get_if<ComputeItem>(&item.body)) {
        for (const Expr* e :
             {&c->flops_double, &c->flops_single, &c->loads, &c->stores, &c->load_bytes, &c->store_bytes})
          add(*e, w, out);
        for (const auto& [_, calls] : c->math_calls) add(calls, w, out);
      } else if (const auto* l = std::get_if<LoopItem>(&item.body)) {
        if (!item_prices(item, w)) continue;
        add(l->trip_count, w, out);
        for (const auto* e : {&l->cycles_per_iteration, &l->overhead_cycles_per_iteration, &l->working_set_bytes})
          if (*e) add(**e, w, out);
        if (l->footprint)
          for (const Expr* e : {&l->footprint->bytes, &l->footprint->load_bytes, &l->footprint->store_bytes})
            add(*e, w, out);
        for (const auto& offsets : l->stream_offsets)
          for (const Expr& e : offsets) add(e, w, out);
        add_items(l->body, w, out);
      } else if (const auto* b = std::get_if<BranchItem>(&item.body)) {
        if (!item_prices(item, w)) continue;
        if (b->condition) add(*b->condition, w, out);
        if (b->share) add(*b->share, w, out);
        auto [then_open, else_open] = open_sides(*b, w);
        if (then_open) add_items(b->then_items, w, out);
        if (else_open) add_items(b->else_items, w, out);
      } else if (const auto* call = std::get_if<CallItem>(&item.body)) {
        add_call(*call, w, out);
      } else if (const auto* m = std::get_if<MpiItem>(&item.body)) {
        add(m->count, w, out), add(m->bytes, w, out);
        for (const auto* e : {&m->peer, &m->root, &m->level})
          if (*e) add(**e, w, out);
      }
    }
  }

  const ProgramModel& model_;
  const expr::Substitution& known_;
  const std::set<std::string>& candidates_;
  std::map<std::string, bool> prices_;
  std::map<std::string, std::set<std::string>> names_;  // by function and the values passed
  std::set<std::string> active_;
  std::deque<expr::Substitution> contexts_;  // stable addresses
  std::map<std::string, const expr::Substitution*> known_in_;  // null: known_ itself
  std::deque<expr::Substitution> shadowed_;                     // known_ less a function's parameters
  mutable std::map<std::pair<const Expr*, int>, std::optional<double>> decided_;
  mutable std::map<std::pair<const Expr*, int>, std::set<std::string>> names_of_;
};

}  // namespace

namespace {

// A walk's priced names, with the names a default that is an expression
// names added (a default prices the parameters it names).
std::set<std::string> priced_names(const ProgramModel& model, const expr::Substitution& known,
                                   const std::set<std::string>& candidates) {
  std::set<std::string> priced = PricedNames(model, known, candidates).of_entry();
  for (bool grew = true; grew;) {
    grew = false;
    for (const Parameter& p : model.parameters)
      if (p.default_value && priced.count(p.name))
        for (const auto& name : expr::free_names(*p.default_value)) grew |= priced.insert(name).second;
  }
  return priced;
}

// A walk per rank is made up to this many ranks.
constexpr int kRanksWalked = 16;

}  // namespace

void bind_parameters_pricing_nothing(ProgramModel& model, const std::string& origin, int ranks,
                                     std::vector<ProbeFinding>& out) {
  std::set<std::string> candidates;
  expr::Substitution known;
  for (const Parameter& p : model.parameters) {
    if (!p.default_value) candidates.insert(p.name);
    else if (p.default_value->is_constant()) known.emplace(p.name, *p.default_value);
  }
  if (candidates.empty() || !model.functions.count(model.entry)) return;
  std::set<std::string> priced, priced_at_run;
  try {
    priced = priced_names(model, known, candidates);
    // Each rank of the run's count: `rank` and `size` known, and the
    // defaults written in them (a peer's) evaluated, each side they rule out
    // left out (`IF (proc == myproc) RETURN` at 1 rank).
    if (ranks >= 1 && ranks <= kRanksWalked)
      for (int r = 0; r < ranks; ++r) {
        expr::Substitution at_rank = known;
        at_rank.emplace("rank", Expr(r));
        at_rank.emplace("size", Expr(ranks));
        for (const Parameter& p : model.parameters)
          if (p.default_value && !p.default_value->is_constant())
            if (Expr v = expr::simplify(expr::substitute(*p.default_value, at_rank)); v.is_constant())
              at_rank.emplace(p.name, v);
        priced_at_run.merge(priced_names(model, at_rank, candidates));
      }
    else
      priced_at_run = priced;
  } catch (const UserError&) {
    return;  // predict names the reason; nothing is proven here
  }
  const std::set<std::string> dividing = names_dividing(model);
  for (Parameter& p : model.parameters) {
    if (p.default_value || priced_at_run.count(p.name)) continue;
    const double value = dividing.count(p.name) ? 1 : 0;
    const bool this_count = priced.count(p.name) > 0;
    bind_measure(p, value,
                 this_count ? fmt::format("{}, {}{}{}", origin, kPricesNothing, kPricesNothingAtCount, ranks)
                            : fmt::format("{}, {}: no count or time the model prices names it at the run's values",
                                          origin, kPricesNothing));
    out.push_back({ProbeFinding::Kind::Value, "", p.name, value,
                   this_count ? fmt::format("{} on the run's {} process{} (another count may price it: a prediction "
                                            "there that reads it is refused): {}",
                                            kPricesNothing, ranks, ranks == 1 ? "" : "es", value)
                              : fmt::format("{} (no priced count names it at the run's values): {}", kPricesNothing,
                                            value)});
  }
}

}  // namespace perfcast::model
