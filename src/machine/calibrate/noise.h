// How much the machine slows a fixed piece of work down: the noise of its cores.
//
// A fixed work quantum (FWQ, the Sandia/LLNL noise benchmark) timed over and
// over on every core at once, by the wall clock: a quantum that another process
// (on a shared host, a co-tenant on the same physical core) delays takes
// longer than the fastest one. Each core's times over its own fastest are its
// stretches; pooled, their quantiles are the node's noise (machine.h's Noise),
// which `perfcast predict` turns into the expected time of a job whose ranks
// wait for the slowest of them (Hoefler et al., SC'10, inject such noise into
// a simulation for the same reason).
//
// The quantum is L1-resident multiply-adds, loads and stores: throughput-bound,
// so it feels a co-tenant sharing the core's ports, which a latency-bound chain
// (the clock measurement) does not.
#pragma once

#include <vector>

namespace perfcast::calibrate {

struct NoiseOptions {
  double quantum_s = 50e-6;  // the quantum's undisturbed time, about
  double seconds = 2;        // how long every core runs quanta
  int threads = 1;           // cores at once (the ranks of a job are busy together)
  int quantiles = 20;        // how many quantiles to keep
};

struct NoiseResult {
  double quantum_s = 0;         // the median core's fastest quantum
  std::vector<double> stretch;  // quantiles at (i + 0.5) / n of time / fastest time, ascending
  long samples = 0;             // quanta timed, over all cores
  int threads = 0;
  double mean_stretch = 1;      // over every sample
  double slow_fraction = 0;     // share of quanta at more than 1.25x their fastest
};

NoiseResult measure_noise(const NoiseOptions& options);

}  // namespace perfcast::calibrate
