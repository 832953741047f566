// What work and messages cost on a machine, for a job of `nranks` ranks: the
// one set of rules `perfcast predict` and the simulator both price with, so a
// message, an exchange, a collective or a compute burst costs the same in
// either. Ranks are world ranks, placed on nodes by the machine's mapping.
#pragma once

#include <algorithm>
#include <optional>
#include <vector>

#include "machine/machine.h"
#include "support/mpi_op.h"

namespace perfcast::machine {

// How the ranks of a node share it while they compute (docs/machine-format.md,
// "Sharing model"). At most `cores` of them run at a time: what the node's
// sharing figures see (bandwidth_by_cores, node_bandwidth's share,
// busy_slowdown) is `streaming`, the ranks computing at once capped at the
// cores. Ranks beyond the cores time-share them, the node's cores spread evenly
// over its ranks, as the kernel's scheduler spreads unpinned processes: each
// rank has cores / placed of a core, so its bursts, flops and memory traffic
// alike, take `time_share` = placed / cores times as long (1 up to the cores).
// The share follows the ranks placed, not those computing: an MPI rank that
// waits polls, and holds its share of the core.
struct NodeLoad {
  int streaming = 1;
  double time_share = 1;
};

// Where a job's ranks sit, for the reports: a job that time-shares cores, or
// one that never leaves a node of a machine with many (where no message
// crosses the network), says so.
struct Placement {
  int ranks = 0;
  int machine_nodes = 0;
  int nodes = 0;                 // nodes holding ranks
  int first_node = 0;            // the lowest of them
  int cores = 0;                 // the cores of those nodes
  int min_ranks_per_node = 0;    // over the nodes holding ranks
  int max_ranks_per_node = 0;
  int oversubscribed_nodes = 0;  // nodes holding more ranks than cores
  double ranks_per_core = 0;     // the most over nodes: ranks on the node / its cores
  bool oversubscribed() const { return oversubscribed_nodes > 0; }
  bool one_node_of_many() const { return nodes == 1 && machine_nodes > 1; }
};

class Pricing {
 public:
  Pricing(const Machine& machine, int nranks);

  const Machine& machine() const { return machine_; }
  int nranks() const { return nranks_; }
  int node(int rank) const;
  // Ranks the job places on a node: they share its memory bandwidth.
  int ranks_on_node(int node) const;
  Placement placement() const;

  // ---- Messages between two ranks.

  // The network's figures between their nodes (the intra-node ones on one node).
  double latency_s(int a, int b) const { return machine_.node_latency_s(node(a), node(b)); }
  double bandwidth_Bps(int a, int b) const { return machine_.node_bandwidth_Bps(node(a), node(b)); }
  double overhead_s() const { return overhead_s_; }  // the library's time per call (LogP o)
  bool eager(double bytes) const { return bytes <= eager_threshold_bytes_; }
  // What a message takes on the wire: L + n/B; within a node whose one-way
  // times the machine measured (network.intra_node_one_way), that time for
  // its size instead: the handshakes of a rendezvous are in it.
  double transfer_s(int a, int b, double bytes) const {
    int na = node(a), nb = node(b);
    if (na == nb && measured_intra_node_)
      return machine_.network.intra_node_one_way.time_at(bytes, machine_.network.intra_node_bandwidth_Bps);
    return machine_.node_latency_s(na, nb) + bytes / machine_.node_bandwidth_Bps(na, nb);
  }
  // What a rendezvous message waits, once both sides are there, before its
  // data flows: the machine's handshakes x L (none where transfer_s is a
  // measured one-way time, which holds them).
  double handshake_s(int a, int b) const {
    if (measured_intra_node_ && node(a) == node(b)) return 0;
    return handshakes_ * latency_s(a, b);
  }
  // One message from a to b, everything included: its transfer, and its
  // handshakes above the eager threshold.
  double message_s(int a, int b, double bytes) const;
  // One step of an exchange of `bytes` each way between a and b (both
  // messages in flight at once), where the machine measured it: within a node,
  // network.intra_node_exchange. Empty elsewhere (each message stays one-way).
  std::optional<double> exchange_s(int a, int b, double bytes) const {
    if (!measured_exchange_ || node(a) != node(b)) return std::nullopt;
    return machine_.network.intra_node_exchange.time_at(bytes, machine_.network.intra_node_bandwidth_Bps);
  }

  // A message between ranks that are not named (a collective priced without a
  // table, as one message; a send to an unknown peer): the node's own figures
  // when every rank of the job sits on one node, as the messages a collective's
  // algorithm sends there take (transfer_s); else those between nodes.
  double job_latency_s() const {
    return one_node_ ? machine_.node_latency_s(node(0), node(0)) : machine_.network.latency_s;
  }
  double job_bandwidth_Bps() const {
    return one_node_ ? machine_.node_bandwidth_Bps(node(0), node(0)) : machine_.network.bandwidth_Bps;
  }

  // ---- Collectives.

  // One call of `op` over `procs` ranks with `bytes` per process, from the
  // machine's [[collective]] table for it (the vocabulary's `table` fact;
  // communicator creation as an allreduce of the context id, whatever the
  // call's bytes). None where no table prices it.
  std::optional<double> collective_s(mpi::Op op, int procs, double bytes) const;

  // ---- Compute bursts (the roofline).
  //
  // What the ranks of a node share while they compute at once: a shared
  // level's bandwidth (MemoryLevel::bandwidth_per_core_Bps at k computing) and
  // the clock (NodeGroup::core_slowdown at k), k capped at the node's cores;
  // beyond the cores, the cores themselves (NodeLoad). Who decides k: predict
  // assumes every rank the mapping places on the node computes together (k =
  // ranks_on_node); the simulator counts the node's ranks in a compute burst
  // when a burst starts. With the same k both price a burst the same.

  // The load of a node of `group` with `computing` ranks at work and `placed`
  // ranks placed there.
  static NodeLoad node_load(const NodeGroup& group, int computing, int placed);
  // Flops at the node's rate per core for their precision, one core alone.
  static double flops_s(const NodeGroup& group, double flops_double, double flops_single, bool simd = true);
  // In-core time measured or priced for one core alone, under `load`: the
  // clock the busy cores leave it, and its share of its core.
  static double in_core_s(const NodeGroup& group, double alone_s, const NodeLoad& load) {
    return alone_s * group.core_slowdown(load.streaming) * load.time_share;
  }
  // Bytes from a memory level under `load`: each streaming core's bandwidth,
  // for this rank's share of its core's time.
  static double traffic_s(const MemoryLevel& level, double bytes, const NodeLoad& load);
  // A burst is as long as the longer of its flops and its traffic.
  static double roofline_s(double compute_s, double memory_s) { return std::max(compute_s, memory_s); }
  // A burst of double-precision flops and bytes from the outermost level on
  // `rank`'s node, with `computing` of the node's ranks working at once
  // (this rank included); without it, every rank the job places there. The
  // node's ranks beyond its cores share them either way (NodeLoad).
  double burst_s(int rank, double flops, double bytes, int computing) const;
  double burst_s(int rank, double flops, double bytes) const {
    return burst_s(rank, flops, bytes, ranks_on_node(node(rank)));
  }

 private:
  const Machine& machine_;
  int nranks_;
  double eager_threshold_bytes_;
  double overhead_s_;
  double handshakes_;
  bool measured_intra_node_;
  bool measured_exchange_;
  bool one_node_ = true;  // every rank of the job on node(0)
  // Block mapping on one node group (the common case) is a division; else the machine answers.
  int block_ranks_per_node_ = 0;
  std::vector<int> ranks_on_node_;
};

}  // namespace perfcast::machine
