#include "analyze/later_tests.h"

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/PatternMatch.h>

namespace perfcast::analyze::detail {

LaterTest later_test_of(const llvm::BasicBlock& b, const llvm::DominatorTree& dt) {
  using namespace llvm;
  using namespace llvm::PatternMatch;
  LaterTest out;
  auto* br = dyn_cast<BranchInst>(b.getTerminator());
  if (!br || !br->isConditional() || br->getSuccessor(0) == br->getSuccessor(1)) return out;
  auto* cond = dyn_cast<Instruction>(br->getCondition());
  if (!cond || cond->getParent() != &b || !cond->hasOneUse() || cond->getType()->isVectorTy()) return out;
  Value *first = nullptr, *later = nullptr;
  bool is_or = false;
  if (match(cond, m_LogicalOr(m_Value(first), m_Value(later))))
    is_or = true;
  else if (!match(cond, m_LogicalAnd(m_Value(first), m_Value(later))))
    return out;
  auto* first_test = dyn_cast<CmpInst>(first);
  auto* later_test = dyn_cast<CmpInst>(later);
  if (!first_test || !later_test || later_test->getParent() != &b || !later_test->hasOneUse()) return out;
  // The side only the later test reaches: `else` of `a || b`, `then` of `a && b`.
  const BasicBlockEdge only_later(&b, br->getSuccessor(is_or ? 1 : 0));
  auto on_later_side = [&](const Use& u) {
    auto* user = cast<Instruction>(u.getUser());
    if (auto* phi = dyn_cast<PHINode>(user))
      return phi->getIncomingBlock(u) == &b && phi->getParent() == only_later.getEnd();
    return user->getParent() != &b && dt.dominates(only_later, user->getParent());
  };
  // The later test and what it needs in the block, then less every
  // instruction used elsewhere, until none is.
  SmallPtrSet<const Instruction*, 16> own;
  SmallVector<const Instruction*, 16> work = {later_test};
  while (!work.empty()) {
    const Instruction* i = work.pop_back_val();
    if (i->getParent() != &b || isa<PHINode>(i) || i->mayHaveSideEffects() || isa<DbgInfoIntrinsic>(i) ||
        !own.insert(i).second)
      continue;
    for (const Value* op : i->operands())
      if (auto* oi = dyn_cast<Instruction>(op)) work.push_back(oi);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (const Instruction* i : SmallVector<const Instruction*, 16>(own.begin(), own.end())) {
      for (const Use& u : i->uses()) {
        auto* user = cast<Instruction>(u.getUser());
        if (own.count(user) || (i == later_test && user == cond) || on_later_side(u)) continue;
        own.erase(i);
        changed = true;
        break;
      }
    }
  }
  if (!own.count(later_test) || own.size() - 1 <= kMergedTestInstructions) return out;
  out.branch = br;
  out.first = first;
  out.is_or = is_or;
  out.own = std::move(own);
  return out;
}

}  // namespace perfcast::analyze::detail
