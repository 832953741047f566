#include "analyze/openmp_runtime.h"

#include <set>

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>

#include "analyze/fortran_arguments.h"
#include "analyze/memory_writes.h"
#include "analyze/source_names.h"

namespace perfcast::analyze::detail {

namespace ex = perfcast::expr;
using ex::Expr;

namespace {

const llvm::Function* callee_of(const llvm::CallBase& call) {
  return llvm::dyn_cast<llvm::Function>(call.getCalledOperand()->stripPointerCasts());
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// __kmpc_for_static_init_{4,4u,8,8u}(loc, gtid, schedule, last, lower, upper,
// stride, increment, chunk): the argument positions the bounds are read from.
constexpr unsigned kInitSchedule = 2, kInitLower = 4, kInitUpper = 5, kInitIncrement = 7;
// libomp's kmp_sch_static: a static schedule without a chunk size.
constexpr std::int64_t kStaticSchedule = 34;

bool is_static_init(const llvm::Function& f) {
  static const std::set<std::string> names = {"__kmpc_for_static_init_4", "__kmpc_for_static_init_4u",
                                              "__kmpc_for_static_init_8", "__kmpc_for_static_init_8u"};
  return names.count(f.getName().str()) > 0;
}

// The thread's block of iterations lower .. upper of a loop over lb0 .. ub0
// (increment 1) that libomp's static schedule gives (kmp_sch_static_greedy,
// its default): blocks of ceil(T / P) iterations in thread order, the last
// ones short or empty, so the blocks of the P threads cover the T iterations
// once. A thread without iterations gets lower > upper.
Expr block_lower(const Expr& lb0, const Expr& ub0, const Expr& thread, const Expr& team) {
  Expr trips = ub0 - lb0 + Expr(1);
  return lb0 + thread * ex::ceildiv(trips, team);
}

Expr block_upper(const Expr& lb0, const Expr& ub0, const Expr& thread, const Expr& team) {
  Expr trips = ub0 - lb0 + Expr(1);
  return ex::minimum({block_lower(lb0, ub0, thread, team) + ex::ceildiv(trips, team) - Expr(1), ub0});
}

}  // namespace

bool is_openmp_runtime(const std::string& name) { return starts_with(name, "__kmpc_") || starts_with(name, "omp_"); }

llvm::Function* forked_region(const llvm::CallBase& call) {
  const llvm::Function* f = callee_of(call);
  if (!f || f->getName() != "__kmpc_fork_call" || call.arg_size() < kForkFirstShared) return nullptr;
  return llvm::dyn_cast<llvm::Function>(call.getArgOperand(2)->stripPointerCasts());
}

bool in_parallel_region(const FunctionScope& s) { return s.ctx.parallel_regions.count(s.f.getName().str()) > 0; }

Expr implicit_argument(const FunctionScope& s, const std::string& name) {
  if (s.entry) return Expr(name == kOmpTeam ? 1 : 0);
  return ex::var(name);
}

std::string shared_integer_name(const SourceNames& names, const llvm::Argument& a) {
  if (a.getArgNo() < 2 || !a.getType()->isPointerTy()) return "";
  auto var = names.struct_vars().find(&a);
  if (var == names.struct_vars().end()) return "";
  // clang describes a shared variable as a reference to it (`int &n`).
  auto* ref = llvm::dyn_cast_or_null<llvm::DIDerivedType>(strip_qualifiers(var->second->getType()));
  if (!ref ||
      (ref->getTag() != llvm::dwarf::DW_TAG_reference_type && ref->getTag() != llvm::dwarf::DW_TAG_pointer_type))
    return "";
  auto* basic = llvm::dyn_cast_or_null<llvm::DIBasicType>(strip_qualifiers(ref->getBaseType()));
  if (!basic || (basic->getEncoding() != llvm::dwarf::DW_ATE_signed &&
                 basic->getEncoding() != llvm::dwarf::DW_ATE_unsigned))
    return "";
  return sanitize(var->second->getName().str());
}

void describe_team_size(FunctionScope& s) {
  s.describe(kOmpThreads,
             "threads of each OpenMP team (the run's OMP_NUM_THREADS; the runtime's default is the cores a rank may "
             "run on): a parallel region runs once per thread");
}

std::optional<Expr> runtime_call_value(FunctionScope& s, const llvm::CallBase& call) {
  const llvm::Function* f = callee_of(call);
  if (!f || !call.getType()->isIntegerTy()) return std::nullopt;
  std::string name = f->getName().str();
  if (name == "omp_get_thread_num") return implicit_argument(s, kOmpThread);
  if (name == "omp_get_num_threads") return implicit_argument(s, kOmpTeam);
  if (name == "omp_get_max_threads") {
    describe_team_size(s);
    return ex::var(kOmpThreads);
  }
  if (name == "__kmpc_single" || name == "__kmpc_master" || name == "__kmpc_masked")
    return ex::select(ex::compare(ex::Comparison::Eq, implicit_argument(s, kOmpThread), Expr(0)), Expr(1), Expr(0));
  // 1: the thread adds its share into the shared variable itself (2 would be
  // the same work done atomically; the runtime's tree combine costs as much).
  if (starts_with(name, "__kmpc_reduce")) return Expr(1);
  return std::nullopt;
}

std::optional<Expr> runtime_loaded_value(FunctionScope& s, ScevToExpr& exprs, const llvm::LoadInst& load,
                                         const llvm::Loop* scope) {
  using namespace llvm;
  if (!load.getType()->isIntegerTy()) return std::nullopt;
  std::int64_t offset = 0;
  const Value* base = GetPointerBaseWithConstantOffset(load.getPointerOperand(), offset, s.dl);
  if (offset != 0) return std::nullopt;
  // The outlined function's first argument points to the thread's id.
  if (auto* a = dyn_cast<Argument>(base); a && a->getParent() == &s.f && in_parallel_region(s)) {
    if (a->getArgNo() == 0) return ex::var(kOmpThread);
    // A shared integer the region does not write: the parameter the fork binds.
    const std::string& name = s.out.all_arguments.at(a->getArgNo());
    auto written = MemoryWrites(s).writers(base, 0);
    if (name.empty() || !written || !written->empty()) return std::nullopt;
    return ex::var(name);
  }
  if (!isa<AllocaInst>(base)) return std::nullopt;
  MemoryWrites writes(s);
  auto last = writes.last_writer(base, 0, &load);
  if (!last || !*last) return std::nullopt;
  auto* init = dyn_cast<CallBase>(*last);
  const Function* f = init ? callee_of(*init) : nullptr;
  if (!f || !is_static_init(*f) || init->arg_size() <= kInitIncrement) return std::nullopt;
  bool lower = init->getArgOperand(kInitLower)->stripPointerCasts() == base;
  bool upper = init->getArgOperand(kInitUpper)->stripPointerCasts() == base;
  auto* schedule = dyn_cast<ConstantInt>(init->getArgOperand(kInitSchedule));
  auto* increment = dyn_cast<ConstantInt>(init->getArgOperand(kInitIncrement));
  if ((!lower && !upper) || !schedule || schedule->getSExtValue() != kStaticSchedule || !increment ||
      !increment->isOne())
    return std::nullopt;
  // The whole iteration space the code asked for: what it stored there before.
  auto lb0 = value_by_reference(s, exprs, init->getArgOperand(kInitLower), *init, scope, load.getType());
  auto ub0 = lb0 ? value_by_reference(s, exprs, init->getArgOperand(kInitUpper), *init, scope, load.getType())
                 : std::nullopt;
  if (!lb0 || !ub0) return std::nullopt;
  Expr thread = implicit_argument(s, kOmpThread), team = implicit_argument(s, kOmpTeam);
  return lower ? block_lower(*lb0, *ub0, thread, team) : block_upper(*lb0, *ub0, thread, team);
}

}  // namespace perfcast::analyze::detail
