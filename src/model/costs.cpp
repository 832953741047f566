#include "model/costs.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "model/item_walks.h"
#include "support/error.h"

namespace perfcast::model {

namespace {

using expr::Substitution;

bool uses(const Expr& e, const std::string& name) { return !name.empty() && expr::free_names(e).count(name) > 0; }

bool same(const std::optional<Expr>& a, const std::optional<Expr>& b) {
  return a.has_value() == b.has_value() && (!a || *a == *b);
}

// What composition works on: the sites and the MPI calls of a piece of code.
struct Costs {
  std::vector<SiteCosts> sites;
  std::vector<MpiGroup> mpi;
  std::vector<CountCheck> checks;  // the items' own counts (SymbolicCosts::checks)
};

constexpr double kMaxCount = 9007199254740992.0;  // 2^53

// A constant count that cannot fail its check (finite, >= 0, at most 2^53).
bool constant_in_range(const Expr& value) {
  if (!value.is_constant()) return false;
  const double v = value.real_value();
  return std::isfinite(v) && v >= 0 && v <= kMaxCount;
}

// A check of one item's count, unless the count is a constant in range (nothing to
// check). An out-of-range constant is kept, so the item is named when its site's
// total fails.
void add_check(std::vector<CountCheck>& checks, const Expr& value, std::string what, const std::string& function,
               int line) {
  if (constant_in_range(value)) return;
  checks.push_back({value, Expr(1), std::move(what), function, line});
}

void add_math(std::map<std::string, Expr>& acc, const std::map<std::string, Expr>& x) {
  for (const auto& [name, calls] : x) {
    auto it = acc.find(name);
    if (it == acc.end()) acc.emplace(name, calls);
    else it->second = it->second + calls;
  }
}

// Adds segments, merging those with the same working set, line and kind of
// traffic, so models of deep loop nests stay as small as the code they describe.
void add_segments(std::vector<MemorySegment>& acc, const std::vector<MemorySegment>& x) {
  for (const auto& seg : x) {
    auto it = std::find_if(acc.begin(), acc.end(), [&](const MemorySegment& s) {
      return same(s.working_set_bytes, seg.working_set_bytes) && s.line == seg.line && s.traffic == seg.traffic;
    });
    if (it == acc.end()) {
      acc.push_back(seg);
    } else {
      it->load_bytes = it->load_bytes + seg.load_bytes;
      it->store_bytes = it->store_bytes + seg.store_bytes;
    }
  }
}

// Adds the counts of `x` into `acc` (the site's name is acc's).
void add_site_counts(SiteCosts& acc, const SiteCosts& x) {
  acc.flops_double = acc.flops_double + x.flops_double;
  acc.flops_single = acc.flops_single + x.flops_single;
  acc.loads = acc.loads + x.loads;
  acc.stores = acc.stores + x.stores;
  add_math(acc.math_calls, x.math_calls);
  add_segments(acc.memory, x.memory);
  acc.cycles = acc.cycles + x.cycles;
  acc.off_ports_cycles = acc.off_ports_cycles + x.off_ports_cycles;
  acc.cycle_flops_double = acc.cycle_flops_double + x.cycle_flops_double;
  acc.cycle_flops_single = acc.cycle_flops_single + x.cycle_flops_single;
  if (x.streams > acc.streams) acc.streams = x.streams, acc.stream_offsets = x.stream_offsets;
}

void add_site(std::vector<SiteCosts>& acc, const SiteCosts& x) {
  auto it = std::find_if(acc.begin(), acc.end(),
                         [&](const SiteCosts& s) { return s.function == x.function && s.line == x.line; });
  if (it == acc.end()) acc.push_back(x);
  else add_site_counts(*it, x);
}

// Adds `x` into `acc`, merging sites of the same name and MPI groups of the
// same call site and peer.
void add_into(Costs& acc, const Costs& x) {
  for (const auto& site : x.sites) add_site(acc.sites, site);
  for (const auto& g : x.mpi) {
    auto it = std::find_if(acc.mpi.begin(), acc.mpi.end(), [&](const MpiGroup& h) {
      return h.op == g.op && h.line == g.line && h.function == g.function && same(h.peer, g.peer) &&
             same(h.root, g.root) && h.timing_dependent == g.timing_dependent;
    });
    if (it == acc.mpi.end()) {
      acc.mpi.push_back(g);
    } else {
      it->calls = it->calls + g.calls;
      it->bytes = it->bytes + g.bytes;
    }
  }
  acc.checks.insert(acc.checks.end(), x.checks.begin(), x.checks.end());
}

// Applies `f` to every expression that counts something (not to peers, roots
// or working sets, which are not multiplied by loops).
template <typename F>
void map_site_counts(SiteCosts& s, F f) {
  s.flops_double = f(s.flops_double);
  s.flops_single = f(s.flops_single);
  s.loads = f(s.loads);
  s.stores = f(s.stores);
  for (auto& [name, calls] : s.math_calls) calls = f(calls);
  for (auto& seg : s.memory) {
    seg.load_bytes = f(seg.load_bytes);
    seg.store_bytes = f(seg.store_bytes);
  }
  s.cycles = f(s.cycles);
  s.off_ports_cycles = f(s.off_ports_cycles);
  s.cycle_flops_double = f(s.cycle_flops_double);
  s.cycle_flops_single = f(s.cycle_flops_single);
}

template <typename F>
Costs map_counts(const Costs& c, F f) {
  Costs out = c;
  for (auto& site : out.sites) map_site_counts(site, f);
  for (auto& g : out.mpi) {
    g.calls = f(g.calls);
    g.bytes = f(g.bytes);
  }
  return out;
}

Costs scaled(const Costs& c, const Expr& factor) {
  return map_counts(c, [&](const Expr& e) { return factor * e; });
}

Costs substituted(const Costs& c, const Substitution& s) {
  Costs out = map_counts(c, [&](const Expr& e) { return expr::substitute(e, s); });
  for (auto& site : out.sites) {
    for (auto& seg : site.memory)
      if (seg.working_set_bytes) seg.working_set_bytes = expr::substitute(*seg.working_set_bytes, s);
    for (auto& offsets : site.stream_offsets)
      for (auto& e : offsets) e = expr::substitute(e, s);
  }
  for (auto& g : out.mpi) {
    if (g.peer) g.peer = expr::substitute(*g.peer, s);
    if (g.root) g.root = expr::substitute(*g.root, s);
  }
  for (auto& check : out.checks) {
    check.value = expr::substitute(check.value, s);
    check.runs = expr::substitute(check.runs, s);
  }
  return out;
}

// The checks of a loop body as the loop runs them: only where its trip count
// is > 0, and, where a count uses the index, at the first and the last
// iteration (the ends of an affine count's range).
std::vector<CountCheck> checks_over_iterations(const std::vector<CountCheck>& body, const std::string& var,
                                               const Expr& trip) {
  const Expr runs_at_all = expr::select(expr::compare(expr::Comparison::Gt, trip, Expr(0)), Expr(1), Expr(0));
  std::vector<CountCheck> out;
  out.reserve(body.size());
  for (const CountCheck& check : body) {
    if (!uses(check.value, var) && !uses(check.runs, var)) {
      out.push_back(check);
      out.back().runs = runs_at_all * check.runs;
      continue;
    }
    for (const Expr& at : {Expr(0), trip - Expr(1)}) {
      const Substitution index{{var, at}};
      out.push_back(check);
      out.back().value = expr::substitute(check.value, index);
      out.back().runs = runs_at_all * expr::substitute(check.runs, index);
    }
  }
  return out;
}

std::vector<CountCheck> checks_scaled(std::vector<CountCheck> checks, const Expr& taken) {
  for (auto& check : checks) check.runs = taken * check.runs;
  return checks;
}

// A loop of levels (LoopItem::levels) runs at most this many: a size divided
// by 2 or more 63 times is 0 for any 64-bit value. Levels past the last but
// one are priced together at its working set.
constexpr std::int64_t kMaxLevels = 64;

// The memory segments of a loop of levels' body whose working set changes with
// the level, one per level: each level's bytes (0 past the loop's trips) at
// that level's own working set. Taken out of `body`'s sites, returned by site.
std::vector<std::vector<MemorySegment>> split_by_level(Costs& body, const std::string& var, const Expr& trip) {
  std::vector<std::vector<MemorySegment>> out(body.sites.size());
  for (size_t i = 0; i < body.sites.size(); ++i) {
    std::vector<MemorySegment> kept;
    for (const MemorySegment& seg : body.sites[i].memory) {
      if (!seg.working_set_bytes || !uses(*seg.working_set_bytes, var)) {
        kept.push_back(seg);
        continue;
      }
      for (std::int64_t k = 0; k < kMaxLevels; ++k) {
        const Substitution at{{var, Expr(k)}};
        const bool rest = k == kMaxLevels - 1;
        const Expr runs = expr::select(expr::compare(expr::Comparison::Lt, Expr(k), trip), Expr(1), Expr(0));
        auto bytes = [&](const Expr& e) {
          return rest ? expr::sum(var, Expr(k), trip - Expr(1), e) : runs * expr::substitute(e, at);
        };
        MemorySegment level = seg;
        level.working_set_bytes = expr::substitute(*seg.working_set_bytes, at);
        level.load_bytes = bytes(seg.load_bytes);
        level.store_bytes = bytes(seg.store_bytes);
        out[i].push_back(std::move(level));
      }
    }
    body.sites[i].memory = std::move(kept);
  }
  return out;
}

// The costs of `trip` iterations of a body whose costs may use the index `var`
// (0 .. trip-1): sums where the index appears, products where it does not.
// A loop of `levels` prices each level's memory at its own working set.
Costs over_iterations(const Costs& body_in, const std::string& var, const Expr& trip, bool levels = false) {
  const Expr last = trip - Expr(1);
  Costs body = body_in;
  const auto level_segments = levels ? split_by_level(body, var, trip) : std::vector<std::vector<MemorySegment>>{};
  Costs out = map_counts(body, [&](const Expr& e) {
    return uses(e, var) ? expr::sum(var, Expr(0), last, e) : trip * e;
  });
  for (size_t i = 0; i < level_segments.size(); ++i) add_segments(out.sites[i].memory, level_segments[i]);
  // A working set that changes with the index: take the last iteration's, the
  // largest for the growing loops (triangular nests) this appears in.
  for (auto& site : out.sites)
    for (auto& seg : site.memory)
      if (seg.working_set_bytes && uses(*seg.working_set_bytes, var))
        seg.working_set_bytes = expr::substitute(*seg.working_set_bytes, {{var, last}});
  // Streams' reuse distances of a loop of levels: the finest level's, the
  // largest, which is what the predictor weighs against L1's size.
  if (levels)
    for (auto& site : out.sites)
      for (auto& offsets : site.stream_offsets)
        for (auto& e : offsets) e = expr::substitute(e, {{var, Expr(0)}});

  // MPI calls whose peer or root depends on the index (a loop over neighbours)
  // are unrolled when the trip count is a small constant, so each message keeps
  // its peer; otherwise the peer becomes unknown and only the totals remain.
  std::vector<MpiGroup> mpi;
  for (size_t i = 0; i < body.mpi.size(); ++i) {
    const MpiGroup& g = body.mpi[i];
    bool indexed = (g.peer && uses(*g.peer, var)) || (g.root && uses(*g.root, var));
    if (!indexed) {
      mpi.push_back(out.mpi[i]);
      continue;
    }
    Expr n = expr::simplify_or_keep(trip);
    if (n.kind() == expr::Kind::Integer && n.int_value() <= 64) {
      for (std::int64_t v = 0; v < n.int_value(); ++v) {
        Substitution at{{var, Expr(v)}};
        MpiGroup u = g;
        u.calls = expr::substitute(g.calls, at);
        u.bytes = expr::substitute(g.bytes, at);
        if (g.peer) u.peer = expr::substitute(*g.peer, at);
        if (g.root) u.root = expr::substitute(*g.root, at);
        mpi.push_back(u);
      }
    } else {
      MpiGroup u = out.mpi[i];
      u.peer.reset();
      u.root.reset();
      mpi.push_back(u);
    }
  }
  out.mpi = std::move(mpi);
  return out;
}

// Gathers sites into one named site: every site when `all`, else only those
// of `function` (a callee's sites inside a priced loop stay the callee's).
void gather_sites(Costs& c, const std::string& function, int line, const std::string& note, bool all) {
  SiteCosts into;
  into.function = function;
  into.line = line;
  into.note = note;
  std::vector<SiteCosts> kept;
  for (auto& s : c.sites) {
    if (all || s.function == function) add_site_counts(into, s);
    else kept.push_back(std::move(s));
  }
  kept.push_back(std::move(into));
  c.sites = std::move(kept);
}

Costs simplified(Costs c);

// Each function's costs are simplified once, when first composed, so that its
// callers substitute their arguments into the smaller form.
class Composer {
 public:
  explicit Composer(const ProgramModel& model) : model_(model) {}

  // A composition a throw left unfinished (its functions still marked as
  // being composed) is abandoned, so the next one is not refused as a recursion.
  void abandon_unfinished() { active_.clear(); }

  Costs function(const std::string& name) {
    auto done = memo_.find(name);
    if (done != memo_.end()) return done->second;
    auto fn = model_.functions.find(name);
    if (fn == model_.functions.end()) throw UserError(fmt::format("call to unknown function '{}'", name));
    if (active_.count(name)) throw recursion(name);
    active_.insert(name);
    Costs c = simplified(items(fn->second.body, Context{name, false}));
    active_.erase(name);
    memo_.emplace(name, c);
    return c;
  }

 private:
  static UserError recursion(const std::string& name) {
    return UserError(fmt::format("function '{}' calls itself (directly or not); recursion cannot be priced "
                                 "statically: give its cost as a compute item instead",
                                 name));
  }

  // Where an item is: its function, and whether a loop around it (in the same
  // function) is priced in cycles, which then cover its flops.
  struct Context {
    std::string function;
    bool in_priced_loop = false;
    // The items are a loop's own code (outside its subloops), priced by its
    // overhead_cycles_per_iteration: those cycles cover their flops too.
    bool in_priced_own_code = false;
  };

  Costs items(const Items& list, const Context& ctx) {
    Costs acc;
    for (const Item& it : list) add_into(acc, item(it, ctx));
    return acc;
  }

  // An item's costs; an error composing them (an unknown callee, recursion, an
  // argument the callee does not take) names the model file, function and line.
  Costs item(const Item& it, const Context& ctx) {
    try {
      return std::visit([&](const auto& body) { return cost(body, it, ctx); }, it.body);
    } catch (const ModelItemError&) {
      throw;  // located by the innermost item
    } catch (const UserError& error) {
      throw ModelItemError(model_.file, ctx.function, it.line, error);
    }
  }

  Costs cost(const ComputeItem& c, const Item& it, const Context& ctx) {
    SiteCosts s;
    s.function = ctx.function;
    s.flops_double = c.flops_double;
    s.flops_single = c.flops_single;
    s.loads = c.loads;
    s.stores = c.stores;
    for (const auto& [name, calls] : c.math_calls) s.math_calls[name] = calls;
    s.memory.push_back({std::nullopt, c.load_bytes, c.store_bytes, it.line});
    Costs out{{}, {}, {}};
    for (auto [count, what] : {std::pair{&c.flops_double, "double-precision flops"},
                               std::pair{&c.flops_single, "single-precision flops"}, std::pair{&c.loads, "loads"},
                               std::pair{&c.stores, "stores"}, std::pair{&c.load_bytes, "loaded bytes"},
                               std::pair{&c.store_bytes, "stored bytes"}})
      add_check(out.checks, *count, fmt::format("{} of the compute item", what), ctx.function, it.line);
    for (const auto& [name, calls] : c.math_calls)
      add_check(out.checks, calls, fmt::format("calls of {} of the compute item", name), ctx.function, it.line);
    // A call in a priced loop body costs MCA its call instruction only: the
    // math calls stay priced by the machine's table.
    if (ctx.in_priced_loop || ctx.in_priced_own_code) {
      s.cycle_flops_double = c.flops_double;
      s.cycle_flops_single = c.flops_single;
    }
    out.sites.push_back(std::move(s));
    return out;
  }

  Costs cost(const LoopItem& l, const Item& it, const Context& ctx) {
    const bool priced = !ctx.in_priced_loop && l.cycles_per_iteration.has_value();
    const bool overhead = !ctx.in_priced_loop && !priced && l.overhead_cycles_per_iteration.has_value();
    Costs body = items(l.body, Context{ctx.function, ctx.in_priced_loop || priced, overhead});
    if (l.streams)
      for (auto& site : body.sites)
        if (*l.streams > site.streams) site.streams = *l.streams, site.stream_offsets = l.stream_offsets;
    if (priced || overhead) {
      SiteCosts cycles;
      cycles.function = ctx.function;
      cycles.cycles = priced ? *l.cycles_per_iteration : *l.overhead_cycles_per_iteration;
      // Off the ports: what the priced cycles take beyond the ports' work. A
      // loop whose chain restarts each run and whose runs overlap is priced
      // at its resource bound: then none (cg's CSR rows), however long the
      // chain in the steady state.
      if (l.ports_cycles_per_iteration)
        cycles.off_ports_cycles =
            expr::maximum({Expr(0), cycles.cycles - expr::real(*l.ports_cycles_per_iteration)});
      add_site(body.sites, cycles);
    }
    if (l.working_set_bytes) {
      // Traffic of the body with no working set of its own lives in this loop's.
      for (auto& site : body.sites) {
        std::vector<MemorySegment> claimed;
        for (auto seg : site.memory) {
          if (!seg.working_set_bytes) {
            seg.working_set_bytes = l.working_set_bytes;
            seg.line = it.line;
          }
          add_segments(claimed, {seg});
        }
        site.memory = std::move(claimed);
      }
    }
    Costs run = over_iterations(body, l.var, l.trip_count, l.levels);
    run.checks = checks_over_iterations(body.checks, l.var, l.trip_count);
    // A polling loop's trips are timing: its calls, counted at the pass that
    // finds the completion, are lower bounds, and so are its callees'.
    if (!l.polls.empty())
      for (auto& g : run.mpi) g.timing_dependent = true;
    add_check(run.checks, l.trip_count, "trip count of the loop", ctx.function, it.line);
    // The footprint is per run of the loop: added after the iterations.
    if (l.footprint) {
      run = footprint_claimed(std::move(run), *l.footprint, it.line);
      gather_sites(run, ctx.function, it.line, it.note, /*all=*/true);
    } else if (priced) {
      gather_sites(run, ctx.function, it.line, it.note, /*all=*/false);
    }
    return run;
  }

  // The body's accesses become Covered (they stay in the plain formula and in
  // the in-core L1 bound) and its traffic becomes this loop's distinct bytes:
  // the outermost loop with a footprint has the last word, because data reused
  // between the runs of an inner loop is not fetched again.
  static Costs footprint_claimed(Costs body, const LoopItem::Footprint& f, int line) {
    for (auto& site : body.sites) {
      std::vector<MemorySegment> segments = std::move(site.memory);
      site.memory.clear();
      for (auto seg : segments) {
        if (seg.traffic == Traffic::Footprint) continue;
        seg.traffic = Traffic::Covered;
        add_segments(site.memory, {seg});
      }
    }
    SiteCosts traffic;
    traffic.function = body.sites.empty() ? std::string() : body.sites.front().function;
    traffic.memory.push_back({f.bytes, f.load_bytes, f.store_bytes, line, Traffic::Footprint});
    body.sites.push_back(std::move(traffic));  // gathered into the loop's site by the caller
    return body;
  }

  Costs cost(const BranchItem& b, const Item&, const Context& ctx) {
    Costs then_costs = items(b.then_items, ctx), else_costs = items(b.else_items, ctx);
    Expr taken = b.condition ? expr::select(*b.condition, Expr(1), Expr(0))
                 : b.share   ? *b.share
                             : expr::real(b.probability);
    Expr not_taken = b.condition ? expr::select(*b.condition, Expr(0), Expr(1))
                     : b.share   ? Expr(1) - *b.share
                                 : expr::real(1 - b.probability);
    Costs out = scaled(then_costs, taken);
    out.checks = checks_scaled(std::move(then_costs.checks), taken);
    Costs otherwise = scaled(else_costs, not_taken);
    otherwise.checks = checks_scaled(std::move(else_costs.checks), not_taken);
    add_into(out, otherwise);
    return out;
  }

  Costs cost(const CallItem& c, const Item& it, const Context&) {
    if (c.function.empty()) return {};  // an indirect call no probe run bound: its coverage entry says so
    auto fn = model_.functions.find(c.function);
    if (fn == model_.functions.end()) throw UserError(fmt::format("call to unknown function '{}'", c.function));
    Substitution args;
    bool numbers = !c.args.empty();
    for (const auto& [name, value] : c.args) {
      const auto& params = fn->second.parameters;
      if (std::find(params.begin(), params.end(), name) == params.end())
        throw UserError(fmt::format("line {}: call to '{}' passes '{}', which is not one of its parameters", it.line,
                                    c.function, name));
      args.emplace(name, value);
      numbers = numbers && value.is_constant();
    }
    if (numbers) return function_at(c.function, args);
    return substituted(function(c.function), args);
  }

  // A callee whose arguments are all numbers, composed with them in place
  // (once per function and numbers): sizes passed down a call chain fold at
  // each level, where substituting them into the callee's symbolic costs
  // grows an expression with every level it passes. Where a loop index of the
  // callee takes a parameter's name, the symbolic costs are substituted.
  Costs function_at(const std::string& name, const Substitution& args) {
    std::string key = name;
    for (const auto& [param, value] : args) key += fmt::format("\n{}={}", param, expr::to_string(value));
    if (auto done = memo_at_.find(key); done != memo_at_.end()) return done->second;
    const Function& fn = model_.functions.at(name);
    const std::set<std::string> indices = loop_indices(fn.body);
    for (const auto& [param, value] : args)
      if (indices.count(param)) return substituted(function(name), args);
    if (active_.count(name)) throw recursion(name);
    active_.insert(name);
    Costs c = simplified(items(substituted_items(fn.body, args), Context{name, false}));
    active_.erase(name);
    memo_at_.emplace(std::move(key), c);
    return c;
  }

  Costs cost(const MpiItem& m, const Item& it, const Context& ctx) {
    Costs out;
    out.mpi.push_back({m.op, m.count, m.count * m.bytes, m.peer, m.root, it.line, ctx.function});
    const std::string_view call = mpi::facts(m.op).function;
    add_check(out.checks, m.count, fmt::format("count of the {} call", call), ctx.function, it.line);
    add_check(out.checks, m.bytes, fmt::format("bytes of the {} call", call), ctx.function, it.line);
    return out;
  }

  const ProgramModel& model_;
  std::map<std::string, Costs> memo_;
  std::map<std::string, Costs> memo_at_;  // function_at's, by function and arguments
  std::set<std::string> active_;
};

Costs simplified(Costs c) {
  c = map_counts(c, [](const Expr& e) { return expr::simplify_or_keep(e); });
  for (auto& site : c.sites)
    for (auto& seg : site.memory)
      if (seg.working_set_bytes) seg.working_set_bytes = expr::simplify_or_keep(*seg.working_set_bytes);
  for (auto& g : c.mpi) {
    if (g.peer) g.peer = expr::simplify_or_keep(*g.peer);
    if (g.root) g.root = expr::simplify_or_keep(*g.root);
  }
  // Checks that cannot fail (a count >= 0 as a constant, an item that never
  // runs) are dropped, and the same check reached twice is kept once.
  std::vector<CountCheck> checks;
  std::set<std::string> seen;
  for (auto& check : c.checks) {
    check.value = expr::simplify_or_keep(check.value);
    check.runs = expr::simplify_or_keep(check.runs);
    if (constant_in_range(check.value)) continue;
    if (check.runs.is_constant() && !(check.runs.real_value() > 0)) continue;
    std::string key = fmt::format("{}\n{}\n{}\n{}\n{}", check.function, check.line, check.what,
                                  expr::to_string(check.value), expr::to_string(check.runs));
    if (seen.insert(std::move(key)).second) checks.push_back(std::move(check));
  }
  c.checks = std::move(checks);
  return c;
}

double value_of(const Expr& e, const expr::Bindings& b) { return expr::evaluate(e, b).real(); }

// How far below 0 a count may round and still be 0 (count_of).
constexpr double kRoundingBelowZero = 1e-6;

// A count (flops, accesses, bytes, calls, cycles) evaluated for one rank: finite,
// >= 0 and at most 2^53, or an error naming what was counted, where, the
// expression and the values of the names it uses. A negative size or trip
// count shows up here, and so does a count that wrapped (a negative 32- or
// 64-bit value read as unsigned is near 2^32 or 2^64, times the work per
// iteration): no rank of a run counts 2^53 (9e15) of anything in one site,
// and beyond it a double no longer holds every count. An integer past 64 bits
// is named the same way.
double count_of(const Expr& e, const expr::Bindings& b, std::string_view what, std::string_view where) {
  double v = 0;
  try {
    v = value_of(e, b);
  } catch (const UserError& error) {  // an integer past 64 bits: say which count, where, on which rank
    throw UserError(fmt::format("{} of {}: {}", what, where, error.what()), {},
                    "check the parameters bound with --param (a size or trip count is negative, or overflows)");
  }
  // A sum whose exact value is 0 may round to a few ulps of its terms below
  // it (the sides of a branch each rank takes all or none of, weighed by
  // shares that cancel): no count of anything is that close to 0 and negative.
  if (v < 0 && v > -kRoundingBelowZero) v = 0;
  if (std::isfinite(v) && v >= 0 && v <= kMaxCount) return v;
  std::string text = expr::to_string(e);
  if (text.size() > 200) text = text.substr(0, 200) + " ...";
  std::string values;
  for (const auto& name : expr::free_names(e)) {
    auto it = b.find(name);
    if (it == b.end()) continue;
    values += fmt::format("{}{}={}", values.empty() ? "" : ", ", name, it->second.real());
  }
  throw UserError(fmt::format("{} of {} evaluates to {} ({} = {}{}): a count must be finite and >= 0, and at "
                              "most 2^53{}",
                              what, where, v, text, v, values.empty() ? "" : fmt::format(" with {}", values),
                              v > kMaxCount && std::isfinite(v) ? " (a count that wrapped: a negative number read as unsigned?)" : ""),
                  {}, "check the parameters bound with --param (a size or trip count is negative, or overflows)");
}

// One item's own count on a rank where the item runs: >= 0, or an error naming
// the item. The totals above are the judge of what does not evaluate (a
// division by zero, an unbound name), so a check that does not evaluate at an
// end of its loop is skipped rather than reported twice or wrongly.
void check_item_count(const CountCheck& check, const expr::Bindings& b, int rank, const std::string& file) {
  // The count first: it is >= 0 nearly always, and then whether the item runs
  // does not matter (the cheaper order on a job of many ranks).
  try {
    if (!(value_of(check.value, b) <= -kRoundingBelowZero) || !(value_of(check.runs, b) > 0)) return;
  } catch (const UserError&) {
    return;
  }
  const double v = value_of(check.value, b);
  std::string text = expr::to_string(check.value);
  if (text.size() > 200) text = text.substr(0, 200) + " ...";
  std::string values;
  for (const auto& name : expr::free_names(check.value)) {
    auto it = b.find(name);
    if (it == b.end()) continue;
    values += fmt::format("{}{}={}", values.empty() ? "" : ", ", name, it->second.real());
  }
  throw ModelItemError(file, check.function, check.line,
                       fmt::format("the {} at line {} of {} evaluates to {} on rank {} ({}{}): every item's count "
                                   "must be >= 0 (a negative one would be subtracted from its site's total unseen)",
                                   check.what, check.line, check.function, v, rank, text,
                                   values.empty() ? "" : fmt::format(" with {}", values)),
                       "check that item of the model, or the parameters bound with --param");
}

// The item whose own count makes a site's total fail on this rank: one that does
// not evaluate (a division by zero, a name without a value), or evaluates out of
// range, where the item runs (or whether it runs does not evaluate either).
// nullptr when no item's own count fails: the total's sum itself overflowed.
const CountCheck* failing_item(const SymbolicCosts& c, const expr::Bindings& b) {
  for (const auto& check : c.checks) {
    try {
      const double v = value_of(check.value, b);
      if (std::isfinite(v) && v > -kRoundingBelowZero && v <= kMaxCount) continue;
    } catch (const UserError&) {
    }
    try {
      if (!(value_of(check.runs, b) > 0)) continue;
    } catch (const UserError&) {
    }
    return &check;
  }
  return nullptr;
}

}  // namespace

namespace {

// A function's composed costs with their totals over the sites.
SymbolicCosts totalled(Costs c, const ProgramModel& model) {
  c = simplified(std::move(c));
  SymbolicCosts out;
  SiteCosts total;
  for (const auto& site : c.sites) add_site_counts(total, site);
  out.file = model.file;
  out.flops_double = expr::simplify_or_keep(total.flops_double);
  out.flops_single = expr::simplify_or_keep(total.flops_single);
  out.loads = expr::simplify_or_keep(total.loads);
  out.stores = expr::simplify_or_keep(total.stores);
  for (auto& [name, calls] : total.math_calls) out.math_calls[name] = expr::simplify_or_keep(calls);
  out.memory = std::move(total.memory);
  for (auto& seg : out.memory) {
    seg.load_bytes = expr::simplify_or_keep(seg.load_bytes);
    seg.store_bytes = expr::simplify_or_keep(seg.store_bytes);
  }
  out.cycles = expr::simplify_or_keep(total.cycles);
  out.cycle_flops_double = expr::simplify_or_keep(total.cycle_flops_double);
  out.cycle_flops_single = expr::simplify_or_keep(total.cycle_flops_single);
  out.sites = std::move(c.sites);
  out.mpi = std::move(c.mpi);
  out.checks = std::move(c.checks);
  return out;
}

}  // namespace

SymbolicCosts symbolic_costs(const ProgramModel& model, const std::string& function) {
  Composer composer(model);
  return totalled(composer.function(function), model);
}

SymbolicCosts symbolic_costs(const ProgramModel& model) { return symbolic_costs(model, model.entry); }

struct CostComposer::State {
  explicit State(const ProgramModel& m) : model(m), composer(m) {}
  const ProgramModel& model;
  Composer composer;
};

CostComposer::CostComposer(const ProgramModel& model) : state_(std::make_unique<State>(model)) {}
CostComposer::~CostComposer() = default;

SymbolicCosts CostComposer::costs(const std::string& function) {
  try {
    return totalled(state_->composer.function(function), state_->model);
  } catch (...) {
    state_->composer.abandon_unfinished();
    throw;
  }
}

std::vector<int> dims_create(int size, int ndims) {
  if (size < 1 || ndims < 1) throw UserError("dims_create needs a positive size and number of dimensions");
  std::vector<int> factors;
  for (int n = size, p = 2; n > 1;) {
    if (p * p > n) {
      factors.push_back(n);
      break;
    }
    if (n % p == 0) {
      factors.push_back(p);
      n /= p;
    } else {
      ++p;
    }
  }
  std::sort(factors.rbegin(), factors.rend());
  std::vector<int> dims(static_cast<size_t>(ndims), 1);
  for (int f : factors) *std::min_element(dims.begin(), dims.end()) *= f;
  std::sort(dims.rbegin(), dims.rend());
  return dims;
}

expr::Bindings bind_rank(const ProgramModel& model, const std::map<std::string, expr::Value>& parameters,
                         int rank, int size) {
  expr::Bindings b;
  b["rank"] = rank;
  b["size"] = size;
  for (int nd : {2, 3}) {
    auto d = dims_create(size, nd);
    for (int i = 0; i < nd; ++i) b[fmt::format("dims{}_{}", nd, i)] = d[static_cast<size_t>(i)];
  }
  for (const auto& [name, value] : parameters) {
    bool known = std::any_of(model.parameters.begin(), model.parameters.end(),
                             [&](const Parameter& p) { return p.name == name; });
    if (!known) {
      std::string list;
      for (const auto& p : model.parameters) list += (list.empty() ? "" : ", ") + p.name;
      throw UserError(fmt::format("the model has no parameter '{}'; its parameters are: {}", name, list), {},
                      "see 'perfcast model params'");
    }
  }
  for (const auto& p : model.parameters) {
    auto given = parameters.find(p.name);
    if (given != parameters.end()) {
      const expr::Value& v = given->second;
      if (p.integer && !v.is_integer() && !(std::isfinite(v.real()) && v.real() == std::trunc(v.real())))
        throw UserError(fmt::format("--param {}={}: '{}' ({}) is a whole number in the program", p.name, v.real(),
                                    p.name, p.description.empty() ? "no description" : p.description),
                        {}, fmt::format("pass a whole number, e.g. --param {}={}", p.name, std::llround(v.real())));
      b[p.name] = v;
    } else if (p.default_value) {
      continue;  // below, once the parameters it names have values
    } else {
      throw UserError(fmt::format("parameter '{}' ({}) has no value and no default", p.name,
                                  p.description.empty() ? "no description" : p.description),
                      {}, fmt::format("pass --param {}=VALUE", p.name));
    }
  }
  // Defaults in the order they can be evaluated: a default may name any
  // other parameter, given or defaulted, whatever their order in the model.
  std::vector<const Parameter*> waiting;
  for (const auto& p : model.parameters)
    if (!b.count(p.name)) waiting.push_back(&p);
  while (!waiting.empty()) {
    std::vector<const Parameter*> later;
    for (const Parameter* p : waiting) {
      bool ready = true;
      for (const auto& name : expr::free_names(*p->default_value))
        if (!b.count(name) && std::any_of(waiting.begin(), waiting.end(), [&](const Parameter* q) {
              return q != p && q->name == name;
            }))
          ready = false;
      if (ready) {
        // A default that does not evaluate here (the bytes a loop's guard
        // keeps it from sweeping, counted as if it ran: past 64 bits) is
        // needed only where code that uses it runs: unknown, an error there
        // and nothing under a guard's 0 (expr::evaluate). A default naming
        // a name nothing binds (a --param expression's typo) is an error now.
        const std::set<std::string> needs = expr::free_names(*p->default_value);
        const bool all_named = std::all_of(needs.begin(), needs.end(), [&](const std::string& n) { return b.count(n); });
        try {
          b[p->name] = expr::evaluate(*p->default_value, b);
        } catch (const UserError&) {
          if (!all_named) throw;
          b[p->name] = expr::Value::unknown();
        }
      } else {
        later.push_back(p);
      }
    }
    if (later.size() == waiting.size()) {
      std::string cycle;
      for (const Parameter* p : later) cycle += (cycle.empty() ? "" : ", ") + p->name;
      throw UserError(fmt::format("the defaults of parameters {} name each other", cycle), {},
                      fmt::format("pass --param {}=VALUE", later.front()->name));
    }
    waiting = std::move(later);
  }
  for (const auto& [name, value] : model.lets) b[name] = expr::evaluate(value, b);
  return b;
}

std::set<std::string> free_names(const SymbolicCosts& c) {
  std::set<std::string> names;
  auto add = [&](const Expr& e) { names.merge(expr::free_names(e)); };
  auto add_memory = [&](const std::vector<MemorySegment>& memory) {
    for (const auto& seg : memory) {
      if (seg.working_set_bytes) add(*seg.working_set_bytes);
      add(seg.load_bytes);
      add(seg.store_bytes);
    }
  };
  for (const Expr* e : {&c.flops_double, &c.flops_single, &c.loads, &c.stores, &c.cycles, &c.cycle_flops_double,
                        &c.cycle_flops_single})
    add(*e);
  for (const auto& [_, calls] : c.math_calls) add(calls);
  add_memory(c.memory);
  for (const auto& site : c.sites) {
    for (const Expr* e : {&site.flops_double, &site.flops_single, &site.loads, &site.stores, &site.cycles,
                          &site.cycle_flops_double, &site.cycle_flops_single, &site.off_ports_cycles})
      add(*e);
    for (const auto& [_, calls] : site.math_calls) add(calls);
    add_memory(site.memory);
    for (const auto& offsets : site.stream_offsets)
      for (const Expr& e : offsets) add(e);
  }
  for (const auto& g : c.mpi) {
    add(g.calls);
    add(g.bytes);
    if (g.peer) add(*g.peer);
    if (g.root) add(*g.root);
  }
  for (const auto& check : c.checks) {
    add(check.value);
    add(check.runs);
  }
  return names;
}

void add_site_to_rank(RankCounts& r, SiteCounts s) {
  r.flops_double += s.flops_double;
  r.flops_single += s.flops_single;
  r.loads += s.loads;
  r.stores += s.stores;
  r.load_bytes += s.load_bytes;
  r.store_bytes += s.store_bytes;
  for (const auto& [name, calls] : s.math_calls) r.math_calls[name] += calls;
  r.memory.insert(r.memory.end(), s.memory.begin(), s.memory.end());
  r.cycles += s.cycles;
  r.cycle_flops_double += s.cycle_flops_double;
  r.cycle_flops_single += s.cycle_flops_single;
  r.sites.push_back(std::move(s));
}

void add_call_to_rank(RankCounts& r, MpiCalls m, double bytes) {
  bool real_peer = !m.peer || *m.peer >= 0;
  r.mpi_calls += m.calls;
  if (m.timing_dependent) r.mpi_calls_timing_dependent += m.calls;
  const mpi::OpFacts& op = mpi::facts(m.op);
  if (op.sends && real_peer) {
    r.messages += m.calls;
    r.sent_bytes += bytes;
  }
  if (op.receives && real_peer) r.received_bytes += bytes;
  // Collectives that move data (not the communicator calls: what they agree
  // on is the library's, not the program's).
  if (op.cls == mpi::OpClass::Collective) {
    r.messages += m.calls;
    r.sent_bytes += bytes;
    r.received_bytes += bytes;
  }
  r.mpi.push_back(std::move(m));
}

namespace {

RankCounts evaluate_rank_counts(const SymbolicCosts& c, const expr::Bindings& b, int rank) {
  // The items first: a negative one is named by its own line, where the
  // total it makes negative could only name its site.
  for (const auto& check : c.checks) check_item_count(check, b, rank, c.file);
  RankCounts r;
  r.rank = rank;
  for (const auto& site : c.sites) {
    SiteCounts s;
    s.function = site.function;
    s.line = site.line;
    s.note = site.note;
    const std::string where =
        (site.line ? fmt::format("{} (line {})", site.function, site.line) : site.function) + fmt::format(" on rank {}", rank);
    s.flops_double = count_of(site.flops_double, b, "double-precision flops", where);
    s.flops_single = count_of(site.flops_single, b, "single-precision flops", where);
    s.loads = count_of(site.loads, b, "loads", where);
    s.stores = count_of(site.stores, b, "stores", where);
    for (const auto& [name, calls] : site.math_calls)
      s.math_calls[name] = count_of(calls, b, fmt::format("calls of {}", name), where);
    s.cycles = count_of(site.cycles, b, "in-core cycles", where);
    s.off_ports_cycles = count_of(site.off_ports_cycles, b, "off-ports cycles", where);
    s.streams = site.streams;
    for (const auto& offsets : site.stream_offsets) {
      std::vector<double> at;
      try {
        for (const Expr& e : offsets) at.push_back(expr::evaluate(e, b).real());
      } catch (const std::exception&) {
        continue;  // unbound: its streams count as leading
      }
      std::sort(at.begin(), at.end(), std::greater<>());
      for (size_t k = 1; k < at.size(); ++k) s.follower_gaps_bytes.push_back(at[k - 1] - at[k]);
    }
    s.cycle_flops_double = value_of(site.cycle_flops_double, b);
    s.cycle_flops_single = value_of(site.cycle_flops_single, b);
    bool footprint_failed = false;
    for (const auto& seg : site.memory) {
      MemoryTraffic t;
      try {
        t.load_bytes = count_of(seg.load_bytes, b, "loaded bytes", where);
        t.store_bytes = count_of(seg.store_bytes, b, "stored bytes", where);
        // A working set prices the bytes its loop moves: none where the loop
        // does not run (its guard's 0 scales them), and there its bound need
        // not hold (a vector body's count wraps at the sizes its guard skips).
        if (seg.working_set_bytes && (t.load_bytes > 0 || t.store_bytes > 0))
          t.working_set_bytes = value_of(*seg.working_set_bytes, b);
      } catch (const UserError& e) {
        // A footprint is a refinement: when its bound does not evaluate (an
        // unsigned vector-loop count at a size the vector loop never runs),
        // the refinement is off for this rank, the counts stand.
        if (seg.traffic != Traffic::Footprint) throw;
        std::string why = e.what();
        if (why.size() > 240) why = why.substr(0, 240) + " ...";  // the bound itself can run to kilobytes
        r.footprint_error = fmt::format("the loop at line {}: {}", seg.line, why);
        footprint_failed = true;
        continue;
      }
      t.line = seg.line;
      t.traffic = seg.traffic;
      if (t.traffic != Traffic::Footprint) {
        s.load_bytes += t.load_bytes;
        s.store_bytes += t.store_bytes;
      }
      s.memory.push_back(t);
    }
    // Without its distinct bytes, the nest's accesses are its traffic again,
    // and so are none of its footprints: the nest's covered accesses merge
    // every path that reaches it, so a footprint that did evaluate (another
    // caller's) would count the same bytes twice.
    if (footprint_failed) {
      std::erase_if(s.memory, [](const MemoryTraffic& t) { return t.traffic == Traffic::Footprint; });
      for (auto& t : s.memory) t.traffic = Traffic::Access;
    }
    add_site_to_rank(r, std::move(s));
  }
  for (const auto& g : c.mpi) {
    MpiCalls m;
    m.op = g.op;
    m.line = g.line;
    m.function = g.function;
    m.timing_dependent = g.timing_dependent;
    const std::string call_site =
        (g.line ? fmt::format("{} in {} (line {})", mpi::name(g.op), g.function, g.line)
                : fmt::format("{} in {}", mpi::name(g.op), g.function)) +
        fmt::format(" on rank {}", r.rank);
    double bytes = 0;
    try {
      m.calls = count_of(g.calls, b, "calls", call_site);
      bytes = count_of(g.bytes, b, "bytes", call_site);
      if (g.peer) m.peer = static_cast<long long>(expr::evaluate_integer(*g.peer, b));
      if (g.root) (void)expr::evaluate_integer(*g.root, b);  // checked: a root must evaluate
    } catch (const UserError& error) {
      throw ModelItemError(c.file, g.function, g.line, error);
    }
    m.bytes_per_call = m.calls > 0 ? bytes / m.calls : 0;
    add_call_to_rank(r, std::move(m), bytes);
  }
  return r;
}

}  // namespace

RankCounts evaluate_rank(const SymbolicCosts& c, const expr::Bindings& b, int rank) {
  try {
    return evaluate_rank_counts(c, b, rank);
  } catch (const ModelItemError&) {
    throw;
  } catch (const UserError& error) {
    // A site's total sums its items: name the item at fault where one is, else
    // the site (its function and line are in the message) in the model's file.
    if (const CountCheck* item = failing_item(c, b)) throw ModelItemError(c.file, item->function, item->line, error);
    throw UserError(error.what(), SourceLocation{c.file, std::nullopt, {}}, error.hint());
  }
}

}  // namespace perfcast::model
