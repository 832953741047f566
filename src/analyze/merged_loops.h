// Internal: a callee's loop the optimiser merged into its caller's. Inlined
// into a loop that goes round once per call (`while (skip_line(f) != EOF)`),
// a callee's `do ... while` whose exit leads straight back to the caller's
// test shares that loop's header and latch: one loop in the optimised code,
// whose passes are the callee loop's iterations, not the caller loop's.
// Counting it by the caller's source loop would price the callee's work once
// a call.
#pragma once

namespace llvm {
class DILocation;
class Loop;
}  // namespace llvm

namespace perfcast::analyze::detail {

// Where `l` is such a merge: the location of the first instruction of its
// header, code of the inlined callee whose own loop it holds (a line of that
// loop: the probes' loop there, or whose body holds it, counts the passes).
// Null for any other loop. A merge is a cycle through the header whose
// blocks are all code of one inlined call, in a loop that also holds code of
// the caller; blocks without a located instruction count as neither.
const llvm::DILocation* merged_callee_loop(const llvm::Loop& l);

}  // namespace perfcast::analyze::detail
