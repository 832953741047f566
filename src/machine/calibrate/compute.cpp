// Compiled with -ffp-contract=fast (see CMakeLists.txt) so that a*b + c on the
// vector types below becomes one fused multiply-add where the target has one.
#include "machine/calibrate/compute.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "machine/calibrate/threads.h"
#include "machine/calibrate/timing.h"

namespace perfcast::calibrate {

namespace {

using detail::median;
using detail::thread_cpu_s;

// Independent accumulators per kernel: at least latency x pipes of the FMA
// unit (4 x 2 on current x86), but few enough to stay in registers (32 with
// AVX-512, 16 otherwise, minus the two constants).
template <typename V, typename E, int Chains>
[[gnu::always_inline]] inline double fma_chains(std::int64_t iters) {
  const V b = V{} + E(0.9999999);
  const V c = V{} + E(1e-7);
  V acc[Chains];
  for (int k = 0; k < Chains; ++k) acc[k] = V{} + E(1 + 0.01 * k);
  for (std::int64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 16
    for (int k = 0; k < Chains; ++k) acc[k] = acc[k] * b + c;
  }
  V sum = acc[0];
#pragma GCC unroll 16
  for (int k = 1; k < Chains; ++k) sum += acc[k];
  if constexpr (std::is_same_v<V, E>) {
    return sum;
  } else {
    double s = 0;
    for (unsigned l = 0; l < sizeof(V) / sizeof(E); ++l) s += sum[l];
    return s;
  }
}

using f64x2 = double __attribute__((vector_size(16)));
using f32x4 = float __attribute__((vector_size(16)));
using f64x4 = double __attribute__((vector_size(32)));
using f32x8 = float __attribute__((vector_size(32)));
using f64x8 = double __attribute__((vector_size(64)));
using f32x16 = float __attribute__((vector_size(64)));

using KernelFn = double (*)(std::int64_t);

#if defined(__x86_64__) || defined(__i386__)
// flatten inlines the generic body into each function, where it is compiled
// for that function's target.
#define PERFCAST_FMA_KERNEL(name, target_isa, V, E, chains) \
  __attribute__((target(target_isa), noinline, flatten)) double name(std::int64_t iters) { \
    return fma_chains<V, E, chains>(iters);                                              \
  }
PERFCAST_FMA_KERNEL(avx512_double, "avx512f,avx2,fma", f64x8, double, 16)
PERFCAST_FMA_KERNEL(avx512_single, "avx512f,avx2,fma", f32x16, float, 16)
PERFCAST_FMA_KERNEL(avx2_double, "avx2,fma", f64x4, double, 12)
PERFCAST_FMA_KERNEL(avx2_single, "avx2,fma", f32x8, float, 12)
PERFCAST_FMA_KERNEL(sse2_double, "sse2", f64x2, double, 12)
PERFCAST_FMA_KERNEL(sse2_single, "sse2", f32x4, float, 12)
PERFCAST_FMA_KERNEL(scalar_fma_double, "fma", double, double, 12)
PERFCAST_FMA_KERNEL(scalar_fma_single, "fma", float, float, 12)
PERFCAST_FMA_KERNEL(scalar_double, "sse2", double, double, 12)
PERFCAST_FMA_KERNEL(scalar_single, "sse2", float, float, 12)
#undef PERFCAST_FMA_KERNEL
#else
[[gnu::noinline]] double scalar_double(std::int64_t n) { return fma_chains<double, double, 12>(n); }
[[gnu::noinline]] double scalar_single(std::int64_t n) { return fma_chains<float, float, 12>(n); }
#endif

struct Kernel {
  const char* name;
  KernelFn fn;
  int lanes;
  int chains;
  bool fused;
  bool single;
  bool simd;
  int width_rank;  // wider SIMD first; used to measure only the two widest
};

std::vector<Kernel> supported_kernels() {
  std::vector<Kernel> ks;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  bool fma = __builtin_cpu_supports("fma");
  if (__builtin_cpu_supports("avx512f") && fma) {
    ks.push_back({"avx512 double", avx512_double, 8, 16, true, false, true, 3});
    ks.push_back({"avx512 single", avx512_single, 16, 16, true, true, true, 3});
  }
  if (__builtin_cpu_supports("avx2") && fma) {
    ks.push_back({"avx2 double", avx2_double, 4, 12, true, false, true, 2});
    ks.push_back({"avx2 single", avx2_single, 8, 12, true, true, true, 2});
  }
  ks.push_back({"sse2 double", sse2_double, 2, 12, false, false, true, 1});
  ks.push_back({"sse2 single", sse2_single, 4, 12, false, true, true, 1});
  if (fma) {
    ks.push_back({"scalar double", scalar_fma_double, 1, 12, true, false, false, 0});
    ks.push_back({"scalar single", scalar_fma_single, 1, 12, true, true, false, 0});
  } else {
    ks.push_back({"scalar double", scalar_double, 1, 12, false, false, false, 0});
    ks.push_back({"scalar single", scalar_single, 1, 12, false, true, false, 0});
  }
#else
  ks.push_back({"scalar double", scalar_double, 1, 12, false, false, false, 0});
  ks.push_back({"scalar single", scalar_single, 1, 12, false, true, false, 0});
#endif
  return ks;
}

double flops_per_iteration(const Kernel& k) { return 2.0 * k.lanes * k.chains; }

// Iterations for one run of about `seconds`, found by doubling.
std::int64_t iterations_for(const Kernel& k, double seconds) {
  std::int64_t iters = 1 << 12;
  for (;;) {
    double t0 = thread_cpu_s();
    detail::keep(k.fn(iters));
    double t = thread_cpu_s() - t0;
    if (t >= seconds / 4 || iters > (std::int64_t(1) << 40)) {
      double scale = seconds / std::max(t, 1e-9);
      return std::max<std::int64_t>(1, static_cast<std::int64_t>(iters * scale));
    }
    iters *= 4;
  }
}

double single_core_sample(const Kernel& k, std::int64_t iters) {
  double t0 = thread_cpu_s();
  detail::keep(k.fn(iters));
  return flops_per_iteration(k) * iters / (thread_cpu_s() - t0);
}

// All threads run the same kernel at once; the node's rate is the sum of each
// thread's flops over its own CPU time (see detail::thread_cpu_s).
double node_rate(const Kernel& k, std::int64_t iters, int threads, int samples) {
  std::vector<double> rates;
  for (int s = 0; s < samples; ++s) {
    auto spans = detail::run_on_cores(threads, nullptr, [&](int) { detail::keep(k.fn(iters)); });
    double rate = 0;
    for (const auto& sp : spans) rate += flops_per_iteration(k) * iters / sp.cpu_s;
    rates.push_back(rate);
  }
  return median(rates);
}

}  // namespace

ComputeResult measure_compute(const ComputeOptions& options) {
  ComputeResult result;
  result.threads = std::max(1, options.threads);
  auto kernels = supported_kernels();
  int widest = 0;
  for (const auto& k : kernels) widest = std::max(widest, k.width_rank);

  // The best of the two widest SIMD kernels: on some CPUs the widest one runs
  // at a lower clock and the next one wins.
  std::vector<std::pair<const Kernel*, std::int64_t>> measured;
  for (const auto& k : kernels)
    if (!k.simd || k.width_rank >= widest - 1) measured.emplace_back(&k, 0);

  // Warm-up: the first wide kernel after idling runs slower while the core's
  // clock and power state settle.
  for (double until = thread_cpu_s() + 3 * options.sample_s; thread_cpu_s() < until;)
    detail::keep(measured.front().first->fn(1 << 16));
  for (auto& [k, iters] : measured) iters = iterations_for(*k, options.sample_s);

  // Rounds over all kernels rather than all samples of one kernel in a row,
  // so a burst of load from another process hits one sample of each, not
  // every sample of one.
  std::vector<std::vector<double>> samples(measured.size());
  for (int s = 0; s < options.samples; ++s)
    for (std::size_t i = 0; i < measured.size(); ++i)
      samples[i].push_back(single_core_sample(*measured[i].first, measured[i].second));

  const Kernel* best[2][2] = {{nullptr, nullptr}, {nullptr, nullptr}};  // [single][simd]
  double best_rate[2][2] = {{0, 0}, {0, 0}};
  for (std::size_t i = 0; i < measured.size(); ++i) {
    const Kernel& k = *measured[i].first;
    double rate = median(samples[i]);
    result.kernels.push_back({k.name, k.lanes, k.fused, rate, 0});
    if (rate > best_rate[k.single][k.simd]) {
      best_rate[k.single][k.simd] = rate;
      best[k.single][k.simd] = &k;
    }
  }
  result.per_core = {best_rate[0][1], best_rate[1][1], best_rate[0][0], best_rate[1][0]};
  if (best[0][1]) result.simd_double = best[0][1]->name;
  if (best[1][1]) result.simd_single = best[1][1]->name;

  double* node_slot[2][2] = {{&result.node.double_scalar, &result.node.double_simd},
                             {&result.node.single_scalar, &result.node.single_simd}};
  for (auto& [k, iters] : measured) {
    if (best[k->single][k->simd] != k) continue;
    double rate = node_rate(*k, iters, result.threads, options.samples);
    *node_slot[k->single][k->simd] = rate;
    for (auto& kr : result.kernels)
      if (kr.name == k->name) kr.node = rate;
  }
  return result;
}

}  // namespace perfcast::calibrate
