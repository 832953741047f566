// Machine figures checked against what hardware does (machine/physics.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "machine/machine_io.h"
#include "machine/physics.h"
#include "test_util.h"

namespace perfcast::machine {
namespace {

using testing::bundled;
using testing::minimal;
using testing::source_path;

// The figures `perfcast calibrate` wrote on a 16-core Intel Xeon of family 6,
// model 207 (Emerald Rapids; Raptor Cove cores) with the clock probe of
// immediate adds, copied from that machine file (its collectives and curves
// left out). On that CPU a chain of dependent register adds ran at 3.0 GHz and
// a dependent addsd took 0.67 ns (2 cycles): the clock is 4.5x too high, and
// the instruction cycles, seconds times that clock, are inflated alike.
constexpr const char* kXeon16 = R"(
name = 'vm'
[memory]
DRAM = { bandwidth = '11.2 GB/s', node_bandwidth = '101 GB/s', serial_fraction = 0.16 }
L1 = { bandwidth = '266 GB/s', size = '40.8 KiB' }
L2 = { bandwidth = '73.6 GB/s', serial_fraction = 0.0, size = '2.08 MiB' }
L3 = { bandwidth = '20.4 GB/s', serial_fraction = 0.0, size = '85 MiB' }
[network]
bandwidth = '7.21 GB/s'
eager_threshold = '2 KiB'
intra_node_bandwidth = '7.21 GB/s'
intra_node_latency = '401 ns'
latency = '401 ns'
overhead = '18.5 ns'
topology = 'crossbar'
[node]
clock = '13.6 GHz'
cores = 16
count = 1
flops_per_core = '72.5 Gflop/s'
flops_per_core_scalar = '8.56 Gflop/s'
flops_per_core_single = '144 Gflop/s'
flops_per_core_single_scalar = '8.54 Gflop/s'
instruction_cycles = { fp_add_latency = 10.8, fp_divide_interval = 21.6, fp_divide_latency = 70.1, fp_multiply_latency = 21.6, fp_sqrt_interval = 32.3, fp_sqrt_latency = 69.9 }
)";

std::vector<std::string> figures(const std::vector<PhysicsFinding>& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(f.figure);
  return out;
}

bool has(const std::vector<PhysicsFinding>& findings, const std::string& figure) {
  auto names = figures(findings);
  return std::find(names.begin(), names.end(), figure) != names.end();
}

std::string all(const std::vector<PhysicsFinding>& findings) {
  std::string out;
  for (const auto& f : findings) out += describe(f) + "\n";
  return out;
}

TEST(Physics, TheXeonFilesClockOf13_6GHzIsCaughtWithItsInflatedCycles) {
  const auto findings = physics_findings(load_machine_string(kXeon16, "xeon16.toml"));
  ASSERT_TRUE(has(findings, "node.clock")) << all(findings);
  // Both FP latencies are inflated past any FP pipeline made: a second
  // witness, from the cycles alone, that the clock is wrong.
  EXPECT_TRUE(has(findings, "node.instruction_cycles.fp_add_latency")) << all(findings);
  EXPECT_TRUE(has(findings, "node.instruction_cycles.fp_multiply_latency")) << all(findings);
  // Its bandwidths and flops are not wrong, and are not blamed.
  for (const auto& f : findings) EXPECT_EQ(f.figure.rfind("node.", 0), 0u) << describe(f);
  const auto clock =
      *std::find_if(findings.begin(), findings.end(), [](const PhysicsFinding& f) { return f.figure == "node.clock"; });
  EXPECT_EQ(clock.value, "13.6 GHz");
  EXPECT_NE(describe(clock).find("6.5 GHz"), std::string::npos) << describe(clock);
}

TEST(Physics, TheXeonFileWithTheClockItRanAtPasses) {
  // 3.0 GHz, the register chain's clock there; the cycles become seconds x
  // 3.0 GHz (they were seconds x 13.6 GHz), as the fixed probe derives them.
  const double scale = 3.0 / 13.6;
  std::vector<std::string> fixed = {"node.clock=\"3.0 GHz\""};
  const std::pair<const char*, double> cycles[] = {{"fp_add_latency", 10.8},    {"fp_multiply_latency", 21.6},
                                                   {"fp_divide_latency", 70.1}, {"fp_divide_interval", 21.6},
                                                   {"fp_sqrt_latency", 69.9},   {"fp_sqrt_interval", 32.3}};
  for (const auto& [key, value] : cycles)
    fixed.push_back(std::string("node.instruction_cycles.") + key + "=" + std::to_string(value * scale));
  Machine m = load_machine_string(kXeon16, "xeon16.toml", ".", fixed);
  EXPECT_NEAR(m.groups[0].instruction_cycles.fp_add_latency, 2.38, 0.01);
  const auto findings = physics_findings(m);
  EXPECT_TRUE(findings.empty()) << all(findings);
}

TEST(Physics, EveryBundledMachineAndACalibratedFilePass) {
  for (const auto& name : bundled_machine_names()) {
    const auto findings = physics_findings(bundled(name));
    EXPECT_TRUE(findings.empty()) << name << ":\n" << all(findings);
  }
  const auto findings = physics_findings(load_machine_file(source_path("tests/calibrate/data/calibrated_before.toml")));
  EXPECT_TRUE(findings.empty()) << all(findings);
}

// One breach at a time on a plain machine, each named by the key that holds it.
struct Breach {
  std::vector<std::string> overrides;
  std::string figure;
};

class PhysicsBreach : public ::testing::TestWithParam<Breach> {};

TEST_P(PhysicsBreach, IsFoundAndNamedByItsKey) {
  const auto findings = physics_findings(minimal(GetParam().overrides));
  ASSERT_EQ(findings.size(), 1u) << all(findings);
  EXPECT_EQ(findings[0].figure, GetParam().figure);
  EXPECT_FALSE(findings[0].bound.empty());
  EXPECT_FALSE(findings[0].reason.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Bounds, PhysicsBreach,
    ::testing::Values(
        Breach{{"node.clock=\"7 GHz\""}, "node.clock"},
        Breach{{"node.clock=\"0.2 GHz\"", "node.flops_per_core=\"1 Gflop/s\""}, "node.clock"},
        // 20 Gflop/s at 0.5 GHz is 40 flops a cycle: a clock read too low
        // that the clock's own bounds let pass shows against the flops.
        Breach{{"node.clock=\"0.5 GHz\"", "node.flops_per_core=\"20 Gflop/s\"",
                "node.flops_per_core_single=\"20 Gflop/s\""},
               "node.flops_per_core"},
        Breach{{"node.clock=\"2 GHz\"", "node.flops_per_core=\"40 Gflop/s\"",
                "node.flops_per_core_scalar=\"18 Gflop/s\"", "node.flops_per_core_single_scalar=\"5 Gflop/s\""},
               "node.flops_per_core_scalar"},
        Breach{{"memory.DRAM.bandwidth=\"20 GB/s\""}, "memory.DRAM.bandwidth"},
        Breach{{"memory.L1.bandwidth=\"300 GB/s\"", "memory.DRAM.bandwidth=\"250 GB/s\""}, "memory.DRAM.bandwidth"},
        Breach{{"memory.DRAM.node_bandwidth=\"500 GB/s\""}, "memory.DRAM.node_bandwidth"},
        Breach{{"node.clock=\"1 GHz\"", "memory.L1.bandwidth=\"500 GB/s\"", "memory.DRAM.bandwidth=\"9 GB/s\""},
               "memory.L1.bandwidth"},
        Breach{{"node.instruction_cycles.fp_add_latency=12"}, "node.instruction_cycles.fp_add_latency"},
        Breach{{"network.latency=\"0.1 ns\"", "network.intra_node_latency=\"1 us\""}, "network.latency"}));

TEST(Physics, WithinTheMarginsNothingIsFound) {
  // DRAM 1.2x L1 is inside the 1.25 margin a noisy sweep is given; a clock of
  // 6.2 GHz (the fastest turbo shipped) and 0.4 GHz are real.
  for (const auto& overrides :
       std::vector<std::vector<std::string>>{{"memory.DRAM.bandwidth=\"15.6 GB/s\""},
                                             {"node.clock=\"6.2 GHz\""},
                                             {"node.clock=\"0.4 GHz\"", "node.flops_per_core=\"5 Gflop/s\""}}) {
    const auto findings = physics_findings(minimal(overrides));
    EXPECT_TRUE(findings.empty()) << overrides.front() << ":\n" << all(findings);
  }
}

// The loader refuses cycles under 1 in a file; calibrate builds its Machine
// without the loader, and a clock read too low would make its cycles so.
TEST(Physics, InstructionCyclesUnderACycleAreFound) {
  Machine m = minimal();
  m.groups[0].instruction_cycles.fp_divide_latency = 0.5;
  const auto findings = physics_findings(m);
  ASSERT_EQ(findings.size(), 1u) << all(findings);
  EXPECT_EQ(findings[0].figure, "node.instruction_cycles.fp_divide_latency");
  EXPECT_EQ(findings[0].value, "0.5 cycles");
}

TEST(Physics, GroupsOfAHeterogeneousMachineAreNamedByTheirIndex) {
  Machine m = bundled("hetero-example");
  ASSERT_GE(m.groups.size(), 2u);
  m.groups[1].clock_Hz = 20e9;
  const auto findings = physics_findings(m);
  EXPECT_TRUE(has(findings, "node_group.1.clock")) << all(findings);
}

}  // namespace
}  // namespace perfcast::machine
