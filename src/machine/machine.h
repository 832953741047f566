// The machine model every engine prices work with (docs/machine-format.md).
//
// A plain value: loading (machine_io.h) resolves every default, so what is here
// is what the engines use, and writing it back and loading again gives an equal
// Machine. Quantities are in SI base units; the unit is in each member's name.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "machine/collective_table.h"
#include "machine/mapping.h"
#include "machine/topology.h"

namespace perfcast::machine {

enum class Precision { Double, Single };

struct MemoryLevel {
  std::string name;                         // "L1", "L2", "L3", "L4" or "DRAM"
  std::optional<double> size_bytes;         // none: unbounded (DRAM)
  double bandwidth_Bps = 0;                 // what one core gets streaming alone
  bool shared = false;                      // size shared by all cores of the node
  std::optional<double> node_bandwidth_Bps; // what the node sustains; none: no limit
  // How much of in-core work and transfers from this level fail to overlap: the
  // fraction of the shorter of the two that adds to the longer (0: they overlap
  // fully, the roofline's max; 1: they add up, ECM's no-overlap). Measured by
  // `perfcast calibrate`; 0 when the machine file gives none.
  double serial_fraction = 0;
  // The serial fraction by a loop's address streams (accesses that move
  // through separate lines: a triad has 3, a 7-point stencil 7) and by its
  // in-core time over its transfer time: the more streams, the less the two
  // overlap, and the more in-core work outgrows the transfers, the less of
  // them shows. Measured by `perfcast calibrate` (a kernel with the same loads
  // in 1, 3 or 5 streams of one array, 1..8 passes of them); both axes
  // increasing, fractions [stream][ratio] in [0, 1]. Empty: serial_fraction
  // for every loop.
  std::vector<double> overlap_streams, overlap_core_over_memory;
  std::vector<std::vector<double>> overlap_fractions;
  // The fraction for a loop of `streams` whose in-core time is
  // `core_over_memory` times its transfers' (linear between stream counts,
  // linear in log ratio between ratios, the nearest end outside them);
  // serial_fraction when the streams are unknown (0) or the level has no table.
  double serial_fraction_for(double streams, double core_over_memory) const;

  // Measured sharing (optional): what each core gets when `cores[i]` cores of
  // the node stream from this level at once, each on its own data
  // (bandwidth_by_cores; perfcast calibrate measures it). `sharing_cores`
  // increasing from >= 1, `sharing_per_core_Bps` one positive figure per entry.
  // Empty: not measured.
  std::vector<int> sharing_cores;
  std::vector<double> sharing_per_core_Bps;
  bool sharing_measured() const { return !sharing_cores.empty(); }

  // What each of `active_cores` streaming at once gets: the measured table,
  // linear in cores between its points and its nearest end outside them;
  // without one, min(bandwidth, node_bandwidth / active_cores).
  double bandwidth_per_core_Bps(int active_cores) const;
  // What the whole node gets when `active_cores` stream at once.
  double node_total_Bps(int active_cores) const;
  // What one core can hold when `active_cores` use the level; none: unbounded.
  std::optional<double> capacity_per_core_bytes(int active_cores) const;

  bool operator==(const MemoryLevel&) const = default;
};

// Math function names a machine file may price (the doc's list).
const std::vector<std::string>& math_function_names();

struct MathCosts {
  // Flops per call, per precision; a function not listed costs the default.
  std::map<std::string, double, std::less<>> double_flops, single_flops;
  double default_double_flops = 20;
  double default_single_flops = 20;

  double flops(std::string_view function, Precision precision) const;

  bool operator==(const MathCosts&) const = default;
};

// Where a working set lives and what a core gets from there.
struct MemoryLookup {
  size_t level_index = 0;
  const MemoryLevel* level = nullptr;
  std::optional<double> capacity_per_core_bytes;
  double bandwidth_per_core_Bps = 0;
};

// How much longer a fixed piece of work takes than its fastest run on this
// node's cores (other processes; on a shared host, a co-tenant on the same
// physical core), as measured by perfcast calibrate's fixed-work-quantum loop
// (FWQ). `stretch` holds equally likely quantiles, ascending, the first >= 1.
// Empty: not measured, and a prediction assumes an undisturbed core.
// The quantum keeps the pipelined ports busy (multiply-adds): what most
// loops do. A co-tenant on the same physical core competes for those ports,
// rarely for the divider, so work bound by divisions and square roots feels a
// milder noise: `divider_stretch`, measured the same way with a divide-bound
// quantum at the same time (as many quantiles; empty: not measured, and
// divider-bound work is stretched as port-bound work is).
struct Noise {
  double quantum_s = 0;                 // the work quantum's fastest time
  std::vector<double> stretch;          // time / fastest time, as quantiles
  std::vector<double> divider_stretch;  // the same for a divide-bound quantum
  // How many measurements the quantiles average (calibrate --noise-only
  // --accumulate): a 3 s snapshot sees one or two of a co-tenant's phases,
  // many spread over hours describe the host.
  int probes = 1;
  // How long a core's state (slow or fast) persists: the integrated
  // autocorrelation time of its consecutive quanta's stretches, in seconds
  // (calibrate: tau = 1 + 2 * sum of the autocorrelations over lags, times
  // the time between the quanta). A mean over a span of k quanta has the
  // variance of one quantum's over k / tau, so a span holds span_s / spell_s
  // independent samples. 0: not measured, consecutive quanta taken as
  // independent.
  double spell_s = 0;
  bool empty() const { return stretch.empty(); }
  double mean() const;                  // 1 when empty
  double divider_mean() const;          // of divider_stretch; 1 when it is empty
  // Whether a measurement of `quantiles` ports and divider quantiles can be
  // averaged into this noise (accumulate_noise): empty, or of that shape.
  bool pairs_with(size_t quantiles, size_t divider_quantiles) const;
  // The quantiles of work whose time has `off_ports_share` (0..1) off the
  // pipelined ports (the divider, dependency chains): the rest runs on the
  // ports, which the co-tenant slows by `stretch`, the whole is bound by the
  // divider or a chain, which it slows by `divider_stretch` (a chain feels
  // about what the divider does: bench_noise_by_kernel); the work takes the
  // longer of the two. A disturbed phase slows both, so
  // the quantiles pair rank by rank. Empty when the noise is.
  std::vector<double> stretch_of(double off_ports_share) const;
  bool operator==(const Noise&) const = default;
};

// `history` with one more measurement averaged in, quantile by quantile (the
// quantile functions averaged, weighted by history.probes): the host over more
// of its minutes than one snapshot. An empty history is the measurement alone.
// Throws UserError when the two do not pair (another number of quantiles, a
// divider noise on one side only).
Noise accumulate_noise(const Noise& history, const Noise& measured);

// The noise of work spanning `span_s` seconds: its stretch is the mean of the
// quanta it runs, so its quantiles draw towards their mean by the square root
// of the independent samples among them: the mean's own mean and spread, one
// quantum's skew kept (a mean of many is less skewed, so the slow tail errs
// long). A rank's stretch between two points where it waits for others is
// such a mean: a step of milliseconds does not take one 30 us quantum's
// spread. The samples are span_s / spell_s when the noise has a spell longer
// than its quantum (a core's state persists that long), else span_s /
// quantum_s (consecutive quanta independent). Unchanged when empty or span_s
// is at most one sample.
Noise noise_over_span(const Noise& noise, double span_s);

// The factor noise_over_span moves quantiles towards their mean by over
// `span_s`: 1 / sqrt(independent samples in the span), 1 when the span holds
// at most one (or the noise has no quantum).
double noise_narrowing(const Noise& noise, double span_s);

// The expected largest of independent stretches, one per rank (each drawn
// from its own node's noise; an empty Noise is a core that is never slowed):
// a bulk-synchronous step ends when its slowest rank does, so noise costs a
// job of R ranks E[max of R stretches], more than one core's mean.
double expected_slowest_stretch(const std::vector<const Noise*>& per_rank);

// Scalar double FP instructions on this node's cores, in cycles, as
// perfcast calibrate measures them (machine/calibrate/instruction_cycles.h):
// what `perfcast analyze --machine` puts into the LLVM scheduling model it
// prices loops on, where that model is another CPU's. 0: not given.
struct InstructionCycles {
  double fp_add_latency = 0;
  double fp_multiply_latency = 0;
  double fp_divide_latency = 0;
  double fp_divide_interval = 0;  // between independent divides
  double fp_sqrt_latency = 0;
  double fp_sqrt_interval = 0;
  bool empty() const {
    return fp_add_latency == 0 && fp_multiply_latency == 0 && fp_divide_latency == 0 && fp_divide_interval == 0 &&
           fp_sqrt_latency == 0 && fp_sqrt_interval == 0;
  }
  bool operator==(const InstructionCycles&) const = default;
};

// The figures of InstructionCycles by their machine-file key and a label for
// people, in the format's order: the one list loading, writing and showing
// them walk.
struct InstructionCycleField {
  const char* key;    // "fp_add_latency"
  const char* label;  // "FP add"
  double InstructionCycles::*value;
};
const std::vector<InstructionCycleField>& instruction_cycle_fields();

struct NodeGroup {
  std::string name;  // may be empty for a homogeneous machine
  int count = 1;
  int cores = 1;
  // The cores' CPU as LLVM names it ("sapphirerapids", "znver5"): the
  // scheduling model `perfcast analyze --machine` prices in-core work on, and
  // what predict checks a model's mca.cpu against. Empty: not known.
  std::string cpu;
  double flops_per_core = 0;                // double precision, SIMD, sustained
  double flops_per_core_single = 0;
  double flops_per_core_scalar = 0;         // double precision without SIMD
  double flops_per_core_single_scalar = 0;
  std::optional<double> clock_Hz;
  // How many times longer in-core work takes with all cores of the node busy
  // than on one core alone (the clock drops as more cores work: 3.0 GHz alone,
  // 2.75-2.9 GHz with 16 busy on a 16-core Xeon). >= 1; none: not measured.
  std::optional<double> busy_slowdown;
  InstructionCycles instruction_cycles;
  Noise noise;
  std::vector<MemoryLevel> memory;          // from the core outwards; sizes grow
  MathCosts math;

  double flops_per_core_for(Precision precision, bool simd = true) const;
  // In-core work's slowdown with `busy_cores` of the node computing at once:
  // 1 on one core, busy_slowdown with all cores, linear in between (clamped
  // to 1..cores); 1 when busy_slowdown is not measured.
  double core_slowdown(int busy_cores) const;
  // Whether the pricing depends on how many of the node's cores work at once
  // beyond the plain node_bandwidth share: a level with bandwidth_by_cores,
  // or busy_slowdown.
  bool sharing_measured() const;
  double peak_flops_per_node() const;       // cores x flops_per_core
  const MemoryLevel& outermost_level() const { return memory.back(); }
  // Bytes/s the node streams from DRAM (the outermost level) with all cores busy.
  double memory_bandwidth_per_node_Bps() const;
  // Machine balance: bytes the node moves from DRAM per flop it can do.
  double balance_bytes_per_flop() const;
  // The first level whose per-core capacity holds `working_set_bytes` when
  // `active_cores` (clamped to 1..cores) use the node; the outermost otherwise.
  MemoryLookup memory_level_for(double working_set_bytes, int active_cores) const;

  bool operator==(const NodeGroup&) const = default;
};

// One-way times of a message by its size, as measured (perfcast calibrate's
// ping-pong: half a round trip, the protocol's handshakes included). Between
// points linear in bytes; below the first, the first time; above the last,
// the last time plus the rest of the bytes at `beyond_Bps`.
struct MessageTimes {
  std::vector<double> bytes;   // strictly increasing, >= 0
  std::vector<double> time_s;  // one per bytes entry, >= 0
  bool empty() const { return bytes.empty(); }
  double time_at(double message_bytes, double beyond_Bps) const;
  bool operator==(const MessageTimes&) const = default;
};

struct Network {
  double latency_s = 0;              // between the two nearest distinct nodes
  double bandwidth_Bps = 0;          // point to point, one link/path
  double hop_latency_s = 0;          // per hop beyond the nearest distance
  double eager_threshold_bytes = 64 * 1024;
  double overhead_s = 0;             // CPU time per message sent or received (LogP o)
  // One-way latencies a rendezvous message waits before its data flows (the
  // request to send; 2 for a protocol that also waits for a clear to send;
  // 0 for models that fold the handshake into the latency, as SMPI does).
  double rendezvous_handshakes = 1;
  double intra_node_latency_s = 0;
  double intra_node_bandwidth_Bps = 0;
  // Within a node, when measured: what a message of each size takes, instead
  // of the linear intra_node_latency + size / intra_node_bandwidth (which
  // misses the protocol switches in between, as SMPI's piecewise factors
  // address). Used by the refined prediction and the simulator.
  MessageTimes intra_node_one_way;
  // Within a node, when measured: the time of an exchange, two ranks each
  // sending the other a message of a size at once and waiting for both (a
  // halo exchange's step). Longer than the one-way time (both copies, both
  // sides' progress): a message a rank sends to a peer it also receives
  // from is priced at this.
  MessageTimes intra_node_exchange;
  Topology topology;
  // How many measurements the within-node figures (intra_node_*, overhead,
  // on one node latency and bandwidth, and the Machine's measured collective
  // tables, which live beside this struct) average (calibrate --network-only
  // --accumulate, network_history.h): on a VM they move with where the host
  // places the vCPUs, minutes apart, and one snapshot may catch a rare placement.
  int probes = 1;

  bool operator==(const Network&) const = default;
};

struct Machine {
  std::string name;
  std::string description;
  std::vector<NodeGroup> groups;  // nodes numbered in group order
  Network network;
  Mapping mapping;
  std::vector<CollectiveTable> collectives;

  int node_count() const;
  int total_cores() const;
  double peak_flops() const;  // whole machine
  size_t group_index_of_node(int node) const;
  const NodeGroup& group_of_node(int node) const;

  // Ranks to nodes, by the mapping (see machine/mapping.h).
  int node_of_rank(int rank, int nranks) const;

  int hops(int node_a, int node_b) const;
  int diameter_hops() const;
  // latency + (hops - nearest hops) x hop_latency; the intra-node latency on one node.
  double node_latency_s(int node_a, int node_b) const;
  double node_bandwidth_Bps(int node_a, int node_b) const;
  // What messages, collectives and bursts cost is machine::Pricing's (pricing.h).
  double latency_s(int rank_a, int rank_b, int nranks) const;
  double bandwidth_Bps(int rank_a, int rank_b, int nranks) const;

  const CollectiveTable* collective_table(CollectiveOp op) const;
  // Interpolated from the table for `op`; none when the file has no table for
  // it; 0 for one rank when the table starts above one (a communicator of one
  // moves nothing).
  std::optional<double> collective_time_s(CollectiveOp op, int procs, double bytes) const;

  bool operator==(const Machine&) const = default;
};

}  // namespace perfcast::machine
