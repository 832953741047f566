#include "machine/calibrate/core_clock.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "machine/calibrate/threads.h"
#include "machine/calibrate/timing.h"

namespace perfcast::calibrate {

namespace {

constexpr int kAddsPerRound = 32;

#if defined(__x86_64__)
// `rounds` x 32 additions, each waiting for the one before (one register):
// the loop counter and branch run on other ports, beside the chain.
std::uint64_t dependent_adds(std::uint64_t rounds) {
  std::uint64_t x = 0;
  for (std::uint64_t i = 0; i < rounds; ++i) {
    asm volatile(
        "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
        "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
        "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
        "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
        "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0"
        : "+r"(x));
  }
  return x;
}

// Rounds of the chain that take about 20 ms, from a short first run.
std::uint64_t sample_rounds() {
  std::uint64_t rounds = 1 << 16;
  for (;;) {
    double t0 = detail::thread_cpu_s();
    detail::keep(dependent_adds(rounds));
    double t = detail::thread_cpu_s() - t0;
    if (t > 0.002 || rounds > (std::uint64_t{1} << 34))
      return static_cast<std::uint64_t>(static_cast<double>(rounds) * 0.02 / std::max(t, 1e-6)) + 1;
    rounds *= 4;
  }
}

// Additions per second of thread CPU time, the best of `repeats` samples.
double best_rate_Hz(std::uint64_t rounds, int repeats) {
  double best = 0;
  for (int r = 0; r < repeats; ++r) {
    double t0 = detail::thread_cpu_s();
    detail::keep(dependent_adds(rounds));
    double t = detail::thread_cpu_s() - t0;
    if (t > 0) best = std::max(best, static_cast<double>(rounds) * kAddsPerRound / t);
  }
  return best;
}
#endif

}  // namespace

double measured_core_clock_Hz(int repeats) {
#if defined(__x86_64__)
  return best_rate_Hz(sample_rounds(), repeats);
#else
  (void)repeats;
  return 0;
#endif
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
