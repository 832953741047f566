#include "machine/calibrate/stream_overlap.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "machine/calibrate/overlap.h"
#include "machine/calibrate/page_array.h"
#include "machine/calibrate/timing.h"

namespace perfcast::calibrate {

namespace {

using detail::median;
using detail::thread_cpu_s;

// Two doubles, loaded from any 8-byte boundary: the neighbours are one
// element apart in the adjacent layout. SSE2 is on every x86-64, so the
// instructions are the same on every host, and so is their count per element.
using f64x2 = double __attribute__((vector_size(16), aligned(8), may_alias));

inline f64x2 at(const double* p) { return *reinterpret_cast<const f64x2*>(p); }

// R passes of the five loads of b around i (offsets o), plus c[i]: the in-core
// work is loads and adds, as a stencil's. Offsets are arguments, so the three
// layouts run the very same instructions.
template <int R>
[[gnu::noinline]] void neighbours(double* __restrict a, const double* __restrict b, const double* __restrict c,
                                  std::size_t n, const std::array<long, 5>& o) {
  const long o0 = o[0], o1 = o[1], o3 = o[3], o4 = o[4];
  const f64x2 w = f64x2{} + 0.125;
  for (std::size_t i = 0; i < n; i += 2) {
    f64x2 sum = at(c + i);
    // Each pass a step further (r elements, within the same lines): other
    // loads, which the compiler cannot fold into the first pass's.
    for (int r = 0; r < R; ++r) {
      const double* p = b + i + r;
      sum += w * ((at(p + o0) + at(p + o1)) + at(p) + (at(p + o3) + at(p + o4)));
    }
    *reinterpret_cast<f64x2*>(a + i) = sum;
  }
}

[[gnu::noinline]] void copy_add(double* __restrict a, const double* __restrict b, const double* __restrict c,
                                std::size_t n) {
  for (std::size_t i = 0; i < n; i += 2) *reinterpret_cast<f64x2*>(a + i) = at(b + i) + at(c + i);
}

constexpr long kPassReach = 16;  // elements beyond the offsets the passes read
using Kernel = void (*)(double*, const double*, const double*, std::size_t, const std::array<long, 5>&);
constexpr std::array<int, 6> kPasses = {1, 2, 3, 4, 6, 8};
Kernel kernel_for(int passes) {
  switch (passes) {
    case 1: return neighbours<1>;
    case 2: return neighbours<2>;
    case 3: return neighbours<3>;
    case 4: return neighbours<4>;
    case 6: return neighbours<6>;
    default: return neighbours<8>;
  }
}

// The five offsets of b's loads for 1, 3 or 5 groups.
std::array<long, 5> offsets(int groups) {
  const long d = kNeighbourApart;
  if (groups == 1) return {-2, -1, 0, 1, 2};
  if (groups == 3) return {-d, -1, 0, 1, d};
  return {-2 * d, -d, 0, d, 2 * d};
}

using Array = detail::PageArray;
constexpr auto allocate = detail::page_aligned_doubles;

// a, c of n elements and b of n plus the neighbours' reach on both sides,
// each a few lines further into its page than the one before (overlap.cpp:
// page-aligned arrays alias in the low address bits).
class Arrays {
 public:
  Arrays(std::size_t n, long reach)
      : n_(n), reach_(static_cast<std::size_t>(reach)),
        a_(allocate(n_ + 3 * kSkew)), b_(allocate(n_ + 2 * reach_ + 3 * kSkew)), c_(allocate(n_ + 3 * kSkew)),
        a_at_(a_.get() + kSkew), b_at_(b_.get() + 2 * kSkew + reach_), c_at_(c_.get() + 3 * kSkew) {
    for (std::size_t i = 0; i < n_; ++i) a_at_[i] = 0, c_at_[i] = 0.5;
    for (std::size_t i = 0; i < n_ + 2 * reach_; ++i) b_.get()[2 * kSkew + i] = 1.0 + static_cast<double>(i % 7);
  }

  // Seconds per element of `run` over a sample of at least sample_s.
  template <typename Run>
  double per_element(Run run, long& passes, double sample_s) {
    if (passes == 0) {
      run();
      double t0 = thread_cpu_s();
      run();
      passes = std::max(1L, static_cast<long>(std::ceil(sample_s / std::max(thread_cpu_s() - t0, 1e-8))));
    }
    run();  // the previous sample may have been another kernel's: bring the arrays back
    double start = thread_cpu_s();
    for (long p = 0; p < passes; ++p) run();
    double t = (thread_cpu_s() - start) / static_cast<double>(passes * static_cast<long>(n_));
    detail::keep(a_at_[n_ / 2]);
    return t;
  }
  double neighbours_s(int r, int groups, double sample_s) {
    auto o = offsets(groups);
    Kernel k = kernel_for(r);
    return per_element([&] { k(a_at_, b_at_, c_at_, n_, o); }, samples_[{r, groups}], sample_s);
  }
  double copy_s(double sample_s) {
    return per_element([&] { copy_add(a_at_, b_at_, c_at_, n_); }, samples_[{0, 0}], sample_s);
  }

 private:
  static constexpr std::size_t kSkew = 8 * 5;  // five cache lines, in doubles
  std::size_t n_, reach_;
  Array a_, b_, c_;
  double *a_at_, *b_at_, *c_at_;
  std::map<std::pair<int, int>, long> samples_;  // (passes, groups) -> runs per sample
};

}  // namespace

std::vector<LevelStreamOverlap> measure_stream_overlap(
    const std::vector<MemoryLevel>& levels, const StreamOverlapOptions& options,
    const std::function<void(int, int, const std::string&)>& progress) {
  std::vector<LevelStreamOverlap> out;
  if (levels.size() < 2) return out;
  const double sample = options.sample_s;
  // In L1: 1 group, 8 KiB of each array (the adjacent layout reaches 2
  // elements, and the passes up to 8 more): long enough that a call's own
  // cost does not show per element.
  Arrays in_l1(1024, kPassReach);
  const int rounds = std::max(3, options.samples);
  const std::array<int, 3> groups = {1, 3, 5};
  for (std::size_t l = 1; l < levels.size(); ++l) {
    if (progress) progress(static_cast<int>(l - 1), static_cast<int>(levels.size() - 1), levels[l].name);
    LevelStreamOverlap lo;
    lo.level = levels[l].name;
    lo.working_set_bytes = overlap_working_set(levels[l]);
    std::size_t n = std::max<std::size_t>(1024, static_cast<std::size_t>(lo.working_set_bytes / 24) / 64 * 64);
    Arrays in_level(n, 2 * kNeighbourApart + kPassReach);
    // Rounds: in each, the transfers alone, then per R the in-core time and
    // each layout in the level, back to back, so a drift of the machine moves
    // them alike; a fraction per round, medians over rounds.
    std::vector<double> mems;
    std::map<int, std::vector<double>> cores;
    std::map<std::pair<int, int>, std::vector<double>> boths, fractions;  // (groups, R)
    for (int round = 0; round < rounds; ++round) {
      double m = in_level.copy_s(sample);
      mems.push_back(m);
      for (int r : kPasses) {
        double core = in_l1.neighbours_s(r, 1, sample);
        cores[r].push_back(core);
        for (int g : groups) {
          double both = in_level.neighbours_s(r, g, sample);
          boths[{g, r}].push_back(both);
          fractions[{g, r}].push_back((both - std::max(core, m)) / std::min(core, m));
        }
      }
    }
    lo.memory_s = median(mems);
    // R by increasing in-core time; one whose median does not exceed the
    // previous one's (noise) adds no point to interpolate between.
    for (int r : kPasses) {
      double core = median(cores[r]);
      if (!lo.core_s.empty() && core <= lo.core_s.back()) continue;
      lo.passes.push_back(r);
      lo.core_s.push_back(core);
      lo.core_over_memory.push_back(core / lo.memory_s);
      if (core / lo.memory_s >= 0.25 && core / lo.memory_s <= 4) lo.measured = true;
    }
    for (int g : groups) {
      lo.streams.push_back(g + 2);  // and a, c
      std::vector<double> both, fraction;
      for (int r : lo.passes) {
        both.push_back(median(boths[{g, r}]));
        fraction.push_back(std::clamp(median(fractions[{g, r}]), 0.0, 1.0));
      }
      lo.both_s.push_back(std::move(both));
      lo.fraction.push_back(std::move(fraction));
    }
    out.push_back(std::move(lo));
  }
  return out;
}

}  // namespace perfcast::calibrate
