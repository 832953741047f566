#include "machine/calibrate/calibrate.h"
#include "machine/calibrate/core_clock.h"

#include <algorithm>
#include <chrono>
#include <ctime>

#include <unistd.h>

#include <fmt/format.h>

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
double sweep_limit(const std::vector<ReportedCache>& caches) {
  double limit = std::clamp(4 * last_plausible_cache_bytes(caches), 512 * MiB, 2048 * MiB);
  long pages = ::sysconf(_SC_AVPHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) limit = std::min(limit, 0.25 * static_cast<double>(pages) * page);
  return limit;
}

}  // namespace

Calibration calibrate(const Options& options, const ProgressCallback& progress) {
  double started = detail::now_s();
  Calibration cal;
  cal.host = host_name();
  cal.cpu_model = cpu_model_name();
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
  const int steps = 7 + static_cast<int>(procs.size());
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
  double measured = measured_core_clock_Hz(options.quick ? 7 : 15);
  cal.clock_measured = measured > 0;
  cal.clock_Hz = cal.clock_measured ? measured : cal.reported_clock_Hz;
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
  return cal;
}

}  // namespace perfcast::calibrate
