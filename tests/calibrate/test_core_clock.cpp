// The core clock from a chain of dependent additions.
#include <gtest/gtest.h>

#include <iostream>

#include "machine/calibrate/core_clock.h"
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

}  // namespace
}  // namespace perfcast::calibrate
