#include "machine/calibrate/writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <sstream>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "support/error.h"
#include "support/units.h"

namespace perfcast::calibrate {

namespace {

using units::Dimension;

std::string q(double value, Dimension d) { return units::format(value, d, 3); }

double round_sig(double v, int digits) {
  if (v == 0 || !std::isfinite(v)) return v;
  return std::stod(fmt::format("{:.{}g}", v, digits));
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
    d += fmt::format(". Clock: a chain of dependent additions, one per cycle ({} reported by /proc/cpuinfo)",
                     cal.reported_clock_Hz > 0 ? units::format(cal.reported_clock_Hz, units::Dimension::Hertz, 4)
                                               : "none");
  else if (cal.clock_Hz > 0)
    d += ". Clock: as /proc/cpuinfo reports it (not measured on this target)";
  d += ". Network: MPI ping-pong within this node (Open MPI, shared memory; pinned ranks busy-poll).";
  return d;
}

toml::array number_array(const std::vector<double>& v, int digits = 4) {
  toml::array a;
  for (double x : v) a.push_back(round_sig(x, digits));
  return a;
}

void comment_block(std::ostringstream& out, const Calibration& cal) {
  out << "\n# ---- Raw measurements behind the figures above (perfcast calibrate) ----\n";
  out << fmt::format("# Calibration took {:.1f} s{}.\n", cal.wall_s, cal.quick ? " (--quick)" : "");
  out << fmt::format("# Flop rate per kernel: one core alone | all {} cores at once (total)\n", cal.compute.threads);
  for (const auto& k : cal.compute.kernels)
    out << fmt::format("#   {:<15} {:>14} | {:>14}   ({} lanes, {})\n", k.name, q(k.per_core, Dimension::FlopsPerSecond),
                       k.node > 0 ? q(k.node, Dimension::FlopsPerSecond) : std::string("-"), k.lanes,
                       k.fused ? "FMA" : "mul+add");
  out << "# Caches the system reports:";
  for (const auto& c : cal.reported_caches)
    out << fmt::format(" L{} {} ({}{})", c.level, q(c.size_bytes, Dimension::Bytes), c.source,
                       c.plausible ? "" : ", implausible: ignored");
  if (cal.reported_caches.empty()) out << " none";
  out << "\n";
  out << fmt::format("# Bandwidth sweep, one core, triad with {}: working set -> bandwidth\n", cal.memory.kernel_isa);
  for (const auto& p : cal.memory.sweep)
    out << fmt::format("#   {:>10}  {:>12}\n", q(p.bytes, Dimension::Bytes), q(p.bandwidth, Dimension::BytesPerSecond));
  out << "# Plateaus found:";
  for (const auto& l : cal.memory.levels)
    out << fmt::format(" {} {}..{} at {}{};", l.name, q(l.from_bytes, Dimension::Bytes), q(l.to_bytes, Dimension::Bytes),
                       q(l.bandwidth, Dimension::BytesPerSecond), l.settled ? "" : " (not settled)");
  out << "\n# (a level's size: where the curve crosses the geometric mean of its plateau and the next;\n"
         "#  DRAM's bandwidth: the median over the largest working sets, the curve's approach from above)\n";
  if (!cal.memory.overlap.empty()) {
    out << "# Overlap, one core: a[i] = p_K(b[i]) + s*c[i], K dependent multiply-adds per element; per element:\n"
           "#   core = K in L1, mem = K 0 in the level, both = K in the level; f = (both - max) / min\n";
    for (const auto& o : cal.memory.overlap) {
      out << fmt::format("#   {:<5} at {:>10}: mem {:>9}", o.level, q(o.working_set_bytes, Dimension::Bytes),
                         q(o.memory_s, Dimension::Seconds));
      for (const auto& p : o.points)
        out << fmt::format(" | K {} core {} both {} f {:.2f}", p.k, q(p.core_s, Dimension::Seconds),
                           q(p.both_s, Dimension::Seconds), p.fraction);
      out << (o.measured ? fmt::format(" -> serial_fraction {:.2f}\n", o.serial_fraction)
                         : " -> no K near balance: not written\n");
    }
  }
  if (!cal.memory.stream_overlap.empty()) {
    out << "# Overlap by address streams, one core: R passes of 5 loads of b around i in 1, 3 or 5 groups ("
        << kNeighbourApart * 8 / 1024
        << " KiB apart) + c[i]: 3, 5, 7 streams;\n"
           "#   core = 1 group in L1, mem = a[i] = b[i] + c[i] in the level, both = the groups in the level;\n"
           "#   f = (both - max) / min per stream count, by core / mem\n";
    for (const auto& o : cal.memory.stream_overlap) {
      out << fmt::format("#   {:<5} at {:>10}: mem {}", o.level, q(o.working_set_bytes, Dimension::Bytes),
                         q(o.memory_s, Dimension::Seconds));
      for (size_t r = 0; r < o.passes.size(); ++r) {
        out << fmt::format(" | R {} core/mem {:.2f} f", o.passes[r], o.core_over_memory[r]);
        for (size_t s = 0; s < o.streams.size(); ++s) out << fmt::format(" {:.2f}", o.fraction[s][r]);
      }
      out << (o.measured ? "\n" : " -> no R puts core within 4x of mem: not written\n");
    }
  }
  out << fmt::format("# DRAM, all {} cores streaming ({} each): {}\n", cal.cores,
                     q(cal.memory.node_bytes_per_thread, Dimension::Bytes),
                     q(cal.memory.node_dram_bandwidth, Dimension::BytesPerSecond));
  if (!cal.mpi.pingpong.empty()) {
    out << "# MPI ping-pong, ranks 0 and 1 on two cores: size -> one-way time, bandwidth\n";
    for (const auto& p : cal.mpi.pingpong)
      out << fmt::format("#   {:>10}  {:>10}  {:>12}\n", q(p.bytes, Dimension::Bytes), q(p.one_way_s, Dimension::Seconds),
                         q(p.bytes / p.one_way_s, Dimension::BytesPerSecond));
    if (cal.mpi.call_overhead_s > 0)
      out << fmt::format("# overhead (LogP o): {} per call that moves nothing (6 irecv + 6 isend to MPI_PROC_NULL, "
                         "1 waitall); latency = one-way {} - 2 o\n",
                         q(cal.mpi.call_overhead_s, Dimension::Seconds), q(cal.mpi.one_way_s, Dimension::Seconds));
    out << "# latency: median one-way time of 1-8 B; bandwidth: 1 / median slope of time over size above ";
    out << q(std::max(65536.0, 4 * cal.mpi.eager_threshold_bytes.value_or(0)), Dimension::Bytes) << "\n";
    if (cal.mpi.eager_threshold_bytes)
      out << "# eager_threshold: the last size before the time jumps by more than a latency above\n"
             "# latency + size / bandwidth (the rendezvous handshake); the real limit lies below the next size\n";
    else
      out << "# eager threshold: no protocol switch visible in the curve\n";
  }
  if (cal.noise.samples > 0)
    out << fmt::format("# Noise: {} quanta of {} on {} cores at once, by the wall clock; time over each core's "
                       "fastest: mean {:.3f}, {:.1f} % of quanta above 1.25x\n",
                       cal.noise.samples, q(cal.noise.quantum_s, Dimension::Seconds), cal.noise.threads,
                       cal.noise.mean_stretch, 100 * cal.noise.slow_fraction);
  if (!cal.noise.divider_stretch.empty())
    out << fmt::format("# Noise of a divide-bound quantum, in turns with it: mean {:.3f}, {:.1f} % above 1.25x\n",
                       cal.noise.divider_mean_stretch, 100 * cal.noise.divider_slow_fraction);
  if (cal.noise.windows > 0)
    out << fmt::format("# Noise of pairs of cores, {} windows of 50 ms: both disturbed in {:.1f} % of them, {:.1f} % if "
                       "they were independent (predict assumes they are)\n",
                       cal.noise.windows, 100 * cal.noise.pairs_disturbed_together, 100 * cal.noise.pairs_if_independent);
  out << "# Collectives: median per call, slowest rank; alltoall bytes are per destination.\n";
  out << "# Launch: " << cal.mpi.launch_command << "\n";
}

// [network] and the [[collective]] tables of what the MPI benchmark measured.
void insert_network(toml::table& root, const MpiResult& mpi) {
  toml::table network;
  network.insert("latency", q(mpi.latency_s, Dimension::Seconds));
  network.insert("bandwidth", q(mpi.bandwidth, Dimension::BytesPerSecond));
  network.insert("topology", "crossbar");
  network.insert("intra_node_latency", q(mpi.latency_s, Dimension::Seconds));
  network.insert("intra_node_bandwidth", q(mpi.bandwidth, Dimension::BytesPerSecond));
  if (mpi.call_overhead_s > 0) network.insert("overhead", q(mpi.call_overhead_s, Dimension::Seconds));
  if (mpi.eager_threshold_bytes) network.insert("eager_threshold", q(*mpi.eager_threshold_bytes, Dimension::Bytes));
  // A measured curve by message size, `{ bytes = [...], time_s = [...] }`.
  auto curve = [&](const char* key, const auto& points, auto seconds_of) {
    if (points.size() < 2) return;
    toml::array bytes, times;
    for (const auto& p : points) {
      bytes.push_back(static_cast<std::int64_t>(p.bytes));
      times.push_back(round_sig(seconds_of(p), 4));
    }
    toml::table t;
    t.insert("bytes", std::move(bytes));
    t.insert("time_s", std::move(times));
    t.is_inline(true);
    network.insert(key, std::move(t));
  };
  // The whole ping-pong curve: latency + size / bandwidth is a line through
  // its two ends and misses the middle (the protocol switch at the eager
  // threshold, the copies' cache effects) by 2-3x here.
  curve("intra_node_one_way", mpi.pingpong, [](const PingPongPoint& p) { return p.one_way_s; });
  // Both ways at once, as a halo exchange sends: 1.4-1.5x the one-way time
  // for small messages here, not 1x (both copies, both sides' polling).
  curve("intra_node_exchange", mpi.exchange, [](const ExchangePoint& p) { return p.step_s; });
  root.insert("network", std::move(network));

  toml::array collectives;
  for (const auto& c : mpi.collectives) {
    toml::table t;
    t.insert("op", c.op);
    toml::array procs, bytes, rows;
    for (int p : c.procs) procs.push_back(p);
    for (double b : c.bytes) bytes.push_back(static_cast<int64_t>(b));
    for (const auto& row : c.time_s) rows.push_back(number_array(row));
    t.insert("procs", std::move(procs));
    t.insert("bytes", std::move(bytes));
    t.insert("time_s", std::move(rows));
    collectives.push_back(std::move(t));
  }
  if (!collectives.empty()) root.insert("collective", std::move(collectives));
}

}  // namespace

std::string machine_toml(const Calibration& cal) {
  toml::table root;
  root.insert("name", cal.host);
  root.insert("description", description(cal));

  const auto& pc = cal.compute.per_core;
  toml::table node;
  node.insert("count", 1);
  node.insert("cores", cal.cores);
  node.insert("flops_per_core", q(pc.double_simd, Dimension::FlopsPerSecond));
  node.insert("flops_per_core_single", q(pc.single_simd, Dimension::FlopsPerSecond));
  node.insert("flops_per_core_scalar", q(pc.double_scalar, Dimension::FlopsPerSecond));
  node.insert("flops_per_core_single_scalar", q(pc.single_scalar, Dimension::FlopsPerSecond));
  // What turns MCA's cycles into seconds (perfcast predict): measured where it can be.
  if (cal.clock_Hz > 0) node.insert("clock", q(cal.clock_Hz, Dimension::Hertz));
  // What perfcast analyze --machine puts into a borrowed scheduling model.
  if (const auto& ic = cal.instruction_cycles; ic.measured()) {
    toml::table cycles;
    for (const auto& [key, value] : figures(ic)) cycles.insert(key, round_sig(value, 3));
    cycles.is_inline(true);
    node.insert("instruction_cycles", std::move(cycles));
  }
  // What the cores lose to other processes (perfcast predict's expected time
  // under noise); 3 digits: the quantiles move more than that between runs.
  if (!cal.noise.stretch.empty()) {
    toml::table noise;
    noise.insert("quantum", q(cal.noise.quantum_s, Dimension::Seconds));
    noise.insert("stretch", number_array(cal.noise.stretch, 3));
    if (!cal.noise.divider_stretch.empty())
      noise.insert("divider_stretch", number_array(cal.noise.divider_stretch, 3));
    noise.is_inline(true);
    node.insert("noise", std::move(noise));
  }
  root.insert("node", std::move(node));

  toml::table memory;
  for (const auto& l : cal.memory.levels) {
    toml::table t;
    if (l.name != "DRAM") t.insert("size", q(l.size_bytes, Dimension::Bytes));
    t.insert("bandwidth", q(l.bandwidth, Dimension::BytesPerSecond));
    if (l.name == "DRAM" && cal.memory.node_dram_bandwidth > 0)
      t.insert("node_bandwidth", q(cal.memory.node_dram_bandwidth, Dimension::BytesPerSecond));
    for (const auto& o : cal.memory.overlap)
      if (o.level == l.name && o.measured) t.insert("serial_fraction", round_sig(o.serial_fraction, 2));
    for (const auto& o : cal.memory.stream_overlap) {
      if (o.level != l.name || !o.measured) continue;
      toml::array streams, ratios, fractions;
      for (int s : o.streams) streams.push_back(s);
      for (double r : o.core_over_memory) ratios.push_back(round_sig(r, 3));
      for (const auto& row : o.fraction) {
        toml::array a;
        for (double f : row) a.push_back(round_sig(f, 2));
        fractions.push_back(std::move(a));
      }
      toml::table by_streams;
      by_streams.insert("streams", std::move(streams));
      by_streams.insert("core_over_memory", std::move(ratios));
      by_streams.insert("serial_fraction", std::move(fractions));
      by_streams.is_inline(true);
      t.insert("overlap_by_streams", std::move(by_streams));
    }
    t.is_inline(true);
    memory.insert(l.name, std::move(t));
  }
  root.insert("memory", std::move(memory));

  toml::table math_double, math_single;
  for (const auto& m : cal.math) {
    math_double.insert(m.function, round_sig(m.double_flops, 3));
    math_single.insert(m.function, round_sig(m.single_flops, 3));
  }
  toml::table math;
  math.insert("double", std::move(math_double));
  math.insert("single", std::move(math_single));
  root.insert("math", std::move(math));

  insert_network(root, cal.mpi);

  std::ostringstream out;
  out << "# Machine file written by perfcast calibrate; format: docs/machine-format.md\n";
  // Figures are rounded to 3-4 digits already; without relaxed precision
  // toml++ prints every float with 17 digits.
  out << toml::toml_formatter(root, toml::toml_formatter::default_flags | toml::format_flags::relaxed_float_precision)
      << "\n";
  comment_block(out, cal);
  return out.str();
}

std::string network_toml(const MpiResult& mpi) {
  toml::table root;
  insert_network(root, mpi);
  std::ostringstream out;
  out << toml::toml_formatter(root, toml::toml_formatter::default_flags | toml::format_flags::relaxed_float_precision)
      << "\n";
  return out.str();
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
          {"divider_slow_fraction", noise.divider_slow_fraction}};
}

nlohmann::json calibration_json(const Calibration& cal) {
  using nlohmann::json;
  json j;
  j["host"] = cal.host;
  j["cpu_model"] = cal.cpu_model;
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
  // host's state (3.28-3.57 GHz within half an hour on the Zen 5 VM): scripts
  // comparing calibrations need it as much as the bandwidths.
  j["compute"]["clock_Hz"] = cal.clock_Hz > 0 ? json(cal.clock_Hz) : json(nullptr);
  j["compute"]["clock_measured"] = cal.clock_measured;
  j["compute"]["reported_clock_Hz"] = cal.reported_clock_Hz > 0 ? json(cal.reported_clock_Hz) : json(nullptr);
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

void write_file_atomically(const std::filesystem::path& path, const std::string& content) {
  auto dir = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  auto temp = dir / fmt::format(".{}.tmp-{}", path.filename().string(), ::getpid());
  auto fail = [&](const std::string& what) {
    int err = errno;
    ::unlink(temp.c_str());
    throw UserError(fmt::format("cannot write '{}': {}: {}", path.string(), what, std::strerror(err)), {},
                    "check that the directory of -o/--output exists and is writable");
  };
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("creating a temporary file");
  std::size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      fail("writing");
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    fail("flushing");
  }
  if (::close(fd) != 0) fail("closing");
  if (::rename(temp.c_str(), path.c_str()) != 0) fail("renaming the temporary file");
}

}  // namespace perfcast::calibrate
