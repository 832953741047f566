#include "machine/physics.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <utility>

#include "support/units.h"

namespace perfcast::machine {

namespace {

using units::Dimension;

std::string q(double value, Dimension d) { return units::format(value, d, 3); }
std::string cycles(double value) { return fmt::format("{:.3g} cycles", value); }

struct Checker {
  std::vector<PhysicsFinding> findings;
  void add(std::string figure, std::string value, std::string bound, std::string reason) {
    findings.push_back({std::move(figure), std::move(value), std::move(bound), std::move(reason)});
  }
};

void check_clock(Checker& c, const std::string& prefix, double clock_Hz) {
  if (clock_Hz > physics::kMaxClock_Hz)
    c.add(prefix + "clock", q(clock_Hz, Dimension::Hertz), "at most " + q(physics::kMaxClock_Hz, Dimension::Hertz),
          "no core runs faster (the fastest turbo shipped is 6.2 GHz); a probe whose chain the core runs several per "
          "cycle (a renamer that folds immediate adds) reads a multiple of the clock, and every cycle priced with it "
          "comes out that much too short");
  if (clock_Hz < physics::kMinClock_Hz)
    c.add(prefix + "clock", q(clock_Hz, Dimension::Hertz), "at least " + q(physics::kMinClock_Hz, Dimension::Hertz),
          "no core that runs MPI jobs is this slow; a probe timed while descheduled reads a fraction of the clock");
}

void check_flops(Checker& c, const std::string& prefix, const NodeGroup& g, double clock_Hz) {
  struct Rate {
    const char* key;
    double value;
    double per_cycle;
    const char* why;
    bool given = true;
  };
  // A file that gives no scalar rate gets its SIMD rate copied, and no single
  // scalar rate the double one (the loader's defaults): stand-ins, not claims
  // about scalar code, so a scalar rate is checked only where it differs.
  const char* simd = "512-bit vectors x 2 FMA pipes x 2 flops";
  const char* scalar = "4 FMA pipes x 2 flops, the widest cores made";
  const Rate rates[] = {
      {"flops_per_core", g.flops_per_core, physics::kMaxSimdDoubleFlopsPerCycle, simd},
      {"flops_per_core_single", g.flops_per_core_single, 2 * physics::kMaxSimdDoubleFlopsPerCycle, simd},
      {"flops_per_core_scalar", g.flops_per_core_scalar, physics::kMaxScalarFlopsPerCycle, scalar,
       g.flops_per_core_scalar < g.flops_per_core},
      {"flops_per_core_single_scalar", g.flops_per_core_single_scalar, physics::kMaxScalarFlopsPerCycle, scalar,
       g.flops_per_core_single_scalar < g.flops_per_core_single &&
           g.flops_per_core_single_scalar != g.flops_per_core_scalar}};
  for (const auto& r : rates) {
    if (!r.given) continue;
    const double bound = clock_Hz * r.per_cycle;
    if (r.value > bound * 1.1)
      c.add(prefix + r.key, q(r.value, Dimension::FlopsPerSecond),
            fmt::format("at most {} ({} flops a cycle at {})", q(bound, Dimension::FlopsPerSecond), r.per_cycle,
                        q(clock_Hz, Dimension::Hertz)),
            fmt::format("a core retires at most {} flops a cycle ({}): the rate or the clock is wrong, and a clock "
                        "read too low makes every cycle priced too long",
                        r.per_cycle, r.why));
  }
}

void check_instruction_cycles(Checker& c, const std::string& prefix, const InstructionCycles& ic) {
  for (const auto& field : instruction_cycle_fields()) {
    const double value = ic.*field.value;
    if (value <= 0) continue;  // not given
    const std::string figure = prefix + "instruction_cycles." + field.key;
    if (value < physics::kMinInstructionCycles)
      c.add(figure, cycles(value), fmt::format("at least {} cycles", physics::kMinInstructionCycles),
            "no instruction completes in less than a cycle after its input; the cycles are seconds times the "
            "clock, so a clock read too low makes them so");
    const std::string_view key = field.key;
    if ((key == "fp_add_latency" || key == "fp_multiply_latency") && value > physics::kMaxFpAddMultiplyCycles)
      c.add(figure, cycles(value), fmt::format("at most {} cycles", physics::kMaxFpAddMultiplyCycles),
            "FP adds and multiplies take 2-5 cycles on x86 cores and 9 on A64FX, the slowest pipelines made; the "
            "cycles are seconds times the clock, so a clock read too high inflates them alike");
  }
}

void check_memory(Checker& c, const std::string& prefix, const NodeGroup& g) {
  for (size_t i = 0; i < g.memory.size(); ++i) {
    const MemoryLevel& level = g.memory[i];
    const std::string figure = prefix + "memory." + level.name + ".bandwidth";
    if (i > 0) {
      const MemoryLevel& inner = g.memory[i - 1];
      if (level.bandwidth_Bps > inner.bandwidth_Bps * physics::kLevelOrderMargin)
        c.add(figure, q(level.bandwidth_Bps, Dimension::BytesPerSecond),
              fmt::format("at most {} ({}'s {} x {})",
                          q(inner.bandwidth_Bps * physics::kLevelOrderMargin, Dimension::BytesPerSecond), inner.name,
                          q(inner.bandwidth_Bps, Dimension::BytesPerSecond), physics::kLevelOrderMargin),
              fmt::format("a level farther from the core does not stream faster than {}, which lies between it and "
                          "the core; the sweep's plateaus were misread or the levels are out of order",
                          inner.name));
    }
    if (level.name == "L1" && g.clock_Hz) {
      const double bound = *g.clock_Hz * physics::kMaxL1BytesPerCycle;
      if (level.bandwidth_Bps > bound)
        c.add(figure, q(level.bandwidth_Bps, Dimension::BytesPerSecond),
              fmt::format("at most {} ({} B a cycle at {})", q(bound, Dimension::BytesPerSecond),
                          physics::kMaxL1BytesPerCycle, q(*g.clock_Hz, Dimension::Hertz)),
              "no core moves more than three 64-byte loads and two 64-byte stores a cycle");
    }
    if (level.name == "DRAM") {
      if (level.bandwidth_Bps > physics::kMaxDramPerCore_Bps)
        c.add(figure, q(level.bandwidth_Bps, Dimension::BytesPerSecond),
              "at most " + q(physics::kMaxDramPerCore_Bps, Dimension::BytesPerSecond) + " for one core",
              "one core's stream from memory is bounded by the line fills it keeps in flight (tens of 64-byte lines "
              "per ~100 ns); the sweep ended inside a cache");
      if (level.node_bandwidth_Bps && g.cores > 0 &&
          *level.node_bandwidth_Bps > level.bandwidth_Bps * g.cores * physics::kLevelOrderMargin)
        c.add(prefix + "memory.DRAM.node_bandwidth", q(*level.node_bandwidth_Bps, Dimension::BytesPerSecond),
              fmt::format("at most {} ({} cores x {} x {})",
                          q(level.bandwidth_Bps * g.cores * physics::kLevelOrderMargin, Dimension::BytesPerSecond),
                          g.cores, q(level.bandwidth_Bps, Dimension::BytesPerSecond), physics::kLevelOrderMargin),
              "a core streaming beside the others gets no more than it gets alone");
    }
  }
}

void check_network(Checker& c, const Network& n, double shortest_cycle_s) {
  const std::pair<const char*, double> latencies[] = {{"network.latency", n.latency_s},
                                                      {"network.intra_node_latency", n.intra_node_latency_s},
                                                      {"network.overhead", n.overhead_s}};
  for (const auto& [key, seconds] : latencies)
    if (seconds > 0 && seconds < shortest_cycle_s)
      c.add(key, q(seconds, Dimension::Seconds), "at least " + q(shortest_cycle_s, Dimension::Seconds) + " (a cycle)",
            "a message or an MPI call takes more than one cycle of the fastest core");
}

}  // namespace

std::string describe(const PhysicsFinding& f) {
  return fmt::format("{} = {}, expected {}: {}", f.figure, f.value, f.bound, f.reason);
}

std::vector<PhysicsFinding> physics_findings(const Machine& machine) {
  Checker c;
  double fastest_clock_Hz = 0;
  for (size_t i = 0; i < machine.groups.size(); ++i) {
    const NodeGroup& g = machine.groups[i];
    // Keys as --set spells them: node.* and memory.* for one group.
    const bool one = machine.groups.size() == 1;
    const std::string node = one ? "node." : fmt::format("node_group.{}.", i);
    const std::string memory = one ? "" : node;
    if (g.clock_Hz) {
      check_clock(c, node, *g.clock_Hz);
      fastest_clock_Hz = std::max(fastest_clock_Hz, *g.clock_Hz);
      check_flops(c, node, g, *g.clock_Hz);
    }
    check_instruction_cycles(c, node, g.instruction_cycles);
    check_memory(c, memory, g);
  }
  // A latency under the shortest cycle; with no clock given, under a cycle of
  // the fastest clock there is.
  const double fastest =
      fastest_clock_Hz > 0 ? std::min(fastest_clock_Hz, physics::kMaxClock_Hz) : physics::kMaxClock_Hz;
  check_network(c, machine.network, 1 / fastest);
  return c.findings;
}

}  // namespace perfcast::machine
