#include "analyze/merged_loops.h"

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/IntrinsicInst.h>

namespace perfcast::analyze::detail {

namespace {

// The location of the first located instruction of `bb`, or null.
const llvm::DILocation* first_location(const llvm::BasicBlock& bb) {
  for (const llvm::Instruction& i : bb)
    if (!llvm::isa<llvm::DbgInfoIntrinsic>(i))
      if (const llvm::DILocation* at = i.getDebugLoc().get(); at && at->getLine()) return at;
  return nullptr;
}

// Whether `at` is code inlined through the call `call` (a DILocation an
// inlined instance's every location names among its inlinedAt).
bool inlined_through(const llvm::DILocation* at, const llvm::DILocation* call) {
  for (const llvm::DILocation* c = at->getInlinedAt(); c; c = c->getInlinedAt())
    if (c == call) return true;
  return false;
}

enum class Owner { Callee, Caller, None };

// Whose code `bb` is: the inlined call's where each located instruction is,
// the caller's where some is not, no one's where none is located.
Owner owner(const llvm::BasicBlock& bb, const llvm::DILocation* call) {
  bool located = false;
  for (const llvm::Instruction& i : bb) {
    if (llvm::isa<llvm::DbgInfoIntrinsic>(i)) continue;
    const llvm::DILocation* at = i.getDebugLoc().get();
    if (!at || !at->getLine()) continue;
    if (!inlined_through(at, call)) return Owner::Caller;
    located = true;
  }
  return located ? Owner::Callee : Owner::None;
}

}  // namespace

const llvm::DILocation* merged_callee_loop(const llvm::Loop& l) {
  const llvm::BasicBlock* header = l.getHeader();
  const llvm::DILocation* head = first_location(*header);
  if (!head) return nullptr;
  // Each inlined call the header's code is part of, the innermost first.
  for (const llvm::DILocation* call = head->getInlinedAt(); call; call = call->getInlinedAt()) {
    if (owner(*header, call) != Owner::Callee) continue;
    llvm::SmallPtrSet<const llvm::BasicBlock*, 16> callee;
    bool caller = false;
    for (const llvm::BasicBlock* bb : l.blocks()) {
      Owner o = owner(*bb, call);
      if (o == Owner::Callee) callee.insert(bb);
      caller = caller || o == Owner::Caller;
    }
    if (!caller) return nullptr;  // the callee's own loop, or one inside it
    // A way from the header back to it through the callee's code alone.
    llvm::SmallVector<const llvm::BasicBlock*, 16> work{header};
    llvm::SmallPtrSet<const llvm::BasicBlock*, 16> seen;
    while (!work.empty()) {
      const llvm::BasicBlock* bb = work.pop_back_val();
      for (const llvm::BasicBlock* next : llvm::successors(bb)) {
        if (next == header) return head;
        if (callee.count(next) && seen.insert(next).second) work.push_back(next);
      }
    }
  }
  return nullptr;
}

}  // namespace perfcast::analyze::detail
