#include "machine/calibrate/clock_witnesses.h"

#include <fmt/format.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "machine/calibrate/clock_chains.h"
#include "machine/calibrate/system.h"
#include "machine/calibrate/timing.h"
#include "support/units.h"

namespace perfcast::calibrate {

namespace {

double monotonic_raw_s() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// TSC ticks over 20 ms of the raw monotonic clock, the median of three: both
// count through a preemption alike, so the ratio holds however loaded the core.
double measured_tsc_Hz() {
#if defined(__x86_64__)
  std::vector<double> rates;
  for (int i = 0; i < 3; ++i) {
    const double t0 = monotonic_raw_s();
    const unsigned long long c0 = __rdtsc();
    double t = t0;
    while (t - t0 < 0.02) t = monotonic_raw_s();
    const unsigned long long c1 = __rdtsc();
    if (c1 > c0) rates.push_back(static_cast<double>(c1 - c0) / (t - t0));
  }
  return detail::median(rates);
#else
  return 0;
#endif
}

bool cpuinfo_flag(const std::string& flag) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("flags", 0) == 0) return (line + " ").find(" " + flag + " ") != std::string::npos;
  return false;
}

// A cpufreq file of cpu0, in kHz; 0 when unreadable.
double cpufreq_Hz(const char* file) {
  std::ifstream in(std::string("/sys/devices/system/cpu/cpu0/cpufreq/") + file);
  double khz = 0;
  if (!(in >> khz) || khz <= 0) return 0;
  return khz * 1e3;
}

// The cycles this thread's register add chain takes, counted by the PMU.
void read_perf_cycles(ClockWitnesses& w) {
#if defined(__x86_64__)
  perf_event_attr attr{};
  attr.type = PERF_TYPE_HARDWARE;
  attr.size = sizeof attr;
  attr.config = PERF_COUNT_HW_CPU_CYCLES;
  attr.disabled = 1;
  attr.exclude_kernel = 1;  // allowed at perf_event_paranoid 2; the chain runs in user space
  attr.exclude_hv = 1;
  const int fd = static_cast<int>(::syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
  if (fd < 0) {
    const int err = errno;
    w.perf_note = fmt::format("perf_event_open for CPU cycles: {}{}", std::strerror(err),
                              err == ENOENT || err == EOPNOTSUPP ? " (no cycle counter exposed, as in most VMs)"
                              : err == EACCES || err == EPERM    ? " (see /proc/sys/kernel/perf_event_paranoid)"
                                                                 : "");
    return;
  }
  constexpr std::uint64_t kRounds = 1u << 20;  // 32 M adds, about 10 ms
  ::ioctl(fd, PERF_EVENT_IOC_RESET, 0);
  const double t0 = detail::thread_cpu_s();
  ::ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  detail::register_add_chain(kRounds);
  ::ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  const double t = detail::thread_cpu_s() - t0;
  std::uint64_t cycles = 0;
  const bool read_ok = ::read(fd, &cycles, sizeof cycles) == static_cast<ssize_t>(sizeof cycles);
  ::close(fd);
  if (!read_ok || cycles == 0 || t <= 0) {
    w.perf_note = "perf_event_open for CPU cycles: the counter opened but counted nothing";
    return;
  }
  w.perf_cycles_Hz = static_cast<double>(cycles) / t;
  w.perf_cycles_per_add = static_cast<double>(cycles) / (static_cast<double>(kRounds) * detail::kLinksPerRound);
#else
  w.perf_note = "no cycle chain on this target";
#endif
}

std::string hz(double v) { return v > 0 ? units::format(v, units::Dimension::Hertz, 4) : std::string("unreadable"); }

}  // namespace

ClockWitnesses read_clock_witnesses() {
  ClockWitnesses w;
  w.tsc_Hz = measured_tsc_Hz();
  w.constant_tsc = cpuinfo_flag("constant_tsc");
  w.cpuinfo_Hz = cpu_clock_Hz();
  w.cpufreq_max_Hz = cpufreq_Hz("cpuinfo_max_freq");
  w.cpufreq_current_Hz = cpufreq_Hz("scaling_cur_freq");
  read_perf_cycles(w);
  return w;
}

std::vector<std::string> witness_lines(const ClockWitnesses& w) {
  std::vector<std::string> out;
  out.push_back(fmt::format("TSC {} against CLOCK_MONOTONIC_RAW ({})", hz(w.tsc_Hz),
                            w.constant_tsc ? "constant_tsc: the nominal clock" : "no constant_tsc flag"));
  out.push_back(fmt::format("/proc/cpuinfo cpu MHz: {}", hz(w.cpuinfo_Hz)));
  out.push_back(fmt::format("cpufreq cpu0: max {}, current {}", hz(w.cpufreq_max_Hz), hz(w.cpufreq_current_Hz)));
  if (w.perf_cycles_Hz > 0)
    out.push_back(fmt::format("perf cycles over the register add chain: {} ({:.2f} cycles per add)",
                              hz(w.perf_cycles_Hz), w.perf_cycles_per_add));
  else
    out.push_back("perf cycles: not read: " + w.perf_note);
  return out;
}

std::vector<machine::PhysicsFinding> clock_findings(const ClockProbe& probe, const ClockWitnesses& w) {
  std::vector<machine::PhysicsFinding> out;
  if (!probe.measured()) return out;
  const double clock = probe.register_add_Hz;
  auto add = [&](std::string bound, std::string reason) {
    out.push_back({"node.clock", hz(clock), std::move(bound), std::move(reason)});
  };
  if (!probe.agree())
    add(fmt::format("within {:.0f} % of {} (dependent multiplies at 3 cycles each)", 100 * kClockChainTolerance,
                    hz(probe.multiply_Hz)),
        fmt::format("a dependent register add takes one cycle and a dependent 32-bit multiply three on x86-64 "
                    "cores; measured {} times, the two chains still disagree by {:.0f} %, so one of them does not "
                    "run at its assumed rate (a renamer or fusion collapsing it, a core of other latencies, a probe "
                    "disturbed throughout) and neither is the clock",
                    probe.attempts, 100 * probe.disagreement()));
  if (w.perf_cycles_per_add > 0 && std::abs(w.perf_cycles_per_add - 1) > kClockChainTolerance)
    add(fmt::format("one counted cycle per add (perf counted {:.2f}, {})", w.perf_cycles_per_add, hz(w.perf_cycles_Hz)),
        "the cycle counter is the clock's own witness: a chain that does not take one cycle per link does not "
        "time the clock");
  if (w.constant_tsc && w.tsc_Hz > 0 && clock > kMaxClockOverTsc * w.tsc_Hz)
    add(fmt::format("at most {}x the TSC's {}", kMaxClockOverTsc, hz(w.tsc_Hz)),
        "the TSC ticks at the nominal clock and no turbo runs 4x above it; the chain ran several links a cycle");
  if (w.cpufreq_max_Hz > 0 && clock > kMaxClockOverCpufreqMax * w.cpufreq_max_Hz)
    add(fmt::format("at most cpufreq's highest clock {} (+{:.0f} %)", hz(w.cpufreq_max_Hz),
                    100 * (kMaxClockOverCpufreqMax - 1)),
        "the kernel's highest clock for this core is its turbo; the chain ran faster than one link a cycle");
  return out;
}

}  // namespace perfcast::calibrate
