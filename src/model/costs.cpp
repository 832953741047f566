#include "model/costs.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "support/error.h"

namespace perfcast::model {

namespace {

using expr::Substitution;

bool uses(const Expr& e, const std::string& name) { return !name.empty() && expr::free_names(e).count(name) > 0; }

bool same(const std::optional<Expr>& a, const std::optional<Expr>& b) {
  return a.has_value() == b.has_value() && (!a || *a == *b);
}

// Adds `x` into `acc`, merging memory segments with the same working set and
// MPI groups of the same call site and peer, so models of deep loop nests stay
// as small as the code they describe.
void add_into(SymbolicCosts& acc, const SymbolicCosts& x) {
  acc.flops_double = acc.flops_double + x.flops_double;
  acc.flops_single = acc.flops_single + x.flops_single;
  acc.loads = acc.loads + x.loads;
  acc.stores = acc.stores + x.stores;
  for (const auto& [name, calls] : x.math_calls) {
    auto it = acc.math_calls.find(name);
    if (it == acc.math_calls.end()) acc.math_calls.emplace(name, calls);
    else it->second = it->second + calls;
  }
  for (const auto& seg : x.memory) {
    auto it = std::find_if(acc.memory.begin(), acc.memory.end(), [&](const MemorySegment& s) {
      return same(s.working_set_bytes, seg.working_set_bytes) && s.line == seg.line && s.traffic == seg.traffic;
    });
    if (it == acc.memory.end()) {
      acc.memory.push_back(seg);
    } else {
      it->load_bytes = it->load_bytes + seg.load_bytes;
      it->store_bytes = it->store_bytes + seg.store_bytes;
    }
  }
  for (const auto& g : x.mpi) {
    auto it = std::find_if(acc.mpi.begin(), acc.mpi.end(), [&](const MpiGroup& h) {
      return h.op == g.op && h.line == g.line && same(h.peer, g.peer) && same(h.root, g.root);
    });
    if (it == acc.mpi.end()) {
      acc.mpi.push_back(g);
    } else {
      it->calls = it->calls + g.calls;
      it->bytes = it->bytes + g.bytes;
    }
  }
}

// Applies `f` to every expression that counts something (not to peers, roots
// or working sets, which are not multiplied by loops).
template <typename F>
SymbolicCosts map_counts(const SymbolicCosts& c, F f) {
  SymbolicCosts out = c;
  out.flops_double = f(c.flops_double);
  out.flops_single = f(c.flops_single);
  out.loads = f(c.loads);
  out.stores = f(c.stores);
  for (auto& [name, calls] : out.math_calls) calls = f(calls);
  for (auto& seg : out.memory) {
    seg.load_bytes = f(seg.load_bytes);
    seg.store_bytes = f(seg.store_bytes);
  }
  for (auto& g : out.mpi) {
    g.calls = f(g.calls);
    g.bytes = f(g.bytes);
  }
  return out;
}

SymbolicCosts scaled(const SymbolicCosts& c, const Expr& factor) {
  return map_counts(c, [&](const Expr& e) { return factor * e; });
}

SymbolicCosts substituted(const SymbolicCosts& c, const Substitution& s) {
  SymbolicCosts out = map_counts(c, [&](const Expr& e) { return expr::substitute(e, s); });
  for (auto& seg : out.memory)
    if (seg.working_set_bytes) seg.working_set_bytes = expr::substitute(*seg.working_set_bytes, s);
  for (auto& g : out.mpi) {
    if (g.peer) g.peer = expr::substitute(*g.peer, s);
    if (g.root) g.root = expr::substitute(*g.root, s);
  }
  return out;
}

// The costs of `trip` iterations of a body whose costs may use the index `var`
// (0 .. trip-1): sums where the index appears, products where it does not.
SymbolicCosts over_iterations(const SymbolicCosts& body, const std::string& var, const Expr& trip) {
  const Expr last = trip - Expr(1);
  SymbolicCosts out = map_counts(body, [&](const Expr& e) {
    return uses(e, var) ? expr::sum(var, Expr(0), last, e) : trip * e;
  });
  // A working set that changes with the index: take the last iteration's, the
  // largest for the growing loops (triangular nests) this appears in.
  for (auto& seg : out.memory)
    if (seg.working_set_bytes && uses(*seg.working_set_bytes, var))
      seg.working_set_bytes = expr::substitute(*seg.working_set_bytes, {{var, last}});

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
    Expr n = expr::simplify(trip);
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

class Composer {
 public:
  explicit Composer(const ProgramModel& model) : model_(model) {}

  SymbolicCosts function(const std::string& name) {
    auto done = memo_.find(name);
    if (done != memo_.end()) return done->second;
    auto fn = model_.functions.find(name);
    if (fn == model_.functions.end()) throw UserError(fmt::format("call to unknown function '{}'", name));
    if (active_.count(name))
      throw UserError(fmt::format("function '{}' calls itself (directly or not); recursion cannot be priced "
                                  "statically: give its cost as a compute item instead",
                                  name));
    active_.insert(name);
    SymbolicCosts c = items(fn->second.body);
    active_.erase(name);
    memo_.emplace(name, c);
    return c;
  }

 private:
  SymbolicCosts items(const Items& list) {
    SymbolicCosts acc;
    for (const Item& it : list) add_into(acc, item(it));
    return acc;
  }

  SymbolicCosts item(const Item& it) {
    return std::visit([&](const auto& body) { return cost(body, it.line); }, it.body);
  }

  SymbolicCosts cost(const ComputeItem& c, int line) {
    SymbolicCosts out;
    out.flops_double = c.flops_double;
    out.flops_single = c.flops_single;
    out.loads = c.loads;
    out.stores = c.stores;
    for (const auto& [name, calls] : c.math_calls) out.math_calls[name] = calls;
    out.memory.push_back({std::nullopt, c.load_bytes, c.store_bytes, line});
    return out;
  }

  SymbolicCosts cost(const LoopItem& l, int line) {
    SymbolicCosts body = items(l.body);
    if (l.working_set_bytes) {
      // Traffic of the body with no working set of its own lives in this loop's.
      SymbolicCosts claimed = body;
      claimed.memory.clear();
      for (auto seg : body.memory) {
        if (!seg.working_set_bytes) {
          seg.working_set_bytes = l.working_set_bytes;
          seg.line = line;
        }
        add_into(claimed, SymbolicCosts{.memory = {seg}});
      }
      body = std::move(claimed);
    }
    SymbolicCosts run = over_iterations(body, l.var, l.trip_count);
    // The footprint is per run of the loop: added after the iterations.
    if (l.footprint) run = footprint_claimed(std::move(run), *l.footprint, line);
    return run;
  }

  // The body's accesses become Covered (they stay in the plain formula and in
  // the in-core L1 bound) and its traffic becomes this loop's distinct bytes:
  // the outermost loop with a footprint has the last word, because data reused
  // between the runs of an inner loop is not fetched again.
  static SymbolicCosts footprint_claimed(SymbolicCosts body, const LoopItem::Footprint& f, int line) {
    std::vector<MemorySegment> segments = std::move(body.memory);
    body.memory.clear();
    for (auto seg : segments) {
      if (seg.traffic == Traffic::Footprint) continue;
      seg.traffic = Traffic::Covered;
      add_into(body, SymbolicCosts{.memory = {seg}});
    }
    add_into(body, SymbolicCosts{.memory = {{f.bytes, f.load_bytes, f.store_bytes, line, Traffic::Footprint}}});
    return body;
  }

  SymbolicCosts cost(const BranchItem& b, int) {
    SymbolicCosts then_costs = items(b.then_items), else_costs = items(b.else_items);
    Expr taken = b.condition ? expr::select(*b.condition, Expr(1), Expr(0)) : expr::real(b.probability);
    Expr not_taken = b.condition ? expr::select(*b.condition, Expr(0), Expr(1)) : expr::real(1 - b.probability);
    SymbolicCosts out = scaled(then_costs, taken);
    add_into(out, scaled(else_costs, not_taken));
    return out;
  }

  SymbolicCosts cost(const CallItem& c, int line) {
    SymbolicCosts callee = function(c.function);
    const Function& fn = model_.functions.at(c.function);
    Substitution args;
    for (const auto& [name, value] : c.args) {
      if (std::find(fn.parameters.begin(), fn.parameters.end(), name) == fn.parameters.end())
        throw UserError(fmt::format("line {}: call to '{}' passes '{}', which is not one of its parameters", line,
                                    c.function, name));
      args.emplace(name, value);
    }
    return substituted(callee, args);
  }

  SymbolicCosts cost(const MpiItem& m, int line) {
    SymbolicCosts out;
    out.mpi.push_back({m.op, m.count, m.count * m.bytes, m.peer, m.root, line});
    return out;
  }

  const ProgramModel& model_;
  std::map<std::string, SymbolicCosts> memo_;
  std::set<std::string> active_;
};

SymbolicCosts simplified(SymbolicCosts c) {
  c = map_counts(c, [](const Expr& e) { return expr::simplify(e); });
  for (auto& seg : c.memory)
    if (seg.working_set_bytes) seg.working_set_bytes = expr::simplify(*seg.working_set_bytes);
  for (auto& g : c.mpi) {
    if (g.peer) g.peer = expr::simplify(*g.peer);
    if (g.root) g.root = expr::simplify(*g.root);
  }
  return c;
}

double value_of(const Expr& e, const expr::Bindings& b) { return expr::evaluate(e, b).real(); }

}  // namespace

SymbolicCosts symbolic_costs(const ProgramModel& model, const std::string& function) {
  Composer composer(model);
  return simplified(composer.function(function));
}

SymbolicCosts symbolic_costs(const ProgramModel& model) { return symbolic_costs(model, model.entry); }

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
      b[p.name] = given->second;
    } else if (p.default_value) {
      b[p.name] = expr::evaluate(*p.default_value, b);
    } else {
      throw UserError(fmt::format("parameter '{}' ({}) has no value and no default", p.name,
                                  p.description.empty() ? "no description" : p.description),
                      {}, fmt::format("pass --param {}=VALUE", p.name));
    }
  }
  for (const auto& [name, value] : model.lets) b[name] = expr::evaluate(value, b);
  return b;
}

RankCounts evaluate_rank(const SymbolicCosts& c, const expr::Bindings& b, int rank) {
  RankCounts r;
  r.rank = rank;
  r.flops_double = value_of(c.flops_double, b);
  r.flops_single = value_of(c.flops_single, b);
  r.loads = value_of(c.loads, b);
  r.stores = value_of(c.stores, b);
  for (const auto& [name, calls] : c.math_calls) r.math_calls[name] = value_of(calls, b);
  for (const auto& seg : c.memory) {
    MemoryTraffic t;
    try {
      if (seg.working_set_bytes) t.working_set_bytes = value_of(*seg.working_set_bytes, b);
      t.load_bytes = value_of(seg.load_bytes, b);
      t.store_bytes = value_of(seg.store_bytes, b);
    } catch (const UserError& e) {
      // A footprint is a refinement: when its bound does not evaluate (an
      // unsigned vector-loop count at a size the vector loop never runs),
      // the refinement is off for this rank, the counts stand.
      if (seg.traffic != Traffic::Footprint) throw;
      std::string why = e.what();
      if (why.size() > 240) why = why.substr(0, 240) + " ...";  // the bound itself can run to kilobytes
      r.footprint_error = fmt::format("the loop at line {}: {}", seg.line, why);
      continue;
    }
    t.line = seg.line;
    t.traffic = seg.traffic;
    if (t.traffic != Traffic::Footprint) {
      r.load_bytes += t.load_bytes;
      r.store_bytes += t.store_bytes;
    }
    r.memory.push_back(t);
  }
  for (const auto& g : c.mpi) {
    MpiCalls m;
    m.op = g.op;
    m.line = g.line;
    m.calls = value_of(g.calls, b);
    double bytes = value_of(g.bytes, b);
    m.bytes_per_call = m.calls > 0 ? bytes / m.calls : 0;
    if (g.peer) m.peer = static_cast<long long>(expr::evaluate_integer(*g.peer, b));
    if (g.root) (void)expr::evaluate_integer(*g.root, b);  // checked: a root must evaluate
    bool real_peer = !m.peer || *m.peer >= 0;
    r.mpi_calls += m.calls;
    if (is_point_to_point_send(g.op) && real_peer) {
      r.messages += m.calls;
      r.sent_bytes += bytes;
    }
    if (is_point_to_point_receive(g.op) && real_peer) r.received_bytes += bytes;
    if (is_collective(g.op)) {
      r.messages += m.calls;
      r.sent_bytes += bytes;
      r.received_bytes += bytes;
    }
    r.mpi.push_back(m);
  }
  return r;
}

}  // namespace perfcast::model
