// Internal: a loop's backedge-taken count (and its footprint) as they hold
// where the loop runs.
//
// ScalarEvolution's count of a loop holds on entry to it; before a loop the
// optimiser made (a vector body, an unrolled loop) a guard skips the loop at
// the sizes where that count is meaningless. A vector body of width W over
// N source iterations counts (W * (N div W) - W) udiv W: for N < W the
// dividend is negative, read unsigned (about 2^64), where the minimum-
// iterations check skips the body. Priced or bounded as written, such a
// count puts 2^62 trips into the model at every size the guard skips.
#pragma once

#include <set>

namespace llvm {
class BasicBlock;
class Function;
class Loop;
class SCEV;
class ScalarEvolution;
}  // namespace llvm

namespace perfcast::analyze {

// The blocks of `f` from which it can still return: not those that only
// unwind (a landing pad's cleanup, then `resume`) or end the program (a
// throw, an abort, a STOP: `unreachable`), which the model prices at 0.
std::set<const llvm::BasicBlock*> blocks_that_return(const llvm::Function& f);

// ScalarEvolution's backedge-taken count of the loop, or, where it has none
// because other exits leave for code that never returns (a throw, an abort,
// a STOP: `ofs << x << std::endl` checks its stream's facet and throws
// bad_cast, `v.at(i)` throws out_of_range; paths the model prices at
// probability 0), the count of the one exit whose code goes on to a return;
// SCEVCouldNotCompute when that one's is unknown too.
const llvm::SCEV* backedge_taken_count(const llvm::Loop& loop, llvm::ScalarEvolution& se);

// That count (SCEVCouldNotCompute when there is none)
// with every udiv dividend that the loop's entry guards prove non-negative
// written max(dividend, 0): equal wherever the loop is entered, and no
// wrapped value where it is not. The dividend of a loop the vectoriser or
// the unroller made is >= 0 wherever it is entered by their contract, proved
// or not (entered_counts.cpp). A dividend the guards do not prove
// non-negative stays unsigned, so a loop that really runs a wrapped count
// keeps it (and the model refuses it when evaluated).
const llvm::SCEV* entered_backedge_taken_count(const llvm::Loop& loop, llvm::ScalarEvolution& se);

// Of a loop the optimiser made of N source iterations taken W at a time (a
// vector body, a loop unrolled at run time) whose count's dividend the guards
// before it do not prove >= 0 (the minimum-iterations check on a value the
// model cannot name, read as a run-time check or weighed by a probability):
// its trips as they are at every size, N udiv W: 0 where that check skips the
// loop. nullptr for every other loop, those whose guards prove it included
// (their counts are priced under those guards, as written).
const llvm::SCEV* unrolled_trips_beyond_guards(const llvm::Loop& loop, llvm::ScalarEvolution& se);

// `s`, a value invariant in the loop that matters only where the loop runs
// (its footprint), rewritten as above under the loop's entry guards.
const llvm::SCEV* under_entry_guards(const llvm::SCEV* s, const llvm::Loop& loop, llvm::ScalarEvolution& se);

}  // namespace perfcast::analyze
