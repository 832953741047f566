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
// (the clock measurement) does not, and divider-bound code (sqrt, division)
// hardly does either: a second quantum of divisions and square roots, taking
// turns with the first, measures what that code feels.
#pragma once

#include <cstddef>
#include <vector>

namespace perfcast::calibrate {

// What the quantum keeps busy: the pipelined ports (the machine file's
// noise.stretch) or the divider (noise.divider_stretch): a co-tenant sharing
// the core's ports need not share its divider (bench/noise_by_kernel.cpp).
// Chain and Stream are for bench/noise_by_kernel.cpp only: a latency-bound
// chain of multiply-adds, and a sum streaming from DRAM.
enum class NoiseKernel { Ports, Divider, Chain, Stream };

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
  // Are cores disturbed together? Over 50 ms windows and every pair of cores:
  // the share of windows both were disturbed, and what independence would
  // give (the product of each one's share). Close: the independence that
  // predict's expected slowest stretch assumes holds. 0 with one core.
  long windows = 0;
  double pairs_disturbed_together = 0;
  double pairs_if_independent = 0;
  // measure_node_noise only: the divide-bound quantum's, measured in turns
  // with this one (empty otherwise).
  std::vector<double> divider_stretch;
  double divider_mean_stretch = 1;
  double divider_slow_fraction = 0;
  // How long a core's state persists (the machine file's noise.spell): per
  // core, from the integrated autocorrelation time tau of its series of
  // stretches (integrated_autocorrelation), its fastest quantum plus tau - 1
  // times the mean time from one of its quanta's start to the next's (one
  // quantum when its quanta are independent); the median over the cores. 0
  // when no core had a series. `spell_quanta` is the median core's tau,
  // `spell_bounded_cores` how many cores' sums reached a tenth of their series
  // still correlated: there the probe's length bounds the spell, which is
  // then a lower bound.
  double spell_s = 0;
  double spell_quanta = 0;
  int spell_bounded_cores = 0;
};

// How long a series' values stay alike. tau = 1 + 2 * sum of its
// autocorrelation rho(lag) over lags 1, 2, ..., the sum stopped before the
// first lag whose rho is below 0.05 and after a tenth of the series at most
// (further lags are mostly the estimate's own noise). The mean of k
// consecutive values then has the variance of one value's over k / tau.
struct Autocorrelation {
  double tau = 1;        // in samples, >= 1
  size_t lags = 0;       // lags summed
  bool bounded = false;  // stopped by the tenth of the series, not by the cutoff: tau is a lower bound
};
Autocorrelation integrated_autocorrelation(const std::vector<double>& series);

// How calibrate and `calibrate --noise-only` measure: every online core at
// once, 3 s (0.5 s when quick).
NoiseOptions calibration_noise_options(bool quick);

// Kernels taking turns quantum by quantum on every core for options.seconds
// in all: one result per kernel, each having seen the same moments of the
// host. Calibrate measures
// {Ports, Divider}: the machine file's stretch and divider_stretch.
std::vector<NoiseResult> measure_noise(const NoiseOptions& options, const std::vector<NoiseKernel>& kernels);

// What calibrate and --noise-only write: the ports quantum's result with the
// divider quantum's stretches beside it, the two taking turns.
NoiseResult measure_node_noise(const NoiseOptions& options);

// Whether cores are disturbed together or apart, from each core's quantum
// times, their start times and its fastest time: per window of `window_s`, a
// core is disturbed when more than a fifth of its quanta there ran above
// 1.25x its fastest; sets result.windows and the pairs' shares.
void pair_disturbance(const std::vector<std::vector<double>>& times, const std::vector<std::vector<double>>& starts,
                      const std::vector<double>& fastest, NoiseResult& result, double window_s);

}  // namespace perfcast::calibrate
