// Internal: the function's control flow as the model sees it: which branches
// guard a block (the items it nests in), and which paths leave the run early
// (an abort, an early MPI_Finalize and return) and so count as never taken.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "analyze/function_scope.h"

namespace llvm {
class BasicBlock;
class Instruction;
class Loop;
}  // namespace llvm

namespace perfcast::analyze::detail {

// Whether `b` ends the program: it aborts or exits (ends in `unreachable`, or
// calls MPI_Abort/abort/exit), or, when `finalize_counts`, finalises MPI (the
// normal end of an MPI run, which a return follows).
bool ends_program(const llvm::BasicBlock& b, bool finalize_counts);

// One branch on the way to a block: its terminator and the side taken.
struct GuardStep {
  const llvm::Instruction* term;
  unsigned succ;                       // UINT_MAX: reached on some paths only
  llvm::BasicBlock* target = nullptr;  // for those: the block reached
  // `term` is an exit of the loop around, in the middle of its body: `succ`
  // stays in the loop, on all but the loop's last iteration.
  const llvm::Loop* after_exit_of = nullptr;
};

class ControlFlow {
 public:
  explicit ControlFlow(FunctionScope& scope) : s_(scope) {}

  // The branches inside `region` (nullptr: the function) that decide whether
  // `b` runs, outermost first; false when `b` runs only on a run that leaves
  // early, or only after a call threw (a landing pad's code): it is then left
  // out of the model.
  bool guard_of(llvm::BasicBlock* b, const llvm::Loop* region, std::vector<GuardStep>& out);

  // For a two-way branch whose condition the model cannot state (a checking
  // function's result): the side (0 or 1) that skips the rest of the work
  // straight to the program's end (`if (setup(...)) { MPI_Finalize(); return
  // 1; }` once the optimiser shares that block with the normal end), while
  // the other side goes on to work. A run that gets there does the work.
  std::optional<unsigned> skips_the_work(const llvm::Instruction* branch);

 private:
  bool is_error_side(llvm::BasicBlock* from, llvm::BasicBlock* side);
  bool joins_but_for_unwinding(llvm::BasicBlock* from, llvm::BasicBlock* side);
  bool on_way_out(llvm::BasicBlock* b);
  bool reaches_loop(const llvm::BasicBlock* b);
  bool ends_normally_avoiding(llvm::BasicBlock* from, llvm::BasicBlock* avoid);
  bool leaves_early(llvm::BasicBlock* from, llvm::BasicBlock* exit);
  bool certain_but_for_exits(llvm::BasicBlock* d, llvm::BasicBlock* cur, const llvm::Loop* region);
  static bool misses_last_iteration(const llvm::Loop* l, llvm::BasicBlock* cur);
  bool round_again_avoiding(llvm::BasicBlock* d, llvm::BasicBlock* cur, const llvm::Loop* region);

  FunctionScope& s_;
  std::map<const llvm::BasicBlock*, bool> error_sides_;
  std::set<const llvm::BasicBlock*> on_way_out_;
  bool on_way_out_done_ = false;
  std::set<const llvm::BasicBlock*> reaches_loop_;
  bool reaches_loop_done_ = false;
  std::map<std::pair<const llvm::BasicBlock*, const llvm::BasicBlock*>, bool> certain_;
  std::map<std::pair<const llvm::BasicBlock*, const llvm::BasicBlock*>, bool> round_again_;
  std::map<std::pair<const llvm::BasicBlock*, const llvm::BasicBlock*>, bool> ends_normally_;
  std::map<std::pair<const llvm::BasicBlock*, const llvm::BasicBlock*>, bool> joins_;
};

}  // namespace perfcast::analyze::detail
