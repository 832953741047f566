// Memory levels from a bandwidth-versus-working-set curve.
//
// A plateau is a run of sweep points whose (median-of-3 smoothed) bandwidth
// stays within a band around the run's median and that spans enough of the
// sweep; plateaus whose levels differ by less than a step are one level, and a
// plateau followed by a faster one is not a memory level (the call overhead of
// the smallest working sets). Between two levels, the boundary (the inner
// level's size) is where the curve crosses their geometric mean: the step of
// the step function that best fits the curve there.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace perfcast::calibrate {

struct SweepPoint {
  double bytes = 0;      // working set
  double bandwidth = 0;  // B/s
};

struct Plateau {
  std::size_t first = 0, last = 0;  // indices into the sweep, inclusive
  double bandwidth = 0;             // median over the run, B/s
};

struct MemoryLevel {
  std::string name;      // "L1", "L2", "L3", "DRAM"
  double size_bytes = 0; // boundary to the next level; 0 for DRAM
  double bandwidth = 0;  // B/s, one core
  // False when the sweep ended while the curve was still falling, so the
  // outermost figure is an upper bound on DRAM's bandwidth, not a plateau.
  bool settled = true;
  double from_bytes = 0, to_bytes = 0;  // the plateau's extent in the sweep
};

struct PlateauOptions {
  double band = 0.14;             // ln: a plateau's points stay within ±15 % of its median
  double min_step = 0.2;          // ln: levels differ by at least 22 %
  double min_span_octaves = 0.75; // a plateau covers at least this much of the sweep
  std::size_t min_points = 2;
  int max_cache_levels = 3;
  // DRAM is approached from above as the last cache's hits die out, so its
  // bandwidth is the median over the largest working sets: this last part
  // of its plateau, in octaves.
  double dram_tail_octaves = 0.6;
};

// `sweep` sorted by working set.
std::vector<Plateau> find_plateaus(const std::vector<SweepPoint>& sweep, const PlateauOptions& options = {});

// Plateaus named from the core outwards: L1, L2, ... and DRAM for the last.
std::vector<MemoryLevel> memory_levels(const std::vector<SweepPoint>& sweep,
                                       const PlateauOptions& options = {});

}  // namespace perfcast::calibrate
