// How in-core work and memory transfers overlap by the number of address
// streams a loop walks.
//
// The triad of overlap.h walks 3 streams (a, b, c) and finds in-core work and
// transfers overlapping well on the machines measured (serial fraction ~0.1
// from DRAM). A loop whose loads come from several places of one array (a
// stencil's neighbour rows and planes) overlaps much less: the same loads and
// adds, the same DRAM traffic, ran 1.5x slower on a Zen 5
// when the neighbours are 16 KiB apart rather than adjacent. Measured here with
//   a[i] = sum over R passes of (b[i+o0] + b[i+o1]) + b[i] + (b[i+o3] + b[i+o4]) + c[i]
// whose five loads of b lie in 1, 3 or 5 groups (offsets -2..2 elements, or
// kNeighbourApart apart: reused from L2, as a 3D stencil's planes are), giving
// 3, 5 or 7 streams with the same instructions:
//   * core: 1 group in L1 (the in-core time of all three);
//   * mem: a[i] = b[i] + c[i] in the level (the transfers alone);
//   * both: g groups in the level.
// Per round (the three back to back) f = (both - max(core, mem)) / min; per
// stream count and R the median over rounds, clamped to [0, 1]. R (the passes
// of loads per element: 1..8) moves the in-core time against the transfers':
// the fraction falls as in-core work outgrows the transfers (DRAM, 7 streams:
// 0.74 at core/mem 0.9, 0.23 at 3.7 on a Zen 5), so it is kept per ratio.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "machine/calibrate/plateau.h"

namespace perfcast::calibrate {

struct LevelStreamOverlap {
  std::string level;
  double working_set_bytes = 0;
  double memory_s = 0;                 // per element, median
  std::vector<int> passes;             // R, by increasing core_over_memory
  std::vector<double> core_s;          // per element, median, per R
  std::vector<double> core_over_memory;  // per R, increasing
  std::vector<int> streams;            // 3, 5, 7
  std::vector<std::vector<double>> both_s;    // [streams][R], median
  std::vector<std::vector<double>> fraction;  // [streams][R], median over rounds, clamped to [0, 1]
  // Some R put core within 4x of mem: a level too fast or too slow for every
  // R says little, and is not written.
  bool measured = false;
};

struct StreamOverlapOptions {
  double sample_s = 0.01;  // shortest timed sample
  int samples = 7;         // rounds
};

// Every level but L1, one core. progress(index, count, level) before each.
std::vector<LevelStreamOverlap> measure_stream_overlap(
    const std::vector<MemoryLevel>& levels, const StreamOverlapOptions& options,
    const std::function<void(int, int, const std::string&)>& progress = {});

// Apart, in elements, for neighbours reused from beyond L1 (32 KiB of doubles).
constexpr long kNeighbourApart = 4096;

}  // namespace perfcast::calibrate
