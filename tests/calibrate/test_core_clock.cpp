// The core clock from a chain of dependent additions.
#include <gtest/gtest.h>

#include <iostream>

#include "machine/calibrate/core_clock.h"
#include "machine/calibrate/instruction_cycles.h"
#include "machine/calibrate/system.h"

namespace perfcast::calibrate {
namespace {

// Plausible for any x86-64 core made, and near what the kernel reports: a VM
// reports the host's nominal clock, which turbo exceeds by well under 3x; a
// throttled or shared core runs slower, but not at a third of it.
TEST(CoreClock, AChainOfDependentAddsGivesAPlausibleClock) {
#if defined(__x86_64__)
  double hz = measured_core_clock_Hz(7);
  EXPECT_GT(hz, 0.5e9);
  EXPECT_LT(hz, 8e9);
  if (double reported = cpu_clock_Hz(); reported > 0) {
    EXPECT_GT(hz, reported / 3) << "reported " << reported;
    EXPECT_LT(hz, reported * 3) << "reported " << reported;
  }
  std::cout << "core clock " << hz / 1e9 << " GHz measured, " << cpu_clock_Hz() / 1e9 << " GHz reported\n";
#else
  EXPECT_EQ(measured_core_clock_Hz(1), 0.0);
#endif
}

// What any x86-64 core made does: every FP instruction takes a cycle or more
// after the one it depends on; a divide and a square root take longer than
// an add, and longer in a chain than between independent ones (the divider
// overlaps them); none takes a hundred.
TEST(InstructionCycles, ChainsAndIntervalsArePlausibleAndOrdered) {
  InstructionCycles c = measure_instruction_cycles(3);
#if defined(__x86_64__)
  ASSERT_TRUE(c.measured());
  for (const auto& [key, cycles] : figures(c)) {
    EXPECT_GE(cycles, 0.9) << key;
    EXPECT_LT(cycles, 100) << key;
  }
  EXPECT_GT(c.fp_divide_latency, c.fp_add_latency);
  EXPECT_GT(c.fp_sqrt_latency, c.fp_add_latency);
  EXPECT_GT(c.fp_divide_latency, c.fp_divide_interval);
  EXPECT_GT(c.fp_sqrt_latency, c.fp_sqrt_interval);
  std::cout << "cycles: FP add " << c.fp_add_latency << ", multiply " << c.fp_multiply_latency << ", divide "
            << c.fp_divide_latency << " (every " << c.fp_divide_interval << "), sqrt " << c.fp_sqrt_latency
            << " (every " << c.fp_sqrt_interval << ")\n";
#else
  EXPECT_FALSE(c.measured());
#endif
}

}  // namespace
}  // namespace perfcast::calibrate
