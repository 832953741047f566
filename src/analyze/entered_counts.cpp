#include "analyze/entered_counts.h"

#include <set>
#include <vector>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Instructions.h>

namespace perfcast::analyze {

namespace {

using llvm::SCEV;

bool guarded(llvm::ICmpInst::Predicate predicate, const SCEV* lhs, const SCEV* rhs, const llvm::Loop& loop,
             llvm::ScalarEvolution& se) {
  auto* l = const_cast<llvm::Loop*>(&loop);
  return se.isLoopEntryGuardedByCond(l, predicate, lhs, rhs) ||
         se.isKnownPredicate(predicate, se.applyLoopGuards(lhs, l), rhs);
}

// Whether `s` >= `least` (unsigned) wherever the loop is entered: by a guard
// on `s`, or on s - 1 where s >= 1 (the unroller tests a source loop's
// backedge-taken count, T - 1 >= U - 1, before the loop unrolled by U).
bool guarded_at_least(const SCEV* s, const llvm::APInt& least, const llvm::Loop& loop, llvm::ScalarEvolution& se) {
  if (guarded(llvm::ICmpInst::ICMP_UGE, s, se.getConstant(least), loop, se)) return true;
  const SCEV* one = se.getOne(s->getType());
  return least.ugt(1) && guarded(llvm::ICmpInst::ICMP_UGE, se.getMinusSCEV(s, one), se.getConstant(least - 1), loop, se) &&
         guarded(llvm::ICmpInst::ICMP_UGE, s, one, loop, se);
}

// Whether `s` >= `least` (unsigned) wherever the loop is entered; for
// s = c * (y udiv d), whether y >= d * ceil(least / c).
bool at_least_on_entry(const SCEV* s, const llvm::APInt& least, const llvm::Loop& loop, llvm::ScalarEvolution& se) {
  if (guarded_at_least(s, least, loop, se)) return true;
  const auto* product = llvm::dyn_cast<llvm::SCEVMulExpr>(s);
  if (!product || product->getNumOperands() != 2) return false;
  const auto* c = llvm::dyn_cast<llvm::SCEVConstant>(product->getOperand(0));
  const auto* quotient = llvm::dyn_cast<llvm::SCEVUDivExpr>(product->getOperand(1));
  const auto* d = quotient ? llvm::dyn_cast<llvm::SCEVConstant>(quotient->getRHS()) : nullptr;
  if (!c || !d || c->getAPInt().isZero() || c->getAPInt().isNegative() || d->getAPInt().isZero()) return false;
  const llvm::APInt& step = c->getAPInt();
  bool overflow = false;
  llvm::APInt whole = (least + step - 1).udiv(step).umul_ov(d->getAPInt(), overflow);
  return !overflow && guarded_at_least(quotient->getLHS(), whole, loop, se);
}

// Whether `x`, invariant in the loop, is >= 0 wherever the loop is entered, as
// the guards before it prove: by ScalarEvolution's implication, by its ranges
// once the guards' bounds are applied, or, for x = s - k, by s >= k (the
// vector body's count before its udiv, W * (N udiv W) - W, is >= 0 where
// N >= W, the check the vectoriser puts before the body).
bool non_negative_on_entry(const SCEV* x, const llvm::Loop& loop, llvm::ScalarEvolution& se) {
  if (se.isKnownNonNegative(x)) return true;
  if (!se.isLoopInvariant(x, &loop)) return false;
  if (guarded(llvm::ICmpInst::ICMP_SGE, x, se.getZero(x->getType()), loop, se)) return true;
  const auto* add = llvm::dyn_cast<llvm::SCEVAddExpr>(x);
  if (!add || add->getNumOperands() != 2) return false;
  const auto* k = llvm::dyn_cast<llvm::SCEVConstant>(add->getOperand(0));
  if (!k || !k->getAPInt().isNegative()) return false;
  return at_least_on_entry(add->getOperand(1), -k->getAPInt(), loop, se);
}

// For a loop the optimiser made of N source iterations taken W at a time
// (the vectoriser's vector body, W its vectors times their interleaved
// copies; a loop the unroller unrolled by W at run time), its backedge-taken
// count (W * X - W) udiv W, W a power of two > 1: X, the trips (N udiv W,
// maybe cast). nullptr for every other loop: the loops they leave for the
// rest (N - W * X - 1, N mod W) have other shapes.
const SCEV* unrolled_trips_of(const llvm::Loop& loop, llvm::ScalarEvolution& se) {
  const auto* taken = llvm::dyn_cast<llvm::SCEVUDivExpr>(se.getBackedgeTakenCount(const_cast<llvm::Loop*>(&loop)));
  const auto* width = taken ? llvm::dyn_cast<llvm::SCEVConstant>(taken->getRHS()) : nullptr;
  if (!width || !width->getAPInt().ugt(1) || !width->getAPInt().isPowerOf2()) return nullptr;
  const auto* dividend = llvm::dyn_cast<llvm::SCEVAddExpr>(taken->getLHS());
  if (!dividend || dividend->getNumOperands() != 2) return nullptr;
  const auto* minus = llvm::dyn_cast<llvm::SCEVConstant>(dividend->getOperand(0));
  const auto* product = llvm::dyn_cast<llvm::SCEVMulExpr>(dividend->getOperand(1));
  if (!minus || !product || product->getNumOperands() != 2) return nullptr;
  const auto* times = llvm::dyn_cast<llvm::SCEVConstant>(product->getOperand(0));
  if (!times || times->getAPInt() != width->getAPInt() || -minus->getAPInt() != width->getAPInt()) return nullptr;
  return product->getOperand(1);
}

// The contract of the passes that make such a loop: each enters it only where
// N >= W (the vectoriser's minimum-iterations check, the unroller's test of
// the count, or a count they proved), so wherever it runs X >= 1 and its
// count's dividend W * X - W is >= 0. That holds whether or not the model can
// state the test: one on a value the model has no name for (a half of the
// named size, whose double the source computed) is read as a run-time check
// or a data-dependent branch, and its sides weighed by a probability. A
// source loop whose own count wraps (`i < (n - 4) / 2` in unsigned) has no
// such shape and keeps its wrapped count, which the model refuses.
bool dividend_of_unrolled_loop(const llvm::SCEVUDivExpr* e, const llvm::Loop& loop, llvm::ScalarEvolution& se) {
  return unrolled_trips_of(loop, se) && e == se.getBackedgeTakenCount(const_cast<llvm::Loop*>(&loop));
}

class UnderEntryGuards : public llvm::SCEVRewriteVisitor<UnderEntryGuards> {
 public:
  UnderEntryGuards(const llvm::Loop& loop, llvm::ScalarEvolution& se)
      : llvm::SCEVRewriteVisitor<UnderEntryGuards>(se), loop_(loop) {}

  // Each dividend is judged as written, before its own operands are
  // rewritten: the guards name the values the loop's code computes, not
  // max() of them. A zero extension from a narrower type is left as it is:
  // it wraps at 2^32 at most, and the probes bind a loop of zext(n, 32) trips
  // by that shape.
  const SCEV* visitUDivExpr(const llvm::SCEVUDivExpr* e) {
    const bool at_least_zero = !SE.isKnownNonNegative(e->getLHS()) && (non_negative_on_entry(e->getLHS(), loop_, SE) ||
                                                                       dividend_of_unrolled_loop(e, loop_, SE));
    const SCEV* dividend = visit(e->getLHS());
    if (at_least_zero) dividend = SE.getSMaxExpr(dividend, SE.getZero(dividend->getType()));
    return SE.getUDivExpr(dividend, visit(e->getRHS()));
  }

 private:
  const llvm::Loop& loop_;
};

}  // namespace

const SCEV* under_entry_guards(const SCEV* s, const llvm::Loop& loop, llvm::ScalarEvolution& se) {
  return UnderEntryGuards(loop, se).visit(s);
}

const SCEV* unrolled_trips_beyond_guards(const llvm::Loop& loop, llvm::ScalarEvolution& se) {
  const SCEV* trips = unrolled_trips_of(loop, se);
  if (!trips) return nullptr;
  const auto* taken = llvm::cast<llvm::SCEVUDivExpr>(se.getBackedgeTakenCount(const_cast<llvm::Loop*>(&loop)));
  if (se.isKnownNonNegative(taken->getLHS()) || non_negative_on_entry(taken->getLHS(), loop, se)) return nullptr;
  return trips;
}

std::set<const llvm::BasicBlock*> blocks_that_return(const llvm::Function& f) {
  std::set<const llvm::BasicBlock*> returns;
  std::vector<const llvm::BasicBlock*> work;
  for (const llvm::BasicBlock& b : f)
    if (llvm::isa<llvm::ReturnInst>(b.getTerminator()) && returns.insert(&b).second) work.push_back(&b);
  while (!work.empty()) {
    const llvm::BasicBlock* b = work.back();
    work.pop_back();
    for (const llvm::BasicBlock* p : llvm::predecessors(b))
      if (returns.insert(p).second) work.push_back(p);
  }
  return returns;
}

const SCEV* backedge_taken_count(const llvm::Loop& loop, llvm::ScalarEvolution& se) {
  auto* l = const_cast<llvm::Loop*>(&loop);
  const SCEV* taken = se.getBackedgeTakenCount(l);
  if (!llvm::isa<llvm::SCEVCouldNotCompute>(taken)) return taken;
  llvm::SmallVector<llvm::BasicBlock*, 4> exiting;
  l->getExitingBlocks(exiting);
  if (exiting.size() < 2) return taken;
  const std::set<const llvm::BasicBlock*> returns = blocks_that_return(*loop.getHeader()->getParent());
  if (!returns.count(loop.getHeader())) return taken;
  llvm::BasicBlock* ordinary = nullptr;
  for (llvm::BasicBlock* b : exiting)
    for (llvm::BasicBlock* out : llvm::successors(b))
      if (!l->contains(out) && returns.count(out)) {
        if (ordinary && ordinary != b) return taken;
        ordinary = b;
      }
  return ordinary ? se.getExitCount(l, ordinary) : taken;
}

const SCEV* entered_backedge_taken_count(const llvm::Loop& loop, llvm::ScalarEvolution& se) {
  const SCEV* taken = backedge_taken_count(loop, se);
  if (llvm::isa<llvm::SCEVCouldNotCompute>(taken)) return taken;
  return under_entry_guards(taken, loop, se);
}

}  // namespace perfcast::analyze
