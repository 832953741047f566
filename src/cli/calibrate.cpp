// `perfcast calibrate`: measures this machine and writes a machine file.
// The measuring is perfcast_calibrate's; here are the options, the progress
// display and the output.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#ifdef PERFCAST_WITH_ANALYZE
#include "analyze/analyze.h"
#endif
#include "cli/commands.h"
#include "machine/calibrate/calibrate.h"
#include "machine/calibrate/machine_model.h"
#include "machine/calibrate/mpi_bench.h"
#include "machine/calibrate/noise.h"
#include "machine/calibrate/writer.h"
#include "machine/machine_io.h"
#include "machine/network_history.h"
#include "machine/physics.h"
#include "measure/launcher.h"
#include "support/error.h"
#include "support/units.h"

namespace perfcast::cli {

namespace {

struct CalibrateArgs {
  std::string output;
  bool quick = false;
  int max_procs = 0;
  bool json = false;
  std::string noise_only;  // a machine file whose noise alone is measured again
  bool accumulate = false;  // average the measurement into the file's noise instead of replacing it
  std::string network_only;  // a machine file whose MPI figures alone are measured again
  bool allow_implausible = false;  // write figures that fail machine/physics.h, with a warning
};

std::filesystem::path bench_next_to_executable() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw UserError("cannot find the perfcast executable's directory through /proc/self/exe");
  return self.parent_path() / "perfcast_mpi_bench";
}

// One line per step; on a terminal the finer position overwrites itself.
class ProgressDisplay {
 public:
  ProgressDisplay() : tty_(::isatty(STDERR_FILENO) != 0) {}
  ~ProgressDisplay() { end_line(); }

  void show(const calibrate::Progress& p) {
    if (p.step != last_step_) {
      end_line();
      last_step_ = p.step;
      if (!tty_) std::cerr << fmt::format("calibrate [{}/{}] {}\n", p.step, p.steps, p.what);
    }
    if (tty_) {
      std::string line = fmt::format("calibrate [{}/{}] {}", p.step, p.steps, p.what);
      if (!p.detail.empty()) line += " (" + p.detail + ")";
      std::cerr << "\r\033[K" << line << std::flush;
      open_ = true;
    }
  }

 private:
  void end_line() {
    if (open_) std::cerr << "\n";
    open_ = false;
  }
  bool tty_;
  bool open_ = false;
  int last_step_ = 0;
};

void print_summary(const calibrate::Calibration& cal, const std::string& output) {
  using units::Dimension;
  auto f = [](double v, Dimension d) { return units::format(v, d, 3); };
  const auto& pc = cal.compute.per_core;
  std::cout << fmt::format("wrote {} ({}, {} cores) in {:.1f} s\n", output, cal.host, cal.cores, cal.wall_s);
  std::cout << fmt::format("  flops per core: {} double {}, {} single; scalar {} / {}\n", f(pc.double_simd, Dimension::FlopsPerSecond),
                           cal.compute.simd_double, f(pc.single_simd, Dimension::FlopsPerSecond),
                           f(pc.double_scalar, Dimension::FlopsPerSecond), f(pc.single_scalar, Dimension::FlopsPerSecond));
  std::cout << fmt::format("  node ({} cores): {} double\n", cal.compute.threads,
                           f(cal.compute.node.double_simd, Dimension::FlopsPerSecond));
  if (!cal.cpu.empty())
    std::cout << fmt::format("  CPU for in-core pricing (node.cpu): {}{}\n", cal.cpu,
                             cal.cpu_why.empty() ? "" : " (" + cal.cpu_why + ")");
  if (cal.clock_Hz > 0)
    std::cout << fmt::format("  core clock: {} ({}; /proc/cpuinfo says {})\n", f(cal.clock_Hz, Dimension::Hertz),
                             cal.clock_measured ? "measured" : "reported", f(cal.reported_clock_Hz, Dimension::Hertz));
  if (const auto& p = cal.clock_probe; p.measured()) {
    std::cout << fmt::format("    dependent adds {}, multiplies {} ({:.1f} % apart); immediate adds {:.2f} a cycle\n",
                             f(p.register_add_Hz, Dimension::Hertz), f(p.multiply_Hz, Dimension::Hertz),
                             100 * p.disagreement(), p.immediate_adds_per_cycle());
    for (const auto& line : calibrate::witness_lines(cal.clock_witnesses)) std::cout << "    " << line << "\n";
  }
  for (const auto& l : cal.memory.levels)
    std::cout << fmt::format("  {:<4} {:>10}  {}{}\n", l.name, l.name == "DRAM" ? "" : f(l.size_bytes, Dimension::Bytes),
                             f(l.bandwidth, Dimension::BytesPerSecond), l.settled ? "" : " (not settled)");
  std::cout << fmt::format("  DRAM, all cores: {}\n", f(cal.memory.node_dram_bandwidth, Dimension::BytesPerSecond));
  std::cout << fmt::format("  MPI: latency {}, bandwidth {}, eager up to {}\n", f(cal.mpi.latency_s, Dimension::Seconds),
                           f(cal.mpi.bandwidth, Dimension::BytesPerSecond),
                           cal.mpi.eager_threshold_bytes ? f(*cal.mpi.eager_threshold_bytes, Dimension::Bytes)
                                                         : std::string("(not visible)"));
}

// The physics checks a full calibration's figures pass (machine/physics.h), for a
// machine file that --noise-only or --network-only rewrites: the figures it keeps
// and the ones it measured again. Refused (exit 1, nothing written) unless
// --allow-implausible, which writes with a warning, as calibrate does. `what`
// says which machine: the file read, before measuring, or the one to write.
void check_physics(const machine::Machine& m, const CalibrateArgs& args, const std::string& what) {
  const auto findings = machine::physics_findings(m);
  if (findings.empty()) return;
  std::string list;
  for (const auto& f : findings) list += "\n  " + machine::describe(f);
  if (!args.allow_implausible)
    throw UserError(fmt::format("{} has {} figure{} outside what hardware does; no machine file written:{}", what,
                                findings.size(), findings.size() == 1 ? "" : "s", list),
                    {}, "fix those figures (or calibrate afresh), or add --allow-implausible to write the file anyway");
  std::cerr << fmt::format("perfcast calibrate: warning: {} has figures outside what hardware does "
                           "(--allow-implausible):{}\n",
                           what, list);
}

// The host's noise moves by the minute (a co-tenant comes and goes) while its
// flop rates and bandwidths do not: a few seconds refresh it in an existing
// machine file, written to -o (the original stays as it was).
void run_noise_only(const CalibrateArgs& args) {
  if (args.output.empty())
    throw UserError(fmt::format("--noise-only {} needs -o/--output: the refreshed machine file is written there, and "
                                "the original is left as it was",
                                args.noise_only),
                    {}, "add -o refreshed.toml (it may be the same path to replace the file)");
  machine::Machine m = machine::load_machine_file(args.noise_only);
  // Before measuring: the figures kept are refused now, not after the measurement.
  check_physics(m, args, fmt::format("'{}'", args.noise_only));
  if (m.groups.size() != 1)
    throw UserError(fmt::format("'{}' has {} node groups; --noise-only measures this node and cannot tell which group it "
                                "is",
                                args.noise_only, m.groups.size()),
                    {}, "calibrate each kind of node on its own and assemble the groups by hand");
  calibrate::NoiseOptions options = calibrate::calibration_noise_options(args.quick);
  machine::Noise& kept = m.groups.front().noise;
  // Before measuring: a history that cannot take the measurement is refused now, not after it.
  const size_t quantiles = static_cast<size_t>(options.quantiles);
  if (args.accumulate && !kept.pairs_with(quantiles, quantiles))
    throw UserError(fmt::format("cannot --accumulate onto '{}': its noise has {} quantiles and {} divider quantiles, a "
                                "measurement gives {} of each",
                                args.noise_only, kept.stretch.size(), kept.divider_stretch.size(), options.quantiles),
                    {}, "measure afresh without --accumulate, then accumulate onto that");
  if (!args.json)
    std::cerr << fmt::format("calibrate: noise, two fixed work quanta in turns on {} cores for {} s\n", options.threads,
                             options.seconds);
  calibrate::NoiseResult noise = calibrate::measure_node_noise(options);
  machine::Noise measured{noise.quantum_s, noise.stretch, noise.divider_stretch};
  measured.spell_s = noise.spell_s;
  kept = args.accumulate ? machine::accumulate_noise(kept, measured) : measured;
  if (machine::physics_findings(m).size() > 0 && !args.allow_implausible)
    check_physics(m, args, fmt::format("the refreshed '{}'", args.output));
  machine::write_machine_file(m, args.output);
  if (args.json) {
    nlohmann::json j = calibrate::noise_json(noise);
    // What the file now holds: the measurement, or the average it went into.
    j["file_noise"] = {{"probes", kept.probes},
                       {"mean_stretch", kept.mean()},
                       {"stretch_quantiles", kept.stretch},
                       {"divider_stretch_quantiles", kept.divider_stretch},
                       {"spell_s", kept.spell_s}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << fmt::format("wrote {}: noise of {} quanta of {} on {} cores: mean stretch {:.3f}, {:.1f} % of quanta "
                             "above 1.25x\n",
                             args.output, noise.samples, units::format(noise.quantum_s, units::Dimension::Seconds, 3),
                             noise.threads, noise.mean_stretch, 100 * noise.slow_fraction);
    std::cout << fmt::format("  a divide-bound quantum in turns with it: mean stretch {:.3f}, {:.1f} % above 1.25x\n",
                             noise.divider_mean_stretch, 100 * noise.divider_slow_fraction);
    std::cout << "  " << calibrate::spell_summary(noise) << "\n";
    if (args.accumulate)
      std::cout << fmt::format("  averaged into the file's noise: {} probes, mean stretch {:.3f} (divider {:.3f}), "
                               "spell {}\n",
                               kept.probes, kept.mean(), kept.divider_mean(),
                               kept.spell_s > 0 ? units::format(kept.spell_s, units::Dimension::Seconds, 3)
                                                : std::string("not measured"));
    if (noise.windows > 0)
      std::cout << fmt::format("  pairs of cores disturbed together in {:.1f} % of 50 ms windows, {:.1f} % if "
                               "independent (predict assumes independent)\n",
                               100 * noise.pairs_disturbed_together, 100 * noise.pairs_if_independent);
  }
}

// On a VM the latency between two cores moves with where the host puts the
// vCPUs (a small message's one-way time can triple between placements,
// minutes apart), while flop rates and bandwidths stay: the
// MPI benchmark alone (20 s; --quick 5 s) refreshes an existing machine file's
// figures measured within this node, written to -o.
void run_network_only(const CalibrateArgs& args, int max_procs) {
  if (args.output.empty())
    throw UserError(fmt::format("--network-only {} needs -o/--output: the refreshed machine file is written there, "
                                "and the original is left as it was",
                                args.network_only),
                    {}, "add -o refreshed.toml (it may be the same path to replace the file)");
  machine::Machine m = machine::load_machine_file(args.network_only);
  check_physics(m, args, fmt::format("'{}'", args.network_only));
  if (max_procs < 2)
    throw UserError(fmt::format("--network-only needs 2 cores for its ping-pong; this process may use {}", max_procs));
  if (!args.json) std::cerr << fmt::format("calibrate: MPI within this node, 2 to {} ranks\n", max_procs);
  calibrate::MpiResult mpi =
      calibrate::measure_mpi(calibrate::calibration_mpi_options(bench_next_to_executable(), max_procs, args.quick));
  // The figures as a full calibration's machine file keeps them.
  const calibrate::NetworkModel measured = calibrate::network_model(mpi);
  const machine::Network before = m.network;
  // One node: its network is this node's. Several: the links between nodes
  // were not measured here and stay as they were.
  const bool one_node = m.node_count() == 1;
  if (args.accumulate && machine::has_measured_curves(before)) {
    m.collectives = machine::accumulate_collectives(m.collectives, before.probes, measured.collectives, 1);
    m.network = machine::accumulate_network(before, measured.network, one_node);
  } else {
    m.collectives = measured.collectives;
    m.network = machine::with_measured_network(before, measured.network, one_node);
  }
  const machine::Network& n = m.network;
  if (machine::physics_findings(m).size() > 0 && !args.allow_implausible)
    check_physics(m, args, fmt::format("the refreshed '{}'", args.output));
  machine::write_machine_file(m, args.output);
  // A halo exchange's step at one size: this probe's and what the file now holds.
  const double probe_512B_s = measured.network.intra_node_exchange.time_at(512, 0);
  const double file_512B_s = n.intra_node_exchange.time_at(512, 0);
  if (args.json) {
    std::cout << nlohmann::json{{"intra_node_latency_s", {{"before", before.intra_node_latency_s},
                                                          {"now", n.intra_node_latency_s}}},
                                {"intra_node_bandwidth_Bps", {{"before", before.intra_node_bandwidth_Bps},
                                                              {"now", n.intra_node_bandwidth_Bps}}},
                                {"collective_tables", m.collectives.size()},
                                {"probes", n.probes},
                                {"exchange_512B_s", {{"probe", probe_512B_s}, {"file", file_512B_s}}}}
                     .dump(2)
              << "\n";
  } else {
    using units::Dimension;
    std::cout << fmt::format("wrote {}: intra-node latency {} (was {}), bandwidth {} (was {}), {} collective tables\n",
                             args.output, units::format(n.intra_node_latency_s, Dimension::Seconds, 3),
                             units::format(before.intra_node_latency_s, Dimension::Seconds, 3),
                             units::format(n.intra_node_bandwidth_Bps, Dimension::BytesPerSecond, 3),
                             units::format(before.intra_node_bandwidth_Bps, Dimension::BytesPerSecond, 3),
                             m.collectives.size());
    if (args.accumulate)
      std::cout << fmt::format("  averaged into the file's network: {} probes; a 512 B exchange step {} (this probe "
                               "{})\n",
                               n.probes, units::format(file_512B_s, Dimension::Seconds, 3),
                               units::format(probe_512B_s, Dimension::Seconds, 3));
  }
}

void run(const CalibrateArgs& args) {
  if (args.accumulate && args.noise_only.empty() && args.network_only.empty())
    throw UserError("--accumulate averages one more measurement into a machine file's noise or network; alone it has "
                    "nothing to measure",
                    {}, "give it with --noise-only FILE or --network-only FILE (and -o)");
  if (!args.noise_only.empty()) return run_noise_only(args);
  if (args.max_procs != 0 && args.max_procs < 2)
    throw UserError(fmt::format("--max-procs {}: the MPI measurements need at least 2 processes", args.max_procs),
                    {}, "set --max-procs 2 or more");
  if (args.max_procs > measure::online_cores())
    throw UserError(fmt::format("--max-procs {} is more than the {} cores here; oversubscribed ranks share cores "
                                "and their times are not timings",
                                args.max_procs, measure::online_cores()),
                    {}, fmt::format("set --max-procs {} or less", measure::online_cores()));
  if (!args.network_only.empty())
    return run_network_only(args, args.max_procs ? args.max_procs : measure::online_cores());
  if (!args.output.empty()) {
    // Checked now rather than after minutes of measuring.
    auto dir = std::filesystem::path(args.output).parent_path();
    if (dir.empty()) dir = ".";
    if (!std::filesystem::is_directory(dir) || ::access(dir.c_str(), W_OK) != 0)
      throw UserError(fmt::format("cannot write '{}': '{}' is not a writable directory", args.output, dir.string()),
                      {}, "give -o/--output a path in an existing, writable directory");
  }
  calibrate::Options options;
  options.quick = args.quick;
  options.max_procs = args.max_procs;
  options.mpi_bench = bench_next_to_executable();
  // The CPU's LLVM name, as analyze names the host's: analyze --machine prices on it.
#ifdef PERFCAST_WITH_ANALYZE
  const analyze::HostCpu cpu = analyze::host_cpu();
  options.cpu = cpu.cpu;
  options.cpu_why = cpu.why;
#else
  options.cpu = "generic";
  options.cpu_why = "perfcast was built without the analyser (LLVM), which names the host's CPU";
#endif

  calibrate::Calibration cal;
  {
    std::unique_ptr<ProgressDisplay> display;
    if (!args.json) display = std::make_unique<ProgressDisplay>();
    cal = calibrate::calibrate(options, [&](const calibrate::Progress& p) {
      if (display) display->show(p);
    });
  }

  // Figures no hardware has are refused: every prediction on the file would
  // inherit them. --json still prints what was measured, findings included.
  if (!cal.findings.empty()) {
    std::string list;
    for (const auto& f : cal.findings) list += "\n  " + machine::describe(f);
    if (!args.allow_implausible) {
      if (args.json) std::cout << calibrate::calibration_json(cal).dump(2) << "\n";
      throw UserError(fmt::format("calibrate measured {} figure{} outside what hardware does; no machine file "
                                  "written:{}",
                                  cal.findings.size(), cal.findings.size() == 1 ? "" : "s", list),
                      {}, "calibrate again on a quieter host, or add --allow-implausible to write the file anyway");
    }
    std::cerr << "perfcast calibrate: warning: writing figures outside what hardware does (--allow-implausible):"
              << list << "\n";
  }
  const machine::MachineFileComments comments = calibrate::machine_file_comments(cal);
  if (!args.output.empty()) machine::write_machine_file(cal.machine, args.output, comments);
  if (args.json) {
    std::cout << calibrate::calibration_json(cal).dump(2) << "\n";
  } else if (args.output.empty()) {
    std::cout << machine::to_toml(cal.machine, {}, comments);
  } else {
    print_summary(cal, args.output);
  }
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto args = std::make_shared<CalibrateArgs>();
  auto* cmd = app.add_subcommand("calibrate",
                                 "Measure this machine (flop rates, memory bandwidth by working set, math function "
                                 "costs, MPI latency, bandwidth and collectives) and write a machine file.");
  cmd->add_option("-o,--output", args->output,
                  "Machine file to write (written whole or not at all); without it the file goes to stdout");
  cmd->add_flag("--quick", args->quick, "Fewer sizes and repeats: well under a minute, rougher figures");
  cmd->add_option("--max-procs", args->max_procs,
                  "Largest process count for the MPI collectives (default: the online cores; more would "
                  "oversubscribe)");
  cmd->add_flag("--json", args->json, "Print every figure, raw curves included, as JSON on stdout; no progress");
  cmd->add_option("--noise-only", args->noise_only,
                  "Measure only the cores' noise (a fixed work quantum timed over and over, 3 s; 0.5 s with "
                  "--quick) and write this machine file with it to -o: a shared host's noise changes by the minute, "
                  "its other figures do not")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--accumulate", args->accumulate,
                "With --noise-only or --network-only: average the measurement into the file's, weighted by its "
                "`probes`, instead of replacing it (docs/machine-format.md)");
  cmd->add_option("--network-only", args->network_only,
                  "Measure only MPI within this node (20 s; 5 s with --quick) and write this machine file with "
                  "it to -o: on a VM those figures move with where the host places the cores")
      ->check(CLI::ExistingFile)
      ->excludes("--noise-only");
  cmd->add_flag("--allow-implausible", args->allow_implausible,
                "Write the file even when a figure is outside what hardware does (a clock above 6.5 GHz, a cache "
                "slower than memory, ...), with a warning; without it calibrate refuses (exit 1)");
  cmd->callback([args] { run(*args); });
}

}  // namespace perfcast::cli
