#include "machine/calibrate/writer.h"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "support/units.h"

namespace perfcast::calibrate {

namespace {

using units::Dimension;

std::string q(double value, Dimension d) { return units::format(value, d, 3); }

// What the figures come from, for people reading the file: every kernel's
// rate, the curves the levels and the network were read from, the noise.
void raw_measurements(std::ostringstream& out, const Calibration& cal) {
  out << "---- Raw measurements behind the figures above (perfcast calibrate) ----\n";
  out << fmt::format("Calibration took {:.1f} s{}.\n", cal.wall_s, cal.quick ? " (--quick)" : "");
  out << fmt::format("Flop rate per kernel: one core alone | all {} cores at once (total)\n", cal.compute.threads);
  for (const auto& k : cal.compute.kernels)
    out << fmt::format("  {:<15} {:>14} | {:>14}   ({} lanes, {})\n", k.name, q(k.per_core, Dimension::FlopsPerSecond),
                       k.node > 0 ? q(k.node, Dimension::FlopsPerSecond) : std::string("-"), k.lanes,
                       k.fused ? "FMA" : "mul+add");
  if (const ClockProbe& p = cal.clock_probe; p.measured()) {
    out << fmt::format("Clock: dependent register adds {} (one a cycle); dependent multiplies {} (3 cycles each, "
                       "{:.1f} % apart; {} measurement{}); dependent immediate adds {} ({:.2f} a cycle{})\n",
                       q(p.register_add_Hz, Dimension::Hertz), q(p.multiply_Hz, Dimension::Hertz),
                       100 * p.disagreement(), p.attempts, p.attempts == 1 ? "" : "s",
                       q(p.immediate_add_Hz, Dimension::Hertz), p.immediate_adds_per_cycle(),
                       p.immediate_adds_per_cycle() > 1.5 ? ": the renamer folds them, never the clock" : "");
    if (p.slowest_register_add_Hz > 0)
      out << fmt::format("Clock samples (register adds): slowest {}, fastest {}{}\n",
                         q(p.slowest_register_add_Hz, Dimension::Hertz), q(p.register_add_Hz, Dimension::Hertz),
                         p.moved() ? ": the clock moved while calibrate watched; node.clock is the fastest, and "
                                     "in-core work runs slower by as much while the host holds the lower clock"
                                   : "");
    out << "Clock witnesses:";
    for (const auto& line : witness_lines(cal.clock_witnesses)) out << " " << line << ";";
    out << "\n";
  }
  for (const auto& f : cal.findings) out << "Implausible, written anyway: " << machine::describe(f) << "\n";
  out << "Caches the system reports:";
  for (const auto& c : cal.reported_caches)
    out << fmt::format(" L{} {} ({}{})", c.level, q(c.size_bytes, Dimension::Bytes), c.source,
                       c.plausible ? "" : ", implausible: ignored");
  if (cal.reported_caches.empty()) out << " none";
  out << "\n";
  out << fmt::format("Bandwidth sweep, one core, triad with {}: working set -> bandwidth\n", cal.memory.kernel_isa);
  for (const auto& p : cal.memory.sweep)
    out << fmt::format("  {:>10}  {:>12}\n", q(p.bytes, Dimension::Bytes), q(p.bandwidth, Dimension::BytesPerSecond));
  out << "Plateaus found:";
  for (const auto& l : cal.memory.levels)
    out << fmt::format(" {} {}..{} at {}{};", l.name, q(l.from_bytes, Dimension::Bytes), q(l.to_bytes, Dimension::Bytes),
                       q(l.bandwidth, Dimension::BytesPerSecond), l.settled ? "" : " (not settled)");
  out << "\n(a level's size: where the curve crosses the geometric mean of its plateau and the next;\n"
         " DRAM's bandwidth: the median over the largest working sets, the curve's approach from above)\n";
  if (!cal.memory.overlap.empty()) {
    out << "Overlap, one core: a[i] = p_K(b[i]) + s*c[i], K dependent multiply-adds per element; per element:\n"
           "  core = K in L1, mem = K 0 in the level, both = K in the level; f = (both - max) / min\n";
    for (const auto& o : cal.memory.overlap) {
      out << fmt::format("  {:<5} at {:>10}: mem {:>9}", o.level, q(o.working_set_bytes, Dimension::Bytes),
                         q(o.memory_s, Dimension::Seconds));
      for (const auto& p : o.points)
        out << fmt::format(" | K {} core {} both {} f {:.2f}", p.k, q(p.core_s, Dimension::Seconds),
                           q(p.both_s, Dimension::Seconds), p.fraction);
      out << (o.measured ? fmt::format(" -> serial_fraction {:.2f}\n", o.serial_fraction)
                         : " -> no K near balance: not written\n");
    }
  }
  if (!cal.memory.stream_overlap.empty()) {
    out << "Overlap by address streams, one core: R passes of 5 loads of b around i in 1, 3 or 5 groups ("
        << kNeighbourApart * 8 / 1024
        << " KiB apart) + c[i]: 3, 5, 7 streams;\n"
           "  core = 1 group in L1, mem = a[i] = b[i] + c[i] in the level, both = the groups in the level;\n"
           "  f = (both - max) / min per stream count, by core / mem\n";
    for (const auto& o : cal.memory.stream_overlap) {
      out << fmt::format("  {:<5} at {:>10}: mem {}", o.level, q(o.working_set_bytes, Dimension::Bytes),
                         q(o.memory_s, Dimension::Seconds));
      for (size_t r = 0; r < o.passes.size(); ++r) {
        out << fmt::format(" | R {} core/mem {:.2f} f", o.passes[r], o.core_over_memory[r]);
        for (size_t s = 0; s < o.streams.size(); ++s) out << fmt::format(" {:.2f}", o.fraction[s][r]);
      }
      out << (o.measured ? "\n" : " -> no R puts core within 4x of mem: not written\n");
    }
  }
  out << fmt::format("DRAM, all {} cores streaming ({} each): {}\n", cal.cores,
                     q(cal.memory.node_bytes_per_thread, Dimension::Bytes),
                     q(cal.memory.node_dram_bandwidth, Dimension::BytesPerSecond));
  for (const auto& l : cal.sharing.levels) {
    out << fmt::format("Sharing, {} at {} per core: cores streaming at once -> each core's bandwidth (median):", l.level,
                       q(l.bytes_per_core, Dimension::Bytes));
    for (size_t i = 0; i < l.cores.size(); ++i)
      out << fmt::format(" {}: {};", l.cores[i], q(l.per_core_Bps[i], Dimension::BytesPerSecond));
    out << "\n";
  }
  for (const auto& note : cal.sharing.notes) out << "Sharing, " << note << "\n";
  if (cal.sharing.busy_cores > 0)
    out << fmt::format("Clock chain on 1 core: {}; on {} cores at once: {} (median) -> busy_slowdown {:.3f}\n",
                       q(cal.sharing.clock_alone_Hz, Dimension::Hertz), cal.sharing.busy_cores,
                       q(cal.sharing.clock_busy_Hz, Dimension::Hertz),
                       cal.sharing.clock_busy_Hz > 0 ? cal.sharing.clock_alone_Hz / cal.sharing.clock_busy_Hz : 0.0);
  if (!cal.mpi.pingpong.empty()) {
    out << "MPI ping-pong, ranks 0 and 1 on two cores: size -> one-way time, bandwidth\n";
    for (const auto& p : cal.mpi.pingpong)
      out << fmt::format("  {:>10}  {:>10}  {:>12}\n", q(p.bytes, Dimension::Bytes), q(p.one_way_s, Dimension::Seconds),
                         q(p.bytes / p.one_way_s, Dimension::BytesPerSecond));
    if (cal.mpi.call_overhead_s > 0)
      out << fmt::format("overhead (LogP o): {} per call that moves nothing (6 irecv + 6 isend to MPI_PROC_NULL, "
                         "1 waitall); latency = one-way {} - 2 o\n",
                         q(cal.mpi.call_overhead_s, Dimension::Seconds), q(cal.mpi.one_way_s, Dimension::Seconds));
    out << "latency: median one-way time of 1-8 B; bandwidth: 1 / median slope of time over size above ";
    out << q(std::max(65536.0, 4 * cal.mpi.eager_threshold_bytes.value_or(0)), Dimension::Bytes) << "\n";
    if (cal.mpi.eager_threshold_bytes)
      out << "eager_threshold: the last size before the time jumps by more than a latency above\n"
             "latency + size / bandwidth (the rendezvous handshake); the real limit lies below the next size\n";
    else
      out << "eager threshold: no protocol switch visible in the curve\n";
  }
  if (cal.noise.samples > 0)
    out << fmt::format("Noise: {} quanta of {} on {} cores at once, by the wall clock; time over each core's "
                       "fastest: mean {:.3f}, {:.1f} % of quanta above 1.25x\n",
                       cal.noise.samples, q(cal.noise.quantum_s, Dimension::Seconds), cal.noise.threads,
                       cal.noise.mean_stretch, 100 * cal.noise.slow_fraction);
  if (!cal.noise.divider_stretch.empty())
    out << fmt::format("Noise of a divide-bound quantum, in turns with it: mean {:.3f}, {:.1f} % above 1.25x\n",
                       cal.noise.divider_mean_stretch, 100 * cal.noise.divider_slow_fraction);
  // A calibration from before the probe measured spells has none to describe.
  if (cal.noise.spell_s > 0) out << "Noise " << spell_summary(cal.noise) << "\n";
  if (cal.noise.windows > 0)
    out << fmt::format("Noise of pairs of cores, {} windows of 50 ms: both disturbed in {:.1f} % of them, {:.1f} % if "
                       "they were independent (predict assumes they are)\n",
                       cal.noise.windows, 100 * cal.noise.pairs_disturbed_together, 100 * cal.noise.pairs_if_independent);
  out << "Collectives: median per call, slowest rank; alltoall bytes are per destination.\n";
  out << "Launch: " << cal.mpi.launch_command << "\n";
}

}  // namespace

machine::MachineFileComments machine_file_comments(const Calibration& cal) {
  machine::MachineFileComments comments;
  comments.header = {"Machine file written by perfcast calibrate; format: docs/machine-format.md"};
  std::ostringstream out;
  raw_measurements(out, cal);
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) comments.trailer.push_back(line);
  return comments;
}

std::string spell_summary(const NoiseResult& noise) {
  if (noise.spell_s <= 0) return "states: no core timed enough quanta to tell how long they last";
  std::string out =
      fmt::format("states last {} (autocorrelation time {:.4g} of the probe's quanta, median of {} cores)",
                  q(noise.spell_s, Dimension::Seconds), noise.spell_quanta, noise.threads);
  if (2 * noise.spell_bounded_cores >= noise.threads)
    out += fmt::format(", at least: on {} of {} cores the quanta were still alike a tenth of the probe apart, so "
                       "the probe's length bounds it",
                       noise.spell_bounded_cores, noise.threads);
  return out;
}

nlohmann::json noise_json(const NoiseResult& noise) {
  return {{"quantum_s", noise.quantum_s},
          {"stretch_quantiles", noise.stretch},
          {"samples", noise.samples},
          {"threads", noise.threads},
          {"mean_stretch", noise.mean_stretch},
          {"slow_fraction", noise.slow_fraction},
          {"windows", noise.windows},
          {"pairs_disturbed_together", noise.pairs_disturbed_together},
          {"pairs_if_independent", noise.pairs_if_independent},
          {"divider_stretch_quantiles", noise.divider_stretch},
          {"divider_mean_stretch", noise.divider_mean_stretch},
          {"divider_slow_fraction", noise.divider_slow_fraction},
          {"spell_s", noise.spell_s},
          {"spell_quanta", noise.spell_quanta},
          {"spell_bounded_cores", noise.spell_bounded_cores}};
}

nlohmann::json calibration_json(const Calibration& cal) {
  using nlohmann::json;
  json j;
  j["host"] = cal.host;
  j["cpu_model"] = cal.cpu_model;
  j["cpu"] = cal.cpu.empty() ? json(nullptr) : json(cal.cpu);
  j["cpu_chosen"] = cal.cpu_why.empty() ? json(nullptr) : json(cal.cpu_why);
  j["when_utc"] = cal.when_utc;
  j["quick"] = cal.quick;
  j["cores"] = cal.cores;
  j["wall_s"] = cal.wall_s;
  for (const auto& c : cal.reported_caches)
    j["reported_caches"].push_back(
        {{"level", c.level}, {"bytes", c.size_bytes}, {"plausible", c.plausible}, {"source", c.source}});

  const auto& cp = cal.compute;
  auto rates = [](const FlopRates& r) {
    return json{{"double_simd", r.double_simd}, {"single_simd", r.single_simd}, {"double_scalar", r.double_scalar},
                {"single_scalar", r.single_scalar}};
  };
  j["compute"] = {{"unit", "flop/s"},
                  {"per_core", rates(cp.per_core)},
                  {"node", rates(cp.node)},
                  {"threads", cp.threads},
                  {"simd_double", cp.simd_double},
                  {"simd_single", cp.simd_single},
                  {"kernels", json::array()}};
  // The clock turns every MCA cycle into seconds, and it moves with a shared
  // host's state (it can move by 10 % within half an hour): scripts
  // comparing calibrations need it as much as the bandwidths.
  j["compute"]["clock_Hz"] = cal.clock_Hz > 0 ? json(cal.clock_Hz) : json(nullptr);
  j["compute"]["clock_measured"] = cal.clock_measured;
  j["compute"]["reported_clock_Hz"] = cal.reported_clock_Hz > 0 ? json(cal.reported_clock_Hz) : json(nullptr);
  const ClockProbe& probe = cal.clock_probe;
  j["compute"]["clock_probe"] = {{"register_add_Hz", probe.register_add_Hz},
                                 {"slowest_register_add_Hz", probe.slowest_register_add_Hz},
                                 {"clock_moved", probe.moved()},
                                 {"multiply_Hz", probe.multiply_Hz},
                                 {"immediate_add_Hz", probe.immediate_add_Hz},
                                 {"immediate_adds_per_cycle", probe.immediate_adds_per_cycle()},
                                 {"disagreement", probe.disagreement()},
                                 {"attempts", probe.attempts}};
  const ClockWitnesses& w = cal.clock_witnesses;
  auto hz_or_null = [](double v) { return v > 0 ? json(v) : json(nullptr); };
  j["compute"]["clock_witnesses"] = {{"tsc_Hz", hz_or_null(w.tsc_Hz)},
                                     {"constant_tsc", w.constant_tsc},
                                     {"cpuinfo_Hz", hz_or_null(w.cpuinfo_Hz)},
                                     {"cpufreq_max_Hz", hz_or_null(w.cpufreq_max_Hz)},
                                     {"cpufreq_current_Hz", hz_or_null(w.cpufreq_current_Hz)},
                                     {"perf_cycles_Hz", hz_or_null(w.perf_cycles_Hz)},
                                     {"perf_cycles_per_add", hz_or_null(w.perf_cycles_per_add)},
                                     {"perf_note", w.perf_note}};
  j["findings"] = json::array();
  for (const auto& f : cal.findings)
    j["findings"].push_back({{"figure", f.figure}, {"value", f.value}, {"bound", f.bound}, {"reason", f.reason}});
  j["compute"]["instruction_cycles"] = nullptr;
  if (const auto& ic = cal.instruction_cycles; ic.measured())
    for (const auto& [key, value] : figures(ic)) j["compute"]["instruction_cycles"][key] = value;
  for (const auto& k : cp.kernels)
    j["compute"]["kernels"].push_back(
        {{"name", k.name}, {"lanes", k.lanes}, {"fused", k.fused}, {"per_core", k.per_core}, {"node", k.node}});

  json mem = {{"kernel", "triad"}, {"isa", cal.memory.kernel_isa}, {"sweep", json::array()},
              {"levels", json::array()}, {"node_dram_bandwidth", cal.memory.node_dram_bandwidth},
              {"node_bytes_per_thread", cal.memory.node_bytes_per_thread}};
  for (const auto& p : cal.memory.sweep) mem["sweep"].push_back({{"bytes", p.bytes}, {"bandwidth", p.bandwidth}});
  for (const auto& l : cal.memory.levels)
    mem["levels"].push_back({{"name", l.name},
                             {"size_bytes", l.size_bytes},
                             {"bandwidth", l.bandwidth},
                             {"settled", l.settled},
                             {"from_bytes", l.from_bytes},
                             {"to_bytes", l.to_bytes}});
  mem["overlap"] = json::array();
  for (const auto& o : cal.memory.overlap) {
    json points = json::array();
    for (const auto& p : o.points)
      points.push_back({{"k", p.k}, {"core_s", p.core_s}, {"both_s", p.both_s}, {"fraction", p.fraction}});
    mem["overlap"].push_back({{"level", o.level},
                              {"working_set_bytes", o.working_set_bytes},
                              {"memory_s", o.memory_s},
                              {"points", points},
                              {"measured", o.measured},
                              {"serial_fraction", o.serial_fraction}});
  }
  mem["overlap_by_streams"] = json::array();
  for (const auto& o : cal.memory.stream_overlap)
    mem["overlap_by_streams"].push_back({{"level", o.level},
                                         {"working_set_bytes", o.working_set_bytes},
                                         {"memory_s", o.memory_s},
                                         {"passes", o.passes},
                                         {"core_s", o.core_s},
                                         {"core_over_memory", o.core_over_memory},
                                         {"streams", o.streams},
                                         {"both_s", o.both_s},
                                         {"fraction", o.fraction},
                                         {"measured", o.measured}});
  j["memory"] = mem;

  json sharing = {{"levels", json::array()},
                  {"notes", cal.sharing.notes},
                  {"busy_cores", cal.sharing.busy_cores},
                  {"clock_alone_Hz", cal.sharing.clock_alone_Hz},
                  {"clock_busy_Hz", cal.sharing.clock_busy_Hz}};
  for (const auto& l : cal.sharing.levels)
    sharing["levels"].push_back({{"level", l.level},
                                 {"bytes_per_core", l.bytes_per_core},
                                 {"cores", l.cores},
                                 {"per_core_Bps", l.per_core_Bps}});
  j["sharing"] = sharing;

  for (const auto& m : cal.math)
    j["math"].push_back({{"function", m.function},
                         {"double_s", m.double_s},
                         {"single_s", m.single_s},
                         {"double_flops", m.double_flops},
                         {"single_flops", m.single_flops}});

  j["noise"] = noise_json(cal.noise);

  const auto& mpi = cal.mpi;
  json jm = {{"latency_s", mpi.latency_s}, {"one_way_s", mpi.one_way_s}, {"call_overhead_s", mpi.call_overhead_s},
             {"bandwidth", mpi.bandwidth}, {"procs", mpi.procs},
             {"launch", mpi.launch_command}, {"pingpong", json::array()}, {"collectives", json::array()}};
  jm["eager_threshold_bytes"] = mpi.eager_threshold_bytes ? json(*mpi.eager_threshold_bytes) : json(nullptr);
  for (const auto& p : mpi.pingpong) jm["pingpong"].push_back({{"bytes", p.bytes}, {"one_way_s", p.one_way_s}});
  for (const auto& c : mpi.collectives)
    jm["collectives"].push_back({{"op", c.op}, {"procs", c.procs}, {"bytes", c.bytes}, {"time_s", c.time_s}});
  j["mpi"] = jm;
  return j;
}

}  // namespace perfcast::calibrate
