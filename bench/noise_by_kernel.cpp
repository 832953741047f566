// Does the cores' noise slow every kind of code alike? Four fixed work quanta
// take turns, quantum by quantum, on every core at once, so each sees the same
// moments of the host: the one calibrate writes as noise.stretch (multiply-adds
// and loads in L1: the ports), the one it writes as noise.divider_stretch
// (b / sqrt(a + c): the divider), a latency-bound chain of multiply-adds, and a
// sum streaming from DRAM. Per round it prints each one's mean stretch (time
// over that core's fastest quantum of the kind) and its share of quanta above
// 1.25x.
//
// On the calibration VM a co-tenant shares the physical cores' ports: the
// ports quantum's stretch swings with it while the divider's stays near 1
// (issue 5's note of stop 12). That is why calibrate measures both and
// predict prices a loop's divider-bound share at the divider's noise; the
// chain and the stream say whether latency- and memory-bound code need
// classes of their own.
//
//   build/bench/bench_noise_by_kernel [rounds=6] [seconds per round=4]
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "machine/calibrate/noise.h"

int main(int argc, char** argv) {
  using perfcast::calibrate::NoiseKernel;
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 6;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 4;
  if (rounds < 1 || seconds <= 0) {
    std::fprintf(stderr, "usage: %s [rounds >= 1] [seconds > 0]\n", argv[0]);
    return 2;
  }
  const std::vector<NoiseKernel> kernels = {NoiseKernel::Ports, NoiseKernel::Divider, NoiseKernel::Chain,
                                            NoiseKernel::Stream};
  const char* names[] = {"ports (FMA, L1 loads)", "divider (sqrt, div)", "chain (FMA latency)", "stream (DRAM)"};
  auto options = perfcast::calibrate::calibration_noise_options(false);
  options.seconds = seconds;
  std::printf("%d cores, %.1f s per round, the four quanta in turns; mean stretch (%% of quanta above 1.25x)\n",
              options.threads, seconds);
  std::printf("%5s", "round");
  for (const char* n : names) std::printf(" | %-22s", n);
  std::printf("\n");
  std::vector<double> sum(kernels.size(), 0);
  for (int r = 1; r <= rounds; ++r) {
    auto results = perfcast::calibrate::measure_noise(options, kernels);
    std::printf("%5d", r);
    for (size_t k = 0; k < results.size(); ++k) {
      std::printf(" | %6.3f (%4.1f %%) %5.0f us", results[k].mean_stretch, 100 * results[k].slow_fraction,
                  results[k].quantum_s * 1e6);
      sum[k] += results[k].mean_stretch;
    }
    std::printf("\n");
  }
  std::printf("%5s", "mean");
  for (double s : sum) std::printf(" | %6.3f %15s", s / rounds, "");
  std::printf("\n");
  return 0;
}
