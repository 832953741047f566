// Cost of the C library's math functions, in flops.
//
// As the static-analysis literature does, a call is priced as its time on one
// core times that core's scalar flop rate of the same precision: "sin costs 39
// flops" means a call takes as long as 39 scalar floating-point operations.
// Calls are independent (throughput, not latency), on arguments in the range
// programs commonly use, from an array that stays in L1.
#pragma once

#include <string>
#include <vector>

namespace perfcast::calibrate {

struct MathCost {
  std::string function;       // sin cos tan exp log sqrt pow
  double double_s = 0;        // seconds per call, double precision (sin)
  double single_s = 0;        // single precision (sinf)
  double double_flops = 0;    // double_s x scalar double flop rate
  double single_flops = 0;    // single_s x scalar single flop rate
};

struct MathOptions {
  double sample_s = 0.01;
  int samples = 3;
};

// Rates in flop/s, from measure_compute: scalar double and scalar single.
std::vector<MathCost> measure_math(const MathOptions& options, double scalar_double_rate,
                                   double scalar_single_rate);

}  // namespace perfcast::calibrate
