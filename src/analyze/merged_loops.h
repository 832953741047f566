// Internal: an inner loop the optimiser merged into the loop around it. A
// loop whose body starts with a `do ... while`, its exit leading straight to
// the outer loop's test (`do { do { c = fgetc(f); } while (c != '\n'); ... }
// while (c != EOF)`, or a callee's such loop inlined into `while
// (skip_line(f) != EOF)`), shares the outer loop's header and latch: one loop
// in the optimised code, whose passes are the inner loop's iterations, not
// the outer's. Counting it by the outer source loop would price the inner
// loop's work once an outer iteration.
#pragma once

namespace llvm {
class DILocation;
class Loop;
}  // namespace llvm

namespace perfcast::analyze::detail {

// Where `l` is such a merge: the location of the first instruction of its
// header, code of the inner source loop (a line of that loop: the probes'
// loop there, or whose body holds it, counts the passes). Null for any other
// loop. A merge is a cycle through the header whose blocks are all code of one
// region, a compound statement (`{ ... }`, its lexical block) or an inlined
// call, in a loop that also holds code outside that region; blocks without a
// located instruction count as neither.
const llvm::DILocation* merged_inner_loop(const llvm::Loop& l);

}  // namespace perfcast::analyze::detail
