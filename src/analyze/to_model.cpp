#include "analyze/to_model.h"

#include <functional>
#include <set>
#include <tuple>

#include "analyze/mca_pricing.h"

namespace perfcast::analyze::detail {

namespace ex = perfcast::expr;
using ex::Expr;

namespace {

model::Items to_model_items(const Items& items) {
  model::Items out;
  out.reserve(items.size());
  for (const auto& n : items) out.push_back(to_model_item(*n));
  return out;
}

model::ComputeItem compute(const Node& n) {
  model::ComputeItem c;
  c.flops_double = ex::simplify(n.flops_double);
  c.flops_single = ex::simplify(n.flops_single);
  c.loads = ex::simplify(n.loads);
  c.stores = ex::simplify(n.stores);
  c.load_bytes = ex::simplify(n.load_bytes);
  c.store_bytes = ex::simplify(n.store_bytes);
  for (const auto& [name, calls] : n.math) c.math_calls.emplace_back(name, ex::simplify(calls));
  return c;
}

model::LoopItem loop(const Node& n) {
  model::LoopItem l;
  l.var = n.var;
  l.levels = n.levels;
  l.trip_count = ex::simplify(n.trip_count);
  if (n.cycles_per_iteration) {
    Expr c = ex::simplify(*n.cycles_per_iteration);
    l.cycles_per_iteration = c.is_constant() ? ex::real(hundredths(c.real_value())) : c;
  }
  if (n.overhead_cycles_per_iteration) l.overhead_cycles_per_iteration = ex::real(*n.overhead_cycles_per_iteration);
  if (n.machine) {
    // MCA's own figures, for the reader: of the body (innermost) or of the
    // loop's own blocks (outside its subloops).
    const LoopCycles& m = *n.machine;
    model::LoopItem::McaFigures f;
    f.cpi = hundredths(m.cycles_per_iteration);
    f.rthroughput = hundredths(m.rthroughput);
    f.uops = m.micro_ops;
    if (n.innermost) f.chain_restarts = n.chain_restarts;
    f.busiest_resource = m.busiest_resource.empty() ? "dispatch width" : m.busiest_resource;
    f.busiest_resource_cycles = hundredths(m.busiest_resource_cycles);
    f.divides = m.divides;
    if (m.divides) f.rthroughput_without_divides = hundredths(m.rthroughput_without_divides);
    l.mca = f;
    // Priced: the cycles beyond the ports' work (divider, chains) take the
    // off-port noise, not the ports'. Of the priced cycles, not of MCA's
    // steady state: a loop whose chain restarts each run may be priced at
    // its resource bound (docs/program-model.md, "Short loops").
    // Below 5 % of the steady state: its resource bound and MCA's cycles
    // differing by a rounding, not a chain.
    if (m.off_ports_share() >= 0.05 && (n.cycles_per_iteration || n.overhead_cycles_per_iteration))
      l.ports_cycles_per_iteration = hundredths(m.rthroughput_without_divides);
  }
  if (n.streams > 0) l.streams = n.streams;
  for (const auto& offsets : n.stream_offsets) {
    std::vector<Expr> list;
    for (const Expr& e : offsets) list.push_back(ex::simplify(e));
    l.stream_offsets.push_back(std::move(list));
  }
  if (n.footprint)
    l.footprint = model::LoopItem::Footprint{ex::simplify((*n.footprint)[0]), ex::simplify((*n.footprint)[1]),
                                             ex::simplify((*n.footprint)[2])};
  l.polls = n.polls;
  l.body = to_model_items(n.body);
  return l;
}

model::BranchItem branch(const Node& n) {
  model::BranchItem b;
  if (n.condition)
    b.condition = ex::simplify(*n.condition);
  else if (n.share)
    b.share = *n.share;
  else
    b.probability = n.probability;
  b.then_items = to_model_items(n.then_items);
  b.else_items = to_model_items(n.else_items);
  b.then_line = n.then_line;
  b.else_line = n.else_line;
  return b;
}

model::CallItem call(const Node& n) {
  model::CallItem c;
  c.function = n.callee;
  c.indirect = n.indirect;
  if (n.indirect) c.site = n.site;
  c.positional_args = n.positional_args;
  for (const auto& [param, value] : n.args) c.args.emplace_back(param, ex::simplify(value));
  return c;
}

model::MpiItem mpi_call(const Node& n) {
  model::MpiItem m;
  m.op = n.op;
  m.bytes = ex::simplify(n.bytes);
  if (n.peer) m.peer = ex::simplify(*n.peer);
  if (n.root) m.root = ex::simplify(*n.root);
  if (n.level) m.level = ex::simplify(*n.level);
  return m;
}

}  // namespace

model::Item to_model_item(const Node& n) {
  model::Item it;
  it.line = n.line;
  it.note = n.note;
  switch (n.kind) {
    case Node::Compute:
      it.body = compute(n);
      break;
    case Node::Loop:
      it.body = loop(n);
      break;
    case Node::Branch:
      it.body = branch(n);
      break;
    case Node::Call:
      it.body = call(n);
      break;
    case Node::Mpi:
      it.body = mpi_call(n);
      break;
  }
  return it;
}

std::vector<model::Parameter> model_parameters(const std::map<std::string, FunctionModel>& functions,
                                               const std::map<std::string, ParamInfo>& descriptions) {
  std::set<std::string> free;
  for (const auto& [name, fm] : functions) {
    std::set<std::string> bound(fm.loop_vars.begin(), fm.loop_vars.end());
    bound.insert(fm.parameters.begin(), fm.parameters.end());
    for_each_expression(
        fm.body,
        [&](const Expr& e) {
          for (const auto& v : ex::free_names(ex::simplify(e)))
            if (!bound.count(v)) free.insert(v);
        },
        true);
  }
  static const std::set<std::string> builtin = {"rank", "size", "dims2_0", "dims2_1", "dims3_0", "dims3_1", "dims3_2"};
  std::vector<model::Parameter> params;
  for (const auto& name : free) {
    if (builtin.count(name)) continue;
    model::Parameter p;
    p.name = name;
    auto d = descriptions.find(name);
    p.description = d != descriptions.end() ? d->second.description : "a value the analysis could not derive";
    if (d != descriptions.end() && d->second.default_value) p.default_value = ex::parse(*d->second.default_value);
    params.push_back(std::move(p));
  }
  return params;
}

model::Coverage model_coverage(const std::map<std::string, FunctionModel>& functions, const std::string& entry,
                               int defined, const std::set<std::string>& reachable) {
  model::Coverage c;
  c.functions_defined = defined;
  c.functions_reachable = static_cast<int>(reachable.size());
  for (const std::string& name : reachable)
    if (auto f = functions.find(name); f != functions.end()) c.instructions += f->second.instructions;
  // The functions the model prices: the entry and what its call items reach.
  std::set<std::string> modelled;
  std::vector<std::string> todo = {entry};
  std::function<void(const Items&)> calls = [&](const Items& items) {
    for (const auto& n : items) {
      if (n->kind == Node::Call && !modelled.count(n->callee)) todo.push_back(n->callee);
      calls(n->body), calls(n->then_items), calls(n->else_items);
    }
  };
  while (!todo.empty()) {
    std::string name = todo.back();
    todo.pop_back();
    auto f = functions.find(name);
    if (f == functions.end() || !modelled.insert(name).second) continue;
    calls(f->second.body);
  }
  // The reachable functions no call of the model reaches are the candidate
  // targets of its indirect calls: their guesses are listed too (a probe run
  // binds them once it binds a call to them), and their priced instructions
  // kept apart, to join the priced ones then.
  std::set<std::string> listed = modelled;
  for (const std::string& name : reachable)
    if (!modelled.count(name) && functions.count(name)) {
      listed.insert(name);
      c.candidate_instructions_priced[name] = functions.at(name).instructions_priced;
    }
  std::set<std::tuple<std::string, std::string, std::string, std::string>> seen;  // one entry per source site
  for (const std::string& name : listed) {
    const FunctionModel& fm = functions.at(name);
    if (reachable.count(name) && modelled.count(name)) c.instructions_priced += fm.instructions_priced;
    for (const UnresolvedCall& u : fm.unresolved_calls)
      if (seen.insert({"call " + u.kind, name, u.site, u.callee}).second)
        c.unresolved_calls.push_back({u.kind, u.callee, name, u.site});
    std::function<void(const Items&)> guesses = [&](const Items& items) {
      for (const auto& n : items) {
        if (n->kind == Node::Branch && !n->guess.empty() && seen.insert({"branch", name, n->site, n->guess}).second)
          c.guessed_branches.push_back({name, n->site, n->probability, n->guess});
        if (n->kind == Node::Loop && !n->unknown_trips.empty() &&
            seen.insert({"loop", name, n->site, n->unknown_trips}).second)
          c.unknown_loops.push_back({name, n->site, n->unknown_trips, n->guess, std::nullopt, false, n->recursion,
                                     n->virtual_call, n->instance, n->merged_site, n->called_back_at});
        if (n->kind == Node::Loop && !n->polls.empty() && seen.insert({"polling", name, n->site, n->polls}).second)
          c.polling_loops.push_back({name, n->site, n->polls_loop, n->polls});
        guesses(n->body), guesses(n->then_items), guesses(n->else_items);
      }
    };
    guesses(fm.body);
  }
  return c;
}

std::map<std::string, model::Function> model_functions(const std::map<std::string, FunctionModel>& functions) {
  std::map<std::string, model::Function> out;
  for (const auto& [name, fm] : functions) {
    model::Function f;
    f.name = name;
    f.line = fm.line;
    f.file = fm.file;
    f.parameters = fm.parameters;
    // Where the parameters sit among the arguments: an indirect call's
    // positional arguments meet them there once a probe run binds it.
    if (!fm.parameters.empty()) f.arguments = fm.all_arguments;
    f.body = to_model_items(fm.body);
    out.emplace(name, std::move(f));
  }
  return out;
}

}  // namespace perfcast::analyze::detail
