#include "machine/pricing.h"

namespace perfcast::machine {

Pricing::Pricing(const Machine& machine, int nranks)
    : machine_(machine),
      nranks_(nranks),
      eager_threshold_bytes_(machine.network.eager_threshold_bytes),
      overhead_s_(machine.network.overhead_s),
      handshakes_(machine.network.rendezvous_handshakes),
      measured_intra_node_(!machine.network.intra_node_one_way.empty()),
      measured_exchange_(!machine.network.intra_node_exchange.empty()) {
  if (machine.mapping.policy == MappingPolicy::Block && machine.groups.size() == 1) {
    long long slots = static_cast<long long>(machine.mapping.ranks_per_node.value_or(machine.groups[0].cores));
    long long total = slots * machine.groups[0].count;
    long long factor = (nranks + total - 1) / total;
    block_ranks_per_node_ = static_cast<int>(slots * factor);
  }
  for (int r = 0; r < nranks; ++r) {
    auto n = static_cast<size_t>(node(r));
    if (n >= ranks_on_node_.size()) ranks_on_node_.resize(n + 1, 0);
    ++ranks_on_node_[n];
    one_node_ = one_node_ && static_cast<int>(n) == node(0);
  }
}

int Pricing::node(int rank) const {
  if (block_ranks_per_node_ > 0) return rank / block_ranks_per_node_;
  return machine_.node_of_rank(rank, nranks_);
}

int Pricing::ranks_on_node(int node) const {
  return static_cast<size_t>(node) < ranks_on_node_.size() ? ranks_on_node_[static_cast<size_t>(node)] : 1;
}

Placement Pricing::placement() const {
  Placement p;
  p.ranks = nranks_;
  p.machine_nodes = machine_.node_count();
  for (size_t n = 0; n < ranks_on_node_.size(); ++n) {
    const int ranks = ranks_on_node_[n];
    if (ranks == 0) continue;
    const int cores = machine_.group_of_node(static_cast<int>(n)).cores;
    if (p.nodes == 0) {
      p.first_node = static_cast<int>(n);
      p.min_ranks_per_node = ranks;
    }
    ++p.nodes;
    p.cores += cores;
    p.min_ranks_per_node = std::min(p.min_ranks_per_node, ranks);
    p.max_ranks_per_node = std::max(p.max_ranks_per_node, ranks);
    p.oversubscribed_nodes += ranks > cores;
    p.ranks_per_core = std::max(p.ranks_per_core, static_cast<double>(ranks) / cores);
  }
  return p;
}

double Pricing::message_s(int a, int b, double bytes) const {
  double t = transfer_s(a, b, bytes);
  if (!eager(bytes)) t += handshake_s(a, b);
  return t;
}

std::optional<double> Pricing::collective_s(mpi::Op op, int procs, double bytes) const {
  const auto table = mpi::facts(op).table;
  if (!table) return std::nullopt;
  return machine_.collective_time_s(*table, procs, mpi::creates_communicator(op) ? mpi::kContextIdBytes : bytes);
}

double Pricing::flops_s(const NodeGroup& group, double flops_double, double flops_single, bool simd) {
  // A precision with no flops costs nothing, whatever its rate (a machine may not give one).
  double t = flops_double != 0 ? flops_double / group.flops_per_core_for(Precision::Double, simd) : 0.0;
  if (flops_single != 0) t += flops_single / group.flops_per_core_for(Precision::Single, simd);
  return t;
}

NodeLoad Pricing::node_load(const NodeGroup& group, int computing, int placed) {
  NodeLoad load;
  load.streaming = std::clamp(computing, 1, group.cores);
  load.time_share = placed > group.cores ? static_cast<double>(placed) / group.cores : 1.0;
  return load;
}

double Pricing::traffic_s(const MemoryLevel& level, double bytes, const NodeLoad& load) {
  return bytes / level.bandwidth_per_core_Bps(load.streaming) * load.time_share;
}

double Pricing::burst_s(int rank, double flops, double bytes, int computing) const {
  const int n = node(rank);
  const NodeGroup& group = machine_.group_of_node(n);
  const NodeLoad load = node_load(group, computing, ranks_on_node(n));
  double compute_s = flops > 0 ? in_core_s(group, flops_s(group, flops, 0), load) : 0.0;
  double memory_s = bytes > 0 ? traffic_s(group.outermost_level(), bytes, load) : 0.0;
  return roofline_s(compute_s, memory_s);
}

}  // namespace perfcast::machine
