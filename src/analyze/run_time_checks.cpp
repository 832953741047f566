#include "analyze/run_time_checks.h"

#include <set>
#include <vector>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>

namespace perfcast::analyze::detail {

namespace {

// Whether `to` is reachable from `from` without passing `avoid` or `around`
// (the header of the loop around the check: the next iteration's code is not
// the check's fallback).
bool reaches(llvm::BasicBlock* from, const llvm::BasicBlock* to, const llvm::BasicBlock* avoid,
             const llvm::BasicBlock* around) {
  std::set<const llvm::BasicBlock*> seen;
  std::vector<llvm::BasicBlock*> work = {from};
  while (!work.empty()) {
    llvm::BasicBlock* b = work.back();
    work.pop_back();
    if (b == to) return true;
    if (b == avoid || b == around || !seen.insert(b).second) continue;
    for (llvm::BasicBlock* succ : llvm::successors(b)) work.push_back(succ);
  }
  return false;
}

}  // namespace

std::optional<unsigned> run_time_check_fallback(const llvm::BranchInst* br, const FunctionScope& s) {
  using namespace llvm;
  if (!br->isConditional() || br->getSuccessor(0) == br->getSuccessor(1)) return std::nullopt;
  BasicBlock* check = const_cast<BasicBlock*>(br->getParent());
  // Inside a loop, a data test before an array statement (`IF (w /= 0) a(:) =
  // ...`) skips to code that reaches the next statement's loops and, around
  // the loop, this statement's own: only paths within one iteration count.
  const Loop* around_loop = s.li.getLoopFor(check);
  const BasicBlock* around = around_loop ? around_loop->getHeader() : nullptr;
  for (unsigned fallback = 0; fallback < 2; ++fallback) {
    BasicBlock* scalar = br->getSuccessor(fallback);
    BasicBlockEdge vector_edge(check, br->getSuccessor(1 - fallback));
    // The vector loop: a loop entered only through the vector side.
    const Loop* vector_loop = nullptr;
    for (const Loop* l : s.li.getLoopsInPreorder())
      if (s.dt.dominates(vector_edge, l->getHeader()) && !l->contains(check)) {
        vector_loop = l;
        break;
      }
    if (!vector_loop) continue;
    // The middle block: after the vector loop, on the vector side, branching
    // to the scalar fallback or past it to where the scalar loop ends.
    for (BasicBlock* middle : predecessors(scalar)) {
      if (middle == check || !s.dt.dominates(vector_edge, middle) || vector_loop->contains(middle)) continue;
      auto* mbr = dyn_cast<BranchInst>(middle->getTerminator());
      if (!mbr || !mbr->isConditional()) continue;
      BasicBlock* done = mbr->getSuccessor(0) == scalar ? mbr->getSuccessor(1) : mbr->getSuccessor(0);
      if (done == scalar || !reaches(vector_loop->getHeader(), middle, check, around)) continue;
      // The scalar loop: entered from the fallback, it ends where the middle block's other side goes.
      const Loop* scalar_loop = nullptr;
      for (const Loop* l : s.li.getLoopsInPreorder())
        if (!l->getParentLoop() || l->getParentLoop()->contains(check))
          if (!l->contains(check) && !s.dt.dominates(vector_edge, l->getHeader()) &&
              reaches(scalar, l->getHeader(), done, around) && reaches(l->getHeader(), done, nullptr, around)) {
            scalar_loop = l;
            break;
          }
      if (!scalar_loop) continue;
      // Both loops come from one source loop: the same line where debug
      // information says it.
      int vector_line = s.where(vector_loop->getStartLoc()).line;
      int scalar_line = s.where(scalar_loop->getStartLoc()).line;
      if (vector_line && scalar_line && vector_line != scalar_line) continue;
      return fallback;
    }
  }
  return std::nullopt;
}

}  // namespace perfcast::analyze::detail
