#include "analyze/footprint.h"

#include "analyze/entered_counts.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

namespace perfcast::analyze {

namespace {

using llvm::SCEV;

// One access: bytes [lo, hi) from its base pointer over the whole loop, of
// which at most `most` are touched (a strided sweep touches one cache line per
// step, not the holes between).
struct Access {
  const SCEV* lo;
  const SCEV* hi;
  const SCEV* most;
  bool store;
  std::optional<CountedAccess> counted;  // the same access by its count, when it has a fixed size
};

// What a strided access costs per step at most: a cache line (64 bytes on
// every x86-64 and most other CPUs perfcast models).
constexpr std::uint64_t kLineBytes = 64;

class FootprintBuilder {
 public:
  FootprintBuilder(const llvm::Loop& loop, llvm::ScalarEvolution& se, const llvm::DataLayout& layout,
                   const std::function<bool(const llvm::Value&)>& steady)
      : loop_(loop), se_(se), layout_(layout), steady_(steady),
        offset_type_(layout.getIndexType(llvm::PointerType::getUnqual(loop.getHeader()->getContext()))) {}

  // `length` bytes at `pointer`, by `access`. False when neither its
  // addresses nor its count bound it: the loop gets no footprint.
  bool add(const llvm::Instruction& access, const llvm::Value* pointer, const SCEV* length, bool store) {
    if (!invariant(length)) return false;
    std::optional<CountedAccess> counted;
    if (const auto* c = llvm::dyn_cast<llvm::SCEVConstant>(length))
      counted = classify(access, pointer, c->getAPInt().getZExtValue(), store);
    auto by_count = [&] {
      if (counted) counted_.push_back(*counted);
      return counted.has_value();
    };
    if (!se_.isSCEVable(pointer->getType())) return by_count();
    const SCEV* address = se_.getSCEV(const_cast<llvm::Value*>(pointer));
    const SCEV* base = se_.getPointerBase(address);
    const SCEV* offset = se_.getMinusSCEV(address, base);
    const SCEV *lo = nullptr, *hi = nullptr;
    steps_.clear();
    if (!llvm::isa<llvm::SCEVUnknown>(base) || llvm::isa<llvm::SCEVCouldNotCompute>(offset) ||
        !bounds(offset, lo, hi))
      return by_count();
    lo = widened(lo), hi = widened(hi);
    const SCEV* end = se_.getAddExpr(hi, widened(length));
    llvm::SmallVector<const SCEV*, 4> factors(steps_.begin(), steps_.end());
    if (auto runs = executions(access, address)) factors.assign(runs->begin(), runs->end());
    factors.push_back(se_.getUMaxExpr(widened(length), se_.getConstant(offset_type_, kLineBytes)));
    const SCEV* most = se_.getUMinExpr(se_.getMinusSCEV(end, lo), se_.getMulExpr(factors));
    accesses_[base].push_back({lo, end, most, store, counted});
    return true;
  }

  bool add_bytes(const llvm::Instruction& access, const llvm::Value* pointer, std::uint64_t bytes, bool store) {
    return add(access, pointer, se_.getConstant(offset_type_, bytes), store);
  }

  LoopFootprint result() {
    LoopFootprint out;
    out.counted = counted_;
    for (const auto& [base, list] : accesses_) {
      // One run's bytes, so as they hold where the loop runs: no bound that
      // wraps at a size its guard skips the loop at.
      auto entered = [&](const SCEV* bytes) { return bytes ? under_entry_guards(bytes, loop_, se_) : nullptr; };
      BaseExtent b{entered(extent(list, [](const Access&) { return true; })),
                   entered(extent(list, [](const Access& a) { return !a.store; })),
                   entered(extent(list, [](const Access& a) { return a.store; })),
                   {}};
      for (const Access& a : list)
        if (a.counted) b.accesses.push_back(*a.counted);
      // Without every access countable the interval is all there is.
      if (b.accesses.size() != list.size()) b.accesses.clear();
      out.bases.push_back(std::move(b));
    }
    return out;
  }

 private:
  // A stream or an indirect access (footprint.h). A stream's address moves
  // by a fixed step with the innermost loop around the access, whatever its
  // start; an indirect one reads its address from memory there.
  CountedAccess classify(const llvm::Instruction& access, const llvm::Value* pointer, std::uint64_t bytes,
                         bool store) {
    CountedAccess c{&access, nullptr, bytes, store, true, nullptr};
    if (!se_.isSCEVable(pointer->getType())) return c;
    c.address = se_.getSCEV(const_cast<llvm::Value*>(pointer));
    const llvm::Loop* inner = &loop_;
    for (bool deeper = true; deeper;) {
      deeper = false;
      for (const llvm::Loop* sub : inner->getSubLoops())
        if (sub->contains(access.getParent())) inner = sub, deeper = true;
    }
    if (const auto* ar = llvm::dyn_cast<llvm::SCEVAddRecExpr>(c.address);
        ar && ar->getLoop() == inner && ar->isAffine() && se_.isLoopInvariant(ar->getStepRecurrence(se_), inner)) {
      c.indirect = false;
      return c;
    }
    c.indirect = reads_memory(c.address);
    if (const auto* base = llvm::dyn_cast<llvm::SCEVUnknown>(se_.getPointerBase(c.address));
        c.indirect && base && se_.isLoopInvariant(base, &loop_))
      c.gathered = base->getValue();
    return c;
  }

  // Whether an address is computed from a value loaded inside the loop (an
  // index read from memory), through what ScalarEvolution leaves opaque. A
  // counter bumped under conditions (nnz++ when a neighbour exists) is no
  // such address: bounded by its count alone.
  bool reads_memory(const SCEV* address) {
    struct Leaves {
      std::vector<const llvm::Value*> values;
      bool follow(const SCEV* s) {
        if (const auto* u = llvm::dyn_cast<llvm::SCEVUnknown>(s)) values.push_back(u->getValue());
        return true;
      }
      bool isDone() const { return false; }
    } leaves;
    llvm::visitAll(address, leaves);
    std::set<const llvm::Value*> seen;
    std::vector<const llvm::Value*> work = leaves.values;
    while (!work.empty() && seen.size() < 64) {
      const auto* inst = llvm::dyn_cast<llvm::Instruction>(work.back());
      work.pop_back();
      if (!inst || !loop_.contains(inst->getParent()) || !seen.insert(inst).second) continue;
      if (llvm::isa<llvm::LoadInst>(inst)) return true;
      if (const auto* phi = llvm::dyn_cast<llvm::PHINode>(inst); phi && phi->getParent() == loop_.getHeader())
        continue;  // a recurrence of the loop, not a value read in it
      work.insert(work.end(), inst->op_begin(), inst->op_end());
    }
    return false;
  }

  const SCEV* widened(const SCEV* s) { return se_.getTruncateOrSignExtend(s, offset_type_); }

  // The trips of each loop from `access`'s own out to this one that its
  // address changes with: how many addresses it takes, so at most how many
  // lines it touches. The loops its address moves with (steps_) say the same
  // where the address is affine, but not where it takes a value a loop left
  // behind (a remainder's start: one value a run, however far the loop before
  // it went). Nothing when a count is not known.
  std::optional<llvm::SmallVector<const SCEV*, 4>> executions(const llvm::Instruction& access,
                                                              const SCEV* address) {
    llvm::SmallVector<const SCEV*, 4> trips;
    std::vector<const llvm::Loop*> nest = {&loop_};
    for (bool deeper = true; deeper;) {
      deeper = false;
      for (const llvm::Loop* sub : nest.back()->getSubLoops())
        if (sub->contains(access.getParent())) nest.push_back(sub), deeper = true;
    }
    for (const llvm::Loop* l : nest) {
      if (se_.isLoopInvariant(address, l)) continue;  // the same addresses again
      const SCEV* taken = entered_backedge_taken_count(*l, se_);
      const SCEV *taken_lo = nullptr, *taken_hi = nullptr;
      if (llvm::isa<llvm::SCEVCouldNotCompute>(taken) || !bounds(taken, taken_lo, taken_hi)) return std::nullopt;
      trips.push_back(
          se_.getAddExpr(se_.getTruncateOrZeroExtend(taken_hi, offset_type_), se_.getOne(offset_type_)));
    }
    return trips;
  }

  // One value over every iteration of the loop: invariant, or computed from
  // values the caller calls steady (footprint.h) and no index of the nest.
  bool invariant(const SCEV* s) {
    if (se_.isLoopInvariant(s, &loop_)) return true;
    struct Leaves {
      FootprintBuilder& b;
      bool fixed = true;
      bool follow(const SCEV* e) {
        if (const auto* ar = llvm::dyn_cast<llvm::SCEVAddRecExpr>(e); ar && b.loop_.contains(ar->getLoop()))
          fixed = false;
        if (const auto* u = llvm::dyn_cast<llvm::SCEVUnknown>(e); u && !b.se_.isLoopInvariant(u, &b.loop_))
          fixed = fixed && b.steady_(*u->getValue());
        return fixed;
      }
      bool isDone() const { return !fixed; }
    } leaves{*this};
    llvm::visitAll(s, leaves);
    return leaves.fixed;
  }

  // The lowest and highest value of `s` over every iteration of the loop and
  // its subloops, both invariant in the loop and of the type of `s`.
  bool bounds(const SCEV* s, const SCEV*& lo, const SCEV*& hi, int depth = 0) {
    if (depth > 16) return false;
    if (invariant(s)) {
      lo = hi = s;
      return true;
    }
    if (const auto* ar = llvm::dyn_cast<llvm::SCEVAddRecExpr>(s)) {
      if (!loop_.contains(ar->getLoop()) || !ar->isAffine()) return false;
      const SCEV *start_lo = nullptr, *start_hi = nullptr;
      if (!bounds(ar->getStart(), start_lo, start_hi, depth + 1)) return false;
      const SCEV* step = ar->getStepRecurrence(se_);
      // Where the loop runs: a subloop its guard skips sweeps nothing, not 2^64.
      const SCEV* taken = entered_backedge_taken_count(*ar->getLoop(), se_);
      if (!invariant(step) || llvm::isa<llvm::SCEVCouldNotCompute>(taken)) return false;
      // A count that changes inside the loop (a triangular nest, a vector
      // loop's remainder): its largest value.
      const SCEV *taken_lo = nullptr, *taken_hi = nullptr;
      if (!bounds(taken, taken_lo, taken_hi, depth + 1)) return false;
      taken = taken_hi;
      steps_.push_back(se_.getAddExpr(se_.getTruncateOrZeroExtend(taken, offset_type_), se_.getOne(offset_type_)));
      // The sweep's length is |step| x taken. Its direction: a stride like
      // 8 * sext(n + 2) has no sign ScalarEvolution can prove, so every sweep
      // is laid from its start upwards; accesses of one base that share their
      // strides (a stencil's) then keep their true union, which is what counts.
      const SCEV* length = se_.isKnownNonNegative(step)   ? step
                           : se_.isKnownNonPositive(step) ? se_.getNegativeSCEV(step)
                                                          : se_.getAbsExpr(step, /*IsNSW=*/false);
      const SCEV* travel = se_.getMulExpr(length, se_.getTruncateOrZeroExtend(taken, step->getType()));
      lo = start_lo, hi = se_.getAddExpr(start_hi, travel);
      return true;
    }
    if (const auto* add = llvm::dyn_cast<llvm::SCEVAddExpr>(s)) {
      llvm::SmallVector<const SCEV*, 4> los, his;
      for (const SCEV* op : add->operands()) {
        const SCEV *op_lo = nullptr, *op_hi = nullptr;
        if (!bounds(op, op_lo, op_hi, depth + 1)) return false;
        los.push_back(op_lo);
        his.push_back(op_hi);
      }
      lo = se_.getAddExpr(los), hi = se_.getAddExpr(his);
      return true;
    }
    // 8 * (index), sxy * (k + 1): a scale that holds over the loop times one
    // bounded factor. A scale of no known sign (a stride read at run time)
    // takes the smaller and larger of the two products.
    if (const auto* mul = llvm::dyn_cast<llvm::SCEVMulExpr>(s)) {
      llvm::SmallVector<const SCEV*, 4> scales;
      const SCEV* moving = nullptr;
      for (const SCEV* op : mul->operands()) {
        if (invariant(op)) scales.push_back(op);
        else if (moving) return false;  // a product of two indices: no affine sweep
        else moving = op;
      }
      const SCEV *op_lo = nullptr, *op_hi = nullptr;
      if (!moving || !bounds(moving, op_lo, op_hi, depth + 1)) return false;
      const SCEV* scale = se_.getMulExpr(scales);
      const SCEV *a = se_.getMulExpr(scale, op_lo), *b = se_.getMulExpr(scale, op_hi);
      if (se_.isKnownNonNegative(scale)) lo = a, hi = b;
      else if (se_.isKnownNonPositive(scale)) lo = b, hi = a;
      else lo = se_.getSMinExpr(a, b), hi = se_.getSMaxExpr(a, b);
      return true;
    }
    // Where a vector loop's remainder resumes: a join of values that are
    // each bounded (the start, or the vector loop's last index).
    if (const auto* u = llvm::dyn_cast<llvm::SCEVUnknown>(s)) {
      // `or` of values with no common bits (the vector loop's end, n.vec | 1)
      // is an addition ScalarEvolution leaves opaque.
      if (const auto* bo = llvm::dyn_cast<llvm::BinaryOperator>(u->getValue());
          bo && bo->getOpcode() == llvm::Instruction::Or &&
          llvm::haveNoCommonBitsSet(bo->getOperand(0), bo->getOperand(1), layout_))
        return bounds(se_.getAddExpr(se_.getSCEV(bo->getOperand(0)), se_.getSCEV(bo->getOperand(1))), lo, hi,
                      depth + 1);
      const auto* phi = llvm::dyn_cast<llvm::PHINode>(u->getValue());
      if (!phi) return false;
      for (const llvm::Loop* l : loop_.getLoopsInPreorder())
        if (l->getHeader() == phi->getParent()) return false;  // a recurrence SCEV could not read
      llvm::SmallVector<const SCEV*, 4> los, his;
      for (const llvm::Value* in : phi->incoming_values()) {
        if (!se_.isSCEVable(in->getType())) return false;
        const SCEV *in_lo = nullptr, *in_hi = nullptr;
        const SCEV* v = se_.getSCEV(const_cast<llvm::Value*>(in));
        if (v == s || !bounds(v, in_lo, in_hi, depth + 1)) return false;
        los.push_back(in_lo);
        his.push_back(in_hi);
      }
      lo = se_.getSMinExpr(los), hi = se_.getSMaxExpr(his);
      return true;
    }
    // An index widened to the address width (zext i, sext i): C's loop indices
    // do not wrap (signed overflow is undefined), so the bounds widen with it.
    if (const auto* cast = llvm::dyn_cast<llvm::SCEVIntegralCastExpr>(s)) {
      const SCEV *op_lo = nullptr, *op_hi = nullptr;
      if (!bounds(cast->getOperand(), op_lo, op_hi, depth + 1)) return false;
      llvm::Type* t = s->getType();
      switch (s->getSCEVType()) {
        case llvm::scZeroExtend: lo = se_.getZeroExtendExpr(op_lo, t), hi = se_.getZeroExtendExpr(op_hi, t); break;
        case llvm::scSignExtend: lo = se_.getSignExtendExpr(op_lo, t), hi = se_.getSignExtendExpr(op_hi, t); break;
        default: return false;  // a truncation may wrap
      }
      return true;
    }
    return false;
  }

  // max(hi) - min(lo) over the accesses `pick` selects; null when none. Bounds
  // another one is known to dominate are dropped first, so the usual stencil
  // (offsets that differ by constants or by known non-negative strides) gives
  // one term, not a max of many.
  template <typename Pick>
  const SCEV* extent(const std::vector<Access>& list, Pick pick) {
    std::vector<const SCEV*> los, his;
    llvm::SmallVector<const SCEV*, 8> mosts;
    for (const Access& a : list)
      if (pick(a)) los.push_back(a.lo), his.push_back(a.hi), mosts.push_back(a.most);
    if (los.empty()) return nullptr;
    const SCEV* top = extreme(his, llvm::ICmpInst::ICMP_SGE);
    const SCEV* bottom = extreme(los, llvm::ICmpInst::ICMP_SLE);
    return se_.getUMinExpr(se_.getMinusSCEV(top, bottom), se_.getAddExpr(mosts));
  }

  const SCEV* extreme(std::vector<const SCEV*> candidates, llvm::ICmpInst::Predicate beats) {
    std::vector<const SCEV*> kept;
    for (size_t i = 0; i < candidates.size(); ++i) {
      bool beaten = false;
      for (size_t j = 0; j < candidates.size() && !beaten; ++j) {
        if (i == j) continue;
        // Equal candidates: keep the first only.
        if (candidates[i] == candidates[j]) beaten = j < i;
        else beaten = se_.isKnownPredicate(beats, candidates[j], candidates[i]);
      }
      if (!beaten) kept.push_back(candidates[i]);
    }
    llvm::SmallVector<const SCEV*, 4> ops(kept.begin(), kept.end());
    return beats == llvm::ICmpInst::ICMP_SGE ? se_.getSMaxExpr(ops) : se_.getSMinExpr(ops);
  }

  const SCEV* sum(const std::vector<const SCEV*>& parts) {
    if (parts.empty()) return se_.getZero(offset_type_);
    llvm::SmallVector<const SCEV*, 4> ops(parts.begin(), parts.end());
    return se_.getAddExpr(ops);
  }

  const llvm::Loop& loop_;
  llvm::ScalarEvolution& se_;
  const llvm::DataLayout& layout_;
  const std::function<bool(const llvm::Value&)>& steady_;
  llvm::Type* offset_type_;
  std::map<const SCEV*, std::vector<Access>> accesses_;
  std::vector<CountedAccess> counted_;
  std::vector<const SCEV*> steps_;  // of the access being bounded: trips of each loop it moves with
};

}  // namespace

std::optional<LoopFootprint> loop_footprint(const llvm::Loop& loop, llvm::ScalarEvolution& se,
                                            const llvm::DataLayout& layout,
                                            const std::function<bool(const llvm::CallBase&)>& harmless,
                                            const std::function<bool(const llvm::Value&)>& steady) {
  using namespace llvm;
  FootprintBuilder fp(loop, se, layout, steady);
  for (const BasicBlock* b : loop.blocks()) {
    for (const Instruction& i : *b) {
      bool ok = true;
      if (const auto* ld = dyn_cast<LoadInst>(&i)) {
        ok = fp.add_bytes(i, ld->getPointerOperand(), layout.getTypeStoreSize(ld->getType()), false);
      } else if (const auto* st = dyn_cast<StoreInst>(&i)) {
        ok = fp.add_bytes(i, st->getPointerOperand(), layout.getTypeStoreSize(st->getValueOperand()->getType()),
                          true);
      } else if (const auto* ii = dyn_cast<IntrinsicInst>(&i)) {
        switch (ii->getIntrinsicID()) {
          // A vector of addresses (gather, scatter) is no one pointer: counted.
          case Intrinsic::masked_load: case Intrinsic::masked_gather:
            ok = fp.add_bytes(i, ii->getArgOperand(0), layout.getTypeStoreSize(ii->getType()), false);
            break;
          case Intrinsic::masked_store: case Intrinsic::masked_scatter:
            ok = fp.add_bytes(i, ii->getArgOperand(1), layout.getTypeStoreSize(ii->getArgOperand(0)->getType()),
                              true);
            break;
          case Intrinsic::memcpy: case Intrinsic::memmove: case Intrinsic::memset: {
            const auto* mi = cast<MemIntrinsic>(ii);
            const SCEV* length = se.getSCEV(const_cast<Value*>(mi->getLength()));
            ok = fp.add(i, mi->getRawDest(), length, true);
            if (ok && isa<MemTransferInst>(mi))
              ok = fp.add(i, cast<MemTransferInst>(mi)->getRawSource(), length, false);
            break;
          }
          default:
            break;  // arithmetic, debug and lifetime markers touch no data
        }
      } else if (const auto* call = dyn_cast<CallBase>(&i)) {
        ok = harmless(*call);
      }
      if (!ok) return std::nullopt;
    }
  }
  return fp.result();
}

std::vector<SharedStream> shared_streams(const std::vector<CountedAccess>& counted, const llvm::Loop& loop,
                                         llvm::ScalarEvolution& se) {
  using namespace llvm;
  // A walk: the address steps by a constant with the innermost loop around
  // the access (a stream, classify() in loop_footprint).
  auto step_of = [&](const SCEVAddRecExpr* ar) { return dyn_cast<SCEVConstant>(ar->getStepRecurrence(se)); };
  auto walk = [&](const CountedAccess& a) -> const SCEVAddRecExpr* {
    if (a.indirect || !a.address) return nullptr;
    const auto* ar = dyn_cast<SCEVAddRecExpr>(a.address);
    const SCEVConstant* step = ar && ar->isAffine() ? step_of(ar) : nullptr;
    if (!step || step->getAPInt().isZero() || step->getAPInt().getSignificantBits() > 62) return nullptr;
    return ar;
  };
  std::vector<SharedStream> out;
  for (std::size_t i = 0; i < counted.size(); ++i) {
    const SCEVAddRecExpr* mine = walk(counted[i]);
    std::uint64_t pitch = counted[i].bytes;
    if (mine) pitch = std::max<std::uint64_t>(pitch, step_of(mine)->getAPInt().abs().getZExtValue());
    out.push_back({i, nullptr, pitch});
    if (!mine) continue;
    for (std::size_t j = 0; j < i; ++j) {
      if (out[j].first != j) continue;  // only the first of a group leads it
      const SCEVAddRecExpr* theirs = walk(counted[j]);
      if (!theirs || theirs->getLoop() != mine->getLoop() ||
          theirs->getStepRecurrence(se) != mine->getStepRecurrence(se) ||
          se.getPointerBase(theirs) != se.getPointerBase(mine) || !isa<SCEVUnknown>(se.getPointerBase(mine)))
        continue;
      const SCEV* shift = se.getMinusSCEV(mine, theirs);
      if (isa<SCEVCouldNotCompute>(shift) || !se.isLoopInvariant(shift, &loop)) continue;
      out[i].first = j, out[i].shift = shift;
      break;
    }
  }
  return out;
}

std::vector<AddressStream> loop_streams(const llvm::Loop& loop, llvm::ScalarEvolution& se) {
  using namespace llvm;
  using Stream = AddressStream;
  std::vector<Stream> streams;
  auto add = [&](const Value* pointer) {
    if (!se.isSCEVable(pointer->getType())) return streams.push_back({nullptr, nullptr});
    const SCEV* address = se.getSCEV(const_cast<Value*>(pointer));
    if (se.isLoopInvariant(address, &loop)) return;  // the same bytes every iteration: no stream
    const SCEV* base = se.getPointerBase(address);
    const SCEV* offset = se.getMinusSCEV(address, base);
    if (!isa<SCEVUnknown>(base) || isa<SCEVCouldNotCompute>(offset)) return streams.push_back({nullptr, nullptr});
    // Not a steady walk through this loop (x[col[k]]): the base's gathers, one
    // stream however many there are (an unrolled gather has several).
    const auto* walk = dyn_cast<SCEVAddRecExpr>(address);
    if (!walk || walk->getLoop() != &loop || !walk->isAffine()) offset = nullptr;
    for (const Stream& s : streams) {
      if (s.base != base || (s.offset == nullptr) != (offset == nullptr)) continue;
      if (!offset) return;
      const auto* apart = dyn_cast<SCEVConstant>(se.getMinusSCEV(offset, s.offset));
      if (apart && apart->getAPInt().abs().slt(kStreamSpanBytes)) return;
    }
    streams.push_back({base, offset});
  };
  for (const BasicBlock* b : loop.blocks()) {
    for (const Instruction& i : *b) {
      if (const auto* ld = dyn_cast<LoadInst>(&i)) {
        add(ld->getPointerOperand());
      } else if (const auto* st = dyn_cast<StoreInst>(&i)) {
        add(st->getPointerOperand());
      } else if (const auto* ii = dyn_cast<IntrinsicInst>(&i)) {
        switch (ii->getIntrinsicID()) {
          case Intrinsic::masked_load: case Intrinsic::masked_gather: add(ii->getArgOperand(0)); break;
          case Intrinsic::masked_store: case Intrinsic::masked_scatter: add(ii->getArgOperand(1)); break;
          case Intrinsic::memcpy: case Intrinsic::memmove: case Intrinsic::memset: {
            const auto* mi = cast<MemIntrinsic>(ii);
            add(mi->getRawDest());
            if (isa<MemTransferInst>(mi)) add(cast<MemTransferInst>(mi)->getRawSource());
            break;
          }
          default: break;
        }
      }
    }
  }
  return streams;
}

}  // namespace perfcast::analyze
