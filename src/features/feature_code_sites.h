// Where a probe's feature is named in the source, read of the front end's IR
// the way perfcast analyze reads the optimised code, so that a probe run's
// counts find the loop or branch side of the analyser's model: a site's
// `file:line`, the line a loop is named at (loop_site) and a branch's side
// starts at (side_line), and the facts of a loop's exits (tested_first,
// exits_after_work). Pure queries of the IR: nothing here changes it.
#ifndef PERFCAST_FEATURES_FEATURE_CODE_SITES_H
#define PERFCAST_FEATURES_FEATURE_CODE_SITES_H

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/PostDominators.h>
#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/DebugLoc.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>

namespace perfcast::features {

// Whether `f`'s source is under /usr (the C++ library's templates, MPI's C++
// bindings): the program's behaviour shows in its own code's features, and
// these would be hundreds of mostly idle ones; only their loops and memory
// calls are probed, whose trips and bytes the analyser leaves to a probe run
// where the optimised code inlines them (std::fill, std::copy over a length
// read from memory).
bool from_system_header(const llvm::Function& f);

// Whether code at `loc` is a system header's (a C++ header's static object,
// `std::ios_base::Init` at <iostream>'s line, constructed from the unit's own
// initialiser): no source line of the program's.
bool in_system_header(const llvm::DebugLoc& loc);

// A function's id in the facts of the code: FNV-1a of its linkage name, kept
// to 53 bits so that a double holds it exactly. perfcast probe computes the
// same (src/model/probe_bind.cpp).
double function_id(llvm::StringRef linkage_name);

// `file:line` of `loc` (the file without its directory), or the module's
// source file at line 0 for code without a location: a feature's site.
std::string file_line(const llvm::DebugLoc& loc, const llvm::Module& m);

// The `file:line` of every instruction of `f` that computes or tests
// something (not an unconditional branch): the lines the optimised code keeps.
std::set<std::string> lines_with_code(const llvm::Function& f, const llvm::Module& m);

// Whether the exit test in `exiting` comes before any work of an iteration of
// `l`: it is the loop statement's own test (the front end gives that branch
// the statement's location, the loop's start, and evaluates the whole
// condition before it: `while ((a || b)` on one line `&& c)` on the next, whose
// operands' blocks lie between the header and the test), or the blocks from
// its header to it hold only code of the loop statement's own line or of the
// test's (`for (;;) { if (done) break; ... }`). Each run then tests once more
// than it iterates, as at the header.
bool tested_first(const llvm::Loop& l, const llvm::BasicBlock& exiting, const llvm::Module& m);

// Where loop `l` starts, as the analyser will read it in the optimised code:
// clang's loop metadata, else the branch into the loop (Loop::getStartLoc).
// A loop statement that is that branch alone (Fortran's `DO` without
// control, left by `EXIT`) leaves no code at its line: the optimiser folds
// the branch away, and the preheader it makes anew takes the header's first
// location (LoopSimplify), so the optimised loop starts at its body's first
// line; the probe names it there too. A loop whose code has no line (a
// front-end helper's, inlined: ir_rewrites/lineless_helpers.h) is named as the analyser
// names it: its code's first line, else the statement that leads to it, else
// its outer loop's.
std::string loop_site(const llvm::Loop& l, const std::set<std::string>& code_lines, const llvm::Module& m);

// The source line the side `succ` of a conditional branch starts at, seen in
// the branch's own function (code inlined there counts at its call's line):
// that of the first located instruction of the successor, or of the blocks it
// goes on to unconditionally (a jump's own location says nothing of the side);
// 0 when none says, and, with `loop`, for a side that goes on to the next
// iteration of the branch's loop (`CYCLE`: its latch or header, whose code
// flang gives the body's last line, so both sides would start on one line;
// asked only then). perfcast analyze reads the
// same of the optimised code (side_line in src/analyze/function_analyser.cpp):
// the one identity of a side both builds keep, however the optimiser rewrote
// the condition or swapped the successors, so the binding knows which of the
// model's sides was taken.
unsigned side_line(const llvm::Instruction& br, unsigned succ, const llvm::Loop* loop);  // a branch or a switch

// Whether the side `succ` of the conditional branch `br` does nothing before
// the code both sides go on to: from its successor, while each block goes on
// unconditionally, it reaches the branch's immediate post-dominator (the
// join) or a return with no work on the way (a call, a write to memory other
// than a local's, a floating-point value). A bare `RETURN` (`IF (p == me)
// RETURN`) or the side an `if` without `else` skips: the side the analyser's
// model holds no items on, whatever line the other side's first instruction
// lands on once the optimiser sank code into it (the set-up of an
// explicit-shape dummy's extents), so the binding can match the two when
// their lines differ (model/probe_bind.h).
bool empty_side(const llvm::BranchInst& br, unsigned succ, const llvm::PostDominatorTree& post_dominators);

// The blocks that leave `l` from inside its body once the iteration's work
// is done: exiting blocks other than its header and latches whose branch
// leaves or stays, with no work (a call, a floating-point operation) in the
// loop's blocks they dominate. An iteration left there ran (`CALL step;
// IF (converged) EXIT`), so it counts among the loop's trips though it never
// went back to the header; one left by a test before its work
// (`IF (g == 0) EXIT; CALL sweep(g)`) did not run, and is not counted.
llvm::SmallVector<llvm::BasicBlock*, 2> exits_after_work(llvm::Loop& l, const llvm::DominatorTree& dominators);

// The bytes of the one store of an innermost loop whose only memory write is
// a value it does not change (`a = 0`, a CHARACTER's blank padding, as the
// front end writes them; `std::fill`'s value, a constant once inlined; its
// index and other scalar locals, still in their stack slots at the start of
// the pipeline, aside), or of the stores of the one call it makes instead to
// an assignment of the program's that only copies what it is handed into its
// first argument (`*first = value` of a small struct, its `operator=` not yet
// inlined): the loop the optimiser's loop idiom makes one memset where that
// value is a constant, whose length no probe at the start of the pipeline
// sees; its trips times these bytes are that memset's length. None for any
// other loop. `store_at`, when given, gets the (first) store's location: where
// the memset takes its line.
struct CopyAssignment {
  uint64_t bytes = 0;         // what it stores into its first argument
  llvm::DebugLoc first_store;  // where the memset made of a loop of it takes its line
};
using CopyAssignments = llvm::DenseMap<const llvm::Function*, CopyAssignment>;
// The module's functions of one block that only store into their first
// argument what they read from the others or are given (a struct's
// `operator=`), decided before any probe goes into them.
CopyAssignments copy_assignments(const llvm::Module& m);
std::optional<uint64_t> fill_bytes(const llvm::Loop& loop, const llvm::DataLayout& layout,
                                   llvm::DebugLoc* store_at = nullptr, const CopyAssignments* assignments = nullptr);
// The code fact that names a fill loop's store line where it is not the
// loop's own `site` (`file:line`): `.fill_line`, or `.fill_line:<file>` where
// the store is in another file (an inlined assignment's header).
std::string fill_line_fact(const std::string& site, const llvm::DebugLoc& store_at, const llvm::Module& m);

}  // namespace perfcast::features

#endif
