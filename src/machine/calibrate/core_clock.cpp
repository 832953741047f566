#include "machine/calibrate/core_clock.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "machine/calibrate/clock_chains.h"
#include "machine/calibrate/threads.h"
#include "machine/calibrate/timing.h"

namespace perfcast::calibrate {

double ClockProbe::disagreement() const {
  if (!measured()) return 0;
  return std::abs(register_add_Hz - multiply_Hz) / std::min(register_add_Hz, multiply_Hz);
}

bool ClockProbe::moved() const {
  return register_add_Hz > 0 && slowest_register_add_Hz > 0 &&
         slowest_register_add_Hz < (1 - kClockMovedFraction) * register_add_Hz;
}

double ClockProbe::immediate_adds_per_cycle() const {
  return register_add_Hz > 0 ? immediate_add_Hz / register_add_Hz : 0;
}

namespace {

#if defined(__x86_64__)
using Chain = void (*)(std::uint64_t);

// Rounds of the register chain that take about 20 ms, from a short first run.
std::uint64_t sample_rounds() {
  std::uint64_t rounds = 1 << 16;
  for (;;) {
    double t0 = detail::thread_cpu_s();
    detail::register_add_chain(rounds);
    double t = detail::thread_cpu_s() - t0;
    if (t > 0.002 || rounds > (std::uint64_t{1} << 34))
      return static_cast<std::uint64_t>(static_cast<double>(rounds) * 0.02 / std::max(t, 1e-6)) + 1;
    rounds *= 4;
  }
}

// Links of `chain` per second of thread CPU time in one sample.
double links_per_s(Chain chain, std::uint64_t rounds) {
  double t0 = detail::thread_cpu_s();
  chain(rounds);
  double t = detail::thread_cpu_s() - t0;
  return t > 0 ? static_cast<double>(rounds) * detail::kLinksPerRound / t : 0;
}

double best_rate_Hz(std::uint64_t rounds, int repeats) {
  double best = 0;
  for (int r = 0; r < repeats; ++r) best = std::max(best, links_per_s(detail::register_add_chain, rounds));
  return best;
}
#endif

}  // namespace

ClockProbe probe_core_clock(int repeats, int attempts) {
  ClockProbe p;
#if defined(__x86_64__)
  const std::uint64_t rounds = sample_rounds();
  repeats = std::max(repeats, 1);
  for (int a = 0; a < std::max(attempts, 1); ++a, repeats *= 2) {
    ++p.attempts;
    // In turns, so a slow spell of the host slows one sample of each chain
    // rather than every sample of one.
    for (int r = 0; r < repeats; ++r) {
      const double add_Hz = links_per_s(detail::register_add_chain, rounds);
      p.register_add_Hz = std::max(p.register_add_Hz, add_Hz);
      p.slowest_register_add_Hz = p.slowest_register_add_Hz > 0 ? std::min(p.slowest_register_add_Hz, add_Hz) : add_Hz;
      p.multiply_Hz =
          std::max(p.multiply_Hz, detail::kMultiplyCycles * links_per_s(detail::multiply_chain, rounds / 3 + 1));
      p.immediate_add_Hz = std::max(p.immediate_add_Hz, links_per_s(detail::immediate_add_chain, rounds));
    }
    if (p.agree()) break;
  }
#else
  (void)repeats;
  (void)attempts;
#endif
  return p;
}

double core_clock_Hz_on_cores(int threads, int repeats) {
#if defined(__x86_64__)
  const std::uint64_t rounds = sample_rounds();
  std::vector<double> rates(static_cast<size_t>(std::max(threads, 1)));
  detail::run_on_cores(std::max(threads, 1), nullptr,
                       [&](int t) { rates[static_cast<size_t>(t)] = best_rate_Hz(rounds, repeats); });
  return detail::median(rates);
#else
  (void)threads;
  (void)repeats;
  return 0;
#endif
}

}  // namespace perfcast::calibrate
