#include "analyze/model_json.h"

#include <set>

#include "analyze/mca_pricing.h"

namespace perfcast::analyze::detail {

namespace ex = perfcast::expr;
using ex::Expr;
using json = nlohmann::ordered_json;

namespace {

std::string text(const Expr& e) { return ex::to_string(ex::simplify(e)); }

}  // namespace

json item_json(const Node& n) {
  json j;
  static const char* kinds[] = {"compute", "loop", "branch", "call", "mpi"};
  j["kind"] = kinds[n.kind];
  if (n.line) j["line"] = n.line;
  if (!n.note.empty()) j["note"] = n.note;
  auto items = [](const Items& list) {
    json a = json::array();
    for (const auto& c : list) a.push_back(item_json(*c));
    return a;
  };
  switch (n.kind) {
    case Node::Compute: {
      auto put = [&](const char* key, const Expr& e) {
        if (!(e == Expr(0))) j[key] = text(e);
      };
      put("flops_double", n.flops_double);
      put("flops_single", n.flops_single);
      put("loads", n.loads);
      put("stores", n.stores);
      put("load_bytes", n.load_bytes);
      put("store_bytes", n.store_bytes);
      if (!n.math.empty()) {
        json m = json::object();
        for (const auto& [k, v] : n.math) m[k] = text(v);
        j["math"] = m;
      }
      break;
    }
    case Node::Loop:
      j["var"] = n.var;
      j["trip_count"] = text(n.trip_count);
      if (n.cycles_per_iteration) {
        Expr c = ex::simplify(*n.cycles_per_iteration);
        if (c.is_constant()) j["cycles_per_iteration"] = hundredths(c.real_value());
        else j["cycles_per_iteration"] = text(c);
      }
      if (n.overhead_cycles_per_iteration) j["overhead_cycles_per_iteration"] = *n.overhead_cycles_per_iteration;
      if (n.machine) {
        // MCA's own figures, for the reader: of the body (innermost) or of
        // the loop's own blocks (outside its subloops).
        json m = {{"cpi", hundredths(n.machine->cycles_per_iteration)},
                  {"rthroughput", hundredths(n.machine->rthroughput)},
                  {"uops", n.machine->micro_ops}};
        if (n.innermost) m["chain_restarts"] = n.chain_restarts;
        m["busiest_resource"] = n.machine->busiest_resource.empty() ? json("dispatch width")
                                                                     : json(n.machine->busiest_resource);
        m["busiest_resource_cycles"] = hundredths(n.machine->busiest_resource_cycles);
        if (n.machine->divides) {
          m["divides"] = n.machine->divides;
          m["rthroughput_without_divides"] = hundredths(n.machine->rthroughput_without_divides);
        }
        j["mca"] = m;
        // Priced: the cycles beyond the ports' work (divider, chains) take the
        // off-port noise, not the ports'. Of the priced cycles, not of MCA's
        // steady state: a loop whose chain restarts each run may be priced at
        // its resource bound (docs/program-model.md, "Short loops").
        // Below 5 % of the steady state: its resource bound and MCA's cycles
        // differing by a rounding, not a chain.
        if (n.machine->off_ports_share() >= 0.05 && (n.cycles_per_iteration || n.overhead_cycles_per_iteration))
          j["ports_cycles_per_iteration"] = hundredths(n.machine->rthroughput_without_divides);
      }
      if (n.streams > 0) j["streams"] = n.streams;
      if (!n.stream_offsets.empty()) {
        json bases = json::array();
        for (const auto& offsets : n.stream_offsets) {
          json list = json::array();
          for (const Expr& e : offsets) list.push_back(text(e));
          bases.push_back(std::move(list));
        }
        j["stream_offsets"] = std::move(bases);
      }
      if (n.footprint)
        j["footprint"] = {{"bytes", text((*n.footprint)[0])},
                          {"load_bytes", text((*n.footprint)[1])},
                          {"store_bytes", text((*n.footprint)[2])}};
      j["body"] = items(n.body);
      break;
    case Node::Branch:
      if (n.condition) j["condition"] = text(*n.condition);
      else j["probability"] = n.probability;
      j["then"] = items(n.then_items);
      j["else"] = items(n.else_items);
      break;
    case Node::Call: {
      j["function"] = n.callee;
      json a = json::object();
      for (const auto& [k, v] : n.args) a[k] = text(v);
      j["args"] = a;
      break;
    }
    case Node::Mpi:
      j["op"] = n.op;
      if (!(n.bytes == Expr(0))) j["bytes"] = text(n.bytes);
      if (n.peer) j["peer"] = text(*n.peer);
      if (n.root) j["root"] = text(*n.root);
      break;
  }
  return j;
}

json parameters_json(const std::map<std::string, FunctionModel>& functions,
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
  json params = json::object();
  for (const auto& name : free) {
    if (builtin.count(name)) continue;
    json p;
    auto d = descriptions.find(name);
    p["description"] = d != descriptions.end() ? d->second.description : "a value the analysis could not derive";
    if (d != descriptions.end() && d->second.default_value) p["default"] = *d->second.default_value;
    params[name] = p;
  }
  return params;
}

json functions_json(const std::map<std::string, FunctionModel>& functions) {
  json out = json::object();
  for (const auto& [name, fm] : functions) {
    json f;
    if (fm.line) f["line"] = fm.line;
    if (!fm.parameters.empty()) f["parameters"] = fm.parameters;
    json body = json::array();
    for (const auto& n : fm.body) body.push_back(item_json(*n));
    f["body"] = body;
    out[name] = f;
  }
  return out;
}

}  // namespace perfcast::analyze::detail
