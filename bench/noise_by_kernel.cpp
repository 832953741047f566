// Does the cores' noise slow every kind of code alike? perfcast calibrate's
// noise quantum keeps the FMA and load ports busy; this bench times it beside
// a divider-bound quantum (b / sqrt(a + c)) in alternating rounds on every
// core at once, so both see the same minutes of the host, and prints each
// round's mean stretch and share of disturbed quanta.
//
// On the calibration VM a co-tenant shares the physical cores' ports: the
// ports quantum's stretch swings with it while the divider's stays near 1
// (issue 5's note of stop 12). That is why calibrate now measures both (in
// turns, quantum by quantum: noise.stretch and noise.divider_stretch) and
// predict prices a loop's divider-bound share at the divider's noise.
//
//   build/bench/bench_noise_by_kernel [rounds=6] [seconds per quantum and round=2]
#include <cstdio>
#include <cstdlib>

#include "machine/calibrate/noise.h"

int main(int argc, char** argv) {
  using perfcast::calibrate::NoiseKernel;
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 6;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 2;
  if (rounds < 1 || seconds <= 0) {
    std::fprintf(stderr, "usage: %s [rounds >= 1] [seconds > 0]\n", argv[0]);
    return 2;
  }
  auto options = perfcast::calibrate::calibration_noise_options(false);
  options.seconds = seconds;
  std::printf("%d cores, %.1f s per quantum and round; stretch = time over each core's fastest quantum\n",
              options.threads, seconds);
  std::printf("%5s | %-34s | %-34s\n", "round", "ports (FMA, loads): mean, >1.25x", "divider (sqrt, div): mean, >1.25x");
  double sum_ports = 0, sum_divider = 0;
  for (int r = 1; r <= rounds; ++r) {
    options.kernel = NoiseKernel::Ports;
    auto ports = perfcast::calibrate::measure_noise(options);
    options.kernel = NoiseKernel::Divider;
    auto divider = perfcast::calibrate::measure_noise(options);
    std::printf("%5d | %8.3f  %5.1f %%  (quantum %4.0f us)  | %8.3f  %5.1f %%  (quantum %4.0f us)\n", r,
                ports.mean_stretch, 100 * ports.slow_fraction, ports.quantum_s * 1e6, divider.mean_stretch,
                100 * divider.slow_fraction, divider.quantum_s * 1e6);
    sum_ports += ports.mean_stretch;
    sum_divider += divider.mean_stretch;
  }
  std::printf("mean  | %8.3f                             | %8.3f\n", sum_ports / rounds, sum_divider / rounds);
  return 0;
}
