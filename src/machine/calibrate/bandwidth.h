// Memory bandwidth by working-set size, ERT style.
//
// The kernel is STREAM's triad, a[i] = b[i] + s*c[i], over three arrays whose
// total size is the working set, repeated until each timed sample lasts long
// enough, after a warm-up pass that brings the arrays into the level being
// measured. Bytes are counted as STREAM counts them (24 per element: two
// reads, one write; write-allocate traffic not counted), so the DRAM figure is
// comparable with a STREAM triad run.
#pragma once

#include <functional>
#include <vector>

#include "machine/calibrate/plateau.h"

namespace perfcast::calibrate {

struct SweepOptions {
  double min_bytes = 4096;
  double max_bytes = 256.0 * 1024 * 1024;
  int points_per_octave = 4;
  double sample_s = 0.005;  // shortest timed sample
  int samples = 5;          // rounds over the whole sweep; per size the median is kept
};

// Called before each sample: (index, count, bytes), index over all rounds.
using SweepProgress = std::function<void(int, int, double)>;

std::vector<SweepPoint> sweep_bandwidth(const SweepOptions& options, const SweepProgress& progress = {});

// Triad bandwidth of every core at once, each on its own arrays of
// `bytes_per_thread` (first touched by its own thread), as the node's total.
double node_bandwidth(int threads, double bytes_per_thread, double sample_s, int samples);

// Triad bandwidth of each core while k cores stream at once, for each k of
// `core_counts` (increasing, each >= 1), each core on its own arrays of
// `bytes_per_thread` (first touched by the thread that streams them), all
// started together behind a barrier: per k, the median over samples of the
// median over the cores of each one's own rate (its bytes over its CPU time).
std::vector<double> bandwidth_per_core_sharing(const std::vector<int>& core_counts, double bytes_per_thread,
                                               double sample_s, int samples);

// The SIMD the triad kernel runs with here ("avx512", "avx2", "sse2").
const char* triad_isa();

}  // namespace perfcast::calibrate
