// Floating-point rate of one core and of the whole node.
//
// ERT-style kernels: many independent chains of a = a*b + c per lane, so the
// fused multiply-add latency is hidden and the figure is the core's issue
// rate. Every kernel is compiled for its instruction set with a target
// attribute and chosen at run time from what the CPU (and the OS) support.
#pragma once

#include <string>
#include <vector>

namespace perfcast::calibrate {

struct FlopRates {  // flop/s
  double double_simd = 0;
  double single_simd = 0;
  double double_scalar = 0;
  double single_scalar = 0;
};

struct KernelRate {
  std::string name;       // e.g. "avx512 double"
  int lanes = 1;
  bool fused = false;     // an FMA counts as 2 flops; without FMA, a multiply and an add
  double per_core = 0;    // flop/s, one core alone
  double node = 0;        // flop/s, every core at once (0 when not run)
};

struct ComputeResult {
  std::string simd_double;  // the kernel behind double_simd, e.g. "avx512 double"
  std::string simd_single;
  FlopRates per_core;       // one core alone
  FlopRates node;           // all cores at once, in total
  int threads = 1;
  std::vector<KernelRate> kernels;  // every kernel measured
};

struct ComputeOptions {
  double sample_s = 0.05;  // length of one timed run
  int samples = 3;         // timed runs per figure; the median is kept
  int threads = 1;         // for the node figures: one pinned thread per core
};

ComputeResult measure_compute(const ComputeOptions& options);

}  // namespace perfcast::calibrate
