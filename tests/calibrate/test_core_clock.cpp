// The core clock from chains of dependent instructions, judged by the
// witnesses this host lets a process read.
#include <gtest/gtest.h>

#include <iostream>

#include "machine/calibrate/clock_witnesses.h"
#include "machine/calibrate/core_clock.h"
#include "machine/calibrate/instruction_cycles.h"
#include "machine/calibrate/system.h"

namespace perfcast::calibrate {
namespace {

// The register add chain and the multiply chain agree, and the clock they
// give sits where the host's other witnesses put it: a turbo clock runs above
// the TSC's nominal one by less than 2.5x on the hosts these tests run on, and
// a loaded or throttled core runs below it, but not at under 0.4x of it. A
// probe misreading the clock 4x (as the immediate add chain did on Golden
// Cove-family cores) lands outside both bands.
TEST(CoreClock, TwoChainsAgreeOnAClockTheWitnessesBound) {
#if defined(__x86_64__)
  const ClockProbe p = probe_core_clock(7);
  const ClockWitnesses w = read_clock_witnesses();
  ASSERT_TRUE(p.measured());
  const double hz = p.register_add_Hz;
  std::cout << "core clock: register adds " << hz / 1e9 << " GHz, multiplies " << p.multiply_Hz / 1e9
            << " GHz (x3 cycles), immediate adds " << p.immediate_adds_per_cycle() << " a cycle, " << p.attempts
            << " attempt(s)\n";
  for (const auto& line : witness_lines(w)) std::cout << "  " << line << "\n";
  EXPECT_TRUE(p.agree()) << "adds " << hz << " Hz, multiplies " << p.multiply_Hz << " Hz";
  EXPECT_GT(hz, 0.5e9);
  EXPECT_LT(hz, 6.5e9);
  if (w.tsc_Hz > 0 && w.constant_tsc) {
    EXPECT_GT(hz, 0.4 * w.tsc_Hz) << "TSC " << w.tsc_Hz;
    EXPECT_LT(hz, 2.5 * w.tsc_Hz) << "TSC " << w.tsc_Hz;
  }
  if (w.cpuinfo_Hz > 0) {
    EXPECT_GT(hz, 0.4 * w.cpuinfo_Hz) << "cpuinfo " << w.cpuinfo_Hz;
    EXPECT_LT(hz, 2.5 * w.cpuinfo_Hz) << "cpuinfo " << w.cpuinfo_Hz;
  }
  // Where the PMU can be read, it counts the chain's cycles exactly: one a link.
  if (w.perf_cycles_per_add > 0) {
    EXPECT_NEAR(w.perf_cycles_per_add, 1.0, 0.15);
  } else {
    EXPECT_FALSE(w.perf_note.empty());
  }
  // An immediate add is never slower than a register one; where the renamer
  // folds them they run several a cycle, and that is recorded, not the clock.
  EXPECT_GT(p.immediate_adds_per_cycle(), 0.8);
  EXPECT_TRUE(clock_findings(p, w).empty()) << machine::describe(clock_findings(p, w).front());
  // The slowest register-chain sample is kept beside the fastest, which is the clock.
  EXPECT_GT(p.slowest_register_add_Hz, 0);
  EXPECT_LE(p.slowest_register_add_Hz, hz);
#else
  EXPECT_FALSE(probe_core_clock(1).measured());
#endif
}

// A host that holds a busy core at a lower clock for a spell shows it as slow
// samples of the register chain: 15 % below the fastest counts as moved (a
// lent Xeon went between 2.6 and 1.4 GHz), a few percent of sampling noise
// does not, and an unmeasured probe never has.
TEST(CoreClock, MovedWhenTheSlowestSampleIsFarBelowTheFastest) {
  ClockProbe p;
  EXPECT_FALSE(p.moved());
  p.register_add_Hz = 2.6e9;
  p.slowest_register_add_Hz = 1.4e9;
  EXPECT_TRUE(p.moved());
  p.slowest_register_add_Hz = 2.5e9;
  EXPECT_FALSE(p.moved());
  p.slowest_register_add_Hz = (1 - kClockMovedFraction) * 2.6e9 * 0.999;
  EXPECT_TRUE(p.moved());
  p.slowest_register_add_Hz = 0;  // not recorded (an older probe)
  EXPECT_FALSE(p.moved());
}

// The TSC counted against the raw monotonic clock is a clock some CPU has:
// the witness itself is not misread.
TEST(CoreClock, TheTscWitnessIsAPlausibleNominalClock) {
#if defined(__x86_64__)
  const ClockWitnesses w = read_clock_witnesses();
  ASSERT_GT(w.tsc_Hz, 0.3e9);
  EXPECT_LT(w.tsc_Hz, 6.5e9);
#endif
}

ClockProbe probe(double add_Hz, double multiply_Hz, double immediate_Hz, int attempts = 3) {
  ClockProbe p;
  p.register_add_Hz = add_Hz;
  p.multiply_Hz = multiply_Hz;
  p.immediate_add_Hz = immediate_Hz;
  p.attempts = attempts;
  return p;
}

// The Xeon of family 6, model 207 (Emerald Rapids) as measured there: the
// immediate adds at 13.6 GHz, a register add chain at 3.0 GHz, the TSC at
// 2.1 GHz. Had a probe read 13.6 GHz, every witness says so.
TEST(ClockFindings, AChainRunFourTimesAcycleIsCaughtByEveryWitness) {
  ClockWitnesses w;
  w.tsc_Hz = 2.1e9;
  w.constant_tsc = true;
  w.cpuinfo_Hz = 2.1e9;
  w.perf_cycles_per_add = 3.0 / 13.6;
  w.perf_cycles_Hz = 3.0e9;
  w.cpufreq_max_Hz = 4.0e9;
  const auto findings = clock_findings(probe(13.6e9, 3.0e9, 13.6e9), w);
  ASSERT_EQ(findings.size(), 4u);  // the chains disagree; perf, the TSC and cpufreq contradict it
  for (const auto& f : findings) {
    EXPECT_EQ(f.figure, "node.clock");
    EXPECT_EQ(f.value, "13.6 GHz");
  }
}

TEST(ClockFindings, TheRegisterChainThereIsAccepted) {
  ClockWitnesses w;
  w.tsc_Hz = 2.1e9;
  w.constant_tsc = true;
  w.perf_note = "perf_event_open for CPU cycles: No such file or directory";
  // 4.5 immediate adds a cycle, as that renamer folds them: recorded, no finding.
  const ClockProbe p = probe(3.0e9, 2.9e9, 13.6e9, 1);
  EXPECT_TRUE(clock_findings(p, w).empty());
  EXPECT_NEAR(p.immediate_adds_per_cycle(), 4.53, 0.01);
}

TEST(ClockFindings, ChainsThatDisagreeAfterEveryAttemptAreRefused) {
  const auto findings = clock_findings(probe(3.0e9, 2.0e9, 3.0e9), ClockWitnesses{});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_NE(findings[0].reason.find("3 times"), std::string::npos) << findings[0].reason;
  // Within the tolerance they agree.
  EXPECT_TRUE(clock_findings(probe(3.0e9, 2.7e9, 3.0e9), ClockWitnesses{}).empty());
  // Not measured (another target): nothing to judge.
  EXPECT_TRUE(clock_findings(ClockProbe{}, ClockWitnesses{}).empty());
}

// What any x86-64 core made does: every FP instruction takes a cycle or more
// after the one it depends on; a divide and a square root take longer than
// an add, and longer in a chain than between independent ones (the divider
// overlaps them); none takes a hundred. The cycles follow the register
// chain's clock: a dependent addsd takes 2-5 of them on every x86-64 core
// (2 on Zen 5 and Golden Cove, 3 on Zen 1-4, 4 on Skylake), where the
// immediate chain's clock made it 10.8 on Emerald Rapids.
TEST(InstructionCycles, ChainsAndIntervalsArePlausibleAndOrdered) {
  InstructionCycles c = measure_instruction_cycles(3);
#if defined(__x86_64__)
  ASSERT_TRUE(c.measured());
  for (const auto& [key, cycles] : figures(c)) {
    EXPECT_GE(cycles, 0.9) << key;
    EXPECT_LT(cycles, 100) << key;
  }
  EXPECT_GT(c.fp_add_latency, 1.5);
  EXPECT_LT(c.fp_add_latency, 6);
  EXPECT_GT(c.fp_multiply_latency, 1.5);
  EXPECT_LT(c.fp_multiply_latency, 8);
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
