#include "analyze/scev_to_expr.h"

#include "analyze/fortran_arguments.h"
#include "analyze/openmp_runtime.h"
#include "analyze/ranks.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>

#include "analyze/run_time_checks.h"
#include "analyze/variable_reads.h"

namespace perfcast::analyze::detail {

namespace ex = perfcast::expr;
using ex::Expr;

void ScevToExpr::name_scevs() {
  using namespace llvm;
  // A variable a loop carries (an index, a running sum: one of its values is a
  // loop header's phi), or one that steps with a loop's index (`z0 = z -
  // zfirst`: a value in the loop that is an induction of it), holds a
  // different value at each point of the code; one of them outside the loop
  // (the index after an unrolled prologue's single iteration) is a moment of
  // that loop, not a quantity a user binds. Such values are read from their
  // own definitions instead.
  std::set<std::string> carried;
  for (const auto& [v, dn] : names_.debug_names()) {
    const auto* i = dyn_cast<Instruction>(v);
    if (!i) continue;
    if (isa<PHINode>(i) && s_.li.isLoopHeader(i->getParent())) carried.insert(dn.name);
    else if (const Loop* in = s_.li.getLoopFor(i->getParent()); in && s_.se.isSCEVable(i->getType()))
      if (const auto* rec = dyn_cast<SCEVAddRecExpr>(s_.se.getSCEV(const_cast<Instruction*>(i)));
          rec && rec->getLoop() == in)
        carried.insert(dn.name);
  }
  for (const auto& [v, dn] : names_.debug_names()) {
    if (!v->getType()->isIntegerTy() || !s_.se.isSCEVable(v->getType()) || llvm::isa<Argument>(v)) continue;
    // The compiler's own variables: their values are read from their
    // definitions (n - 1, not `.capture_expr.`), which name the source's.
    if (carried.count(dn.name) || dn.artificial) continue;
    if (auto* i = dyn_cast<Instruction>(v); i && s_.li.getLoopFor(i->getParent())) continue;
    const SCEV* sc = s_.se.getSCEV(const_cast<Value*>(v));
    if (isa<SCEVConstant>(sc) || isa<SCEVUnknown>(sc) || s_.se.containsAddRecurrence(sc)) continue;
    named_scevs_.emplace(sc, v);
  }
}

std::optional<Expr> ScevToExpr::library_field(const llvm::Value& value) {
  using namespace llvm;
  const auto* cast = dyn_cast<CastInst>(&value);
  const bool widened = cast && (isa<SExtInst>(cast) || isa<ZExtInst>(cast));
  const auto* load = dyn_cast<LoadInst>(widened ? cast->getOperand(0) : &value);
  if (!load) return std::nullopt;
  auto name = names_.field_name(load, true);
  if (!name) return std::nullopt;
  if (isa_and_nonnull<ZExtInst>(cast))
    return ex::zext(ex::var(*name), static_cast<int>(load->getType()->getIntegerBitWidth()));
  return ex::var(*name);
}

void ScevToExpr::note_read(const std::string& name, const llvm::Value& value) {
  auto& reads = s_.ctx.variable_reads[name];
  if (names_.merges_every_assignment(value)) {
    reads.merges.insert(&value);
    return;
  }
  reads.others.insert(&value);
  if (auto line = names_.assignment_line(value))
    reads.assignment_lines.insert(*line);
  else
    reads.not_one_assignment = true;
}

std::string ScevToExpr::read_name(const std::string& name, const llvm::Value& value) {
  const std::optional<unsigned> ordinal =
      names_.merges_every_assignment(value) ? std::nullopt : names_.assignment_ordinal(value);
  if (!ordinal) {
    note_read(name, value);
    return name;
  }
  std::string own = assignment_name(name, *ordinal);
  s_.ctx.assignment_names.emplace(own, name);
  note_read(own, value);
  return own;
}

std::optional<Expr> ScevToExpr::unsigned_operand(const llvm::SCEV* s, const llvm::Loop* scope, int depth) {
  auto e = conv(s, scope, depth + 1);
  if (!e) return std::nullopt;
  if (s_.se.isKnownNonNegative(s)) return e;
  return ex::zext(*e, static_cast<int>(s_.se.getTypeSizeInBits(s->getType())));
}

namespace {
constexpr int kMaxDepth = 64;  // conversions nest at most this deep
}  // namespace

template <typename Key, typename Convert>
std::optional<Expr> ScevToExpr::memoised(Memo<Key>& memo, Key key, const llvm::Loop* scope, int depth,
                                         Convert convert) {
  if (!expanding_.empty()) {
    reached(depth);
    ++conversions_made_;
    return convert();
  }
  if (auto it = memo.whole.find({key, scope}); it != memo.whole.end() && depth + it->second.height <= kMaxDepth) {
    reached(depth + it->second.height);
    return it->second.value;
  }
  if (auto it = memo.cut_at_depth.find({key, scope, depth}); it != memo.cut_at_depth.end()) {
    ++depth_cutoffs_;
    return it->second;
  }
  ++conversions_made_;
  const long long cutoffs = depth_cutoffs_;
  const int outer_deepest = std::exchange(deepest_, depth);
  std::optional<Expr> value = convert();
  if (depth_cutoffs_ == cutoffs) memo.whole[{key, scope}] = Converted{value, deepest_ - depth};
  else memo.cut_at_depth[{key, scope, depth}] = value;
  deepest_ = std::max(outer_deepest, deepest_);
  return value;
}

std::optional<Expr> ScevToExpr::conv(const llvm::SCEV* s, const llvm::Loop* scope, int depth) {
  if (depth > kMaxDepth) return cut_short();
  return memoised(scev_memo_, s, scope, depth, [&] { return conv_scev(s, scope, depth); });
}

std::optional<Expr> ScevToExpr::conv_scev(const llvm::SCEV* s, const llvm::Loop* scope, int depth) {
  using namespace llvm;
  // A sum or product the source named (lx = n / p + ...) reads as its name.
  // One of rank and size alone that differs per rank (right = rank + 1) has
  // what the code computes as its default: no one bound value would hold for
  // every rank. (Others stay parameters to bind, as the names of sizes.)
  if (auto it = named_scevs_.find(s); it != named_scevs_.end() && !expanding_.count(s)) {
    const SourceNames::DebugName& dn = names_.debug_names().at(it->second);
    if (dn.library) {
      // A system header's variable is never a parameter: the field it
      // holds, else its value read from its definition (below).
      if (auto field = library_field(*it->second)) return field;
    } else {
      expanding_.insert(s);
      auto value = conv(s, nullptr, depth + 1);
      expanding_.erase(s);
      std::optional<std::string> default_value;
      if (value) {
        std::set<std::string> uses = ex::free_names(*value);
        bool of_rank_and_size = uses.count("rank") > 0;
        for (const std::string& u : uses) of_rank_and_size = of_rank_and_size && (u == "rank" || u == "size");
        if (of_rank_and_size) default_value = ex::to_string(ex::simplify(*value));
      }
      const std::string name = read_name(dn.name, *it->second);
      s_.describe(name, dn.description, default_value);
      return ex::var(name);
    }
  }
  switch (s->getSCEVType()) {
    case scConstant: {
      const APInt& v = cast<SCEVConstant>(s)->getAPInt();
      if (v.getBitWidth() > 64) return std::nullopt;
      return ex::integer(v.getBitWidth() == 1 ? static_cast<std::int64_t>(v.getZExtValue()) : v.getSExtValue());
    }
    case scTruncate: {
      auto* t = cast<SCEVTruncateExpr>(s);
      auto x = conv(t->getOperand(), scope, depth + 1);
      if (!x) return std::nullopt;
      unsigned bits = s_.se.getTypeSizeInBits(t->getType());
      // Values that fit the narrower type pass unchanged; keep the truncation otherwise.
      if (s_.se.isKnownNonNegative(t->getOperand()) &&
          s_.se.getUnsignedRangeMax(t->getOperand()).getActiveBits() < bits)
        return x;
      return ex::trunc(*x, static_cast<int>(bits));
    }
    case scZeroExtend: {
      auto* z = cast<SCEVZeroExtendExpr>(s);
      auto x = conv(z->getOperand(), scope, depth + 1);
      if (!x) return std::nullopt;
      unsigned bits = s_.se.getTypeSizeInBits(z->getOperand()->getType());
      if (bits > 1 && s_.se.isKnownNonNegative(z->getOperand())) return x;
      return ex::zext(*x, static_cast<int>(bits));
    }
    case scSignExtend: {
      auto* z = cast<SCEVSignExtendExpr>(s);
      auto x = conv(z->getOperand(), scope, depth + 1);
      if (!x) return std::nullopt;
      unsigned bits = s_.se.getTypeSizeInBits(z->getOperand()->getType());
      if (bits == 1) return ex::sext(*x, 1);
      return x;  // the expression already reads the value as signed
    }
    case scAddExpr:
      // lz + 2 is one flattened sum in SCEV: find the named part, added or
      // taken away (4 * (n / 4) - n, a remainder's count), not while the
      // value of a named sum is being spelt out for its default.
      for (const auto& [named, value] : named_scevs_) {
        if (!expanding_.empty() || named->getType() != s->getType()) continue;
        for (const bool taken_away : {false, true}) {
          const SCEV* rest = taken_away ? s_.se.getAddExpr(s, named) : s_.se.getMinusSCEV(s, named);
          if (rest->getExpressionSize() >= s->getExpressionSize()) continue;
          if (auto r = conv(rest, scope, depth + 1))
            if (auto n = conv(named, scope, depth + 1)) return taken_away ? *r - *n : *n + *r;
        }
      }
      [[fallthrough]];
    case scMulExpr: {
      std::vector<Expr> terms;
      for (const SCEV* op : cast<SCEVNAryExpr>(s)->operands()) {
        auto e = conv(op, scope, depth + 1);
        if (!e) return std::nullopt;
        terms.push_back(*e);
      }
      return s->getSCEVType() == scAddExpr ? ex::add(terms) : ex::mul(terms);
    }
    case scUDivExpr: {
      auto* d = cast<SCEVUDivExpr>(s);
      auto a = unsigned_operand(d->getLHS(), scope, depth);
      auto b = unsigned_operand(d->getRHS(), scope, depth);
      if (!a || !b) return std::nullopt;
      return ex::floordiv(*a, *b);
    }
    case scAddRecExpr: {
      auto* ar = cast<SCEVAddRecExpr>(s);
      const Loop* l = ar->getLoop();
      if (!scope || !l->contains(scope)) {
        const SCEV* at = s_.se.getSCEVAtScope(s, const_cast<Loop*>(scope));
        if (at == s) return std::nullopt;
        return conv(at, scope, depth + 1);
      }
      // {a0,+,a1,+,a2...} at iteration n is sum_k a_k * C(n, k)
      Expr n = ex::var(names_.loop_var(l));
      std::vector<Expr> terms;
      Expr binomial = 1, falling = 1;
      std::int64_t factorial = 1;
      for (unsigned k = 0; k < ar->getNumOperands(); ++k) {
        auto a = conv(ar->getOperand(k), scope, depth + 1);
        if (!a) return std::nullopt;
        if (k > 0) {
          falling = falling * (n - Expr(static_cast<std::int64_t>(k - 1)));
          factorial *= k;
          binomial = factorial == 1 ? falling : ex::floordiv(falling, Expr(factorial));
        }
        terms.push_back(*a * binomial);
      }
      return ex::add(terms);
    }
    case scSMaxExpr:
    case scUMaxExpr:
    case scSMinExpr:
    case scUMinExpr:
    case scSequentialUMinExpr: {
      bool is_unsigned = s->getSCEVType() == scUMaxExpr || s->getSCEVType() == scUMinExpr ||
                         s->getSCEVType() == scSequentialUMinExpr;
      std::vector<Expr> args;
      for (const SCEV* op : cast<SCEVNAryExpr>(s)->operands()) {
        auto e = is_unsigned ? unsigned_operand(op, scope, depth) : conv(op, scope, depth + 1);
        if (!e) return std::nullopt;
        args.push_back(*e);
      }
      bool is_max = s->getSCEVType() == scSMaxExpr || s->getSCEVType() == scUMaxExpr;
      return is_max ? ex::maximum(args) : ex::minimum(args);
    }
    case scUnknown:
      return conv_unknown(cast<SCEVUnknown>(s)->getValue(), scope, depth + 1);
    default:
      return std::nullopt;
  }
}

std::optional<Expr> ScevToExpr::conv_value(const llvm::Value* v, const llvm::Loop* scope, int depth) {
  reached(depth);
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(v)) {
    if (c->getBitWidth() > 64) return std::nullopt;
    return ex::integer(c->getBitWidth() == 1 ? static_cast<std::int64_t>(c->getZExtValue()) : c->getSExtValue());
  }
  if (v->getType()->isIntegerTy(1)) return conv_bool(v, scope, depth + 1);
  if (!v->getType()->isIntegerTy() || !s_.se.isSCEVable(v->getType())) return std::nullopt;
  const llvm::SCEV* s = s_.se.getSCEV(const_cast<llvm::Value*>(v));
  return conv(s_.se.getSCEVAtScope(s, const_cast<llvm::Loop*>(scope)), scope, depth + 1);
}

std::optional<Expr> ScevToExpr::conv_unknown(const llvm::Value* v, const llvm::Loop* scope, int depth) {
  if (depth > kMaxDepth) return cut_short();
  return memoised(unknown_memo_, v, scope, depth, [&] { return conv_opaque(v, scope, depth); });
}

std::optional<Expr> ScevToExpr::conv_opaque(const llvm::Value* v, const llvm::Loop* scope, int depth) {
  using namespace llvm;
  if (auto* c = dyn_cast<ConstantInt>(v)) return conv_value(c, scope, depth);
  if (auto* a = dyn_cast<Argument>(v)) {
    if (!a->getType()->isIntegerTy() || s_.entry) {
      auto dn = names_.debug_names().find(v);
      if (dn == names_.debug_names().end()) return std::nullopt;
      s_.describe(dn->second.name, dn->second.description);
      return ex::var(dn->second.name);
    }
    std::string name = s_.out.all_arguments.at(a->getArgNo());
    if (name.empty()) return std::nullopt;
    return ex::var(name);
  }
  auto* inst = dyn_cast<Instruction>(v);
  if (!inst) return std::nullopt;
  if (auto* load = dyn_cast<LoadInst>(inst)) {
    const Value* p = load->getPointerOperand()->stripPointerCasts();
    // rank and size: what MPI_Comm_rank / MPI_Comm_size wrote there, or the
    // program's own function that hands one on through that argument.
    for (const User* u : p->users())
      if (auto* call = dyn_cast<CallBase>(u))
        if (auto* callee = call->getCalledFunction())
          for (unsigned k = 0; k < call->arg_size(); ++k) {
            if (call->getArgOperand(k)->stripPointerCasts() != p) continue;
            if (auto query = detail::mpi_query(*call); query && k == 1) return ex::var(*query);
            if (auto query = detail::mpi_query_wrapped(*callee, static_cast<int>(k))) return ex::var(*query);
          }
    // The OpenMP runtime's thread number and worksharing bounds.
    if (auto value = runtime_loaded_value(s_, *this, *load, scope)) return value;
    if (auto* g = dyn_cast<GlobalVariable>(p)) {
      // A global a loop around the read writes (a step counter incremented
      // in a callee) holds no one value: not a parameter.
      if (MemoryWrites(s_).global_changes_around(*g, *load)) return std::nullopt;
      return global_value(s_, *g);
    }
    // A field of a struct, even read inside a loop around the use (a call in
    // the loop kept it from being hoisted): it changes with the loop only if
    // the loop writes it, which field_name rules out.
    if (auto name = names_.field_name(load)) return ex::var(*name);
    // A scalar variable kept in memory (Fortran's locals and dummy arguments).
    if (auto value = scalar_in_memory(s_, *this, *load, scope)) return value;
  }
  if (auto* call = dyn_cast<CallBase>(inst)) {
    if (auto value = runtime_call_value(s_, *call)) return value;
    if (auto* callee = call->getCalledFunction())
      if (auto query = detail::mpi_query_wrapped(*callee, -1)) return ex::var(*query);
  }
  // Integer arithmetic SCEV leaves opaque: expand it when its operands convert.
  if (auto* bo = dyn_cast<BinaryOperator>(inst)) {
    auto a = conv_value(bo->getOperand(0), scope, depth + 1);
    auto b = a ? conv_value(bo->getOperand(1), scope, depth + 1) : std::nullopt;
    if (a && b) switch (bo->getOpcode()) {
        // sdiv/srem round toward zero; floordiv/mod agree on the non-negative
        // sizes and counts these are in practice.
        case Instruction::SDiv: return ex::floordiv(*a, *b);
        case Instruction::SRem: return ex::mod(*a, *b);
        case Instruction::UDiv: return ex::floordiv(*a, *b);
        case Instruction::URem: return ex::mod(*a, *b);
        case Instruction::Add: return *a + *b;
        case Instruction::Sub: return *a - *b;
        case Instruction::Mul: return *a * *b;
        // An addition when no bit is shared; x | (2^k - 1), a vector loop's
        // end index, is x rounded down to a multiple of 2^k, plus 2^k - 1.
        case Instruction::Or: {
          if (llvm::haveNoCommonBitsSet(bo->getOperand(0), bo->getOperand(1), s_.dl)) return *a + *b;
          auto* mask = dyn_cast<ConstantInt>(bo->getOperand(1));
          if (mask && !mask->isNegative() && (mask->getValue() + 1).isPowerOf2()) {  // any sign: floor
            Expr block = ex::integer(mask->getSExtValue() + 1);
            return ex::floordiv(*a, block) * block + *b;
          }
          break;
        }
        default: break;
      }
  }
  if (auto* sel = dyn_cast<SelectInst>(inst)) {
    auto c = conv_bool(sel->getCondition(), scope, depth + 1);
    auto a = c ? conv_value(sel->getTrueValue(), scope, depth + 1) : std::nullopt;
    auto b = a ? conv_value(sel->getFalseValue(), scope, depth + 1) : std::nullopt;
    if (c && a && b) return ex::select(*c, *a, *b);
  }
  if (isa<ZExtInst>(inst) || isa<SExtInst>(inst)) {
    const Value* op = inst->getOperand(0);
    if (op->getType()->isIntegerTy(1))
      if (auto c = conv_bool(op, scope, depth + 1)) return ex::select(*c, isa<ZExtInst>(inst) ? 1 : -1, 0);
  }
  if (isa<ICmpInst>(inst)) return conv_bool(inst, scope, depth + 1);
  if (auto* phi = dyn_cast<PHINode>(inst); phi && !s_.li.isLoopHeader(phi->getParent()))
    if (auto e = conv_phi(phi, scope, depth + 1)) return e;
  // A loop index kept in memory (passed by reference to a call in the loop).
  if (auto* phi = dyn_cast<PHINode>(inst); phi && s_.li.isLoopHeader(phi->getParent()))
    if (const SCEV* rec = induction_through_memory(s_, *phi))
      return conv(s_.se.getSCEVAtScope(rec, const_cast<Loop*>(scope)), scope, depth + 1);
  // A value that changes from one iteration to the next of a loop around the
  // use is no parameter.
  if (Loop* def = s_.li.getLoopFor(inst->getParent()); def && scope && def->contains(scope)) return std::nullopt;
  auto dn = names_.debug_names().find(v);
  if (dn != names_.debug_names().end()) {
    // The compiler's own variable (`.capture_expr.`, where clang keeps an
    // OpenMP loop's bound) is no name a user knows: the class field it holds
    // is. A local struct's field the optimiser split off holds a copy of
    // what the load read: that field, through the reference or pointer it
    // was read by (`Vector v; init(v, A.nrows)`: `A.nrows`), which a probe
    // run sees read; the local's field it never sees, its stores made in the
    // callee that took the struct by reference.
    if (auto* load = dyn_cast<LoadInst>(inst); load && (dn->second.artificial || dn->second.member))
      if (auto name = names_.field_name(load, true)) return ex::var(*name);
    if (dn->second.library) return library_field(*inst);  // never a parameter of its own
    const std::string name = read_name(dn->second.name, *inst);
    s_.describe(name, dn->second.description);
    return ex::var(name);
  }
  return std::nullopt;
}

std::optional<Expr> ScevToExpr::conv_bool(const llvm::Value* v, const llvm::Loop* scope, int depth) {
  if (depth > kMaxDepth) return cut_short();
  return memoised(bool_memo_, v, scope, depth, [&] { return conv_boolean(v, scope, depth); });
}

std::optional<Expr> ScevToExpr::conv_boolean(const llvm::Value* v, const llvm::Loop* scope, int depth) {
  using namespace llvm;
  if (auto* c = dyn_cast<ConstantInt>(v)) return ex::integer(c->isZero() ? 0 : 1);
  if (auto* cmp = dyn_cast<ICmpInst>(v)) {
    if (!cmp->getOperand(0)->getType()->isIntegerTy()) return std::nullopt;
    auto a = conv_value(cmp->getOperand(0), scope, depth + 1);
    auto b = a ? conv_value(cmp->getOperand(1), scope, depth + 1) : std::nullopt;
    if (!a || !b) return std::nullopt;
    if (cmp->isUnsigned()) {
      int bits = static_cast<int>(cmp->getOperand(0)->getType()->getIntegerBitWidth());
      auto nonneg = [&](const Value* x) {
        return isa<ConstantInt>(x) ? !cast<ConstantInt>(x)->isNegative()
                                   : s_.se.isKnownNonNegative(s_.se.getSCEV(const_cast<Value*>(x)));
      };
      if (!nonneg(cmp->getOperand(0))) a = ex::zext(*a, bits);
      if (!nonneg(cmp->getOperand(1))) b = ex::zext(*b, bits);
    }
    switch (cmp->getPredicate()) {
      case CmpInst::ICMP_EQ: return ex::compare(ex::Comparison::Eq, *a, *b);
      case CmpInst::ICMP_NE: return ex::compare(ex::Comparison::Ne, *a, *b);
      case CmpInst::ICMP_SLT: case CmpInst::ICMP_ULT: return ex::compare(ex::Comparison::Lt, *a, *b);
      case CmpInst::ICMP_SLE: case CmpInst::ICMP_ULE: return ex::compare(ex::Comparison::Le, *a, *b);
      case CmpInst::ICMP_SGT: case CmpInst::ICMP_UGT: return ex::compare(ex::Comparison::Gt, *a, *b);
      case CmpInst::ICMP_SGE: case CmpInst::ICMP_UGE: return ex::compare(ex::Comparison::Ge, *a, *b);
      default: return std::nullopt;
    }
  }
  if (auto* bo = dyn_cast<BinaryOperator>(v); bo && bo->getType()->isIntegerTy(1)) {
    auto a = conv_bool(bo->getOperand(0), scope, depth + 1);
    auto b = a ? conv_bool(bo->getOperand(1), scope, depth + 1) : std::nullopt;
    if (!a || !b) return std::nullopt;
    switch (bo->getOpcode()) {
      case Instruction::And: return *a * *b;
      case Instruction::Or: return ex::select(*a, 1, *b);
      case Instruction::Xor: return ex::compare(ex::Comparison::Ne, *a, *b);
      default: return std::nullopt;
    }
  }
  if (auto* sel = dyn_cast<SelectInst>(v); sel && sel->getType()->isIntegerTy(1)) {
    auto c = conv_bool(sel->getCondition(), scope, depth + 1);
    auto a = c ? conv_bool(sel->getTrueValue(), scope, depth + 1) : std::nullopt;
    auto b = a ? conv_bool(sel->getFalseValue(), scope, depth + 1) : std::nullopt;
    if (c && a && b) return ex::select(*c, *a, *b);
    return std::nullopt;
  }
  if (auto* t = dyn_cast<TruncInst>(v); t && t->getType()->isIntegerTy(1)) {
    if (auto x = conv_value(t->getOperand(0), scope, depth + 1)) return ex::trunc(*x, 1);
  }
  return std::nullopt;
}

// A join of values (the vectoriser's resume value: 0 when the vector loop was
// skipped, the vector trip count after it) as a select on the branch that
// decides which way the program came. Run-time checks are assumed to pass, as
// branch_node() does.
std::optional<Expr> ScevToExpr::conv_phi(const llvm::PHINode* phi, const llvm::Loop* scope, int depth) {
  using namespace llvm;
  if (depth > kMaxDepth) return cut_short();
  reached(depth);
  if (!phi->getType()->isIntegerTy()) return std::nullopt;
  BasicBlock* block = const_cast<BasicBlock*>(phi->getParent());
  std::vector<std::pair<const Value*, BasicBlock*>> in;
  for (unsigned k = 0; k < phi->getNumIncomingValues(); ++k) {
    BasicBlock* pred = phi->getIncomingBlock(k);
    if (auto* check = dyn_cast<BranchInst>(pred->getTerminator());
        check && check->isConditional() && !conv_bool(check->getCondition(), s_.li.getLoopFor(pred), depth + 1))
      if (auto fallback = run_time_check_fallback(check, s_); fallback && check->getSuccessor(*fallback) == block)
        continue;
    in.emplace_back(phi->getIncomingValue(k), pred);
  }
  if (in.empty()) return std::nullopt;
  auto* node = s_.dt.getNode(block);
  if (!node || !node->getIDom()) return std::nullopt;
  return conv_join(in, block, node->getIDom()->getBlock(), scope, depth + 1, 0);
}

// The value of a join of `in` (value, predecessor) pairs at `block`, decided
// by the branch that ends `d`, a block dominating every predecessor: a select
// on its test of the values each side brings. A side whose predecessors bring
// several values is decided in turn by the branch that ends their nearest
// common dominator (the vectoriser's resume value: the whole count where its
// trip-count test or its run-time check sends the program to the scalar loop,
// the vector loop's remainder after it), up to kMaxJoinLevels deep.
std::optional<Expr> ScevToExpr::conv_join(const std::vector<std::pair<const llvm::Value*, llvm::BasicBlock*>>& in,
                                          llvm::BasicBlock* block, llvm::BasicBlock* d, const llvm::Loop* scope,
                                          int depth, int level) {
  using namespace llvm;
  constexpr int kMaxJoinLevels = 4;
  if (depth > kMaxDepth) return cut_short();
  reached(depth);
  bool same = std::all_of(in.begin(), in.end(), [&](const auto& p) { return p.first == in.front().first; });
  if (same) return conv_value(in.front().first, scope, depth + 1);
  if (level >= kMaxJoinLevels) return std::nullopt;
  auto* br = dyn_cast<BranchInst>(d->getTerminator());
  if (!br || !br->isConditional()) return std::nullopt;
  std::vector<std::pair<const Value*, BasicBlock*>> side_in[2];
  for (const auto& [value, pred] : in) {
    int side = -1;
    for (unsigned s = 0; s < 2; ++s) {
      BasicBlock* succ = br->getSuccessor(s);
      if ((pred == d && succ == block) || (succ != block && s_.dt.dominates(BasicBlockEdge(d, succ), pred))) side = s;
    }
    if (side < 0) return std::nullopt;
    side_in[side].emplace_back(value, pred);
  }
  if (side_in[0].empty() || side_in[1].empty()) return std::nullopt;
  // A phi read outside the loop its test is in (a flag a loop sets, tested
  // after it) holds what the loop's last pass chose: data the loop made,
  // not a function of the reader's names (the test names the loop's index).
  const Loop* test_scope = s_.li.getLoopFor(d);
  if (test_scope && !(scope && test_scope->contains(scope))) return std::nullopt;
  auto cond = conv_bool(br->getCondition(), test_scope, depth + 1);
  if (!cond) return std::nullopt;
  std::optional<Expr> value[2];
  for (unsigned s = 0; s < 2; ++s) {
    BasicBlock* common = side_in[s].front().second;
    for (const auto& [v, pred] : side_in[s]) common = s_.dt.findNearestCommonDominator(common, pred);
    // The side's own branch decides among its values: below `d`, on that side.
    const bool own = common && common != d && s_.dt.dominates(BasicBlockEdge(d, br->getSuccessor(s)), common);
    const bool one = std::all_of(side_in[s].begin(), side_in[s].end(),
                                 [&](const auto& p) { return p.first == side_in[s].front().first; });
    if (!one && !own) return std::nullopt;
    value[s] = one ? conv_value(side_in[s].front().first, scope, depth + 1)
                   : conv_join(side_in[s], block, common, scope, depth + 1, level + 1);
    if (!value[s]) return std::nullopt;
  }
  return ex::select(*cond, *value[0], *value[1]);
}

}  // namespace perfcast::analyze::detail
