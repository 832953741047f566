// Whether a machine's figures are ones hardware can have: a clock no core
// runs at, a cache slower than the level behind it, an instruction that
// completes in less than a cycle are misreadings (of a probe, of a hand-edited
// file), and every prediction priced with them inherits the error.
//
// The one place these bounds live: `perfcast calibrate` refuses to write a
// file that breaks one, `perfcast machine show` and `perfcast predict` warn
// about a file that does. Pure functions of the figures: no hardware is read.
#pragma once

#include <string>
#include <vector>

#include "machine/machine.h"

namespace perfcast::machine {

// One figure outside what hardware does.
struct PhysicsFinding {
  std::string figure;  // the key as the machine file spells it: "node.clock", "memory.L2.bandwidth"
  std::string value;   // the figure with its unit: "13.6 GHz"
  std::string bound;   // what hardware allows: "at most 6.5 GHz"
  std::string reason;  // why the bound holds, and what a breach usually means
};

// "node.clock = 13.6 GHz, expected at most 6.5 GHz: <reason>"
std::string describe(const PhysicsFinding& finding);

// The bounds, for tests and for the documentation to quote.
namespace physics {
inline constexpr double kMaxClock_Hz = 6.5e9;  // the fastest shipped turbo is 6.2 GHz
inline constexpr double kMinClock_Hz = 0.3e9;
// Flops per cycle per core: 512-bit vectors (8 doubles) x 2 FMA pipes x 2 flops.
inline constexpr double kMaxSimdDoubleFlopsPerCycle = 32;
// Scalar: 4 FMA pipes (the widest cores have four) x 2 flops.
inline constexpr double kMaxScalarFlopsPerCycle = 8;
// A level may measure this much faster than the one nearer the core (noise
// between two plateaus of a sweep) before the order counts as broken.
inline constexpr double kLevelOrderMargin = 1.25;
// Bytes per cycle a core moves from L1 at most: three 64-byte loads and two
// 64-byte stores a cycle (the widest load/store units made), with room.
inline constexpr double kMaxL1BytesPerCycle = 384;
inline constexpr double kMaxDramPerCore_Bps = 200e9;
// FP add and multiply latencies: 2-5 cycles on x86 cores, 9 on A64FX, the
// slowest pipelines made.
inline constexpr double kMaxFpAddMultiplyCycles = 10;
// Below one cycle, less what a sample's jitter gives.
inline constexpr double kMinInstructionCycles = 0.9;
}  // namespace physics

// Every figure of `machine` outside the bounds above; empty when all hold.
// Figures a file does not give (no clock, no instruction cycles) are not
// checked, nor bounds that need one (flops against the clock).
std::vector<PhysicsFinding> physics_findings(const Machine& machine);

}  // namespace perfcast::machine
