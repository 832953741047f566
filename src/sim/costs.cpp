#include "sim/costs.h"

#include <algorithm>

namespace perfcast::sim {

ComputeModel::ComputeModel(const machine::Machine& machine, int nranks) : machine_(machine), nranks_(nranks) {
  for (int r = 0; r < nranks; ++r) {
    auto node = static_cast<size_t>(machine.node_of_rank(r, nranks));
    if (node >= ranks_on_node_.size()) ranks_on_node_.resize(node + 1, 0);
    ++ranks_on_node_[node];
  }
}

double ComputeModel::seconds(const events::Event& burst, int world_rank) const {
  if (burst.seconds >= 0) return burst.seconds;
  int node = machine_.node_of_rank(world_rank, nranks_);
  const auto& group = machine_.group_of_node(node);
  double flop_s = burst.flops > 0 ? burst.flops / group.flops_per_core : 0.0;
  int sharing = static_cast<size_t>(node) < ranks_on_node_.size() ? ranks_on_node_[static_cast<size_t>(node)] : 1;
  double memory_s = burst.bytes_moved > 0
                        ? burst.bytes_moved / group.outermost_level().bandwidth_per_core_Bps(std::max(sharing, 1))
                        : 0.0;
  return std::max(flop_s, memory_s);
}

NetworkModel::NetworkModel(const machine::Machine& machine, int nranks)
    : machine_(machine),
      nranks_(nranks),
      eager_threshold_bytes_(machine.network.eager_threshold_bytes),
      overhead_s_(machine.network.overhead_s),
      handshakes_(machine.network.rendezvous_handshakes),
      measured_intra_node_(!machine.network.intra_node_one_way.empty()),
      measured_exchange_(!machine.network.intra_node_exchange.empty()) {
  if (machine.mapping.policy == machine::MappingPolicy::Block && machine.groups.size() == 1) {
    long long slots = static_cast<long long>(machine.mapping.ranks_per_node.value_or(machine.groups[0].cores));
    long long total = slots * machine.groups[0].count;
    long long factor = (nranks + total - 1) / total;
    block_ranks_per_node_ = static_cast<int>(slots * factor);
  }
}

int NetworkModel::node(int rank) const {
  if (block_ranks_per_node_ > 0) return rank / block_ranks_per_node_;
  return machine_.node_of_rank(rank, nranks_);
}

}  // namespace perfcast::sim
