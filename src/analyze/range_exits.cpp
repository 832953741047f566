#include "analyze/range_exits.h"

#include <vector>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>

namespace perfcast::analyze::detail {

namespace ex = perfcast::expr;

int merge_equal_increments(llvm::Function& f) {
  using namespace llvm;
  DominatorTree dt(f);
  std::vector<PHINode*> merged;
  for (BasicBlock& b : f)
    for (PHINode& phi : b.phis()) {
      if (phi.getNumIncomingValues() < 2 || !phi.getType()->isIntegerTy()) continue;
      auto* first = dyn_cast<BinaryOperator>(phi.getIncomingValue(0));
      if (!first || first->getOpcode() != Instruction::Add || !isa<ConstantInt>(first->getOperand(1))) continue;
      Value* x = first->getOperand(0);
      bool same = true, nuw = true, nsw = true;
      for (Value* v : phi.incoming_values()) {
        auto* add = dyn_cast<BinaryOperator>(v);
        same = same && add && add->getOpcode() == Instruction::Add && add->getOperand(0) == x &&
               add->getOperand(1) == first->getOperand(1);
        if (!same) break;
        nuw = nuw && add->hasNoUnsignedWrap();
        nsw = nsw && add->hasNoSignedWrap();
      }
      auto* xi = dyn_cast<Instruction>(x);
      if (!same || (xi && !dt.dominates(xi, &b))) continue;
      auto* add = BinaryOperator::Create(Instruction::Add, x, first->getOperand(1), phi.getName() + ".merged",
                                         b.getFirstInsertionPt());
      add->setHasNoUnsignedWrap(nuw);
      add->setHasNoSignedWrap(nsw);
      add->setDebugLoc(first->getDebugLoc());
      phi.replaceAllUsesWith(add);
      merged.push_back(&phi);
    }
  for (PHINode* phi : merged) phi->eraseFromParent();
  return static_cast<int>(merged.size());
}

namespace {

// A counter stepping up by s from X0 that leaves when it equals E (`X == E`,
// or stays while `X != E`; either operand order), E the same for the whole
// run. ScalarEvolution solves it only when it can prove E - X0 a multiple of
// s, which it cannot where X0 comes from memory (a loop unrolled by 2 whose
// one left-over iteration may run first, starting from a worksharing
// loop's bound): a program that ends reaches E exactly, after (E - X0) / s
// back edges.
std::optional<expr::Expr> equality_exit_trip_count(llvm::Loop* l, llvm::ICmpInst* cmp, llvm::ICmpInst::Predicate stay,
                                                   llvm::ScalarEvolution& se, ScevToExpr& exprs) {
  using namespace llvm;
  if (stay != ICmpInst::ICMP_NE) return std::nullopt;
  for (unsigned k = 0; k < 2; ++k) {
    auto* x = dyn_cast<SCEVAddRecExpr>(se.getSCEV(cmp->getOperand(k)));
    const SCEV* end = se.getSCEV(cmp->getOperand(1 - k));
    if (!x || x->getLoop() != l || !x->isAffine() || !se.isLoopInvariant(end, l)) continue;
    auto* step = dyn_cast<SCEVConstant>(x->getStepRecurrence(se));
    if (!step || !step->getAPInt().isStrictlyPositive()) continue;
    auto start = exprs.conv(x->getStart(), l->getParentLoop());
    auto e = start ? exprs.conv(end, l->getParentLoop()) : std::nullopt;
    if (!e) continue;
    ex::Expr s = ex::integer(static_cast<std::int64_t>(step->getAPInt().getZExtValue()));
    return ex::simplify(ex::floordiv(*e - *start, s) + ex::integer(1));
  }
  return std::nullopt;
}

}  // namespace

std::optional<expr::Expr> range_exit_trip_count(llvm::Loop* l, llvm::ScalarEvolution& se, ScevToExpr& exprs) {
  using namespace llvm;
  BasicBlock* latch = l->getLoopLatch();
  if (!latch || l->getExitingBlock() != latch) return std::nullopt;
  auto* br = dyn_cast<BranchInst>(latch->getTerminator());
  if (!br || !br->isConditional()) return std::nullopt;
  auto* cmp = dyn_cast<ICmpInst>(br->getCondition());
  if (!cmp || !se.isSCEVable(cmp->getOperand(0)->getType())) return std::nullopt;
  // Stays in the loop while X u< C: the header is the true successor.
  ICmpInst::Predicate pred = cmp->getPredicate();
  if (br->getSuccessor(0) != l->getHeader()) pred = ICmpInst::getInversePredicate(pred);
  if (auto e = equality_exit_trip_count(l, cmp, pred, se, exprs)) return e;
  if (pred != ICmpInst::ICMP_ULT) return std::nullopt;
  auto* c = dyn_cast<ConstantInt>(cmp->getOperand(1));
  auto* x = dyn_cast<SCEVAddRecExpr>(se.getSCEV(cmp->getOperand(0)));
  if (!c || !x || x->getLoop() != l || !x->isAffine() || !c->isNegative()) return std::nullopt;
  auto* step = dyn_cast<SCEVConstant>(x->getStepRecurrence(se));
  if (!step || !step->getAPInt().isNegative()) return std::nullopt;
  const APInt s = -step->getAPInt();
  // X u< C holds while X >= 0 and again below the window [C, -1]: the loop
  // leaves only when X, stepping down, lands in the window, which the
  // unroller makes sure of (its counter is a multiple of the step away from
  // it). Stepping over the window or starting below it would run the loop
  // about 2^bits / s times, which no program that ends does: so it runs
  // while X >= 0.
  auto start = exprs.conv(x->getStart(), l->getParentLoop());
  if (!start) return std::nullopt;
  // X_i = start - i s; the first i with X_i < 0 is floordiv(start, s) + 1,
  // the back edges taken; one iteration more runs the body.
  ex::Expr sv = ex::integer(static_cast<std::int64_t>(s.getZExtValue()));
  return ex::simplify(ex::maximum({ex::floordiv(*start, sv) + ex::integer(1), ex::integer(0)}) + ex::integer(1));
}

}  // namespace perfcast::analyze::detail
