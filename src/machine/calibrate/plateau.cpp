#include "machine/calibrate/plateau.h"

#include <algorithm>
#include <cmath>

#include "machine/calibrate/timing.h"

namespace perfcast::calibrate {

namespace {

struct Curve {
  std::vector<double> x;  // log2 bytes
  std::vector<double> z;  // ln bandwidth, median-of-3 smoothed
};

Curve make_curve(const std::vector<SweepPoint>& sweep) {
  Curve c;
  std::vector<double> y;
  for (const auto& p : sweep) {
    c.x.push_back(std::log2(p.bytes));
    y.push_back(std::log(std::max(p.bandwidth, 1e-300)));
  }
  c.z = y;
  // One disturbed sample must not split a plateau; a median of three keeps
  // steps sharp where a mean would smear them.
  for (std::size_t i = 1; i + 1 < y.size(); ++i) c.z[i] = detail::median({y[i - 1], y[i], y[i + 1]});
  return c;
}

double level_of(const Curve& c, std::size_t first, std::size_t last) {
  return detail::median(std::vector<double>(c.z.begin() + first, c.z.begin() + last + 1));
}

void merge_close(const Curve& c, std::vector<Plateau>& ps, double min_step) {
  for (std::size_t k = 0; k + 1 < ps.size();) {
    if (std::fabs(std::log(ps[k].bandwidth) - std::log(ps[k + 1].bandwidth)) < min_step) {
      ps[k].last = ps[k + 1].last;
      ps[k].bandwidth = std::exp(level_of(c, ps[k].first, ps[k].last));
      ps.erase(ps.begin() + k + 1);
    } else {
      ++k;
    }
  }
}

}  // namespace

std::vector<Plateau> find_plateaus(const std::vector<SweepPoint>& sweep, const PlateauOptions& options) {
  std::vector<Plateau> ps;
  if (sweep.empty()) return ps;
  Curve c = make_curve(sweep);
  const std::size_t n = sweep.size();

  for (std::size_t start = 0; start < n;) {
    std::size_t end = start;  // inclusive
    while (end + 1 < n && std::fabs(c.z[end + 1] - level_of(c, start, end)) <= options.band) ++end;
    bool long_enough = end - start + 1 >= options.min_points &&
                       c.x[end] - c.x[start] >= options.min_span_octaves - 1e-9;
    if (long_enough) {
      ps.push_back({start, end, std::exp(level_of(c, start, end))});
      start = end + 1;
    } else {
      ++start;  // a transition point; the next plateau may start after it
    }
  }

  merge_close(c, ps, options.min_step);
  // Bandwidth never rises outwards in a memory hierarchy: a slower plateau
  // before a faster one is call overhead at tiny working sets.
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t k = 0; k + 1 < ps.size(); ++k) {
      if (std::log(ps[k + 1].bandwidth) > std::log(ps[k].bandwidth) + options.min_step) {
        ps.erase(ps.begin() + k);
        changed = true;
        break;
      }
    }
    merge_close(c, ps, options.min_step);
  }
  // More levels than a CPU has caches: join the two closest neighbours.
  while (ps.size() > static_cast<std::size_t>(options.max_cache_levels) + 1) {
    std::size_t best = 0;
    double best_gap = INFINITY;
    for (std::size_t k = 0; k + 1 < ps.size(); ++k) {
      double gap = std::log(ps[k].bandwidth) - std::log(ps[k + 1].bandwidth);
      if (gap < best_gap) best_gap = gap, best = k;
    }
    ps[best].last = ps[best + 1].last;
    ps[best].bandwidth = std::exp(level_of(c, ps[best].first, ps[best].last));
    ps.erase(ps.begin() + best + 1);
  }
  return ps;
}

std::vector<MemoryLevel> memory_levels(const std::vector<SweepPoint>& sweep, const PlateauOptions& options) {
  std::vector<MemoryLevel> levels;
  auto ps = find_plateaus(sweep, options);
  if (ps.empty()) return levels;
  Curve c = make_curve(sweep);
  const std::size_t n = sweep.size();

  // The sweep may end before the curve settles below the last plateau: then
  // that plateau is a cache and the tail's end is all we know of DRAM.
  bool tail_falls = ps.back().last + 1 < n &&
                    c.z[n - 1] < std::log(ps.back().bandwidth) - options.min_step;
  // With no room for another cache level the last plateau stays DRAM, unsettled.
  bool add_tail = tail_falls && ps.size() <= static_cast<std::size_t>(options.max_cache_levels);

  std::vector<Plateau> all = ps;
  if (add_tail) all.push_back({n - 1, n - 1, sweep[n - 1].bandwidth});

  for (std::size_t k = 0; k < all.size(); ++k) {
    MemoryLevel level;
    bool outermost = k + 1 == all.size();
    level.name = outermost ? "DRAM" : "L" + std::to_string(k + 1);
    level.bandwidth = all[k].bandwidth;
    if (outermost && !add_tail) {
      std::vector<double> tail_bw;
      for (std::size_t i = all[k].first; i <= all[k].last; ++i)
        if (c.x[i] >= c.x[all[k].last] - options.dram_tail_octaves - 1e-9) tail_bw.push_back(sweep[i].bandwidth);
      level.bandwidth = detail::median(tail_bw);
    }
    level.settled = !(outermost && tail_falls);
    level.from_bytes = sweep[all[k].first].bytes;
    level.to_bytes = sweep[all[k].last].bytes;
    if (!outermost) {
      double target = 0.5 * (std::log(all[k].bandwidth) + std::log(all[k + 1].bandwidth));
      std::size_t lo = (all[k].first + all[k].last) / 2;
      std::size_t hi = (all[k + 1].first + all[k + 1].last + 1) / 2;
      double x = 0.5 * (c.x[all[k].last] + c.x[all[k + 1].first]);
      for (std::size_t i = lo; i < hi && i + 1 < n; ++i) {
        if (c.z[i] >= target && c.z[i + 1] < target) {
          double f = (c.z[i] - target) / (c.z[i] - c.z[i + 1]);
          x = c.x[i] + f * (c.x[i + 1] - c.x[i]);
          break;
        }
      }
      level.size_bytes = std::exp2(x);
    }
    levels.push_back(level);
  }
  return levels;
}

}  // namespace perfcast::calibrate
