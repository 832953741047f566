#include "machine/calibrate/bandwidth.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <new>

#include "machine/calibrate/threads.h"
#include "machine/calibrate/page_array.h"
#include "machine/calibrate/timing.h"

namespace perfcast::calibrate {

namespace {

using detail::median;
using detail::thread_cpu_s;

// Elements per array are a multiple of this, so every kernel's vector loop
// needs no remainder.
constexpr std::size_t kGrain = 64;

using f64x2 = double __attribute__((vector_size(16), may_alias));
using f64x4 = double __attribute__((vector_size(32), may_alias));
using f64x8 = double __attribute__((vector_size(64), may_alias));

template <typename V>
[[gnu::always_inline]] inline void triad_body(double* __restrict a, const double* __restrict b,
                                              const double* __restrict c, std::size_t n, double s) {
  constexpr std::size_t lanes = sizeof(V) / sizeof(double);
  const V sv = V{} + s;
#pragma GCC unroll 4
  for (std::size_t i = 0; i < n; i += lanes)
    *reinterpret_cast<V*>(a + i) = *reinterpret_cast<const V*>(b + i) + sv * *reinterpret_cast<const V*>(c + i);
}

using TriadFn = void (*)(double*, const double*, const double*, std::size_t, double);

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx512f,avx2"), noinline, flatten)) void triad_avx512(double* a, const double* b,
                                                                              const double* c, std::size_t n,
                                                                              double s) {
  triad_body<f64x8>(a, b, c, n, s);
}
__attribute__((target("avx2"), noinline, flatten)) void triad_avx2(double* a, const double* b, const double* c,
                                                                   std::size_t n, double s) {
  triad_body<f64x4>(a, b, c, n, s);
}
#endif
[[gnu::noinline]] void triad_base(double* a, const double* b, const double* c, std::size_t n, double s) {
  triad_body<f64x2>(a, b, c, n, s);
}

struct Choice {
  TriadFn fn;
  const char* isa;
};

Choice choose_triad() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return {triad_avx512, "avx512"};
  if (__builtin_cpu_supports("avx2")) return {triad_avx2, "avx2"};
  return {triad_base, "sse2"};
#else
  return {triad_base, "generic"};
#endif
}

using Array = detail::PageArray;
constexpr auto allocate = detail::page_aligned_doubles;

struct Arrays {
  Array a, b, c;
  explicit Arrays(std::size_t n) : a(allocate(n)), b(allocate(n)), c(allocate(n)) {
    for (std::size_t i = 0; i < n; ++i) a[i] = 0, b[i] = 1.0 + i % 7, c[i] = 0.5;
  }
};

std::size_t elements_for(double working_set_bytes) {
  auto n = static_cast<std::size_t>(working_set_bytes / (3 * sizeof(double)));
  return std::max(kGrain, n / kGrain * kGrain);
}

double triad_bytes(std::size_t n) { return 3.0 * sizeof(double) * n; }

}  // namespace

const char* triad_isa() { return choose_triad().isa; }

std::vector<SweepPoint> sweep_bandwidth(const SweepOptions& options, const SweepProgress& progress) {
  auto triad = choose_triad().fn;
  // Sizes on a geometric grid; one allocation for the largest, touched once,
  // so page faults stay out of every timed sample.
  std::vector<std::size_t> sizes;
  double octaves = std::log2(options.max_bytes / options.min_bytes);
  int count = std::max(1, static_cast<int>(std::floor(octaves * options.points_per_octave + 1e-9)) + 1);
  for (int i = 0; i < count; ++i) {
    double bytes = options.min_bytes * std::exp2(static_cast<double>(i) / options.points_per_octave);
    std::size_t n = elements_for(bytes);
    if (sizes.empty() || n != sizes.back()) sizes.push_back(n);
  }
  Arrays arrays(sizes.back());
  double* a = arrays.a.get();
  const double* b = arrays.b.get();
  const double* c = arrays.c.get();

  // One sample per size per round, rounds over the whole sweep: a burst of
  // load from another process then spoils one sample of many sizes instead
  // of every sample of one size, and the median across rounds drops it.
  const int rounds = std::max(1, options.samples);
  const int total = rounds * static_cast<int>(sizes.size());
  std::vector<long> passes(sizes.size(), 0);
  std::vector<std::vector<double>> rates(sizes.size());
  for (int r = 0; r < rounds; ++r) {
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      std::size_t n = sizes[i];
      if (progress) progress(r * static_cast<int>(sizes.size()) + static_cast<int>(i), total, triad_bytes(n));
      // Warm-up: the arrays move into the level under test (the previous,
      // larger, size has pushed them out); the first round also times a pass
      // to size the samples.
      triad(a, b, c, n, 3.0);
      if (passes[i] == 0) {
        double t0 = thread_cpu_s();
        triad(a, b, c, n, 3.0);
        passes[i] = static_cast<long>(std::ceil(options.sample_s / std::max(thread_cpu_s() - t0, 1e-8)));
      }
      double start = thread_cpu_s();
      for (long p = 0; p < passes[i]; ++p) triad(a, b, c, n, 3.0);
      rates[i].push_back(triad_bytes(n) * passes[i] / (thread_cpu_s() - start));
      detail::keep(a[n / 2]);
    }
  }
  std::vector<SweepPoint> sweep;
  for (std::size_t i = 0; i < sizes.size(); ++i) sweep.push_back({triad_bytes(sizes[i]), median(rates[i])});
  return sweep;
}

double node_bandwidth(int threads, double bytes_per_thread, double sample_s, int samples) {
  auto triad = choose_triad().fn;
  threads = std::max(1, threads);
  std::size_t n = elements_for(bytes_per_thread);
  std::vector<std::unique_ptr<Arrays>> arrays(threads);
  std::vector<long> passes(threads, 1);
  // First touch and one warm-up pass on the thread that will stream them, so
  // on a NUMA node the pages sit next to their core; its time sizes a sample.
  detail::run_on_cores(
      threads, [&](int t) { arrays[t] = std::make_unique<Arrays>(n); },
      [&](int t) {
        auto& ar = *arrays[t];
        triad(ar.a.get(), ar.b.get(), ar.c.get(), n, 3.0);
        double t0 = thread_cpu_s();
        triad(ar.a.get(), ar.b.get(), ar.c.get(), n, 3.0);
        passes[t] = std::max(1L, static_cast<long>(std::ceil(sample_s / std::max(thread_cpu_s() - t0, 1e-8))));
      });
  long p = *std::max_element(passes.begin(), passes.end());
  std::vector<double> rates;
  for (int s = 0; s < samples; ++s) {
    auto spans = detail::run_on_cores(threads, nullptr, [&](int t) {
      auto& ar = *arrays[t];
      for (long k = 0; k < p; ++k) triad(ar.a.get(), ar.b.get(), ar.c.get(), n, 3.0);
    });
    // Each thread's rate over its own CPU time, summed. If another process
    // takes a core for a while, the others stream without it meanwhile, so
    // on a busy machine this leans high; the median over samples limits it.
    double rate = 0;
    for (const auto& sp : spans) rate += triad_bytes(n) * p / sp.cpu_s;
    rates.push_back(rate);
  }
  return median(rates);
}

std::vector<double> bandwidth_per_core_sharing(const std::vector<int>& core_counts, double bytes_per_thread,
                                               double sample_s, int samples) {
  if (core_counts.empty()) return {};
  auto triad = choose_triad().fn;
  const int most = core_counts.back();
  std::size_t n = elements_for(bytes_per_thread);
  // Every thread's arrays made once, on its own core (thread t runs on the
  // same allowed CPU at every k), so each k times the streaming alone.
  std::vector<std::unique_ptr<Arrays>> arrays(static_cast<size_t>(most));
  std::vector<long> passes(static_cast<size_t>(most), 1);
  detail::run_on_cores(
      most, [&](int t) { arrays[static_cast<size_t>(t)] = std::make_unique<Arrays>(n); },
      [&](int t) {
        auto& ar = *arrays[static_cast<size_t>(t)];
        triad(ar.a.get(), ar.b.get(), ar.c.get(), n, 3.0);
        double t0 = thread_cpu_s();
        triad(ar.a.get(), ar.b.get(), ar.c.get(), n, 3.0);
        passes[static_cast<size_t>(t)] =
            std::max(1L, static_cast<long>(std::ceil(sample_s / std::max(thread_cpu_s() - t0, 1e-8))));
      });
  // Sized alone, so at k cores a sample lasts longer as each core slows: the
  // cores stay busy together for most of it.
  const long p = *std::max_element(passes.begin(), passes.end());
  std::vector<double> per_core;
  for (int k : core_counts) {
    std::vector<double> by_sample;
    for (int s = 0; s < std::max(1, samples); ++s) {
      // Untimed, before the barrier: a pass that brings each core's arrays
      // back into the level under test.
      auto warm = [&](int t) {
        auto& ar = *arrays[static_cast<size_t>(t)];
        triad(ar.a.get(), ar.b.get(), ar.c.get(), n, 3.0);
      };
      auto spans = detail::run_on_cores(k, warm, [&](int t) {
        auto& ar = *arrays[static_cast<size_t>(t)];
        for (long i = 0; i < p; ++i) triad(ar.a.get(), ar.b.get(), ar.c.get(), n, 3.0);
        detail::keep(ar.a[n / 2]);
      });
      std::vector<double> rates;
      for (const auto& sp : spans) rates.push_back(triad_bytes(n) * p / sp.cpu_s);
      by_sample.push_back(median(rates));
    }
    per_core.push_back(median(by_sample));
  }
  return per_core;
}

}  // namespace perfcast::calibrate
