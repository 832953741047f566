// The latencies and issue intervals of the floating-point instructions whose
// cost differs most between CPU generations, measured on this core in cycles.
//
// `perfcast analyze` prices loop bodies on one of LLVM's scheduling models;
// a CPU newer than the LLVM release runs on the nearest model it has, whose
// figures can be a generation old: on a Zen 5 priced as znver3, an FP add takes 3
// cycles in the model and 2 on the CPU, a divide issues every 5 cycles there and
// every 4 there. These figures let analyze put the host's
// cycles into the model it borrows (analyze --machine).
#pragma once

#include <utility>
#include <vector>

namespace perfcast::calibrate {

// Scalar double precision, in core cycles (the dependent register add
// chain's, the clock probe's: core_clock.h). 0: not measured (a target without the kernels).
struct InstructionCycles {
  double fp_add_latency = 0;       // addsd after addsd, dependent
  double fp_multiply_latency = 0;  // mulsd after mulsd
  double fp_divide_latency = 0;    // divsd after divsd
  double fp_divide_interval = 0;   // between independent divsd (the divider's throughput)
  double fp_sqrt_latency = 0;      // sqrtsd after sqrtsd
  double fp_sqrt_interval = 0;     // between independent sqrtsd
  bool measured() const { return fp_add_latency > 0; }
};

// The figures by their machine-file key (node.instruction_cycles), in order.
std::vector<std::pair<const char*, double>> figures(const InstructionCycles& c);

// Each figure the best of `repeats` samples of a few ms (a sample can only be
// slowed), over the register add chain's best in the same rounds.
InstructionCycles measure_instruction_cycles(int repeats = 9);

}  // namespace perfcast::calibrate
