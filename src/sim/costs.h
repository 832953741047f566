// The prices the engine pays: compute bursts and point-to-point messages.
// Kept apart from the engine so a better model can replace either.
#pragma once

#include <optional>
#include <vector>

#include "events/event.h"
#include "machine/machine.h"

namespace perfcast::sim {

// A compute burst: its `seconds` when given, else the roofline of its counts on
// the rank's node: max(flops / flops_per_core, bytes_moved / per-core bandwidth
// of the outermost memory level with the job's ranks on that node streaming).
class ComputeModel {
 public:
  ComputeModel(const machine::Machine& machine, int nranks);
  double seconds(const events::Event& burst, int world_rank) const;

 private:
  const machine::Machine& machine_;
  int nranks_;
  // Ranks the job places on each node: they share its memory bandwidth (as
  // in `perfcast predict`), a node with one rank of many cores gives it more.
  std::vector<int> ranks_on_node_;
};

// Latency and bandwidth between two world ranks, topology- and node-aware
// through the machine; the eager threshold and per-message overhead.
class NetworkModel {
 public:
  NetworkModel(const machine::Machine& machine, int nranks);
  double latency_s(int a, int b) const { return machine_.node_latency_s(node(a), node(b)); }
  double bandwidth_Bps(int a, int b) const { return machine_.node_bandwidth_Bps(node(a), node(b)); }
  // L + n/B: what a message takes on the wire. Within a node whose one-way
  // times the machine measured (network.intra_node_one_way), that time for
  // its size instead: the handshakes of a rendezvous are in it.
  double transfer_s(int a, int b, double bytes) const {
    int na = node(a), nb = node(b);
    if (na == nb && measured_intra_node_)
      return machine_.network.intra_node_one_way.time_at(bytes, machine_.network.intra_node_bandwidth_Bps);
    return machine_.node_latency_s(na, nb) + bytes / machine_.node_bandwidth_Bps(na, nb);
  }
  // One step of an exchange of `bytes` each way between a and b (both
  // messages in flight at once), where the machine measured it: within a node,
  // network.intra_node_exchange. Empty elsewhere (the message stays one-way).
  std::optional<double> exchange_s(int a, int b, double bytes) const {
    if (!measured_exchange_ || node(a) != node(b)) return std::nullopt;
    return machine_.network.intra_node_exchange.time_at(bytes, machine_.network.intra_node_bandwidth_Bps);
  }
  bool eager(double bytes) const { return bytes <= eager_threshold_bytes_; }
  // What a rendezvous message waits, once both sides are there, before its
  // data flows: the machine's handshakes x L (none where transfer_s is a
  // measured one-way time, which holds them).
  double handshake_s(int a, int b) const {
    if (measured_intra_node_ && node(a) == node(b)) return 0;
    return handshakes_ * latency_s(a, b);
  }
  double overhead_s() const { return overhead_s_; }
  int node(int rank) const;
  int nranks() const { return nranks_; }
  const machine::Machine& machine() const { return machine_; }

 private:
  const machine::Machine& machine_;
  int nranks_;
  double eager_threshold_bytes_;
  double overhead_s_;
  double handshakes_;
  bool measured_intra_node_;
  bool measured_exchange_;
  // Block mapping on one node group (the common case) is a division; else the machine answers.
  int block_ranks_per_node_ = 0;
};

}  // namespace perfcast::sim
