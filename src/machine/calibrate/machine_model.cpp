#include "machine/calibrate/machine_model.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "machine/calibrate/calibrate.h"
#include "support/error.h"
#include "support/units.h"

namespace perfcast::calibrate {

namespace {

using units::Dimension;

// A quantity as the file spells it: 3 significant digits with a unit.
double quantity(double value, Dimension d) { return units::parse(units::format(value, d, 3), d); }

double round_sig(double v, int digits) {
  if (v == 0 || !std::isfinite(v)) return v;
  return std::stod(fmt::format("{:.{}g}", v, digits));
}

std::vector<double> rounded(const std::vector<double>& values, int digits) {
  std::vector<double> out;
  for (double v : values) out.push_back(round_sig(v, digits));
  return out;
}

std::string description(const Calibration& cal) {
  std::string d = fmt::format("Calibrated by 'perfcast calibrate{}' on {} at {}", cal.quick ? " --quick" : "",
                              cal.host, cal.when_utc);
  if (!cal.cpu_model.empty()) d += fmt::format(", {} cores of {}", cal.cores, cal.cpu_model);
  d += ". Flop rates: one core alone, FMA chains";
  if (!cal.compute.simd_double.empty()) d += fmt::format(" ({})", cal.compute.simd_double);
  d += ". Memory: STREAM triad on one core by working set (24 bytes per element)";
  if (!cal.memory.levels.empty() && !cal.memory.levels.back().settled)
    d += "; the sweep ended before the curve settled, so DRAM bandwidth is an upper bound";
  if (cal.clock_measured)
    d += fmt::format(". Clock: a chain of dependent register additions, one per cycle, checked against dependent "
                     "multiplies ({} reported by /proc/cpuinfo)",
                     cal.reported_clock_Hz > 0 ? units::format(cal.reported_clock_Hz, units::Dimension::Hertz, 4)
                                               : "none");
  else if (cal.clock_Hz > 0)
    d += ". Clock: as /proc/cpuinfo reports it (not measured on this target)";
  if (!cal.sharing.levels.empty() || cal.sharing.busy_cores > 0)
    d += fmt::format(". Sharing: the same triad on 1 to {} cores at once, each core's own bandwidth (median); the "
                     "clock chain on {} cores at once over one",
                     cal.sharing.levels.empty() ? cal.sharing.busy_cores : cal.sharing.levels.front().cores.back(),
                     cal.sharing.busy_cores);
  d += ". Network: MPI ping-pong within this node (Open MPI, shared memory; pinned ranks busy-poll).";
  return d;
}

// A measured curve by message size; empty below two points (a table needs a slope).
template <typename Point, typename Seconds>
machine::MessageTimes curve(const std::vector<Point>& points, Seconds seconds_of) {
  machine::MessageTimes t;
  if (points.size() < 2) return t;
  for (const auto& p : points) {
    t.bytes.push_back(static_cast<double>(static_cast<std::int64_t>(p.bytes)));
    t.time_s.push_back(round_sig(seconds_of(p), 4));
  }
  return t;
}

// The level's overlap of in-core work and transfers, where calibrate measured one.
void add_overlap(machine::MemoryLevel& level, const MemoryResult& memory) {
  for (const auto& o : memory.overlap)
    if (o.level == level.name && o.measured) {
      level.serial_fraction = round_sig(o.serial_fraction, 2);
      break;
    }
  for (const auto& o : memory.stream_overlap) {
    if (o.level != level.name || !o.measured) continue;
    for (int s : o.streams) level.overlap_streams.push_back(s);
    level.overlap_core_over_memory = rounded(o.core_over_memory, 3);
    for (const auto& row : o.fraction) level.overlap_fractions.push_back(rounded(row, 2));
    break;
  }
}

machine::NodeGroup node_group(const Calibration& cal) {
  machine::NodeGroup g;
  g.count = 1;
  g.cores = cal.cores;
  const FlopRates& pc = cal.compute.per_core;
  g.flops_per_core = quantity(pc.double_simd, Dimension::FlopsPerSecond);
  g.flops_per_core_single = quantity(pc.single_simd, Dimension::FlopsPerSecond);
  g.flops_per_core_scalar = quantity(pc.double_scalar, Dimension::FlopsPerSecond);
  g.flops_per_core_single_scalar = quantity(pc.single_scalar, Dimension::FlopsPerSecond);
  // What turns MCA's cycles into seconds (perfcast predict): measured where it can be.
  if (cal.clock_Hz > 0) g.clock_Hz = quantity(cal.clock_Hz, Dimension::Hertz);
  // The scheduling model perfcast analyze --machine prices this node's in-core work on.
  g.cpu = cal.cpu;
  // The clock the node's busy cores leave each other; a busy node measured
  // faster than one core is noise, not a faster clock: 1.
  if (cal.sharing.clock_busy_Hz > 0 && cal.sharing.clock_alone_Hz > 0)
    g.busy_slowdown = std::max(1.0, round_sig(cal.sharing.clock_alone_Hz / cal.sharing.clock_busy_Hz, 3));
  // What perfcast analyze --machine puts into a borrowed scheduling model.
  if (cal.instruction_cycles.measured())
    for (const auto& [key, value] : figures(cal.instruction_cycles))
      for (const auto& field : machine::instruction_cycle_fields())
        if (std::string_view(field.key) == key) g.instruction_cycles.*field.value = round_sig(value, 3);
  // What the cores lose to other processes; 3 digits: the quantiles move more
  // than that between runs.
  if (!cal.noise.stretch.empty()) {
    g.noise.quantum_s = quantity(cal.noise.quantum_s, Dimension::Seconds);
    g.noise.stretch = rounded(cal.noise.stretch, 3);
    g.noise.divider_stretch = rounded(cal.noise.divider_stretch, 3);
    if (cal.noise.spell_s > 0) g.noise.spell_s = quantity(cal.noise.spell_s, Dimension::Seconds);
  }
  for (const auto& l : cal.memory.levels) {
    machine::MemoryLevel level;
    level.name = l.name;
    const bool dram = l.name == "DRAM";
    if (!dram) level.size_bytes = quantity(l.size_bytes, Dimension::Bytes);
    level.bandwidth_Bps = quantity(l.bandwidth, Dimension::BytesPerSecond);
    // As the format's default: the last level and memory are shared by the node's cores.
    level.shared = l.name == "L3" || l.name == "L4" || dram;
    if (dram && cal.memory.node_dram_bandwidth > 0)
      level.node_bandwidth_Bps = quantity(cal.memory.node_dram_bandwidth, Dimension::BytesPerSecond);
    add_overlap(level, cal.memory);
    // Each core's bandwidth with 1, 2, 4 ... cores streaming at once, where measured.
    for (const auto& shared : cal.sharing.levels)
      if (shared.level == level.name)
        for (size_t i = 0; i < shared.cores.size(); ++i) {
          level.sharing_cores.push_back(shared.cores[i]);
          level.sharing_per_core_Bps.push_back(quantity(shared.per_core_Bps[i], Dimension::BytesPerSecond));
        }
    g.memory.push_back(std::move(level));
  }
  for (const auto& m : cal.math) {
    g.math.double_flops[m.function] = round_sig(m.double_flops, 3);
    g.math.single_flops[m.function] = round_sig(m.single_flops, 3);
  }
  return g;
}

}  // namespace

NetworkModel network_model(const MpiResult& mpi) {
  NetworkModel out;
  machine::Network& n = out.network;
  n.latency_s = quantity(mpi.latency_s, Dimension::Seconds);
  n.bandwidth_Bps = quantity(mpi.bandwidth, Dimension::BytesPerSecond);
  n.topology.kind = machine::TopologyKind::Crossbar;
  n.intra_node_latency_s = n.latency_s;
  n.intra_node_bandwidth_Bps = n.bandwidth_Bps;
  if (mpi.call_overhead_s > 0) n.overhead_s = quantity(mpi.call_overhead_s, Dimension::Seconds);
  if (mpi.eager_threshold_bytes) n.eager_threshold_bytes = quantity(*mpi.eager_threshold_bytes, Dimension::Bytes);
  // The whole ping-pong curve: latency + size / bandwidth is a line through
  // its two ends and misses the middle (the protocol switch at the eager
  // threshold, the copies' cache effects) by 2-3x.
  n.intra_node_one_way = curve(mpi.pingpong, [](const PingPongPoint& p) { return p.one_way_s; });
  // Both ways at once, as a halo exchange sends: 1.4-1.5x the one-way time
  // for small messages, not 1x (both copies, both sides' polling).
  n.intra_node_exchange = curve(mpi.exchange, [](const ExchangePoint& p) { return p.step_s; });

  for (const auto& c : mpi.collectives) {
    machine::CollectiveTable t;
    auto op = machine::parse_collective_op(c.op);
    if (!op) throw std::logic_error("the MPI benchmark measured an unknown collective '" + c.op + "'");
    t.op = *op;
    t.procs = c.procs;
    for (double b : c.bytes) t.bytes.push_back(static_cast<std::int64_t>(b));
    for (const auto& row : c.time_s) t.time_s.push_back(rounded(row, 4));
    out.collectives.push_back(std::move(t));
  }
  return out;
}

machine::Machine machine_model(const Calibration& cal) {
  machine::Machine m;
  m.name = cal.host;
  m.description = description(cal);
  m.groups.push_back(node_group(cal));
  NetworkModel network = network_model(cal.mpi);
  m.network = std::move(network.network);
  m.collectives = std::move(network.collectives);
  return m;
}

}  // namespace perfcast::calibrate
