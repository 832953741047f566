#include "model/predict.h"

#include <algorithm>

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

}  // namespace

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
    if (options.memory_level == "auto") {
      for (const auto& t : c.memory) {
        double bytes = t.load_bytes + t.store_bytes;
        if (bytes == 0) continue;
        double bw = t.working_set_bytes
                        ? g.memory_level_for(*t.working_set_bytes, rp.ranks_on_node).bandwidth_per_core_Bps
                        : g.outermost_level().bandwidth_per_core_Bps(rp.ranks_on_node);
        rp.memory_s += bytes / bw;
      }
    } else {
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
    p.ranks.push_back(std::move(rp));
  }

  for (const auto& rp : p.ranks) {
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
