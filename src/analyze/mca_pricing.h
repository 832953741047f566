// Internal: MCA's in-core figures (mca.h) put into the model's loop items:
// an innermost loop's cycles per iteration (overlapped across short runs) and
// the accesses only its machine code makes; other loops' own blocks' cycles.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <string>

#include "analyze/mca.h"
#include "analyze/program_tree.h"

namespace perfcast::analyze::detail {

// Two decimals: what MCA's figures mean (cycles of a simulated pipeline).
double hundredths(double x);

// Loops counted: innermost priced, unpriced; outer priced, unpriced.
using PricedLoops = std::array<int, 4>;

// Gives every loop item MCA priced (by its header's name) its figures.
// `debug`, when set, gets one line per priced loop with its machine code.
PricedLoops attach_loop_cycles(std::map<std::string, FunctionModel>& functions, const LoopCyclesResult& mca,
                               const std::function<void(const std::string&)>& debug);

}  // namespace perfcast::analyze::detail
