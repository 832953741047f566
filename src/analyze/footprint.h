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
// Accesses whose addresses cannot be bounded that way are bounded by their
// count (each execution may touch bytes no other touched): a stream whose start
// is read from memory but whose step is fixed (a CSR row, val[e] from e =
// rowptr[row]), and an indirect access, whose address is read from memory
// inside the loop (x[col[e]]). The caller counts them in its own terms (trip
// counts as the model names them) and names what bounds an indirect access
// better: the extent of the array it gathers from.
//
// A value the loop reads again in every iteration but never changes (a
// bound or stride read through a struct pointer that the optimiser could not
// hoist, L->lo[0]) holds one value over the loop: the caller, who knows which
// memory the loop writes, says which (`steady`), and the addresses that use it
// are bounded like those that use values from outside the loop.
//
// Loops whose data cannot be bounded get none: a call that may touch memory
// (other than the math functions and the calls the caller allows), a copy of
// a length that changes inside the loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace llvm {
class CallBase;
class DataLayout;
class Instruction;
class Loop;
class SCEV;
class ScalarEvolution;
class Value;
}  // namespace llvm

namespace perfcast::analyze {

// An access bounded by its count: at most `bytes` distinct bytes each time it
// runs, over the runs in which its address moves.
struct CountedAccess {
  const llvm::Instruction* instruction;
  const llvm::SCEV* address;  // null when not one pointer (a vector of addresses)
  std::uint64_t bytes;        // per execution
  bool store;
  // The address is read from memory inside the loop (x[col[e]]), not a
  // stream (a start read from memory, a fixed step). `gathered`: the base
  // pointer of the array it reads (invariant in the loop), or null.
  bool indirect;
  const llvm::Value* gathered;
};

// The accesses of one base pointer as an interval of bytes. The caller may
// not be able to name the interval (its ends read from memory: a CSR row's
// start and end); it then counts `accesses` instead.
struct BaseExtent {
  const llvm::SCEV* bytes;        // distinct bytes touched, loaded or stored
  const llvm::SCEV* load_bytes;   // distinct bytes loaded; null: none
  const llvm::SCEV* store_bytes;  // distinct bytes stored; null: none
  std::vector<CountedAccess> accesses;
};

struct LoopFootprint {
  std::vector<BaseExtent> bases;       // bounded by their addresses
  std::vector<CountedAccess> counted;  // bounded by their counts
};

// Invariant in `loop` (they may use the indices of the loops around it).
// `harmless` says whether a call in the loop leaves memory the loop's data
// does not include alone (math functions, for example); `steady` whether a
// value computed inside the loop holds one value over all its iterations.
std::optional<LoopFootprint> loop_footprint(const llvm::Loop& loop, llvm::ScalarEvolution& se,
                                            const llvm::DataLayout& layout,
                                            const std::function<bool(const llvm::CallBase&)>& harmless,
                                            const std::function<bool(const llvm::Value&)>& steady);

// Counted accesses that walk one array as one stream, their addresses a
// loop-invariant amount apart: a stencil's neighbours along a sweep whose
// start is read from memory (x[s+e-1], x[s+e], x[s+e+1], s = start[row]).
// Each moves with the same innermost loop by the same fixed step, so each
// walks the array from its start to its start plus `pitch` bytes an execution
// (the step, or the bytes read where they are more); the union of shifted
// copies of one walk is the walk plus the spread of the shifts, not their
// sum. For each access of `counted`: the first access of its group (itself
// when it leads one or is alone) and its address less that one's, in bytes
// (null when alone). Gathers, accesses of other arrays, other steps, and
// shifts that change inside `loop` (two starts read from memory) are never
// grouped.
struct SharedStream {
  std::size_t first;
  const llvm::SCEV* shift;
  std::uint64_t pitch;
};
std::vector<SharedStream> shared_streams(const std::vector<CountedAccess>& counted, const llvm::Loop& loop,
                                         llvm::ScalarEvolution& se);

// The address streams of an innermost loop: its accesses grouped by base
// pointer, those a constant less than kStreamSpanBytes apart in one group (a
// vector loop's neighbours, p-1..p+1, move through the same lines). A 7-point
// stencil, un[p] = f(u[p-sx], u[p-sy], u[p-1..p+1], u[p+sy], u[p+sx], up[p]),
// has 7; a triad 3. Offsets that differ by a symbolic amount (a row, a plane)
// are other streams, however small the amount turns out: the analysis does not
// know it. The gathers from one array (x[col[k]]) are one stream, an access
// whose base pointer cannot be found another, and an address the loop does
// not move none. How far in-core work overlaps transfers depends on it: measured by
// `perfcast calibrate` (docs/machine-format.md, memory `overlap_by_streams`).
// Each stream: its base pointer (null: unknown) and the byte offset of its
// first access from it (null: the base's gathers, or an unknown base).
struct AddressStream {
  const llvm::SCEV* base;
  const llvm::SCEV* offset;
};
std::vector<AddressStream> loop_streams(const llvm::Loop& loop, llvm::ScalarEvolution& se);
constexpr std::int64_t kStreamSpanBytes = 256;

}  // namespace perfcast::analyze
