// How much in-core work and memory transfers overlap, per memory level.
//
// A loop nest's time lies between the roofline's max(core, transfer), where
// the two overlap fully, and ECM's core + transfer, where they do not (on
// Intel cores ECM adds the transfers to the load/store time; on others they
// overlap more). Which is measured, not assumed: a triad, a[i] = p_K(b[i]) +
// s * c[i], where p_K is K dependent multiply-adds on the loaded value, runs
//   * with its arrays in L1, giving T_core(K) per element (no transfer);
//   * with K = 0 at a working set in level X, giving T_mem(X);
//   * with K at level X, giving T_both(K, X).
// Per K near balance (T_core within a factor of 2 of T_mem, the most telling
// points), f = (T_both - max) / min, measured in rounds that time the three
// back to back (a drift of the machine moves them alike); the level's serial
// fraction is the median over rounds and K, clamped to [0, 1]: the fraction of
// the shorter time that adds to the longer.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "machine/calibrate/plateau.h"

namespace perfcast::calibrate {

struct OverlapPoint {
  int k = 0;               // multiply-adds per element
  double core_s = 0;       // per element, arrays in L1
  double both_s = 0;       // per element, arrays in the level
  double fraction = 0;     // median over rounds of (both - max) / min, unclamped
};

struct LevelOverlap {
  std::string level;
  double working_set_bytes = 0;
  double memory_s = 0;     // per element, K = 0, arrays in the level
  std::vector<OverlapPoint> points;  // the K near balance
  double serial_fraction = 0;        // median over every round and K, clamped to [0, 1]
  bool measured = false;             // false: no K came near balance (the level is too fast or too slow)
};

struct OverlapOptions {
  double sample_s = 0.01;  // shortest timed sample
  int samples = 7;         // rounds (each times every figure once); medians over them
};

// Measures every level but L1 (which the core term already prices) on one
// core. progress(index, count, level) before each level.
std::vector<LevelOverlap> measure_overlap(const std::vector<MemoryLevel>& levels, const OverlapOptions& options,
                                          const std::function<void(int, int, const std::string&)>& progress = {});

// Where to measure a level: the middle of its plateau in the sweep (on a log
// scale), well inside it on both sides.
double overlap_working_set(const MemoryLevel& level);

// The serial fraction from the measured points (exposed for tests): median of
// the fractions, clamped to [0, 1]; 0 with no point.
double serial_fraction_of(const std::vector<OverlapPoint>& points);

}  // namespace perfcast::calibrate
