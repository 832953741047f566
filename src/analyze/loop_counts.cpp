#include "analyze/loop_counts.h"

#include <algorithm>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Support/raw_ostream.h>

#include "analyze/merged_loops.h"
#include "analyze/polling_loops.h"
#include "analyze/site_names.h"
#include "analyze/range_exits.h"
#include "analyze/entered_counts.h"
#include "analyze/source_names.h"

namespace perfcast::analyze::detail {

namespace ex = perfcast::expr;
using ex::Expr;

// The source loop's location: the loop's own when LLVM kept it, else its back
// edge's (the `for` statement's), not the first line of the body (a remainder
// loop made by unrolling has no location of its own).
llvm::DebugLoc LoopCounts::source_loc(const llvm::Loop* l) const { return loop_source_loc(l); }

// The bits of a run-time unroll's remainder loop (trip count zext(trunc(T) to
// i{bits}), T mod 2^bits), 0 for other loops.
unsigned LoopCounts::remainder_bits(const llvm::Loop* l) {
  using namespace llvm;
  const SCEV* btc = s_.se.getBackedgeTakenCount(const_cast<Loop*>(l));
  if (isa<SCEVCouldNotCompute>(btc)) return 0;
  const SCEV* tc = s_.se.getAddExpr(btc, s_.se.getOne(btc->getType()));
  if (auto* z = dyn_cast<SCEVZeroExtendExpr>(tc)) {
    unsigned bits = s_.se.getTypeSizeInBits(z->getOperand()->getType());
    if (bits >= 1 && bits <= 6) return bits;
  }
  return 0;
}

// Whether `l`'s loop metadata carries `flag`.
static bool marked(const llvm::Loop* l, llvm::StringRef flag) {
  const llvm::MDNode* id = l->getLoopID();
  if (!id) return false;
  for (const llvm::MDOperand& op : id->operands())
    if (const auto* node = llvm::dyn_cast_or_null<llvm::MDNode>(op.get()))
      if (node->getNumOperands() > 0)
        if (const auto* name = llvm::dyn_cast_or_null<llvm::MDString>(node->getOperand(0).get());
            name && name->getString() == flag)
          return true;
  return false;
}

// Whether the loop vectoriser made `l` (its vector body or the scalar loop
// it leaves for the iterations that fill no vector): LLVM marks both so.
static bool vectorised(const llvm::Loop* l) { return marked(l, "llvm.loop.isvectorized"); }

// Whether the unroller made `l` the remainder of a loop it unrolled at run
// time: it marks the remainder (before the unrolled loop or after it) so that
// it is not unrolled again, which a source loop is only by a pragma.
static bool unroll_remainder(const llvm::Loop* l) { return !vectorised(l) && marked(l, "llvm.loop.unroll.disable"); }

// The unroll factor U of a remainder loop the unroller marked
// (unroll_remainder) whose count the model cannot read as T mod U
// (remainder_bits; instcombine folds `(2n + 1) mod 4` into `2 * (n & 1) + 1`):
// its one unmarked sibling at its line, the unrolled loop, does U source
// iterations a trip, its backedge-taken count a udiv by U. 0 for other loops.
std::uint64_t LoopCounts::unrolled_sibling_factor(const llvm::Loop* l) {
  using namespace llvm;
  if (!unroll_remainder(l)) return 0;
  const Where at = s_.where(source_loc(l));
  const auto& siblings = l->getParentLoop() ? l->getParentLoop()->getSubLoops() : s_.li.getTopLevelLoops();
  std::uint64_t factor = 0;
  for (const Loop* o : siblings) {
    const Where there = s_.where(source_loc(o));
    if (o == l || unroll_remainder(o) || there.line != at.line || there.file != at.file) continue;
    auto* d = dyn_cast<SCEVUDivExpr>(s_.se.getBackedgeTakenCount(const_cast<Loop*>(o)));
    auto* c = d ? dyn_cast<SCEVConstant>(d->getRHS()) : nullptr;
    if (factor || !c || !c->getAPInt().ugt(1) || !c->getAPInt().isPowerOf2()) return 0;
    factor = c->getAPInt().getZExtValue();
  }
  return factor;
}

// The source iterations one trip of a vectoriser's vector body does (its
// backedge-taken count a udiv by that power of two), 0 for other loops. The
// vector body computes in vectors; the scalar loop it leaves, once the
// unroller has unrolled it at run time, is marked and counted alike but does
// not (a loop only interleaved, in no vectors, is taken for such a one).
std::uint64_t LoopCounts::vector_width(const llvm::Loop* l) {
  using namespace llvm;
  if (!vectorised(l)) return 0;
  bool in_vectors = false;
  for (const BasicBlock* b : l->blocks())
    for (const Instruction& i : *b)
      in_vectors = in_vectors || i.getType()->isVectorTy();
  if (!in_vectors) return 0;
  const SCEV* btc = s_.se.getBackedgeTakenCount(const_cast<Loop*>(l));
  if (auto* d = dyn_cast<SCEVUDivExpr>(btc))
    if (auto* c = dyn_cast<SCEVConstant>(d->getRHS()); c && c->getAPInt().ugt(1) && c->getAPInt().isPowerOf2())
      return c->getAPInt().getZExtValue();
  return 0;
}

// The other loop the vectoriser made of `l`'s source loop: a sibling at the
// same source line, its vector body (want_vector_body; none when there is not
// exactly one) or a loop of its scalar remainder (the first, which the
// unroller may have made two of).
const llvm::Loop* LoopCounts::vectoriser_sibling(const llvm::Loop* l, bool want_vector_body) {
  Where at = s_.where(source_loc(l));
  const auto& siblings = l->getParentLoop() ? l->getParentLoop()->getSubLoops() : s_.li.getTopLevelLoops();
  const llvm::Loop* found = nullptr;
  for (const llvm::Loop* o : siblings) {
    if (o == l || !vectorised(o)) continue;
    Where there = s_.where(source_loc(o));
    if (there.line != at.line || there.file != at.file) continue;
    if ((vector_width(o) != 0) != want_vector_body) continue;
    if (!want_vector_body) return o;
    if (found) return nullptr;
    found = o;
  }
  return found;
}

Expr LoopCounts::trip_count(llvm::Loop* l) {
  if (auto it = trip_counts_.find(l); it != trip_counts_.end()) return it->second;
  const llvm::SCEV* btc = backedge_taken_count(*l, s_.se);
  // A vector body or unrolled loop behind a test of its count the model
  // could not state: its trips at every size (0 where the test skips it), so
  // a guard weighed by a probability does not price a loop that never ran.
  if (const llvm::SCEV* unrolled_trips = unrolled_trips_beyond_guards(*l, s_.se))
    if (auto e = exprs_.conv(unrolled_trips, l)) return trip_counts_[l] = ex::simplify(*e);
  // As it holds where the loop runs: the model prices the loop under its guard.
  if (!llvm::isa<llvm::SCEVCouldNotCompute>(btc))
    if (auto e = exprs_.conv(entered_backedge_taken_count(*l, s_.se), l))
      return trip_counts_[l] = ex::simplify(*e + Expr(1));
  if (llvm::isa<llvm::SCEVCouldNotCompute>(btc))
    if (auto e = range_exit_trip_count(l, s_.se, exprs_)) return trip_counts_[l] = *e;
  Where w = s_.where(source_loc(l));
  if (s_.ctx.debugging()) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "no trip count for the loop at line " << w.line << ": " << *btc;
    s_.ctx.input->progress(os.str());
  }
  const std::string loop = loop_site(s_.ctx, s_.f, l);
  std::string name = loop + ".trips";
  // A loop that polls for a message runs until it arrives: its trips are
  // timing, which no run's count stands for. The model counts the pass that
  // finds the completion; the wait is the matching request's to price.
  if (auto call = polling_call(*l)) {
    polling_[l] = {*call, site_of(w), loop};
    return trip_counts_[l] = Expr(1);
  }
  bool computable = !llvm::isa<llvm::SCEVCouldNotCompute>(btc);
  // An argument a recursion changes (recursion.h) makes the count a mean over the invocations.
  auto varied_argument = [&](const llvm::SCEV* e) {
    auto* u = llvm::dyn_cast<llvm::SCEVUnknown>(e);
    auto* a = u ? llvm::dyn_cast<llvm::Argument>(u->getValue()) : nullptr;
    auto r = s_.ctx.recursive.find(&s_.f);
    return a && r != s_.ctx.recursive.end() && r->second.varying_arguments.count(a->getArgNo());
  };
  const char* why = !computable ? "its exit depends on data (e.g. a convergence test)"
                    : llvm::SCEVExprContains(btc, varied_argument)
                        ? "its count depends on an argument its function's recursion changes (a mean over the invocations)"
                        : "its count depends on values read from memory";
  std::string merged_site, merged;
  if (const llvm::DILocation* inner = merged_inner_loop(*l)) {
    const Where m = s_.where(llvm::DebugLoc(inner));
    merged_site = site_of(m);
    merged = fmt::format("; the optimiser merged into it the loop at {}:{}{}, whose iterations are its passes",
                         file_tag(m.file), m.line,
                         m.origin.empty() || m.origin == s_.f.getName() ? "" : " (in " + m.origin + ")");
  }
  s_.describe(name, fmt::format("iterations of the loop at {}:{}{} each time it runs (0 when it is skipped): {}{}",
                                file_tag(w.file), w.line,
                                w.origin.empty() || w.origin == s_.f.getName() ? "" : " (in " + w.origin + ")", why,
                                merged));
  unknown_[l] = {name, why, site_of(w), merged_site};
  Expr source = ex::var(name);
  // The parameter counts iterations of the source loop. A loop unrolled by U
  // with a run-time trip count becomes two IR loops of that line: the
  // remainder (trip count T mod U, as SCEV zext(trunc(T) to i{log2 U})) and
  // the unrolled loop (its induction variable steps by U: T div U
  // iterations, U source iterations each). Each gets its share of T.
  if (computable) {
    using namespace llvm;
    // A loop the vectoriser split: its vector body does W source iterations
    // a trip (T div W trips), its scalar loop what fills no vector (T mod W;
    // all T when T < W, where the vector body is skipped), which the unroller
    // may split further as below. The run-time checks before them are taken
    // to pass, as everywhere.
    if (vectorised(l)) {
      if (std::uint64_t width = vector_width(l); width && vectoriser_sibling(l, false))
        return trip_counts_[l] = ex::floordiv(source, Expr(static_cast<std::int64_t>(width)));
      if (const Loop* body = vectoriser_sibling(l, true); body && !vector_width(l))
        source = ex::mod(source, Expr(static_cast<std::int64_t>(vector_width(body))));
    }
    if (unsigned bits = remainder_bits(l)) return trip_counts_[l] = ex::mod(source, Expr(std::int64_t{1} << bits));
    if (std::uint64_t factor = unrolled_sibling_factor(l))
      return trip_counts_[l] = ex::mod(source, Expr(static_cast<std::int64_t>(factor)));
    // The unrolled loop: its remainder loop is a sibling of the same line, or,
    // unrolled by 2, the one iteration left over runs behind a test of T's
    // lowest bit (remainder_test_of). A remainder the unroller marked makes
    // the loop its unrolled one whatever its index does (`by_mark`).
    bool by_mark = false;
    auto has_remainder = [&](std::uint64_t factor) {
      const auto& siblings = l->getParentLoop() ? l->getParentLoop()->getSubLoops() : s_.li.getTopLevelLoops();
      for (const Loop* o : siblings)
        if (o != l && s_.where(source_loc(o)).line == w.line && s_.where(source_loc(o)).file == w.file) {
          if (unsigned bits = remainder_bits(o); bits && (std::uint64_t{1} << bits) == factor) return true;
          if (unrolled_sibling_factor(o) == factor) return by_mark = true;
        }
      if (factor == 2 && remainder_test_of(l)) {
        unrolled_by_two_.emplace(l, source);
        return true;
      }
      return false;
    };
    if (auto* d = dyn_cast<SCEVUDivExpr>(btc))
      if (auto* c = dyn_cast<SCEVConstant>(d->getRHS());
          c && c->getAPInt().ugt(1) && c->getAPInt().isPowerOf2() && has_remainder(c->getAPInt().getZExtValue()))
        for (const PHINode& phi : l->getHeader()->phis()) {
          if (!s_.se.isSCEVable(phi.getType())) continue;
          auto* ar = dyn_cast<SCEVAddRecExpr>(s_.se.getSCEV(const_cast<PHINode*>(&phi)));
          if (!ar || ar->getLoop() != l || !ar->isAffine()) continue;
          auto* step = dyn_cast<SCEVConstant>(ar->getStepRecurrence(s_.se));
          // The source loop's own index (it addresses memory), not a counter
          // of unrolled trips such as the vectoriser's.
          auto addresses = [](const Value* v) {
            for (const User* u : v->users()) {
              if (isa<GetElementPtrInst>(u)) return true;
              if (isa<SExtInst>(u) || isa<ZExtInst>(u))
                for (const User* g : u->users())
                  if (isa<GetElementPtrInst>(g)) return true;
            }
            return false;
          };
          if (step && step->getAPInt() == c->getAPInt().zextOrTrunc(step->getAPInt().getBitWidth()) &&
              (by_mark || addresses(&phi)))
            return trip_counts_[l] =
                       ex::floordiv(source, Expr(static_cast<std::int64_t>(c->getAPInt().getZExtValue())));
        }
  }
  return trip_counts_[l] = source;
}

// A loop unrolled by 2 with a run-time trip count T leaves no remainder loop:
// one source iteration runs alone when T is odd, behind `icmp eq (and X, 1), 0`
// (or `ne`) with X the trip count the unrolled loop's count reads, and the
// unrolled loop does the T div 2 pairs. LLVM puts that iteration after the
// unrolled loop (an epilogue) or, when no index of the loop starts at a
// constant (`for (s = first; s < last; ++s)`), before it (a prologue): the
// unrolled loop then starts from a phi of where the prologue did or did not
// leave the index, which is read through. The test is a branch outside the
// loop, in the loop around it, at the loop's source line.
bool LoopCounts::is_remainder_test(const llvm::BranchInst* br, const llvm::Loop* unrolled) {
  using namespace llvm;
  if (!br->isConditional() || unrolled->contains(br->getParent())) return false;
  if (s_.li.getLoopFor(br->getParent()) != unrolled->getParentLoop()) return false;
  auto* cmp = dyn_cast<ICmpInst>(br->getCondition());
  if (!cmp || !cmp->isEquality()) return false;
  auto* zero = dyn_cast<ConstantInt>(cmp->getOperand(1));
  auto* low_bit = dyn_cast<BinaryOperator>(cmp->getOperand(0));
  if (!zero || !zero->isZero() || !low_bit || low_bit->getOpcode() != Instruction::And) return false;
  auto* one = dyn_cast<ConstantInt>(low_bit->getOperand(1));
  if (!one || !one->isOne()) return false;
  Where at = s_.where(br->getDebugLoc()), loop_at = s_.where(source_loc(unrolled));
  if (at.line != loop_at.line || at.file != loop_at.file) return false;
  // X is T (or T extended): every value it reads is one the unrolled count reads.
  const Value* x = low_bit->getOperand(0);
  if (!s_.se.isSCEVable(x->getType())) return false;
  const SCEV* btc = s_.se.getBackedgeTakenCount(const_cast<Loop*>(unrolled));
  if (isa<SCEVCouldNotCompute>(btc)) return false;
  struct Leaves {
    std::set<const Value*> values;
    bool follow(const SCEV* e) {
      if (auto* u = dyn_cast<SCEVUnknown>(e)) values.insert(u->getValue());
      return true;
    }
    bool isDone() const { return false; }
  } of_x, of_count;
  visitAll(s_.se.getSCEV(const_cast<Value*>(x)), of_x);
  visitAll(btc, of_count);
  for (const Value* v : std::set<const Value*>(of_count.values))
    if (auto* start = dyn_cast<PHINode>(v); start && !unrolled->contains(start->getParent()))
      for (const Value* in : start->incoming_values())
        if (s_.se.isSCEVable(in->getType())) visitAll(s_.se.getSCEV(const_cast<Value*>(in)), of_count);
  if (of_x.values.empty()) return false;
  for (const Value* v : of_x.values)
    if (!of_count.values.count(v)) return false;
  return true;
}

const llvm::BranchInst* LoopCounts::remainder_test_of(const llvm::Loop* unrolled) {
  const llvm::Loop* around = unrolled->getParentLoop();
  for (const llvm::BasicBlock& b : s_.f) {
    if (around && !around->contains(&b)) continue;
    if (auto* br = llvm::dyn_cast<llvm::BranchInst>(b.getTerminator()); br && is_remainder_test(br, unrolled))
      return br;
  }
  return nullptr;
}

// `(T & 1) == 0` is "T is even": mod(T, 2) < 1 over the source loop's parameter,
// so the unrolled loop's floordiv(T, 2) pairs and the left-over iteration add
// up to T for every whole T (a mean of trips counts within one iteration per run).
std::optional<Expr> LoopCounts::unroll_remainder_condition(const llvm::BranchInst* br) {
  const llvm::Loop* around = s_.li.getLoopFor(br->getParent());
  const auto& siblings = around ? around->getSubLoops() : s_.li.getTopLevelLoops();
  for (llvm::Loop* l : siblings) {
    if (!is_remainder_test(br, l)) continue;
    trip_count(l);  // records the loop's share of its source parameter
    auto it = unrolled_by_two_.find(l);
    if (it == unrolled_by_two_.end()) continue;
    Expr odd = ex::compare(ex::Comparison::Ge, ex::mod(it->second, Expr(2)), Expr(1));
    bool tests_even = llvm::cast<llvm::ICmpInst>(br->getCondition())->getPredicate() == llvm::CmpInst::ICMP_EQ;
    return tests_even ? Expr(1) - odd : odd;
  }
  return std::nullopt;
}

// Whether the loop-carried values of `l` (its header phis other than affine
// induction variables: a reduction's sum, a pointer being chased) start afresh
// each time the loop is entered, i.e. the dependency chain of one run does not
// continue into the next. Then an out-of-order core overlaps successive runs
// (cg's rows, each restarting `s = 0`); a sum carried across the runs of an
// inner loop (`for i, for j: s += ...`) is one chain and does not overlap.
bool LoopCounts::chain_restarts(const llvm::Loop* l) {
  for (const llvm::PHINode& phi : l->getHeader()->phis()) {
    if (s_.se.isSCEVable(phi.getType()))
      if (auto* ar = llvm::dyn_cast<llvm::SCEVAddRecExpr>(s_.se.getSCEV(const_cast<llvm::PHINode*>(&phi)));
          ar && ar->getLoop() == l && ar->isAffine())
        continue;  // an index: a one-cycle add, never the chain that bounds the loop
    for (unsigned k = 0; k < phi.getNumIncomingValues(); ++k)
      if (!l->contains(phi.getIncomingBlock(k)) && !fresh_each_run(phi.getIncomingValue(k), l)) return false;
  }
  return !reads_the_previous_runs_result(l);
}

// Whether a run of `l` may read what the loop around it stored from the run
// before: a store in the loop around (outside `l`) of a value computed from
// `l`'s own results, into the object (one underlying pointer value) one of
// `l`'s loads reads. A Gauss-Seidel sweep (`x[r] = (b[r] - s) / d`, the next
// row gathering `x[col[e]]`) or a triangular solve: the next run's chain
// waits for this run's result, so the runs do not overlap in the window
// however short they are. Objects the loop does not store into (a CSR
// product's `y[r] = s`, reading `x`) leave the runs independent.
bool LoopCounts::reads_the_previous_runs_result(const llvm::Loop* l) {
  using namespace llvm;
  const Loop* around = l->getParentLoop();
  if (!around) return false;
  std::set<const Value*> read;
  for (const BasicBlock* b : l->blocks())
    for (const Instruction& i : *b)
      if (const auto* load = dyn_cast<LoadInst>(&i)) read.insert(getUnderlyingObject(load->getPointerOperand()));
  auto computed_in_l = [&](const Value* v) {
    std::set<const Value*> seen;
    std::vector<const Value*> work = {v};
    while (!work.empty() && seen.size() <= 256) {
      const auto* inst = dyn_cast<Instruction>(work.back());
      work.pop_back();
      if (!inst || !seen.insert(inst).second || !around->contains(inst->getParent())) continue;
      if (l->contains(inst->getParent())) return true;
      for (const Value* op : inst->operands()) work.push_back(op);
    }
    return false;
  };
  for (const BasicBlock* b : around->blocks()) {
    if (l->contains(b)) continue;
    for (const Instruction& i : *b)
      if (const auto* store = dyn_cast<StoreInst>(&i);
          store && read.count(getUnderlyingObject(store->getPointerOperand())) &&
          computed_in_l(store->getValueOperand()))
        return true;
  }
  return false;
}

// Whether `start`, the value a carried chain of `l` starts from, is computed
// anew each run of `l` from nothing `l` computed before: constants, values
// from outside the loop around `l`, loads (memory dependencies are not
// modelled, as MCA does not model them), indices, other loops of the same
// iteration (an unrolled loop starts from its remainder loop's result). A
// carried value of a loop around `l` (its non-index header phi) is the chain
// of the previous run continuing: not fresh.
bool LoopCounts::fresh_each_run(const llvm::Value* start, const llvm::Loop* l) {
  using namespace llvm;
  const Loop* around = l->getParentLoop();
  std::set<const Value*> seen;
  std::vector<const Value*> work = {start};
  while (!work.empty()) {
    const Value* v = work.back();
    work.pop_back();
    if (!seen.insert(v).second) continue;
    if (seen.size() > 256) return false;  // too far to tell: assume the chain continues
    const auto* inst = dyn_cast<Instruction>(v);
    if (!inst || !around || !around->contains(inst->getParent())) continue;  // the same for every run
    if (isa<LoadInst>(inst)) continue;
    if (const auto* phi = dyn_cast<PHINode>(inst)) {
      const Loop* owner = s_.li.getLoopFor(phi->getParent());
      if (owner && owner->getHeader() == phi->getParent() && owner->contains(l)) {
        if (s_.se.isSCEVable(phi->getType()))
          if (auto* ar = dyn_cast<SCEVAddRecExpr>(s_.se.getSCEV(const_cast<PHINode*>(phi)));
              ar && ar->getLoop() == owner && ar->isAffine())
            continue;
        return false;
      }
    }
    for (const Value* op : inst->operands()) work.push_back(op);
  }
  return true;
}

// Whether `b` is in the one iteration that a loop of `loops` unrolled by 2
// runs alone when its count is odd: on the odd side of its remainder test.
bool LoopCounts::in_left_over_iteration(const llvm::BasicBlock* b, const std::vector<llvm::Loop*>& loops) {
  for (llvm::Loop* l : loops) {
    trip_count(l);  // records whether it is unrolled by 2
    if (!unrolled_by_two_.count(l)) continue;
    const llvm::BranchInst* test = remainder_test_of(l);
    if (!test) continue;
    bool tests_even = llvm::cast<llvm::ICmpInst>(test->getCondition())->getPredicate() == llvm::CmpInst::ICMP_EQ;
    const llvm::BasicBlock* odd = test->getSuccessor(tests_even ? 1 : 0);
    if (odd->getSinglePredecessor() == test->getParent() && s_.dt.dominates(odd, b)) return true;
  }
  return false;
}

// A branch that only guards a loop: one side enters the loop (through its
// preheader), or the loops the optimiser made of one source loop (a
// remainder and an unrolled copy), and nothing else that works; the other
// side is where they exit to. LLVM puts one before every rotated loop (the
// loop's own first test), and sources write them (`if (a->n > 0) for (...)`).
// When the branch's condition reads data that the loops' counts read too,
// the branch is "the loop runs at least once": its condition is trip count
// > 0, so a loop whose count is a parameter runs exactly when the parameter
// says so (and then with probability 1, not 1/2).
std::optional<Expr> LoopCounts::loop_guard_condition(const llvm::BranchInst* br) {
  using namespace llvm;
  if (!br->isConditional() || br->getSuccessor(0) == br->getSuccessor(1)) return std::nullopt;
  // The values a SCEV reads (its SCEVUnknown leaves).
  struct Collect {
    std::set<const Value*>& out;
    bool follow(const SCEV* s) {
      if (auto* u = dyn_cast<SCEVUnknown>(s)) out.insert(u->getValue());
      return true;
    }
    bool isDone() const { return false; }
  };
  auto leaves = [&](const Value* v, std::set<const Value*>& out) {
    std::vector<const Value*> work = {v};
    std::set<const Value*> seen;
    while (!work.empty()) {
      const Value* x = work.back();
      work.pop_back();
      if (!seen.insert(x).second || seen.size() > 64) continue;
      if (auto* cmp = dyn_cast<ICmpInst>(x)) {
        work.push_back(cmp->getOperand(0)), work.push_back(cmp->getOperand(1));
        continue;
      }
      if (!x->getType()->isIntegerTy() || !s_.se.isSCEVable(x->getType())) continue;
      Collect collect{out};
      visitAll(s_.se.getSCEV(const_cast<Value*>(x)), collect);
    }
  };
  BasicBlock* from = const_cast<BasicBlock*>(br->getParent());
  const Loop* region_loop = s_.li.getLoopFor(from);
  if (!returning_) returning_ = blocks_that_return(s_.f);
  const std::set<const BasicBlock*>& returning = *returning_;
  for (unsigned in = 0; in < 2; ++in) {
    BasicBlock* enter = br->getSuccessor(in);
    BasicBlock* skip = br->getSuccessor(1 - in);
    if (enter->getSinglePredecessor() != from && !s_.li.isLoopHeader(enter)) continue;
    SmallVector<BasicBlock*, 32> region;
    s_.dt.getDescendants(enter, region);
    std::set<BasicBlock*> inside(region.begin(), region.end());
    if (inside.count(skip) || inside.count(from)) continue;
    std::vector<Loop*> loops;
    std::vector<BasicBlock*> working;  // blocks outside the loops that store or call
    bool ok = true;
    for (BasicBlock* b : region) {
      // Code that never returns (an exception's cleanup, a throw) is no way
      // round the guard: the model prices it at 0.
      if (!returning.count(b)) continue;
      for (BasicBlock* succ : successors(b))
        if (!inside.count(succ) && succ != skip && returning.count(succ)) ok = false;
      // A block outside the loop around the branch: this side leaves that
      // loop (a `break`), it does not guard a loop inside it.
      if (region_loop && !region_loop->contains(b)) {
        ok = false;
        break;
      }
      Loop* l = s_.li.getLoopFor(b);
      if (l && l != region_loop) {
        while (l && l->getParentLoop() != region_loop) l = l->getParentLoop();
        // A block of a loop that region_loop does not hold (the branch leaves
        // region_loop): the region is no guard of loops inside it.
        if (!l) {
          ok = false;
          break;
        }
        if (!region_loop || region_loop->contains(l))
          if (l->getHeader() == b) loops.push_back(l);
        continue;
      }
      // Outside the loops: preheader arithmetic and loads only, or the
      // iteration a loop unrolled by 2 leaves over (checked below).
      for (Instruction& i : *b) {
        bool works = isa<StoreInst>(&i);
        if (auto* call = dyn_cast<CallBase>(&i); call && !isa<DbgInfoIntrinsic>(&i) && !call->onlyReadsMemory())
          if (!isa<IntrinsicInst>(call) || cast<IntrinsicInst>(call)->getIntrinsicID() == Intrinsic::memset ||
              cast<IntrinsicInst>(call)->getIntrinsicID() == Intrinsic::memcpy)
            works = true;
        if (works) {
          working.push_back(b);
          break;
        }
      }
    }
    if (!ok || loops.empty()) continue;
    for (BasicBlock* b : working)
      if (!in_left_over_iteration(b, loops)) ok = false;
    if (!ok) continue;
    std::set<const Value*> cond_leaves, trip_leaves;
    leaves(br->getCondition(), cond_leaves);
    std::vector<Expr> trips;
    // A loop whose exit depends on data has a trip-count parameter that is a
    // mean over every arrival, the skipped ones counting 0: its guard (the test
    // at the loop's own line that the optimiser puts before a rotated loop)
    // runs the loop exactly when that mean is > 0. Priced as a guessed branch
    // instead, the loop would count its fraction of the trips in the formula
    // and all of them or none in the event walk.
    bool guards_unknown = false;
    // Loops inlined from library code the table leaves out (a container's
    // destruction loop) are left out with it (FunctionAnalyser), so their
    // guard has nothing to price on its entering side but that side's loads:
    // taken, naming no trips of a loop the model does not have.
    if (std::all_of(loops.begin(), loops.end(), [&](const Loop* l) {
          for (const Instruction& i : *l->getHeader())
            if (i.getDebugLoc()) return s_.inlined_from_ignored(i.getDebugLoc());
          return false;
        }))
      return Expr(in == 0 ? 1 : 0);
    for (Loop* l : loops) {
      const SCEV* btc = backedge_taken_count(*l, s_.se);
      if (isa<SCEVCouldNotCompute>(btc)) {
        Where test = s_.where(br->getDebugLoc()), loop = s_.where(source_loc(l));
        if (loops.size() != 1 || test.line != loop.line || test.file != loop.file) return std::nullopt;
        trips.push_back(trip_count(l));
        if (!unknown_.count(l) && !polling_.count(l)) return std::nullopt;
        guards_unknown = true;
        continue;
      }
      Collect collect{trip_leaves};
      visitAll(btc, collect);
      trips.push_back(trip_count(l));
      // A loop unrolled by 2 whose left-over iteration this side also runs:
      // the side runs when the source loop does, T > 0, not T div 2 > 0.
      if (auto it = unrolled_by_two_.find(l); it != unrolled_by_two_.end())
        if (const BranchInst* test = remainder_test_of(l); test && inside.count(const_cast<BasicBlock*>(test->getParent())))
          trips.back() = it->second;
    }
    // Leaves through the phis that start a loop (an unrolled loop starts
    // where its remainder stopped).
    for (const Value* v : std::set<const Value*>(trip_leaves))
      if (auto* phi = dyn_cast<PHINode>(v))
        for (const Value* in_value : phi->incoming_values()) leaves(in_value, trip_leaves);
    bool shared = guards_unknown;
    for (const Value* v : cond_leaves) shared = shared || trip_leaves.count(v);
    if (!shared) return std::nullopt;
    Expr runs = ex::compare(ex::Comparison::Gt, ex::add(trips), Expr(0));
    return in == 0 ? runs : Expr(1) - runs;
  }
  return std::nullopt;
}

}  // namespace perfcast::analyze::detail
