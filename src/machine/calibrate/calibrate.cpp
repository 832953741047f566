#include "machine/calibrate/calibrate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>

#include <unistd.h>

#include <fmt/format.h>

#include "machine/calibrate/threads.h"
#include "machine/calibrate/timing.h"
#include "machine/calibrate/machine_model.h"
#include "measure/launcher.h"
#include "support/error.h"
#include "support/units.h"
#include "support/utc_time.h"

namespace perfcast::calibrate {

namespace {

constexpr double MiB = 1024.0 * 1024.0;


// Far enough past the last cache that the curve settles on DRAM: four times
// the largest plausible reported cache, and at least 512 MiB, sixteen times
// the L3 a core reaches on most current server CPUs, so an implausible or
// missing L3 figure still leaves room for the DRAM plateau. (Past the L3 the
// curve keeps sinking slowly as the TLB covers less of the arrays; a STREAM
// run uses arrays of this order, so the figures are comparable.)
double available_memory_bytes() {
  long pages = ::sysconf(_SC_AVPHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * page : 1e18;
}

double sweep_limit(const std::vector<ReportedCache>& caches) {
  double limit = std::clamp(4 * last_plausible_cache_bytes(caches), 512 * MiB, 2048 * MiB);
  long pages = ::sysconf(_SC_AVPHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) limit = std::min(limit, 0.25 * static_cast<double>(pages) * page);
  return limit;
}

}  // namespace

std::vector<int> sharing_core_counts(int cores) {
  std::vector<int> counts;
  for (int k = 1; k < cores; k *= 2) counts.push_back(k);
  counts.push_back(std::max(cores, 1));
  return counts;
}

SharingResult measure_sharing(const std::vector<MemoryLevel>& levels, int cores, bool quick) {
  SharingResult out;
  // Each thread on its own allowed CPU: never more threads than those.
  cores = std::min(cores, static_cast<int>(detail::allowed_cpus().size()));
  const std::vector<int> counts = sharing_core_counts(cores);
  const double sample_s = quick ? 0.01 : 0.05;
  const int samples = quick ? 3 : 5;
  const double memory_limit = 0.25 * available_memory_bytes();
  for (size_t i = 1; i < levels.size(); ++i) {
    const MemoryLevel& level = levels[i];
    const bool dram = level.name == "DRAM";
    if (level.name != "L3" && level.name != "L4" && !dram) continue;  // private to a core
    const double inner = levels[i - 1].size_bytes;
    // A working set past the inner level that the level still holds at every
    // core count measured: between the two sizes (geometrically) for a cache
    // split `cores` ways; for DRAM, twice the last cache and at least 64 MiB.
    double per_core = 0;
    std::vector<int> ks;
    if (dram) {
      per_core = std::max(64 * MiB, 2 * inner);
      ks = counts;
    } else {
      const double share = level.size_bytes / cores;
      per_core = share > 1.5 * inner ? std::sqrt(inner * share) : 1.5 * inner;
      for (int k : counts)
        if (per_core * k <= level.size_bytes) ks.push_back(k);
    }
    while (!ks.empty() && per_core * ks.back() > memory_limit) ks.pop_back();
    if (ks.size() < 2) {
      out.notes.push_back(fmt::format("{}: not measured; {} per core at 2 cores {}", level.name,
                                      units::format(per_core, units::Dimension::Bytes, 3),
                                      dram ? "is more memory than this host has free" : "does not fit the level"));
      continue;
    }
    LevelSharing ls{level.name, per_core, ks, bandwidth_per_core_sharing(ks, per_core, sample_s, samples)};
    out.levels.push_back(std::move(ls));
  }
  if (cores >= 2) {
    const int repeats = quick ? 5 : 11;
    out.busy_cores = cores;
    out.clock_alone_Hz = core_clock_Hz_on_cores(1, repeats);
    out.clock_busy_Hz = core_clock_Hz_on_cores(cores, repeats);
  }
  return out;
}

Calibration calibrate(const Options& options, const ProgressCallback& progress) {
  double started = detail::now_s();
  Calibration cal;
  cal.host = host_name();
  cal.cpu_model = cpu_model_name();
  cal.cpu = options.cpu;
  cal.cpu_why = options.cpu_why;
  cal.reported_clock_Hz = cpu_clock_Hz();
  cal.when_utc = utc_now_iso8601();
  cal.quick = options.quick;
  cal.cores = measure::online_cores();
  cal.reported_caches = reported_caches();
  int max_procs = options.max_procs > 0 ? options.max_procs : cal.cores;

  // Checked before anything is measured, so a wrong flag fails at once.
  if (max_procs < 2)
    throw UserError("the MPI measurements need at least 2 processes", {}, "set --max-procs 2 or more");
  if (measure::is_oversubscribed(max_procs))
    throw UserError(fmt::format("--max-procs {} would oversubscribe the {} cores here; ranks sharing a core "
                                "time the scheduler, not MPI",
                                max_procs, cal.cores),
                    {}, fmt::format("set --max-procs {} or less", cal.cores));

  auto procs = process_counts(max_procs, options.quick);
  const int steps = 8 + static_cast<int>(procs.size());
  int step = 0;
  auto report = [&](std::string what, std::string detail = {}) {
    if (progress) progress({step, steps, std::move(what), std::move(detail)});
  };

  ComputeOptions co;
  co.sample_s = options.quick ? 0.01 : 0.1;
  co.samples = options.quick ? 5 : 9;
  co.threads = cal.cores;
  ++step;
  report(fmt::format("flop rates: one core, then all {} cores at once; the core clock", cal.cores));
  cal.compute = measure_compute(co);
  // After the flop kernels: the core has left its idle clock by now.
  cal.clock_probe = probe_core_clock(options.quick ? 7 : 15);
  cal.clock_witnesses = read_clock_witnesses();
  cal.clock_measured = cal.clock_probe.measured();
  cal.clock_Hz = cal.clock_measured ? cal.clock_probe.register_add_Hz : cal.reported_clock_Hz;
  cal.instruction_cycles = measure_instruction_cycles(options.quick ? 3 : 9);

  SweepOptions so;
  so.max_bytes = sweep_limit(cal.reported_caches);
  so.points_per_octave = options.quick ? 2 : 4;
  so.sample_s = options.quick ? 0.002 : 0.01;
  so.samples = options.quick ? 5 : 9;
  ++step;
  std::string what = fmt::format("memory bandwidth sweep, {} to {}", units::format(so.min_bytes, units::Dimension::Bytes, 3),
                                 units::format(so.max_bytes, units::Dimension::Bytes, 3));
  report(what);
  cal.memory.kernel_isa = triad_isa();
  cal.memory.sweep = sweep_bandwidth(so, [&](int i, int n, double bytes) {
    report(what, fmt::format("{}/{}: {}", i + 1, n, units::format(bytes, units::Dimension::Bytes, 3)));
  });
  cal.memory.levels = memory_levels(cal.memory.sweep);

  ++step;
  what = "overlap of in-core work and transfers, per memory level";
  report(what);
  OverlapOptions oo;
  oo.sample_s = options.quick ? 0.003 : 0.01;
  oo.samples = options.quick ? 5 : 15;
  cal.memory.overlap = measure_overlap(cal.memory.levels, oo, [&](int i, int n, const std::string& level) {
    report(what, fmt::format("{}/{}: {}", i + 1, n, level));
  });
  StreamOverlapOptions so_streams;
  so_streams.sample_s = oo.sample_s;
  so_streams.samples = options.quick ? 3 : 9;
  cal.memory.stream_overlap =
      measure_stream_overlap(cal.memory.levels, so_streams, [&](int i, int n, const std::string& level) {
        report(what, fmt::format("by streams {}/{}: {}", i + 1, n, level));
      });

  ++step;
  report(fmt::format("DRAM bandwidth with all {} cores streaming", cal.cores));
  cal.memory.node_bytes_per_thread = std::max(64 * MiB, so.max_bytes / cal.cores);
  cal.memory.node_dram_bandwidth = node_bandwidth(cal.cores, cal.memory.node_bytes_per_thread,
                                                  options.quick ? 0.02 : 0.1, options.quick ? 3 : 5);

  ++step;
  report(fmt::format("sharing: each core's bandwidth from the shared levels and its clock, 1 to {} cores at once",
                     cal.cores));
  cal.sharing = measure_sharing(cal.memory.levels, cal.cores, options.quick);

  ++step;
  report("math functions: sin cos tan exp log sqrt pow");
  MathOptions mo;
  mo.sample_s = options.quick ? 0.005 : 0.03;
  mo.samples = options.quick ? 5 : 9;
  cal.math = measure_math(mo, cal.compute.per_core.double_scalar, cal.compute.per_core.single_scalar);

  ++step;
  report(fmt::format("noise: two fixed work quanta (multiply-adds; divisions), timed in turns on all {} cores",
                     cal.cores));
  cal.noise = measure_node_noise(calibration_noise_options(options.quick));

  cal.mpi = measure_mpi(calibration_mpi_options(options.mpi_bench, max_procs, options.quick), [&](int, int, int p) {
    ++step;
    report(p == 2 ? "MPI: ping-pong and collectives, 2 ranks" : fmt::format("MPI: collectives, {} ranks", p));
  });

  ++step;
  report("writing");
  cal.wall_s = detail::now_s() - started;
  cal.machine = machine_model(cal);
  cal.findings = calibration_findings(cal);
  return cal;
}

std::vector<machine::PhysicsFinding> calibration_findings(const Calibration& cal) {
  std::vector<machine::PhysicsFinding> out = clock_findings(cal.clock_probe, cal.clock_witnesses);
  for (auto& f : machine::physics_findings(cal.machine)) out.push_back(std::move(f));
  return out;
}

}  // namespace perfcast::calibrate
