#include "model/probe_paths.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>

#include "model/probe_per_rank.h"
#include "model/probe_unpriced.h"

namespace perfcast::model {

namespace {

// A condition on the rank is decided by trying each rank of the run up to this many.
constexpr int kRanksDecided = 64;

// The origin's words for a parameter only the run's process count left
// unread, followed by that count.
constexpr const char* kLeftUnreadAt = ", on no path the run took on its process count ";

}  // namespace

std::set<std::string> names_read_on_paths_taken(const ProgramModel& model, const expr::Substitution& known, int ranks) {
  std::set<std::string> names, walked;
  auto read = [&](const Expr& e) { names.merge(expr::free_names(e)); };
  expr::Substitution at_run = known;
  if (ranks > 0) at_run.emplace("size", Expr(ranks));
  // A function's own parameters are what its calls pass, not the model's
  // parameters of the same names (a callee's `n`, main's `n`).
  const expr::Substitution* at_function = &at_run;
  auto constant = [&](const Expr& e) -> std::optional<double> {
    Expr s = expr::simplify(expr::substitute(e, *at_function));
    if (s.is_constant()) return s.real_value();
    const std::set<std::string> names = expr::free_names(s);
    if (ranks <= 0 || ranks > kRanksDecided || names.size() != 1 || !names.count("rank")) return std::nullopt;
    std::optional<double> alike;  // every rank's value, where they agree
    for (int r = 0; r < ranks; ++r) {
      Expr one = expr::simplify(expr::substitute(s, {{"rank", Expr(r)}}));
      if (!one.is_constant() || (alike && *alike != one.real_value())) return std::nullopt;
      alike = one.real_value();
    }
    return alike;
  };
  auto is_zero = [&](const Expr& e) { return constant(e) == 0.0; };
  std::vector<std::string> todo = {model.entry};
  std::function<void(const Items&)> walk = [&](const Items& items) {
    for (const Item& item : items) {
      if (const auto* c = std::get_if<ComputeItem>(&item.body)) {
        for (const Expr* e :
             {&c->flops_double, &c->flops_single, &c->loads, &c->stores, &c->load_bytes, &c->store_bytes})
          read(*e);
        for (const auto& [name, calls] : c->math_calls) read(calls);
      } else if (const auto* l = std::get_if<LoopItem>(&item.body)) {
        read(l->trip_count);
        if (is_zero(l->trip_count)) continue;
        if (l->working_set_bytes) read(*l->working_set_bytes);
        if (l->footprint) read(l->footprint->bytes), read(l->footprint->load_bytes), read(l->footprint->store_bytes);
        for (const auto& offsets : l->stream_offsets)
          for (const Expr& e : offsets) read(e);
        if (l->cycles_per_iteration) read(*l->cycles_per_iteration);
        if (l->overhead_cycles_per_iteration) read(*l->overhead_cycles_per_iteration);
        walk(l->body);
      } else if (const auto* b = std::get_if<BranchItem>(&item.body)) {
        if (b->condition) {
          read(*b->condition);
          std::optional<double> decided = constant(*b->condition);
          if (!decided || *decided != 0) walk(b->then_items);
          if (!decided || *decided == 0) walk(b->else_items);
        } else {
          if (b->probability != 0) walk(b->then_items);
          if (b->probability != 1) walk(b->else_items);
        }
      } else if (const auto* call = std::get_if<CallItem>(&item.body)) {
        for (const auto& [param, arg] : call->args) read(arg);
        // Unbound, it prices nothing yet, but its arguments will once bound.
        for (const auto& arg : call->positional_args)
          if (arg && call->function.empty()) read(*arg);
        if (!call->function.empty()) todo.push_back(call->function);
      } else if (const auto* m = std::get_if<MpiItem>(&item.body)) {
        read(m->count), read(m->bytes);
        for (const auto* e : {&m->peer, &m->root, &m->level})
          if (*e) read(**e);
      }
    }
  };
  while (!todo.empty()) {
    const std::string name = todo.back();
    todo.pop_back();
    auto fn = model.functions.find(name);
    if (fn == model.functions.end() || !walked.insert(name).second) continue;
    expr::Substitution shadowed;
    at_function = &at_run;
    const auto& own = fn->second.parameters;
    if (std::any_of(own.begin(), own.end(), [&](const std::string& p) { return at_run.count(p) > 0; })) {
      shadowed = at_run;
      for (const std::string& p : own) shadowed.erase(p);
      at_function = &shadowed;
    }
    walk(fn->second.body);
  }
  return names;
}

namespace {

// The needed names a default that is an expression adds: the parameters it names.
void add_names_of_defaults(const ProgramModel& model, std::set<std::string>& needed) {
  for (bool grew = true; grew;) {
    grew = false;
    for (const Parameter& p : model.parameters)
      if (p.default_value && needed.count(p.name))
        for (const auto& name : expr::free_names(*p.default_value)) grew |= needed.insert(name).second;
  }
}

}  // namespace

void bind_parameters_on_no_path_taken(ProgramModel& model, const std::string& origin, int ranks,
                                      std::vector<ProbeFinding>& out) {
  if (!model.functions.count(model.entry)) return;
  expr::Substitution known;
  for (const Parameter& p : model.parameters)
    if (p.default_value && p.default_value->is_constant()) known.emplace(p.name, *p.default_value);
  std::set<std::string> needed = names_read_on_paths_taken(model, known, ranks);
  std::set<std::string> at_any_count = names_read_on_paths_taken(model, known, 0);
  add_names_of_defaults(model, needed);
  add_names_of_defaults(model, at_any_count);
  const std::set<std::string> dividing = names_dividing(model);
  for (Parameter& p : model.parameters) {
    // A site the run never reached, measured at 0, that only its process
    // count kept it from: a measure for that count only.
    if (p.default_value && p.origin.ends_with(kNeverReached) && !needed.count(p.name) && at_any_count.count(p.name))
      p.origin += fmt::format("{}{}", kLeftUnreadAt, ranks);
    if (p.default_value || needed.count(p.name)) continue;
    const bool divides = dividing.count(p.name) > 0, this_count = at_any_count.count(p.name) > 0;
    const double value = divides ? 1 : 0;
    bind_measure(p, value, this_count ? fmt::format("{}{}{}", origin, kLeftUnreadAt, ranks)
                                      : origin + ", on no path the run took");
    out.push_back({ProbeFinding::Kind::Value, "", p.name, value,
                   this_count ? fmt::format("on no path the probe run took on its {} process{} (another count may "
                                            "take one: a prediction there that reads it is refused): {}",
                                            ranks, ranks == 1 ? "" : "es", value)
                   : divides ? "on no path the probe run took (read only where it never went): 1, as it divides"
                             : "on no path the probe run took (read only where it never went): 0"});
  }
}

int ranks_left_unread(const Parameter& p) {
  for (const char* words : {kLeftUnreadAt, kPricesNothingAtCount})
    if (const auto at = p.origin.rfind(words); at != std::string::npos)
      return std::atoi(p.origin.c_str() + at + std::strlen(words));
  return 0;
}

std::vector<std::string> read_off_the_probed_paths(const ProgramModel& model, int np,
                                                   const std::set<std::string>& user_bound) {
  std::vector<std::string> off;
  if (!model.functions.count(model.entry)) return off;
  expr::Substitution known;
  std::set<std::string> left;
  for (const Parameter& p : model.parameters) {
    const int ranks = std::max(ranks_left_unread(p), ranks_bound_each_rank(p));
    if (ranks > 0 && ranks != np && !user_bound.count(p.name))
      left.insert(p.name);
    else if (p.default_value && p.default_value->is_constant())
      known.emplace(p.name, *p.default_value);
  }
  if (left.empty()) return off;
  std::set<std::string> needed = names_read_on_paths_taken(model, known, np);
  add_names_of_defaults(model, needed);
  for (const std::string& name : left)
    if (needed.count(name)) off.push_back(name);
  return off;
}

}  // namespace perfcast::model
