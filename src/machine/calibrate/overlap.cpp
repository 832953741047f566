#include "machine/calibrate/overlap.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <new>

#include "machine/calibrate/page_array.h"
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

using Array = detail::PageArray;
constexpr auto allocate = detail::page_aligned_doubles;

// Three arrays of n elements (n a multiple of 64, so no vector remainder),
// each starting a few cache lines further into its page than the one before:
// page-aligned arrays make a store and the next loads alias in the low 12
// address bits, which stalls the loads in some working sets and not others.
class Kernel {
 public:
  explicit Kernel(double working_set_bytes)
      : n_(std::max<std::size_t>(64, static_cast<std::size_t>(working_set_bytes / 24) / 64 * 64)),
        a_(allocate(n_ + 3 * kSkew)),
        b_(allocate(n_ + 3 * kSkew)),
        c_(allocate(n_ + 3 * kSkew)),
        a_at_(a_.get() + kSkew),
        b_at_(b_.get() + 2 * kSkew),
        c_at_(c_.get() + 3 * kSkew),
        fn_(choose_kernel()) {
    for (std::size_t i = 0; i < n_; ++i) a_at_[i] = 0, b_at_[i] = 1.0 + static_cast<double>(i % 7), c_at_[i] = 0.5;
  }

  // Seconds per element with `k` over one sample of at least sample_s (the
  // passes per sample are sized on the first call for each k).
  double sample_s(int k, double sample_s) {
    long& passes = passes_[k];
    if (passes == 0) {
      run(k);  // warm-up: the arrays move into their level
      double t0 = thread_cpu_s();
      run(k);
      passes = std::max(1L, static_cast<long>(std::ceil(sample_s / std::max(thread_cpu_s() - t0, 1e-8))));
    }
    run(k);  // the previous sample may have been another kernel's: bring the arrays back
    double start = thread_cpu_s();
    for (long p = 0; p < passes; ++p) run(k);
    double t = (thread_cpu_s() - start) / static_cast<double>(passes * static_cast<long>(n_));
    detail::keep(a_at_[n_ / 2]);
    return t;
  }

 private:
  static constexpr std::size_t kSkew = 8 * 5;  // five cache lines, in doubles
  void run(int k) { fn_(a_at_, b_at_, c_at_, n_, k); }

  std::size_t n_;
  Array a_, b_, c_;
  double *a_at_, *b_at_, *c_at_;
  KernelFn fn_;
  std::map<int, long> passes_;
};

}  // namespace

double overlap_working_set(const MemoryLevel& level) {
  if (level.from_bytes > 0 && level.to_bytes > level.from_bytes) return std::sqrt(level.from_bytes * level.to_bytes);
  return level.size_bytes > 0 ? level.size_bytes / 2 : 256.0 * 1024 * 1024;
}

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
  const double sample = options.sample_s;
  // A first look: in-core time by K with the arrays well inside L1, and each
  // level's transfer time, to find the K near balance per level.
  const std::vector<int> ladder = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128};
  Kernel in_l1(std::max(3.0 * 64 * 8, 0.4 * overlap_working_set(levels.front())));
  std::map<int, double> first_core;
  for (int k : ladder) first_core[k] = in_l1.sample_s(k, sample);
  std::vector<std::unique_ptr<Kernel>> in_level;
  std::vector<std::vector<int>> near(levels.size());
  for (std::size_t l = 1; l < levels.size(); ++l) {
    LevelOverlap lo;
    lo.level = levels[l].name;
    lo.working_set_bytes = overlap_working_set(levels[l]);
    in_level.push_back(std::make_unique<Kernel>(lo.working_set_bytes));
    double mem = in_level.back()->sample_s(0, sample);
    // The K whose in-core time is within a factor of 2 of the transfer time,
    // nearest first: at balance the two terms differ most between overlap and none.
    for (int k : ladder) {
      double ratio = first_core[k] / mem;
      if (ratio >= 0.5 && ratio <= 2) near[l].push_back(k);
    }
    std::sort(near[l].begin(), near[l].end(), [&](int x, int y) {
      return std::abs(std::log(first_core[x] / mem)) < std::abs(std::log(first_core[y] / mem));
    });
    if (near[l].size() > 3) near[l].resize(3);
    std::sort(near[l].begin(), near[l].end());
    out.push_back(std::move(lo));
  }

  // Rounds: in each, per level, the transfer time, then per K the in-core and
  // the combined time, back to back, so a drift of the machine (another
  // guest's load, a clock change) moves the three alike; per K the medians over
  // rounds, and a fraction per round whose median is the level's.
  const int rounds = std::max(3, options.samples);
  for (std::size_t l = 1; l < levels.size(); ++l) {
    if (progress) progress(static_cast<int>(l - 1), static_cast<int>(levels.size() - 1), levels[l].name);
    LevelOverlap& lo = out[l - 1];
    Kernel& k_level = *in_level[l - 1];
    std::vector<double> mems;
    std::map<int, std::vector<double>> cores, boths, fractions;
    for (int r = 0; r < rounds; ++r) {
      double mem = k_level.sample_s(0, sample);
      mems.push_back(mem);
      for (int k : near[l]) {
        double core = in_l1.sample_s(k, sample), both = k_level.sample_s(k, sample);
        cores[k].push_back(core);
        boths[k].push_back(both);
        fractions[k].push_back((both - std::max(core, mem)) / std::min(core, mem));
      }
    }
    lo.memory_s = median(mems);
    std::vector<double> all;
    for (int k : near[l]) {
      OverlapPoint p;
      p.k = k;
      p.core_s = median(cores[k]);
      p.both_s = median(boths[k]);
      p.fraction = median(fractions[k]);
      lo.points.push_back(p);
      all.insert(all.end(), fractions[k].begin(), fractions[k].end());
    }
    lo.measured = !lo.points.empty();
    lo.serial_fraction = all.empty() ? 0 : std::clamp(median(all), 0.0, 1.0);
  }
  return out;
}

}  // namespace perfcast::calibrate
