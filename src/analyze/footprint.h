// The footprint of a loop: the distinct bytes one run of it (every iteration,
// inner loops included) touches, bounded from the addresses of its accesses.
//
// Each access's address is split by ScalarEvolution into a base pointer and
// an offset; over the loop's iterations an affine offset sweeps from its start
// to start + step x backedge-taken count for every loop it moves with. The
// accesses of one base cover the union of their sweeps, taken as [lowest start,
// highest end) (holes between them count: a stencil's neighbours are dense).
// Summed over the bases this is what a cache sees as the loop's data, the
// quantity Kerncraft's layer conditions and ECM traffic start from; the
// predictor fetches it from the memory level it fits in instead of pricing every
// access there (docs/program-model.md).
//
// Loops whose data cannot be bounded get none: an address read from memory
// (x[col[k]]), a step that changes inside the loop, a loop with a call that may touch
// memory (other than the math functions and the calls the caller allows).
#pragma once

#include <functional>
#include <optional>

namespace llvm {
class CallBase;
class DataLayout;
class Loop;
class SCEV;
class ScalarEvolution;
}  // namespace llvm

namespace perfcast::analyze {

struct LoopFootprint {
  const llvm::SCEV* bytes;        // distinct bytes touched, loaded or stored
  const llvm::SCEV* load_bytes;   // distinct bytes loaded
  const llvm::SCEV* store_bytes;  // distinct bytes stored
};

// Invariant in `loop` (they may use the indices of the loops around it).
// `harmless` says whether a call in the loop leaves memory the loop's data
// does not include alone (math functions, for example).
std::optional<LoopFootprint> loop_footprint(const llvm::Loop& loop, llvm::ScalarEvolution& se,
                                            const llvm::DataLayout& layout,
                                            const std::function<bool(const llvm::CallBase&)>& harmless);

}  // namespace perfcast::analyze
