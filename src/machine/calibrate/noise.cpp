#include "machine/calibrate/noise.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>
#include <vector>

#include "machine/calibrate/threads.h"
#include "machine/calibrate/timing.h"
#include "measure/launcher.h"

namespace perfcast::calibrate {

namespace {

constexpr int kElements = 512;  // three arrays of 4 KiB: in L1 on every core we know

struct Quantum {
  alignas(64) double a[kElements];
  alignas(64) double b[kElements];
  alignas(64) double c[kElements];
  Quantum() {
    for (int i = 0; i < kElements; ++i) {
      a[i] = 1.0 / (i + 1);
      b[i] = 0.5;
      c[i] = 1e-3;
    }
  }
  // 64 MiB, beyond any cache we know; allocated by the first Stream quantum.
  std::vector<double> far;
  size_t far_at = 0;
  double chain = 0;

  // `passes` sweeps. Ports: a[i] = b[i] + c[i] * a[i], independent across i,
  // the core's FMA and load ports set its speed. Divider: a[i] = b[i] /
  // sqrt(a[i] + c[i]) (stays near 0.63), the divide/square-root unit does.
  // Chain: one dependent multiply-add per element, its latency does. Stream:
  // the sum of the next 32 KiB of `far`, DRAM does.
  void run(long passes, NoiseKernel kernel) {
    if (kernel == NoiseKernel::Stream && far.empty()) far.assign(size_t{8} << 20, 1e-3);
    for (long p = 0; p < passes; ++p) {
      switch (kernel) {
        case NoiseKernel::Ports:
          for (int i = 0; i < kElements; ++i) a[i] = b[i] + c[i] * a[i];
          detail::keep(a);
          break;
        case NoiseKernel::Divider:
          for (int i = 0; i < kElements; ++i) a[i] = b[i] / std::sqrt(a[i] + c[i]);
          detail::keep(a);
          break;
        case NoiseKernel::Chain:
          for (int i = 0; i < kElements; ++i) chain = chain * c[i] + b[i];
          detail::keep(chain);
          break;
        case NoiseKernel::Stream: {
          double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
          if (far_at + 4096 > far.size()) far_at = 0;
          const double* x = far.data() + far_at;
          for (int i = 0; i < 4096; i += 4) {
            s0 += x[i];
            s1 += x[i + 1];
            s2 += x[i + 2];
            s3 += x[i + 3];
          }
          far_at += 4096;
          chain += s0 + s1 + s2 + s3;
          detail::keep(chain);
          break;
        }
      }
    }
  }
};

double quantile(const std::vector<double>& sorted, double q) {
  double pos = q * static_cast<double>(sorted.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

}  // namespace

void pair_disturbance(const std::vector<std::vector<double>>& times, const std::vector<std::vector<double>>& starts,
                      const std::vector<double>& fastest, NoiseResult& result, double window_s) {
  const size_t cores = times.size();
  if (cores < 2) return;
  double t0 = 1e300, t1 = -1e300;
  for (size_t c = 0; c < cores; ++c) {
    if (starts[c].empty()) return;
    t0 = std::min(t0, starts[c].front());
    t1 = std::max(t1, starts[c].back());
  }
  const size_t windows = static_cast<size_t>((t1 - t0) / window_s) + 1;
  std::vector<std::vector<char>> disturbed(cores, std::vector<char>(windows, 0));
  for (size_t c = 0; c < cores; ++c) {
    std::vector<int> slow(windows, 0), all(windows, 0);
    for (size_t i = 0; i < times[c].size(); ++i) {
      size_t w = static_cast<size_t>((starts[c][i] - t0) / window_s);
      ++all[w];
      slow[w] += times[c][i] > 1.25 * fastest[c];
    }
    for (size_t w = 0; w < windows; ++w) disturbed[c][w] = all[w] > 0 && 5 * slow[w] > all[w];
  }
  double together = 0, independent = 0;
  int pairs = 0;
  for (size_t a = 0; a < cores; ++a)
    for (size_t b = a + 1; b < cores; ++b) {
      double both = 0, pa = 0, pb = 0;
      for (size_t w = 0; w < windows; ++w) {
        both += disturbed[a][w] && disturbed[b][w];
        pa += disturbed[a][w];
        pb += disturbed[b][w];
      }
      together += both / static_cast<double>(windows);
      independent += (pa / static_cast<double>(windows)) * (pb / static_cast<double>(windows));
      ++pairs;
    }
  result.windows = static_cast<long>(windows);
  result.pairs_disturbed_together = together / pairs;
  result.pairs_if_independent = independent / pairs;
}

Autocorrelation integrated_autocorrelation(const std::vector<double>& series) {
  Autocorrelation result;
  const size_t n = series.size();
  const size_t max_lag = n / 10;
  double mean = 0;
  for (double x : series) mean += x;
  mean /= static_cast<double>(std::max<size_t>(n, 1));
  std::vector<double> centred(n);
  double variance = 0;
  for (size_t i = 0; i < n; ++i) {
    centred[i] = series[i] - mean;
    variance += centred[i] * centred[i];
  }
  // A constant series has nothing that persists: its quanta are alike at any lag, and no mean of them varies.
  if (!(variance > 0)) return result;
  double sum = 0;
  for (size_t lag = 1; lag <= max_lag; ++lag) {
    double covariance = 0;
    for (size_t i = 0; i + lag < n; ++i) covariance += centred[i] * centred[i + lag];
    // The biased estimate (over n, not n - lag): the usual one for this sum, smaller at long lags.
    const double rho = covariance / variance;
    if (rho < 0.05) {
      result.tau = 1 + 2 * sum;
      return result;
    }
    sum += rho;
    result.lags = lag;
  }
  result.bounded = true;
  result.tau = 1 + 2 * sum;
  return result;
}

NoiseOptions calibration_noise_options(bool quick) {
  NoiseOptions options;
  options.threads = measure::online_cores();
  options.seconds = quick ? 0.5 : 3;
  return options;
}

namespace {

// Each core's quantum times and start times: the pooled stretches' quantiles,
// and whether the cores were disturbed together.
NoiseResult summarise(const std::vector<std::vector<double>>& times, const std::vector<std::vector<double>>& starts,
                      int quantiles) {
  NoiseResult result;
  result.threads = static_cast<int>(times.size());
  std::vector<double> fastest(times.size(), 0);
  std::vector<double> stretch;
  for (size_t t = 0; t < times.size(); ++t) {
    if (times[t].empty()) continue;
    fastest[t] = *std::min_element(times[t].begin(), times[t].end());
    for (double x : times[t]) stretch.push_back(x / fastest[t]);
  }
  if (stretch.empty()) return result;
  std::sort(stretch.begin(), stretch.end());
  std::vector<double> f = fastest;
  std::sort(f.begin(), f.end());
  result.quantum_s = f[f.size() / 2];
  result.samples = static_cast<long>(stretch.size());
  double sum = 0;
  long slow = 0;
  for (double s : stretch) {
    sum += s;
    slow += s > 1.25;
  }
  result.mean_stretch = sum / static_cast<double>(stretch.size());
  result.slow_fraction = static_cast<double>(slow) / static_cast<double>(stretch.size());
  int n = std::max(1, quantiles);
  for (int i = 0; i < n; ++i) result.stretch.push_back(quantile(stretch, (i + 0.5) / n));
  pair_disturbance(times, starts, fastest, result, 0.05);
  // The spell, core by core: a core's state is its own (cores differ at the
  // same moment), so its series is never pooled with another's. The series'
  // samples lie `interval` apart (the kernels take turns, and a stretched
  // quantum takes longer), a rank's consecutive quanta one quantum apart: a
  // correlation that lasts many samples spans (tau - 1) * interval seconds,
  // and a rank's own quanta hold tau_rank = 1 + (tau - 1) * interval /
  // quantum of them. So the spell is quantum + (tau - 1) * interval: one
  // quantum, as before spells were measured, where the samples are independent.
  std::vector<std::pair<double, double>> spells;  // seconds, tau
  for (size_t t = 0; t < times.size(); ++t) {
    if (times[t].size() < 20) continue;
    const Autocorrelation a = integrated_autocorrelation(times[t]);
    const double interval_s = (starts[t].back() - starts[t].front()) / static_cast<double>(starts[t].size() - 1);
    spells.push_back({fastest[t] + (a.tau - 1) * interval_s, a.tau});
    result.spell_bounded_cores += a.bounded;
  }
  if (!spells.empty()) {
    std::sort(spells.begin(), spells.end());
    std::tie(result.spell_s, result.spell_quanta) = spells[spells.size() / 2];
  }
  return result;
}

// Passes of `kernel` that take about `quantum_s`, from the fastest of a few trials.
long passes_for(Quantum& q, NoiseKernel kernel, double quantum_s) {
  long p = 16;
  for (;;) {
    double best = 1e30;
    for (int trial = 0; trial < 20; ++trial) {
      double t0 = detail::now_s();
      q.run(p, kernel);
      best = std::min(best, detail::now_s() - t0);
    }
    if (best >= quantum_s / 4 || p > (1L << 30))
      return std::max(1L, static_cast<long>(static_cast<double>(p) * quantum_s / std::max(best, 1e-9)));
    p *= 4;
  }
}

}  // namespace

std::vector<NoiseResult> measure_noise(const NoiseOptions& options, const std::vector<NoiseKernel>& kernels) {
  const size_t threads = static_cast<size_t>(std::max(1, options.threads));
  const size_t k = kernels.size();
  std::vector<Quantum> data(threads);
  // By kernel, then core.
  std::vector<std::vector<std::vector<double>>> times(k, std::vector<std::vector<double>>(threads)), starts = times;

  detail::run_on_cores(
      static_cast<int>(threads), nullptr,
      [&](int t) {
        const size_t c = static_cast<size_t>(t);
        Quantum& q = data[c];
        std::vector<long> passes;
        for (NoiseKernel kernel : kernels) passes.push_back(passes_for(q, kernel, options.quantum_s));
        // The kernels take turns, quantum by quantum, so each sees the same
        // moments of the host; timed by the wall clock (noise includes the
        // time a core is taken away).
        double end = detail::now_s() + options.seconds;
        for (double now = detail::now_s(); now < end;)
          for (size_t i = 0; i < k; ++i) {
            q.run(passes[i], kernels[i]);
            double after = detail::now_s();
            times[i][c].push_back(after - now);
            starts[i][c].push_back(now);
            now = after;
          }
      });

  std::vector<NoiseResult> results;
  for (size_t i = 0; i < k; ++i) results.push_back(summarise(times[i], starts[i], options.quantiles));
  return results;
}

NoiseResult measure_node_noise(const NoiseOptions& options) {
  std::vector<NoiseResult> both = measure_noise(options, {NoiseKernel::Ports, NoiseKernel::Divider});
  NoiseResult ports = both[0];
  ports.divider_stretch = both[1].stretch;
  ports.divider_mean_stretch = both[1].mean_stretch;
  ports.divider_slow_fraction = both[1].slow_fraction;
  return ports;
}

}  // namespace perfcast::calibrate
