#include "analyze/emit.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <utility>

#include <fmt/format.h>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Triple.h>

#include "analyze/fortran_arguments.h"
#include "analyze/fortran_bindings.h"
#include "analyze/mpi_tables.h"
#include "analyze/openmp_runtime.h"
#include "analyze/site_names.h"
#include "analyze/source_names.h"
#include "analyze/virtual_calls.h"
#include "model/program_model.h"

namespace perfcast::analyze::detail {

namespace ex = perfcast::expr;
using ex::Expr;

namespace {

// `c ? a : b` on a floating-point compare of a and b themselves is a minimum
// or maximum: the machine does it with one minsd/maxsd (minpd/maxpd per lane),
// which Intel's FP_ARITH counts, and so does perfcast counts.
bool is_min_or_max(const llvm::SelectInst& s) {
  auto* cmp = llvm::dyn_cast<llvm::FCmpInst>(s.getCondition());
  if (!cmp || !s.getType()->isFPOrFPVectorTy()) return false;
  const llvm::Value* a = cmp->getOperand(0);
  const llvm::Value* b = cmp->getOperand(1);
  const llvm::Value* t = s.getTrueValue();
  const llvm::Value* f = s.getFalseValue();
  if (cmp->isEquality()) return false;
  return (t == a && f == b) || (t == b && f == a);
}

// Whether the machine fuses a multiply-add (llvm.fmuladd) into one FMA
// instruction: on x86 only with the FMA extension the unit was built for (its
// target features); other targets (AArch64, POWER) always have one.
bool fuses_multiply_add(const llvm::Function& f) {
  if (!llvm::Triple(f.getParent()->getTargetTriple()).isX86()) return true;
  return f.getFnAttribute("target-features").getValueAsString().contains("+fma");
}

// The product of a multiply, its operands unordered and a negation taken off
// (-a * b is the product a * b, subtracted).
std::pair<const llvm::Value*, const llvm::Value*> product_of(const llvm::Value* a, const llvm::Value* b) {
  auto unnegated = [](const llvm::Value* v) {
    auto* neg = llvm::dyn_cast<llvm::UnaryOperator>(v);
    return neg && neg->getOpcode() == llvm::Instruction::FNeg ? neg->getOperand(0) : v;
  };
  return std::minmax(unnegated(a), unnegated(b));
}

}  // namespace

void BlockEmitter::emit_block(llvm::BasicBlock* b, Items& items,
                              const std::function<bool(const llvm::Instruction&)>& include) {
  using namespace llvm;
  const Loop* scope = s_.li.getLoopFor(b);
  std::unique_ptr<Node> acc;
  std::string acc_origin;
  auto flush = [&] {
    if (acc && !acc->empty_compute()) items.push_back(std::move(acc));
    acc.reset();
  };
  auto compute = [&](const Instruction& i) -> Node& {
    Where w = s_.where(i.getDebugLoc());
    if (acc && w.line && acc_origin != w.origin) flush();
    if (!acc) {
      acc = std::make_unique<Node>();
      acc_origin = w.origin;
    }
    if (!acc->line && w.line) {
      acc->line = w.line;
      acc->note = w.note;
      acc_origin = w.origin;
    }
    return *acc;
  };
  auto lanes_of = [](Type* t) -> std::int64_t {
    if (auto* v = dyn_cast<FixedVectorType>(t)) return v->getNumElements();
    return 1;
  };
  auto add_flops = [&](const Instruction& i, Type* t, std::int64_t per_lane) {
    Node& n = compute(i);
    Type* e = t->getScalarType();
    Expr f = Expr(per_lane * lanes_of(t));
    if (e->isFloatTy() || e->isHalfTy() || e->isBFloatTy()) n.flops_single = n.flops_single + f;
    else n.flops_double = n.flops_double + f;
  };
  auto add_math = [&](const Instruction& i, const std::string& name, Type* t) {
    Node& n = compute(i);
    bool single = t->getScalarType()->isFloatTy();
    std::string key = single && name.back() != 'f' ? name + "f" : name;
    auto it = n.math.find(key);
    Expr calls = Expr(lanes_of(t));
    n.math[key] = it == n.math.end() ? calls : it->second + calls;
  };

  // Without FMA instructions a multiply-add is a multiply and an add, and the
  // code generator computes a product once per block however many of them
  // use it (`fi += d * force; f[j] -= d * force`): such a multiply-add's
  // product, already computed there, costs only its add. Only the block's
  // instructions priced here count: a product the part priced apart computes
  // (a later test's own arithmetic) may not run where this part does.
  const bool fused = fuses_multiply_add(s_.f);
  std::set<std::pair<const Value*, const Value*>> products;
  if (!fused)
    for (Instruction& i : *b)
      if (i.getOpcode() == Instruction::FMul && (!include || include(i)))
        products.insert(product_of(i.getOperand(0), i.getOperand(1)));

  for (Instruction& i : *b) {
    if (isa<DbgInfoIntrinsic>(&i) || s_.inlined_from_ignored(i.getDebugLoc()) || (include && !include(i))) continue;
    // A flop is what perfcast counts counts (src/counts/README.md, Intel's
    // FP_ARITH_INST_RETIRED): fneg is none, the machine flips the sign bit with
    // a logic instruction (xorpd) or folds it into the subtract or FMA it feeds.
    if (auto* bo = dyn_cast<BinaryOperator>(&i)) {
      switch (bo->getOpcode()) {
        case Instruction::FAdd: case Instruction::FSub: case Instruction::FMul:
        case Instruction::FDiv: case Instruction::FRem:
          add_flops(i, i.getType(), 1);
          break;
        default: break;
      }
    } else if (auto* sel = dyn_cast<SelectInst>(&i); sel && is_min_or_max(*sel)) {
      add_flops(i, i.getType(), 1);
    } else if (auto* ld = dyn_cast<LoadInst>(&i)) {
      Node& n = compute(i);
      n.loads = n.loads + Expr(1);
      n.load_bytes = n.load_bytes + Expr(static_cast<std::int64_t>(s_.dl.getTypeStoreSize(ld->getType())));
    } else if (auto* st = dyn_cast<StoreInst>(&i)) {
      Node& n = compute(i);
      n.stores = n.stores + Expr(1);
      n.store_bytes =
          n.store_bytes + Expr(static_cast<std::int64_t>(s_.dl.getTypeStoreSize(st->getValueOperand()->getType())));
    } else if (auto* ii = dyn_cast<IntrinsicInst>(&i)) {
      switch (ii->getIntrinsicID()) {
        case Intrinsic::fma: add_flops(i, i.getType(), 2); break;
        case Intrinsic::fmuladd:
          add_flops(i, i.getType(),
                    fused || products.insert(product_of(ii->getArgOperand(0), ii->getArgOperand(1))).second ? 2 : 1);
          break;
        // x86 lowers these to minsd/maxsd (with a compare and blend for NaNs, no flops).
        case Intrinsic::minnum: case Intrinsic::maxnum: case Intrinsic::minimum: case Intrinsic::maximum:
          add_flops(i, i.getType(), 1);
          break;
        case Intrinsic::sqrt: add_math(i, "sqrt", i.getType()); break;
        case Intrinsic::sin: add_math(i, "sin", i.getType()); break;
        case Intrinsic::cos: add_math(i, "cos", i.getType()); break;
        case Intrinsic::exp: case Intrinsic::exp2: add_math(i, "exp", i.getType()); break;
        case Intrinsic::log: case Intrinsic::log2: case Intrinsic::log10: add_math(i, "log", i.getType()); break;
        case Intrinsic::pow: case Intrinsic::powi: add_math(i, "pow", i.getType()); break;
        case Intrinsic::masked_load: case Intrinsic::masked_gather: {
          Node& n = compute(i);
          n.loads = n.loads + Expr(1);
          n.load_bytes = n.load_bytes + Expr(static_cast<std::int64_t>(s_.dl.getTypeStoreSize(i.getType())));
          break;
        }
        case Intrinsic::masked_store: case Intrinsic::masked_scatter: {
          Node& n = compute(i);
          n.stores = n.stores + Expr(1);
          n.store_bytes =
              n.store_bytes + Expr(static_cast<std::int64_t>(s_.dl.getTypeStoreSize(ii->getArgOperand(0)->getType())));
          break;
        }
        case Intrinsic::memcpy: case Intrinsic::memmove: case Intrinsic::memset: {
          Node& n = compute(i);
          auto len = exprs_.conv_value(ii->getArgOperand(2), scope);
          if (!len) {
            Where w = s_.where(i.getDebugLoc());
            std::string name = call_site(s_.ctx, s_.f, *ii) + ".bytes";
            // In an instance of a template (or of a class template's member),
            // which one, by its linkage name: the instances share the line,
            // and a probe run records each apart.
            const DISubprogram* sp = i.getDebugLoc() ? i.getDebugLoc()->getScope()->getSubprogram() : nullptr;
            const auto* scope = sp ? dyn_cast_or_null<DICompositeType>(sp->getScope()) : nullptr;
            const std::string instance = sp && (sp->getTemplateParams() || (scope && scope->getTemplateParams()))
                                             ? " (in " + (w.instance.empty() ? s_.f.getName().str() : w.instance) + ")"
                                             : "";
            s_.describe(name, fmt::format("bytes of the mem{} at {}:{}{}",
                                          ii->getIntrinsicID() == Intrinsic::memset ? "set" : "cpy",
                                          file_tag(w.file), w.line, instance));
            len = ex::var(name);
          }
          if (ii->getIntrinsicID() != Intrinsic::memset) n.load_bytes = n.load_bytes + *len;
          n.store_bytes = n.store_bytes + *len;
          break;
        }
        default: break;
      }
    } else if (auto* call = dyn_cast<CallBase>(&i)) {
      auto* callee = dyn_cast<Function>(call->getCalledOperand()->stripPointerCasts());
      if (callee && math_name(callee->getName().str())) {
        add_math(i, *math_name(callee->getName().str()), call->getType());
        continue;
      }
      if (llvm::Function* region = forked_region(*call)) {
        flush();
        emit_fork(*call, *region, items, scope);
        continue;
      }
      if (callee && (callee->isIntrinsic() || s_.ctx.ignores(callee->getName().str()) ||
                     is_openmp_runtime(callee->getName().str())))
        continue;
      flush();
      emit_call(*call, items, scope);
    }
  }
  flush();
}

std::optional<Expr> BlockEmitter::datatype_bytes(const llvm::Value* dt, const llvm::Loop* scope) {
  using namespace llvm;
  const Value* v = dt->stripPointerCasts();
  if (auto* g = dyn_cast<GlobalVariable>(v)) {
    if (auto b = predefined_datatype_bytes(g->getName().str())) return Expr(*b);
    return std::nullopt;
  }
  // The datatype a wrapper was handed (`my_allreduce(buf, n, MPI_DOUBLE)`):
  // the bytes of an element are a parameter of the function, which each call
  // binds to the size of the datatype it passes (emit_defined_call).
  if (auto* arg = dyn_cast<Argument>(v); arg && arg->getParent() == &s_.f && !s_.entry) {
    const unsigned at = arg->getArgNo();
    if (at < s_.out.all_arguments.size() && s_.out.datatype_arguments.count(at)) return ex::var(s_.out.all_arguments[at]);
    if (at >= s_.out.all_arguments.size() || !s_.out.all_arguments[at].empty()) return std::nullopt;
    const auto dn = exprs_.names().debug_names().find(arg);
    const std::string name =
        sanitize((dn != exprs_.names().debug_names().end() ? dn->second.name : fmt::format("arg{}", at)) + "_bytes");
    if (s_.arguments.count(name)) return std::nullopt;
    s_.out.all_arguments[at] = name;
    s_.out.datatype_arguments.insert(at);
    s_.arguments.insert(name);
    return ex::var(name);
  }
  // A derived type made in this function: MPI_Type_contiguous(count, old, &t)
  // or MPI_Type_vector(count, blocklength, stride, old, &t).
  if (auto* load = dyn_cast<LoadInst>(v)) {
    const Value* p = load->getPointerOperand()->stripPointerCasts();
    for (const User* u : p->users())
      if (auto* call = dyn_cast<CallBase>(u))
        if (Function* callee = call->getCalledFunction()) {
          StringRef n = callee->getName();
          if (n == "MPI_Type_contiguous" && call->getArgOperand(2)->stripPointerCasts() == p) {
            auto c = exprs_.conv_value(call->getArgOperand(0), nullptr);
            auto old = datatype_bytes(call->getArgOperand(1), scope);
            if (c && old) return *c * *old;
          }
          if (n == "MPI_Type_vector" && call->getArgOperand(4)->stripPointerCasts() == p) {
            auto c = exprs_.conv_value(call->getArgOperand(0), nullptr);
            auto bl = exprs_.conv_value(call->getArgOperand(1), nullptr);
            auto old = datatype_bytes(call->getArgOperand(3), scope);
            if (c && bl && old) return *c * *bl * *old;
          }
        }
  }
  return std::nullopt;
}

// A peer parameter's default: a real neighbour on a ring. Sends go to the
// next rank, receives come from the one before, so every message the
// defaults make has its receive (both at the next rank, a simulation
// deadlocks from 3 ranks up). An array element that sends and receives share
// (a face's neighbour) keeps the next rank for both.
std::string BlockEmitter::neighbour_of(bool receive_only) {
  return receive_only ? "mod(rank + size - 1, size)" : "mod(rank + 1, size)";
}

void BlockEmitter::note_peer_argument(const Expr& peer, bool receive_only) {
  if (s_.entry) return;
  // The argument itself, or through width casts (a 64-bit index handed to MPI's int).
  const std::set<std::string> names = ex::free_names(peer);
  if (names.size() != 1 || !s_.arguments.count(*names.begin())) return;
  const std::string& argument = *names.begin();
  for (long long value : {0LL, 1LL, 7LL, 4096LL}) {
    try {
      const ex::Value v = ex::evaluate(peer, {{argument, ex::Value(value)}});
      if (v.real() != static_cast<double>(value)) return;
    } catch (const std::exception&) {
      return;
    }
  }
  auto [at, added] = s_.out.peer_arguments.emplace(argument, receive_only);
  if (!added) at->second = at->second && receive_only;
}

void BlockEmitter::emit_mpi(llvm::CallBase& call, const std::string& name, Items& items, const llvm::Loop* scope,
                            bool by_reference) {
  auto spec = mpi_specs().find(name);
  if (spec == mpi_specs().end()) return;  // local calls: rank, size, topology, time
  const MpiSpec& s = spec->second;
  // An integer argument: the value itself (C), or what the pointer passed
  // refers to (Fortran).
  auto argument = [&](int position) -> std::optional<Expr> {
    const llvm::Value* arg = call.getArgOperand(static_cast<unsigned>(position));
    if (by_reference) return value_by_reference(s_, exprs_, arg, call, scope);
    return exprs_.conv_value(arg, scope);
  };
  auto n = std::make_unique<Node>();
  n->kind = Node::Mpi;
  Where w = s_.where(call.getDebugLoc());
  n->line = w.line;
  n->note = w.note;
  n->op = s.op;
  std::string tag = call_site(s_.ctx, s_.f, call);
  // Several calls on one line (an unrolled loop) share a parameter: one call site.
  auto unique = [](const std::string& base) { return sanitize(base); };
  if (s.count >= 0) {
    auto count = argument(s.count);
    if (!count) {
      std::string p = unique(tag + ".count");
      s_.describe(p,
                  fmt::format("elements per call of {} at {}:{} (read from memory)", name, file_tag(w.file), w.line));
      count = ex::var(p);
    }
    std::optional<Expr> bytes;
    if (!by_reference) {
      bytes = datatype_bytes(call.getArgOperand(s.datatype), scope);
    } else if (auto handle = argument(s.datatype); handle && handle->is_constant() &&
                                                    handle->kind() == ex::Kind::Integer) {
      if (auto b = fortran_datatype_bytes(handle->int_value())) bytes = Expr(*b);
    }
    if (!bytes) {
      std::string p = unique(tag + ".datatype_bytes");
      s_.describe(p,
                  fmt::format("bytes of one element of the datatype of {} at {}:{}", name, file_tag(w.file), w.line));
      bytes = ex::var(p);
    }
    n->bytes = ex::simplify(*count * *bytes);
  } else if (n->op == mpi::Op::Alltoallv || n->op == mpi::Op::ReduceScatter) {
    std::string p = unique(tag + ".bytes");
    s_.describe(
        p, fmt::format("bytes per call of {} at {}:{} (counts per peer are data)", name, file_tag(w.file), w.line));
    n->bytes = ex::var(p);
  }
  std::string reader = fmt::format("{} at {}:{}", name, file_tag(w.file), w.line);
  if (s.peer >= 0) {
    const llvm::Value* arg = call.getArgOperand(s.peer);
    auto peer = argument(s.peer);
    if (!peer && !by_reference) peer = ranks_.element_rank(arg, "peer", reader, "mod(rank + 1, size)");
    if (!peer || (peer->is_constant() && peer->kind() == ex::Kind::Integer && peer->int_value() == -1)) {
      // A call's own peer parameter defaults to a real neighbour (neighbour_of).
      std::string p = unique(tag + ".peer");
      s_.describe(p,
                  fmt::format("peer rank of {} at {}:{}, not computable from the code (read from memory or "
                              "MPI_ANY_SOURCE); {}",
                              name, file_tag(w.file), w.line, model::kAssumedNeighbourNote),
                  neighbour_of(mpi::facts(n->op).receives && !mpi::facts(n->op).sends));
      peer = ex::var(p);
    }
    // Open MPI's MPI_PROC_NULL is -2: negative, as the model wants.
    n->peer = ex::simplify(*peer);
    note_peer_argument(*n->peer, mpi::facts(n->op).receives && !mpi::facts(n->op).sends);
  }
  if (s.root >= 0) {
    const llvm::Value* arg = call.getArgOperand(s.root);
    auto root = argument(s.root);
    if (!root && !by_reference) root = ranks_.element_rank(arg, "root", reader, "0");
    if (!root) {
      std::string p = unique(tag + ".root");
      s_.describe(p, fmt::format("root rank of {} at {}:{}", name, file_tag(w.file), w.line), "0");
      root = ex::var(p);
    }
    n->root = ex::simplify(*root);
  }
  // The level marks the app's timed region (docs/methods.md): kept where the
  // code gives it, so a simulated run of the model finds the region.
  if (n->op == mpi::Op::Pcontrol)
    if (auto level = argument(0)) n->level = ex::simplify(*level);
  items.push_back(std::move(n));
}

void BlockEmitter::emit_fork(llvm::CallBase& fork, llvm::Function& region, Items& items, const llvm::Loop* scope) {
  Where w = s_.where(fork.getDebugLoc());
  s_.ctx.parallel_regions.insert(region.getName().str());
  FunctionModel& fm = s_.ctx.analyse(region);
  auto call = std::make_unique<Node>();
  call->kind = Node::Call;
  call->line = w.line;
  call->note = w.note;
  call->callee = fm.name;
  for (unsigned a = 0; a < fm.all_arguments.size(); ++a) {
    const std::string& param = fm.all_arguments[a];
    if (param.empty() || std::find(fm.parameters.begin(), fm.parameters.end(), param) == fm.parameters.end())
      continue;
    if (a == 0) {
      call->args.emplace_back(param, ex::var(kOmpThread));
      continue;
    }
    unsigned passed_at = kForkFirstShared + a - 2;
    if (a < 2 || passed_at >= fork.arg_size()) continue;
    llvm::Type* type = nullptr;
    for (const llvm::User* u : region.getArg(a)->users())
      if (auto* load = llvm::dyn_cast<llvm::LoadInst>(u); load && load->getType()->isIntegerTy())
        type = load->getType();
    auto e = value_by_reference(s_, exprs_, fork.getArgOperand(passed_at), fork, scope, type);
    if (!e) {
      std::string p = sanitize(fmt::format("{}.{}", call_site(s_.ctx, s_.f, fork), param));
      s_.describe(p, fmt::format("shared variable {} of the OpenMP parallel region at {}:{} (read from memory)", param,
                                 file_tag(w.file), w.line));
      e = ex::var(p);
    }
    call->args.emplace_back(param, ex::simplify(*e));
  }
  if (std::find(fm.parameters.begin(), fm.parameters.end(), kOmpTeam) != fm.parameters.end())
    call->args.emplace_back(kOmpTeam, ex::var(kOmpThreads));
  describe_team_size(s_);
  auto team = std::make_unique<Node>();
  team->kind = Node::Loop;
  team->line = w.line;
  team->note = (w.note.empty() ? "" : w.note + "; ") +
               "OpenMP parallel region: each of the team's threads runs it (the counts are the rank's, all threads)";
  team->var = kOmpThread;
  team->trip_count = ex::var(kOmpThreads);
  s_.out.loop_vars.insert(kOmpThread);
  team->body.push_back(std::move(call));
  items.push_back(std::move(team));
}

// A call of a function the module defines: its model's call, its arguments
// bound to what the call passes (a call back into a recursion under analysis
// is left out, counted by the recursion's loop).
void BlockEmitter::emit_defined_call(llvm::CallBase& call, llvm::Function& target, Items& items,
                                     const llvm::Loop* scope) {
  using namespace llvm;
  Function* callee = &target;
  Where w = s_.where(call.getDebugLoc());
  std::string name = callee->getName().str();
  if (s_.ctx.in_progress.count(name)) {
    // A call back into a function under analysis: a recursion, whose
    // invocations that function's loop of calls per entry counts
    // (ModuleContext::count_recursion); the call itself is left out.
    auto n = std::make_unique<Node>();
    n->line = w.line;
    const auto r = s_.ctx.recursive.find(callee);
    n->note = r != s_.ctx.recursive.end() && r->second.size_argument
                  ? fmt::format("recursive call of {}: counted by its loop of levels", name)
                  : fmt::format("recursive call of {}: counted by {}.calls_per_entry", name,
                                function_source_name(*callee));
    n->recursion = true;
    s_.ctx.recursive_calls[name].push_back(site_of(w));
    if (!w.origin.empty()) s_.ctx.recursion_origins[name].insert(w.origin);
    s_.out.calls_back = true;
    items.push_back(std::move(n));
    return;
  }
  FunctionModel& fm = s_.ctx.analyse(*callee);
  // Entering a recursion from outside it at a function whose calls back were
  // left out in another one's analysis (the cycle entered at two places):
  // the rest of its recursion is not counted here.
  // So is a call of the recursion inlined into a caller outside it (a
  // function's call of itself, or of the function its calls back come
  // from): the invocations inlined are counted there, and again in the
  // count per entry, which the probes measure on the source's functions.
  auto in = s_.ctx.recursive.find(callee), from = s_.ctx.recursive.find(&s_.f);
  const bool from_outside =
      in != s_.ctx.recursive.end() && (from == s_.ctx.recursive.end() || from->second.cycle != in->second.cycle);
  bool inlined_recursion = false;
  if (s_.ctx.recursive_calls.count(name) && !w.note.empty()) {
    const auto& origins = s_.ctx.recursion_origins[name];
    inlined_recursion = origins.count(w.origin) ||
                        (callee->getSubprogram() && w.origin == callee->getSubprogram()->getName());
  }
  if (from_outside && ((fm.calls_back && !s_.ctx.recursive_calls.count(name)) || inlined_recursion))
    s_.out.unresolved_calls.push_back({"recursive", name, site_of(w)});
  auto n = std::make_unique<Node>();
  n->kind = Node::Call;
  n->line = w.line;
  n->note = w.note;
  n->callee = fm.name;
  for (unsigned a = 0; a < call.arg_size() && a < fm.all_arguments.size(); ++a) {
    const std::string& param = fm.all_arguments[a];
    if (param.empty() || std::find(fm.parameters.begin(), fm.parameters.end(), param) == fm.parameters.end())
      continue;
    const llvm::Value* passed = call.getArgOperand(a);
    if (fm.datatype_arguments.count(a)) {  // the bytes of an element of the datatype passed
      auto bytes = datatype_bytes(passed, scope);
      if (!bytes) {
        std::string p = sanitize(fmt::format("{}.{}", call_site(s_.ctx, s_.f, call), param));
        s_.describe(p, fmt::format("bytes of one element of the datatype passed to {} at {}:{}",
                                   function_source_name(*callee), file_tag(w.file), w.line));
        bytes = ex::var(p);
      }
      n->args.emplace_back(param, *bytes);
      continue;
    }
    auto e = passed->getType()->isPointerTy() ? value_by_reference(s_, exprs_, passed, call, scope)
                                              : exprs_.conv_value(passed, scope);
    // A peer the callee hands MPI, read from memory here (or MPI_ANY_SOURCE): as a direct call's.
    if (auto peer = fm.peer_arguments.find(param); peer != fm.peer_arguments.end()) {
      if (e && e->is_constant() && e->kind() == ex::Kind::Integer && e->int_value() == -1) e.reset();
      if (!e && !passed->getType()->isPointerTy())
        e = ranks_.element_rank(passed, "peer", fmt::format("{} at {}:{}", function_source_name(*callee),
                                                            file_tag(w.file), w.line),
                                "mod(rank + 1, size)");
      if (!e) {
        std::string p = sanitize(fmt::format("{}.{}", call_site(s_.ctx, s_.f, call), param));
        s_.describe(p,
                    fmt::format("peer rank passed to {} at {}:{}, not computable from the code (read from memory); {}",
                                function_source_name(*callee), file_tag(w.file), w.line,
                                model::kAssumedNeighbourNote),
                    neighbour_of(peer->second));
        e = ex::var(p);
      }
      note_peer_argument(*e, peer->second);
    }
    if (!e) {
      std::string p = sanitize(fmt::format("{}.{}", call_site(s_.ctx, s_.f, call), param));
      s_.describe(p, fmt::format("argument {} of the call of {} at {}:{}, read from memory: {}", param,
                                 function_source_name(*callee), file_tag(w.file), w.line,
                                 passed->getType()->isPointerTy()
                                     ? by_reference_unknown_reason(s_, passed, call)
                                     : "a value the code does not compute from the model's parameters"));
      e = ex::var(p);
    }
    n->args.emplace_back(param, ex::simplify(*e));
  }
  for (const char* implicit : {kOmpThread, kOmpTeam})
    if (std::find(fm.parameters.begin(), fm.parameters.end(), implicit) != fm.parameters.end() &&
        std::find(fm.all_arguments.begin(), fm.all_arguments.end(), implicit) == fm.all_arguments.end())
      n->args.emplace_back(implicit, implicit_argument(s_, implicit));
  items.push_back(std::move(n));
}

namespace {

// An override in parameter names: its class and name (Poly_apply), as the
// source names it; its source name where the debug info has no class.
std::string override_name(const llvm::Function& f) {
  const llvm::DISubprogram* sp = f.getSubprogram();
  if (const auto* cls = sp ? llvm::dyn_cast_or_null<llvm::DIType>(sp->getScope()) : nullptr;
      cls && !cls->getName().empty())
    return sanitize(fmt::format("{}_{}", cls->getName().str(), sp->getName().str()));
  return function_source_name(f);
}

}  // namespace

// A C++ virtual call (virtual_calls.h): a call of each override its slot may
// hold, each in a loop of `<site>.<override>.share` trips, the share of the
// calls at that site that land on it, which a probe run measures from the
// overrides' entries. One override is the call itself.
void BlockEmitter::emit_virtual_call(llvm::CallBase& call, const std::vector<llvm::Function*>& targets, Items& items,
                                     const llvm::Loop* scope) {
  if (targets.size() == 1) {
    emit_defined_call(call, *targets.front(), items, scope);
    return;
  }
  Where w = s_.where(call.getDebugLoc());
  const std::string at = call_site(s_.ctx, s_.f, call);
  std::string names;
  for (const llvm::Function* t : targets) names += (names.empty() ? "" : ", ") + override_name(*t);
  for (llvm::Function* t : targets) {
    const std::string target = override_name(*t);
    const std::string share = sanitize(fmt::format("{}.{}.share", at, target));
    Where defined;
    if (const llvm::DISubprogram* sp = t->getSubprogram())
      defined.file = sp->getFilename().str(), defined.line = static_cast<int>(sp->getLine());
    s_.describe(share, fmt::format("share of the virtual calls at {}:{} that run {} ({}), one of the {} overrides "
                                   "its slot may hold ({})",
                                   file_tag(w.file), w.line, target, site_of(defined), targets.size(), names));
    auto loop = std::make_unique<Node>();
    loop->kind = Node::Loop;
    loop->line = w.line;
    loop->note = fmt::format("the virtual call's calls of {}", target);
    loop->trip_count = ex::var(share);
    loop->unknown_trips = share;
    loop->virtual_call = site_of(w);
    loop->guess = fmt::format("a virtual call: which of its {} overrides runs depends on the object", targets.size());
    loop->site = site_of(defined);
    emit_defined_call(call, *t, loop->body, scope);
    items.push_back(std::move(loop));
  }
}

void BlockEmitter::emit_call(llvm::CallBase& call, Items& items, const llvm::Loop* scope) {
  using namespace llvm;
  auto* callee = dyn_cast<Function>(call.getCalledOperand()->stripPointerCasts());
  Where w = s_.where(call.getDebugLoc());
  if (!callee) {
    if (auto targets = virtual_call_targets(call); !targets.empty()) {
      emit_virtual_call(call, targets, items, scope);
      return;
    }
    // Indirect: the analysis cannot follow it (a struct's callback, a handler
    // table, qsort's comparator); the coverage lists it, and a call item
    // without a function stands where it is, for a probe run to bind to the
    // targets it measured there (docs/program-model.md, "Probe runs"), with
    // the integer arguments the analysis can express. Inline assembly is no call.
    if (isa<InlineAsm>(call.getCalledOperand())) return;
    s_.out.unresolved_calls.push_back({"indirect", "", site_of(w)});
    auto n = std::make_unique<Node>();
    n->kind = Node::Call;
    n->indirect = true;
    n->line = w.line;
    n->note = w.note;
    n->site = fmt::format("{}:{}", site_of(w), w.column);
    for (unsigned a = 0; a < call.arg_size(); ++a) {
      const llvm::Value* passed = call.getArgOperand(a);
      std::optional<Expr> e;
      if (passed->getType()->isIntegerTy()) e = exprs_.conv_value(passed, scope);
      n->positional_args.push_back(e ? std::optional<Expr>(ex::simplify(*e)) : std::nullopt);
    }
    while (!n->positional_args.empty() && !n->positional_args.back()) n->positional_args.pop_back();
    items.push_back(std::move(n));
    return;
  }
  std::string name = callee->getName().str();
  if (name.rfind("MPI_", 0) == 0 || name.rfind("PMPI_", 0) == 0) {
    emit_mpi(call, name.rfind("PMPI_", 0) == 0 ? name.substr(1) : name, items, scope, false);
    return;
  }
  // Fortran's bindings (mpi_send_): the C binding's operation and positions.
  if (callee->isDeclaration() && is_fortran_mpi_symbol(name)) {
    if (const FortranMpiSpec* f = fortran_mpi_spec(name)) emit_mpi(call, f->c_name, items, scope, true);
    return;
  }
  if (auto m = math_name(name)) {
    auto n = std::make_unique<Node>();
    n->line = w.line;
    n->note = w.note;
    n->math[*m] = Expr(1);
    items.push_back(std::move(n));
    return;
  }
  if (!callee->isDeclaration()) {
    emit_defined_call(call, *callee, items, scope);
    return;
  }
  if (callee->isIntrinsic() || s_.ctx.ignores(name)) return;
  const auto& table = s_.ctx.input->library_costs["functions"];
  if (table.contains(name)) {
    const auto& cost = table[name];
    ex::Substitution bind;
    if (cost.contains("args"))
      for (size_t a = 0; a < cost["args"].size() && a < call.arg_size(); ++a) {
        if (!cost["args"][a].is_string()) continue;
        std::string formal = cost["args"][a].get<std::string>();
        auto e = exprs_.conv_value(call.getArgOperand(static_cast<unsigned>(a)), scope);
        if (!e) {
          std::string p = sanitize(fmt::format("{}.{}", call_site(s_.ctx, s_.f, call), formal));
          s_.describe(p, fmt::format("argument {} of the call of {} at {}:{} (read from memory)", formal, name,
                                     file_tag(w.file), w.line));
          e = ex::var(p);
        }
        bind[formal] = *e;
      }
    auto field = [&](const char* key) -> Expr {
      if (!cost.contains(key)) return Expr(0);
      const auto& v = cost[key];
      Expr e = v.is_number_integer() ? Expr(v.get<std::int64_t>())
                                     : v.is_number() ? ex::real(v.get<double>()) : ex::parse(v.get<std::string>());
      return ex::simplify(ex::substitute(e, bind));
    };
    auto n = std::make_unique<Node>();
    n->line = w.line;
    n->note = fmt::format("{} priced from the library-cost table", name);
    n->flops_double = field("flops_double");
    n->flops_single = field("flops_single");
    n->loads = field("loads");
    n->stores = field("stores");
    n->load_bytes = field("load_bytes");
    n->store_bytes = field("store_bytes");
    if (cost.contains("math"))
      for (const auto& [m, calls] : cost["math"].items())
        n->math[m] = calls.is_number_integer() ? Expr(calls.get<std::int64_t>()) : ex::parse(calls.dump());
    items.push_back(std::move(n));
    return;
  }
  s_.out.unresolved_calls.push_back({"external", name, site_of(w)});
  std::string p = sanitize(fmt::format("lib_{}_flops", name));
  s_.describe(p, fmt::format("double-precision flops of one call of {}, which the analysis cannot see; bind it, "
                             "or price {} with --library-costs",
                             name, name));
  auto n = std::make_unique<Node>();
  n->line = w.line;
  n->note = fmt::format("call of {} (outside the analysed code)", name);
  n->flops_double = ex::var(p);
  items.push_back(std::move(n));
}

}  // namespace perfcast::analyze::detail
