#include "machine/calibrate/overlap.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <new>

#include "machine/calibrate/timing.h"

namespace perfcast::calibrate {

namespace {

using detail::median;
using detail::thread_cpu_s;

using f64x2 = double __attribute__((vector_size(16), may_alias));
using f64x4 = double __attribute__((vector_size(32), may_alias));

// The triad with K dependent multiply-adds on the loaded value: the in-core
// work grows with K, the memory traffic does not.
template <typename V>
[[gnu::always_inline]] inline void kernel_body(double* __restrict a, const double* __restrict b,
                                               const double* __restrict c, std::size_t n, int k) {
  constexpr std::size_t lanes = sizeof(V) / sizeof(double);
  const V s = V{} + 3.0, c1 = V{} + 0.999, c2 = V{} + 0.001;
  for (std::size_t i = 0; i < n; i += lanes) {
    V v = *reinterpret_cast<const V*>(b + i);
    for (int j = 0; j < k; ++j) v = v * c1 + c2;
    *reinterpret_cast<V*>(a + i) = v + s * *reinterpret_cast<const V*>(c + i);
  }
}

using KernelFn = void (*)(double*, const double*, const double*, std::size_t, int);

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx2,fma"), noinline)) void kernel_avx2(double* a, const double* b, const double* c,
                                                               std::size_t n, int k) {
  kernel_body<f64x4>(a, b, c, n, k);
}
#endif
[[gnu::noinline]] void kernel_base(double* a, const double* b, const double* c, std::size_t n, int k) {
  kernel_body<f64x2>(a, b, c, n, k);
}

KernelFn choose_kernel() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return kernel_avx2;
#endif
  return kernel_base;
}

struct FreeDeleter {
  void operator()(double* p) const { std::free(p); }
};
using Array = std::unique_ptr<double[], FreeDeleter>;

Array allocate(std::size_t elements) {
  std::size_t bytes = (elements * sizeof(double) + 4095) / 4096 * 4096;
  auto* p = static_cast<double*>(std::aligned_alloc(4096, std::max<std::size_t>(bytes, 4096)));
  if (!p) throw std::bad_alloc();
  return Array(p);
}

// Three arrays of n elements (n a multiple of 64, so no vector remainder).
class Kernel {
 public:
  explicit Kernel(double working_set_bytes)
      : n_(std::max<std::size_t>(64, static_cast<std::size_t>(working_set_bytes / 24) / 64 * 64)),
        a_(allocate(n_)),
        b_(allocate(n_)),
        c_(allocate(n_)),
        fn_(choose_kernel()) {
    for (std::size_t i = 0; i < n_; ++i) a_[i] = 0, b_[i] = 1.0 + static_cast<double>(i % 7), c_[i] = 0.5;
  }

  // Seconds per element with `k`, median over samples of at least sample_s.
  double per_element_s(int k, const OverlapOptions& o) {
    fn_(a_.get(), b_.get(), c_.get(), n_, k);  // warm-up: the arrays move into their level
    double t0 = thread_cpu_s();
    fn_(a_.get(), b_.get(), c_.get(), n_, k);
    long passes = std::max(1L, static_cast<long>(std::ceil(o.sample_s / std::max(thread_cpu_s() - t0, 1e-8))));
    std::vector<double> times;
    for (int s = 0; s < std::max(1, o.samples); ++s) {
      double start = thread_cpu_s();
      for (long p = 0; p < passes; ++p) fn_(a_.get(), b_.get(), c_.get(), n_, k);
      times.push_back((thread_cpu_s() - start) / static_cast<double>(passes * static_cast<long>(n_)));
      detail::keep(a_[n_ / 2]);
    }
    return median(times);
  }

 private:
  std::size_t n_;
  Array a_, b_, c_;
  KernelFn fn_;
};

// Where to measure a level: the middle of its plateau in the sweep (on a log
// scale), well inside it on both sides.
double working_set_in(const MemoryLevel& level) {
  if (level.from_bytes > 0 && level.to_bytes > level.from_bytes) return std::sqrt(level.from_bytes * level.to_bytes);
  return level.size_bytes > 0 ? level.size_bytes / 2 : 256.0 * 1024 * 1024;
}

}  // namespace

double serial_fraction_of(const std::vector<OverlapPoint>& points) {
  if (points.empty()) return 0;
  std::vector<double> f;
  for (const auto& p : points) f.push_back(p.fraction);
  return std::clamp(median(f), 0.0, 1.0);
}

std::vector<LevelOverlap> measure_overlap(const std::vector<MemoryLevel>& levels, const OverlapOptions& options,
                                          const std::function<void(int, int, const std::string&)>& progress) {
  std::vector<LevelOverlap> out;
  if (levels.size() < 2) return out;
  // In-core time by K, arrays well inside L1.
  const std::vector<int> ladder = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128};
  Kernel in_l1(std::max(3.0 * 64 * 8, 0.4 * working_set_in(levels.front())));
  std::vector<double> core(ladder.size());
  for (std::size_t i = 0; i < ladder.size(); ++i) core[i] = in_l1.per_element_s(ladder[i], options);

  for (std::size_t l = 1; l < levels.size(); ++l) {
    if (progress) progress(static_cast<int>(l - 1), static_cast<int>(levels.size() - 1), levels[l].name);
    LevelOverlap lo;
    lo.level = levels[l].name;
    lo.working_set_bytes = working_set_in(levels[l]);
    Kernel in_level(lo.working_set_bytes);
    lo.memory_s = in_level.per_element_s(0, options);
    // The K whose in-core time is within a factor of 2 of the transfer time,
    // nearest first: at balance the two terms differ most between overlap and none.
    std::vector<std::size_t> near;
    for (std::size_t i = 0; i < ladder.size(); ++i) {
      double ratio = core[i] / lo.memory_s;
      if (ratio >= 0.5 && ratio <= 2) near.push_back(i);
    }
    std::sort(near.begin(), near.end(), [&](std::size_t x, std::size_t y) {
      return std::abs(std::log(core[x] / lo.memory_s)) < std::abs(std::log(core[y] / lo.memory_s));
    });
    if (near.size() > 4) near.resize(4);
    for (std::size_t i : near) {
      OverlapPoint p;
      p.k = ladder[i];
      p.core_s = core[i];
      p.both_s = in_level.per_element_s(p.k, options);
      p.fraction = (p.both_s - std::max(p.core_s, lo.memory_s)) / std::min(p.core_s, lo.memory_s);
      lo.points.push_back(p);
    }
    std::sort(lo.points.begin(), lo.points.end(), [](const auto& x, const auto& y) { return x.k < y.k; });
    lo.measured = !lo.points.empty();
    lo.serial_fraction = serial_fraction_of(lo.points);
    out.push_back(std::move(lo));
  }
  return out;
}

}  // namespace perfcast::calibrate
