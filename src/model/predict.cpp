#include "model/predict.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "support/error.h"

namespace perfcast::model {

namespace {

bool is_single_precision_math(const std::string& name) {
  return name.size() > 1 && name.back() == 'f' && name != "sqrt" && name != "pow";
}

std::string math_base(const std::string& name) {
  return is_single_precision_math(name) ? name.substr(0, name.size() - 1) : name;
}

const machine::MemoryLevel* level_named(const machine::NodeGroup& g, const std::string& name) {
  for (const auto& l : g.memory)
    if (l.name == name) return &l;
  return nullptr;
}

Items cycles_items(const Items& items, bool in_priced_loop, int& loops) {
  Items out;
  for (const Item& it : items) {
    Item copy{it.line, ComputeItem{}};
    if (const auto* c = std::get_if<ComputeItem>(&it.body)) {
      ComputeItem k;
      if (!in_priced_loop) k.flops_double = c->flops_double, k.flops_single = c->flops_single;
      k.math_calls = c->math_calls;  // a call in the loop body: MCA prices the call instruction only
      copy.body = std::move(k);
    } else if (const auto* l = std::get_if<LoopItem>(&it.body)) {
      LoopItem k;
      k.var = l->var;
      k.trip_count = l->trip_count;
      bool priced = !in_priced_loop && l->cycles_per_iteration;
      if (priced) ++loops;
      k.body = cycles_items(l->body, in_priced_loop || priced, loops);
      if (priced) {
        ComputeItem cycles;
        cycles.loads = *l->cycles_per_iteration;
        k.body.push_back(Item{it.line, std::move(cycles)});
      }
      copy.body = std::move(k);
    } else if (const auto* b = std::get_if<BranchItem>(&it.body)) {
      BranchItem k;
      k.condition = b->condition;
      k.probability = b->probability;
      k.then_items = cycles_items(b->then_items, in_priced_loop, loops);
      k.else_items = cycles_items(b->else_items, in_priced_loop, loops);
      copy.body = std::move(k);
    } else if (std::get_if<CallItem>(&it.body)) {
      copy.body = it.body;
    } else {
      continue;  // MPI: no core cycles
    }
    out.push_back(std::move(copy));
  }
  return out;
}

}  // namespace

namespace {

// The functions a run of the entry can reach: only their priced loops count
// towards the refinement a prediction reports.
void collect_reachable(const ProgramModel& model, const std::vector<Item>& items, std::set<std::string>& seen) {
  for (const auto& it : items) {
    if (const auto* c = std::get_if<CallItem>(&it.body)) {
      if (model.functions.count(c->function) && seen.insert(c->function).second)
        collect_reachable(model, model.functions.at(c->function).body, seen);
    } else if (const auto* l = std::get_if<LoopItem>(&it.body)) {
      collect_reachable(model, l->body, seen);
    } else if (const auto* b = std::get_if<BranchItem>(&it.body)) {
      collect_reachable(model, b->then_items, seen);
      collect_reachable(model, b->else_items, seen);
    }
  }
}

}  // namespace

ProgramModel mca_cycles_model(const ProgramModel& model, int* loops_with_cycles) {
  ProgramModel m = model;
  std::set<std::string> reachable;
  if (model.functions.count(model.entry)) {
    reachable.insert(model.entry);
    collect_reachable(model, model.functions.at(model.entry).body, reachable);
  }
  int counted = 0;
  for (auto& [name, f] : m.functions) {
    int loops = 0;
    f.body = cycles_items(model.functions.at(name).body, false, loops);
    if (reachable.count(name)) counted += loops;
  }
  if (loops_with_cycles) *loops_with_cycles = counted;
  return m;
}

Prediction predict(const ProgramModel& model, const SymbolicCosts& costs, const machine::Machine& m, int np,
                   const std::map<std::string, expr::Value>& parameters, const PredictOptions& options) {
  if (np < 1) throw UserError("the number of ranks must be at least 1", {}, "set --np");
  if (options.memory_level != "auto") {
    for (const auto& g : m.groups)
      if (!level_named(g, options.memory_level))
        throw UserError(fmt::format("machine '{}' has no memory level '{}'", m.name, options.memory_level), {},
                        "use --memory auto, or a level the machine file lists (L1, L2, L3, DRAM)");
  }

  Prediction p;
  p.np = np;
  p.mca_cpu = model.mca_cpu;
  ProgramModel cycles_model = mca_cycles_model(model, &p.mca_loops);
  std::string no_clock;
  for (const auto& g : m.groups)
    if (!g.clock_Hz) no_clock = g.name.empty() ? "the machine's nodes" : "node group '" + g.name + "'";
  if (p.mca_loops == 0) {
    p.mca_note = "the model has no loop with cycles_per_iteration (analyse with MCA on)";
  } else if (!no_clock.empty()) {
    p.mca_note = fmt::format("machine '{}': {} give no clock, so cycles cannot become seconds", m.name, no_clock);
  } else {
    p.mca_available = true;
  }
  SymbolicCosts cycle_costs;
  if (p.mca_available) cycle_costs = symbolic_costs(cycles_model);
  std::vector<int> node_of(static_cast<size_t>(np));
  std::map<int, int> ranks_on_node;
  for (int r = 0; r < np; ++r) {
    node_of[static_cast<size_t>(r)] = m.node_of_rank(r, np);
    ++ranks_on_node[node_of[static_cast<size_t>(r)]];
  }

  for (int r = 0; r < np; ++r) {
    RankPrediction rp;
    rp.node = node_of[static_cast<size_t>(r)];
    rp.ranks_on_node = ranks_on_node[rp.node];
    const machine::NodeGroup& g = m.group_of_node(rp.node);
    rp.counts = evaluate_rank(costs, bind_rank(model, parameters, r, np), r);
    const RankCounts& c = rp.counts;

    // Compute: math calls become flops of their precision.
    double math_double = 0, math_single = 0;
    for (const auto& [name, calls] : c.math_calls) {
      bool single = is_single_precision_math(name);
      double f = calls * g.math.flops(math_base(name), single ? machine::Precision::Single : machine::Precision::Double);
      (single ? math_single : math_double) += f;
    }
    rp.math_flops = math_double + math_single;
    rp.flops = c.flops_double + c.flops_single + rp.math_flops;
    rp.compute_s = (c.flops_double + math_double) / g.flops_per_core_for(machine::Precision::Double, options.simd) +
                   (c.flops_single + math_single) / g.flops_per_core_for(machine::Precision::Single, options.simd);

    // Memory: every rank on the node streams at once, so each gets its share.
    for (const auto& level : g.memory) {
      double bw = level.bandwidth_per_core_Bps(rp.ranks_on_node);
      rp.memory_s_if_all_in[level.name] = (c.load_bytes + c.store_bytes) / bw;
    }
    auto bandwidth_for = [&](const MemoryTraffic& t) {
      return t.working_set_bytes ? g.memory_level_for(*t.working_set_bytes, rp.ranks_on_node).bandwidth_per_core_Bps
                                 : g.outermost_level().bandwidth_per_core_Bps(rp.ranks_on_node);
    };
    double l1_bw = g.memory.front().bandwidth_per_core_Bps(rp.ranks_on_node);
    for (const auto& t : c.memory) {
      double bytes = t.load_bytes + t.store_bytes;
      if (bytes == 0) continue;
      double at_level_s = bytes / bandwidth_for(t);
      if (t.traffic == Traffic::Covered) rp.l1_access_s += bytes / l1_bw;
      else rp.traffic_s += at_level_s;
      if (options.memory_level == "auto" && t.traffic != Traffic::Footprint) rp.memory_s += at_level_s;
    }
    if (options.memory_level != "auto") {
      rp.memory_s = rp.memory_s_if_all_in.at(options.memory_level);
    }

    // Network: each message priced between this rank's node and its peer's;
    // collectives and unknown peers at the inter-node figures.
    for (const auto& call : c.mpi) {
      bool send = is_point_to_point_send(call.op), collective = is_collective(call.op);
      if (!send && !collective) continue;
      if (call.peer && *call.peer < 0) continue;  // MPI_PROC_NULL moves nothing
      double latency = m.network.latency_s, bandwidth = m.network.bandwidth_Bps;
      if (send && call.peer) {
        if (*call.peer >= np)
          throw UserError(fmt::format("line {}: rank {} sends to rank {}, but the job has {} ranks", call.line, r,
                                      *call.peer, np));
        int peer = static_cast<int>(*call.peer);
        latency = m.latency_s(r, peer, np);
        bandwidth = m.bandwidth_Bps(r, peer, np);
      }
      rp.latency_s += call.calls * (latency + m.network.overhead_s);
      rp.transfer_s += call.calls * call.bytes_per_call / bandwidth;
    }

    rp.memory_bound = rp.memory_s > rp.compute_s;
    rp.time_s = std::max(rp.compute_s, rp.memory_s) + rp.latency_s + rp.transfer_s;

    if (p.mca_available) {
      RankCounts k = evaluate_rank(cycle_costs, bind_rank(model, parameters, r, np), r);
      rp.mca_cycles = k.loads;
      rp.mca_flops = (c.flops_double + c.flops_single) - (k.flops_double + k.flops_single);
      rp.in_core_s = rp.mca_cycles / *g.clock_Hz +
                     (k.flops_double + math_double) / g.flops_per_core_for(machine::Precision::Double, options.simd) +
                     (k.flops_single + math_single) / g.flops_per_core_for(machine::Precision::Single, options.simd);
      rp.mca_time_s = std::max(rp.in_core_s, rp.memory_s) + rp.latency_s + rp.transfer_s;
    }
    double core_s = p.mca_available ? rp.in_core_s : rp.compute_s;
    rp.footprint_time_s = std::max({core_s, rp.l1_access_s, rp.traffic_s}) + rp.latency_s + rp.transfer_s;
    p.ranks.push_back(std::move(rp));
  }

  for (const auto& seg : costs.memory) p.footprint_available |= seg.traffic == Traffic::Footprint;
  for (const auto& rp : p.ranks)
    if (p.footprint_available && !rp.counts.footprint_error.empty()) {
      p.footprint_available = false;
      p.footprint_note = fmt::format("rank {}: a loop footprint does not evaluate ({})", rp.counts.rank,
                                     rp.counts.footprint_error);
    }
  for (const auto& rp : p.ranks) {
    p.mca_time_s = std::max(p.mca_time_s, rp.mca_time_s);
    p.footprint_time_s = std::max(p.footprint_time_s, rp.footprint_time_s);
    if (rp.time_s > p.predicted_time_s) {
      p.predicted_time_s = rp.time_s;
      p.slowest_rank = rp.counts.rank;
    }
    for (const auto& [level, mem_s] : rp.memory_s_if_all_in) {
      double t = std::max(rp.compute_s, mem_s) + rp.latency_s + rp.transfer_s;
      double& worst = p.time_s_if_all_in[level];
      worst = std::max(worst, t);
    }
  }
  for (const auto& l : m.group_of_node(p.ranks[static_cast<size_t>(p.slowest_rank)].node).memory)
    p.level_names.push_back(l.name);
  return p;
}

}  // namespace perfcast::model
