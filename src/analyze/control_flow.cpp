#include "analyze/control_flow.h"

#include <climits>
#include <optional>
#include <string>

#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/CFG.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/PostDominators.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include "analyze/fortran_bindings.h"
#include "analyze/mpi_tables.h"

namespace perfcast::analyze::detail {

bool ends_program(const llvm::BasicBlock& b, bool finalize_counts) {
  using namespace llvm;
  if (isa<UnreachableInst>(b.getTerminator())) return true;
  for (const Instruction& i : b)
    if (auto* call = dyn_cast<CallBase>(&i))
      if (const Function* callee = call->getCalledFunction()) {
        StringRef n = callee->getName();
        if (n == "MPI_Abort" || n == "mpi_abort_" || n == "abort" || n == "exit" || n == "_exit") return true;
        if (finalize_counts && (n == "MPI_Finalize" || n == "mpi_finalize_")) return true;
      }
  return false;
}

// An "error side" of a branch: the code behind it aborts, or stops the program
// early (finalises MPI and returns without looping again). Such paths are
// taken with probability 0 and the other side is certain.
bool ControlFlow::is_error_side(llvm::BasicBlock* from, llvm::BasicBlock* side) {
  using namespace llvm;
  if (s_.pdt.dominates(side, from) || joins_but_for_unwinding(from, side)) return false;  // a join: both ways reach it
  // A call's unwind side: taken only when the callee throws, which a run
  // that finishes its work does (almost) never.
  if (auto* invoke = dyn_cast<InvokeInst>(from->getTerminator()))
    if (invoke->getUnwindDest() == side && invoke->getNormalDest() != side) return true;
  auto memo = error_sides_.find(side);
  if (memo != error_sides_.end()) return memo->second || leaves_early(from, side);
  // Nothing reachable from here may loop: the program is on its way out.
  bool stops = false;
  if (!reaches_loop(side)) {
    SmallVector<BasicBlock*, 16> dominated;
    s_.dt.getDescendants(side, dominated);
    for (BasicBlock* b : dominated) stops = stops || ends_program(*b, true);
  }
  bool result = stops;
  error_sides_[side] = result;
  // A shared exit block (`MPI_Finalize(); return rc;` that several checks
  // jump to) is dominated by none of them, so the search above misses it.
  return result || leaves_early(from, side);
}

// Whether every path from `from` reaches `side` before it ends, leaving aside
// the unwind edges of calls that may throw (an `invoke` under a local with a
// destructor): `side` post-dominates `from` in the code a run that does not
// throw takes. `if (yaml) output(...); MPI_Finalize();` in C++ is such a join:
// output's unwind edge leaves the function through the destructors, so the
// post-dominator tree does not see the code after the `if` as the join it is,
// and without this the `else` side, which goes on to MPI_Finalize and
// nothing else, would look like the way out of a run that stops early and
// output's call would count as certain.
bool ControlFlow::joins_but_for_unwinding(llvm::BasicBlock* from, llvm::BasicBlock* side) {
  using namespace llvm;
  auto memo = joins_.find({from, side});
  if (memo != joins_.end()) return memo->second;
  std::set<BasicBlock*> seen;
  std::vector<BasicBlock*> work = {from};
  bool ends_without = false;
  while (!work.empty() && !ends_without) {
    BasicBlock* b = work.back();
    work.pop_back();
    if (b == side || !seen.insert(b).second) continue;
    if (succ_size(b) == 0) ends_without = true;
    auto* invoke = dyn_cast<InvokeInst>(b->getTerminator());
    for (BasicBlock* s : successors(b))
      if (!invoke || s != invoke->getUnwindDest() || s == invoke->getNormalDest()) work.push_back(s);
  }
  return joins_[{from, side}] = !ends_without;
}

// Whether some path from `from` returns from the function without passing
// `avoid`, not counting paths that abort or exit (they end the program, not
// the run the model describes).
bool ControlFlow::ends_normally_avoiding(llvm::BasicBlock* from, llvm::BasicBlock* avoid) {
  using namespace llvm;
  auto memo = ends_normally_.find({from, avoid});
  if (memo != ends_normally_.end()) return memo->second;
  std::set<BasicBlock*> seen;
  std::vector<BasicBlock*> work = {from};
  bool found = false;
  while (!work.empty() && !found) {
    BasicBlock* b = work.back();
    work.pop_back();
    if (b == avoid || !seen.insert(b).second || ends_program(*b, false)) continue;
    if (isa<ReturnInst>(b->getTerminator())) found = true;
    for (BasicBlock* s : successors(b)) work.push_back(s);
  }
  return ends_normally_[{from, avoid}] = found;
}

// Whether entering `exit` from `from` leaves the run early: `from` can still
// go on to a loop (the program's work), `exit` is on the way out, and the run
// can end normally without it (so it is not the program's normal end, which
// every run that does not abort passes).
bool ControlFlow::leaves_early(llvm::BasicBlock* from, llvm::BasicBlock* exit) {
  return on_way_out(exit) && !on_way_out(from) && ends_normally_avoiding(from, exit);
}

namespace {

// For a callee that is an MPI operation of the vocabulary (MPI_Send, its
// PMPI_Send, Fortran's mpi_send_): whether it is the program's work, which
// every operation is but starting MPI, ending it and marking a region
// (Pcontrol). Nothing for other callees.
std::optional<bool> mpi_operation_works(const llvm::Function* callee) {
  if (!callee) return std::nullopt;
  std::string name = callee->getName().str();
  if (name.rfind("PMPI_", 0) == 0) name.erase(0, 1);
  std::optional<mpi::Op> op;
  if (auto spec = mpi_specs().find(name); spec != mpi_specs().end()) op = spec->second.op;
  else if (const FortranMpiSpec* f = fortran_mpi_spec(name)) op = f->spec.op;
  if (!op) return std::nullopt;
  return *op != mpi::Op::Init && *op != mpi::Op::Finalize && *op != mpi::Op::Pcontrol;
}

// Whether a call of `f` does the program's work: it is an MPI operation other
// than starting or ending MPI, or its body loops, makes such an operation, or
// calls a function that does (a few calls deep). A solver called after a size
// check is work; a usage message is not.
bool does_work(const llvm::Function* f, int depth, std::map<const llvm::Function*, bool>& memo) {
  using namespace llvm;
  if (auto mpi = mpi_operation_works(f)) return *mpi;
  if (!f || f->isDeclaration() || depth > 8) return false;
  if (auto it = memo.find(f); it != memo.end()) return it->second;
  memo[f] = false;  // a recursion is judged by the rest of its body
  SmallVector<std::pair<const BasicBlock*, const BasicBlock*>, 8> back_edges;
  FindFunctionBackedges(*f, back_edges);
  bool work = !back_edges.empty();
  for (const BasicBlock& b : *f)
    for (const Instruction& i : b)
      if (auto* call = dyn_cast<CallBase>(&i); call && !work) work = does_work(call->getCalledFunction(), depth + 1, memo);
  return memo[f] = work;
}

}  // namespace

// Whether `b` does the program's work or can reach it: it is in a loop, makes
// an MPI operation other than starting or ending MPI, or calls a function
// that works (does_work). A backward fixed point over the function, computed
// once. So a side that only communicates (an input reader's broadcast and
// barrier after its checks) is work, not the program's way out.
bool ControlFlow::reaches_loop(const llvm::BasicBlock* b) {
  using namespace llvm;
  if (!reaches_loop_done_) {
    reaches_loop_done_ = true;
    std::map<const Function*, bool> works;
    for (bool changed = true; changed;) {
      changed = false;
      for (BasicBlock& x : s_.f) {
        if (reaches_loop_.count(&x)) continue;
        bool reach = s_.li.getLoopFor(&x) != nullptr;
        for (const Instruction& i : x)
          if (auto* call = dyn_cast<CallBase>(&i); call && !reach)
            reach = does_work(call->getCalledFunction(), 0, works);
        for (BasicBlock* s : successors(&x)) reach = reach || reaches_loop_.count(s);
        if (reach) reaches_loop_.insert(&x), changed = true;
      }
    }
  }
  return reaches_loop_.count(b) > 0;
}

// A block on the program's way out: no loop is reachable from it and every
// path from it to a return stops the program (finalises MPI, aborts, exits) or
// ends in `unreachable`.
bool ControlFlow::on_way_out(llvm::BasicBlock* b) {
  using namespace llvm;
  if (!on_way_out_done_) {
    on_way_out_done_ = true;
    // The least fixed point: a block stops itself or all its successors are on the way out.
    for (bool changed = true; changed;) {
      changed = false;
      for (BasicBlock& x : s_.f) {
        if (reaches_loop(&x) || on_way_out_.count(&x)) continue;
        bool out = ends_program(x, true);
        if (!out && succ_size(&x) > 0) {
          out = true;
          for (BasicBlock* s : successors(&x)) out = out && on_way_out_.count(s);
        }
        if (out) on_way_out_.insert(&x), changed = true;
      }
    }
  }
  return on_way_out_.count(b) > 0;
}

// Whether every path from `d` that does not leave early reaches `cur` (in the
// same iteration of `region`). Leaving early: entering a block on the way out
// (an early `MPI_Finalize(); return`, an abort) that `cur` cannot reach, so not
// the program's normal end after `cur`. Such exits, perhaps deep inside a loop
// (an option parser's) or behind a shared return block, make the code after
// them no less certain: `cur` then counts as reached whenever `d` is. The
// unwind edge of a call that may throw (an `invoke`) leaves early too: it is
// taken only when the callee throws (is_error_side), so an `if` one of whose
// sides prints with iostreams (each `<<` an invoke, each facet check a branch
// to a throw) does not make the code after it uncertain.
bool ControlFlow::certain_but_for_exits(llvm::BasicBlock* d, llvm::BasicBlock* cur, const llvm::Loop* region) {
  using namespace llvm;
  if (on_way_out(cur)) return false;
  auto memo = certain_.find({d, cur});
  if (memo != certain_.end()) return memo->second;
  bool& result = certain_[{d, cur}];
  // The blocks reachable from `cur`: the way out after it is its normal end.
  std::set<const BasicBlock*> after;
  std::vector<BasicBlock*> todo = {cur};
  while (!todo.empty()) {
    BasicBlock* b = todo.back();
    todo.pop_back();
    if (!after.insert(b).second) continue;
    for (BasicBlock* s : successors(b)) todo.push_back(s);
  }
  std::set<BasicBlock*> seen;
  std::vector<std::pair<BasicBlock*, BasicBlock*>> work;  // (block, the block the walk came from)
  bool left_early = false;
  auto walk_on = [&](BasicBlock* from) {
    auto* invoke = dyn_cast<InvokeInst>(from->getTerminator());
    for (BasicBlock* s : successors(from)) {
      if (invoke && s == invoke->getUnwindDest() && s != invoke->getNormalDest()) {
        left_early = true;
        continue;
      }
      work.push_back({s, from});
    }
  };
  walk_on(d);
  while (!work.empty()) {
    auto [b, from] = work.back();
    work.pop_back();
    if (b == cur || !seen.insert(b).second) continue;
    // An exit `cur` cannot reach, or one it reaches only through further
    // checks (a block shared by every `return rc` of an inlined parser).
    if (on_way_out(b) && (!after.count(b) || leaves_early(from, b))) {
      left_early = true;
      continue;
    }
    // Around the loop again, out of it, or out of the function: `cur` missed.
    if (region && (b == region->getHeader() || !region->contains(b))) return result = false;
    if (succ_size(b) == 0) return result = false;
    walk_on(b);
  }
  return result = left_early;
}

// Whether a path from `d` goes back to `region`'s header without passing
// `cur`, through code of more than `d`'s line: a way round within one line
// is a loop of that statement's own the optimiser merged into the loop (an
// intrinsic's scan, `IF (ALL(done)) EXIT`), not a pass of the source loop.
bool ControlFlow::round_again_avoiding(llvm::BasicBlock* d, llvm::BasicBlock* cur, const llvm::Loop* region) {
  using namespace llvm;
  auto memo = round_again_.find({d, cur});
  if (memo != round_again_.end()) return memo->second;
  bool& result = round_again_[{d, cur}];
  const DebugLoc& test = d->getTerminator()->getDebugLoc();
  bool other_line = !test || !test.getLine();
  auto look = [&](const BasicBlock& b) {
    for (const Instruction& i : b)
      if (const DebugLoc& at = i.getDebugLoc(); at && at.getLine() && !isa<DbgInfoIntrinsic>(i))
        other_line = other_line || at.getLine() != test.getLine() || at->getFile() != test->getFile();
  };
  std::set<const BasicBlock*> seen;
  std::vector<BasicBlock*> work(succ_begin(d), succ_end(d));
  bool round = false;
  while (!work.empty()) {
    BasicBlock* b = work.back();
    work.pop_back();
    if (b == region->getHeader()) {
      round = true;
      continue;
    }
    if (b == cur || !region->contains(b) || !seen.insert(b).second) continue;
    look(*b);
    for (BasicBlock* s : successors(b)) work.push_back(s);
  }
  return result = round && other_line;
}

bool ControlFlow::guard_of(llvm::BasicBlock* b, const llvm::Loop* region, std::vector<GuardStep>& out) {
  using namespace llvm;
  BasicBlock* head = region ? region->getHeader() : &s_.f.getEntryBlock();
  std::vector<GuardStep> rev;
  BasicBlock* cur = b;
  while (cur != head) {
    // Code a landing pad dominates (a cleanup's destructors, a catch
    // handler) runs only after a call threw, which a run that finishes its
    // work does not: left out, as the unwind edges are (is_error_side).
    if (cur->isEHPad()) return false;
    auto* node = s_.dt.getNode(cur);
    if (!node || !node->getIDom()) break;
    BasicBlock* d = node->getIDom()->getBlock();
    Instruction* t = d->getTerminator();
    // An exit the run reaches only by leaving early (a parser's `--help`
    // inside its loop, a `return rc` block shared by several checks): no
    // single branch side leads there, so it is caught here.
    if (leaves_early(d, cur)) return false;
    // After `d` on every way out of the function, `cur` may yet be skipped by
    // an iteration that goes round again: a loop's only exit behind a test
    // in its body (`while (1) { ...; if (c) { work; if (done) break; } }`,
    // a callee's loop merged into its caller's) post-dominates its header.
    const bool after_d = s_.pdt.dominates(cur, d) && !(region && round_again_avoiding(d, cur, region));
    if (s_.li.getLoopFor(d) == region && !after_d && t->getNumSuccessors() >= 2 &&
        !certain_but_for_exits(d, cur, region)) {
      unsigned side = UINT_MAX;
      for (unsigned s = 0; s < t->getNumSuccessors(); ++s)
        if (s_.dt.dominates(BasicBlockEdge(d, t->getSuccessor(s)), cur)) {
          side = s;
          break;
        }
      bool others_error = side != UINT_MAX, leaves_region = false;
      for (unsigned s = 0; s < t->getNumSuccessors(); ++s) {
        if (s == side) continue;
        if (!is_error_side(d, t->getSuccessor(s))) others_error = false;
        if (region && !region->contains(t->getSuccessor(s))) leaves_region = true;
      }
      if (side != UINT_MAX && is_error_side(d, t->getSuccessor(side))) return false;
      // A loop's exit test is its trip count; an error path's alternative is
      // certain. The code after the exits of a loop left only from the middle
      // of its body (`DO` ... `EXIT`, `for (;;)` ... `break`) misses the last
      // of the iterations the loop's header starts.
      if (!others_error && !leaves_region) rev.push_back({t, side, side == UINT_MAX ? cur : nullptr});
      else if (leaves_region && side != UINT_MAX && misses_last_iteration(region, cur))
        rev.push_back({t, side, nullptr, region});
    }
    cur = d;
  }
  out.assign(rev.rbegin(), rev.rend());
  return true;
}

// Whether `cur`, after an exit of loop `l`, runs on all of l's iterations but
// the last: l is left only from the middle of its body (no exit at its header
// or a latch: each run starts its iterations at the header and leaves from
// inside the last, the optimiser's copies of one EXIT test alike), and no
// exit follows `cur` within an iteration, so the iteration that leaves never
// reaches it.
bool ControlFlow::misses_last_iteration(const llvm::Loop* l, llvm::BasicBlock* cur) {
  using namespace llvm;
  SmallVector<BasicBlock*, 4> exiting;
  l->getExitingBlocks(exiting);
  for (BasicBlock* b : exiting)
    if (b == l->getHeader() || l->isLoopLatch(b)) return false;
  std::set<const BasicBlock*> seen;
  std::vector<BasicBlock*> work = {cur};
  while (!work.empty()) {
    BasicBlock* b = work.back();
    work.pop_back();
    if (b == l->getHeader() || !l->contains(b) || !seen.insert(b).second) continue;
    if (llvm::is_contained(exiting, b)) return false;
    for (BasicBlock* s : successors(b)) work.push_back(s);
  }
  return true;
}

std::optional<unsigned> ControlFlow::skips_the_work(const llvm::Instruction* branch) {
  using namespace llvm;
  auto* br = dyn_cast<BranchInst>(branch);
  if (!br || !br->isConditional() || br->getSuccessor(0) == br->getSuccessor(1)) return std::nullopt;
  for (unsigned skip = 0; skip < 2; ++skip)
    if (on_way_out(br->getSuccessor(skip)) && reaches_loop(br->getSuccessor(1 - skip)) &&
        !on_way_out(br->getSuccessor(1 - skip)))
      return skip;
  return std::nullopt;
}

}  // namespace perfcast::analyze::detail
