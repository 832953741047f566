#include "analyze/to_model.h"

#include <set>

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
  l.body = to_model_items(n.body);
  return l;
}

model::BranchItem branch(const Node& n) {
  model::BranchItem b;
  if (n.condition)
    b.condition = ex::simplify(*n.condition);
  else
    b.probability = n.probability;
  b.then_items = to_model_items(n.then_items);
  b.else_items = to_model_items(n.else_items);
  return b;
}

model::CallItem call(const Node& n) {
  model::CallItem c;
  c.function = n.callee;
  for (const auto& [param, value] : n.args) c.args.emplace_back(param, ex::simplify(value));
  return c;
}

model::MpiItem mpi_call(const Node& n) {
  model::MpiItem m;
  m.op = n.op;
  m.bytes = ex::simplify(n.bytes);
  if (n.peer) m.peer = ex::simplify(*n.peer);
  if (n.root) m.root = ex::simplify(*n.root);
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

std::map<std::string, model::Function> model_functions(const std::map<std::string, FunctionModel>& functions) {
  std::map<std::string, model::Function> out;
  for (const auto& [name, fm] : functions) {
    model::Function f;
    f.name = name;
    f.line = fm.line;
    f.parameters = fm.parameters;
    f.body = to_model_items(fm.body);
    out.emplace(name, std::move(f));
  }
  return out;
}

}  // namespace perfcast::analyze::detail
