#include "analyze/fortran_arguments.h"

#include <fmt/format.h>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include "analyze/fortran_bindings.h"
#include "analyze/memory_writes.h"
#include "analyze/site_names.h"
#include "analyze/source_names.h"

namespace perfcast::analyze::detail {

namespace {

bool is_integer(const llvm::DILocalVariable* var) {
  auto* basic = llvm::dyn_cast_or_null<llvm::DIBasicType>(strip_qualifiers(var->getType()));
  return basic &&
         (basic->getEncoding() == llvm::dwarf::DW_ATE_signed || basic->getEncoding() == llvm::dwarf::DW_ATE_unsigned);
}

// A C argument `int *n` of a function Fortran calls (`kernel_c_(&x_min, ...)`,
// every argument by reference): the integer it points to.
bool is_pointer_to_integer(const llvm::DILocalVariable* var) {
  auto* p = llvm::dyn_cast_or_null<llvm::DIDerivedType>(strip_qualifiers(var->getType()));
  if (!p || p->getTag() != llvm::dwarf::DW_TAG_pointer_type) return false;
  auto* basic = llvm::dyn_cast_or_null<llvm::DIBasicType>(strip_qualifiers(p->getBaseType()));
  return basic &&
         (basic->getEncoding() == llvm::dwarf::DW_ATE_signed || basic->getEncoding() == llvm::dwarf::DW_ATE_unsigned);
}

// The integer scalar variable that lives at `address`: declared there
// (dbg.declare), or, once the optimiser has lowered the declaration, said to
// be what `address` points to (dbg.value(address, DW_OP_deref)); for a
// pointer argument, the integer it points to (`int *n`).
const llvm::DILocalVariable* integer_variable(const SourceNames& names, const llvm::Value* address) {
  if (auto it = names.struct_vars().find(address); it != names.struct_vars().end())
    return is_integer(it->second) || (llvm::isa<llvm::Argument>(address) && is_pointer_to_integer(it->second))
               ? it->second
               : nullptr;
  llvm::SmallVector<llvm::DbgVariableIntrinsic*, 4> users;
  llvm::findDbgUsers(users, const_cast<llvm::Value*>(address));
  for (const llvm::DbgVariableIntrinsic* u : users)
    if (u->getExpression()->getNumElements() == 1 && u->getExpression()->getElement(0) == llvm::dwarf::DW_OP_deref &&
        is_integer(u->getVariable()))
      return u->getVariable();
  return nullptr;
}

// Whether `call` is an MPI routine that creates a communicator in the memory
// at `base` (its newcomm argument).
bool creates_communicator_in(const llvm::CallBase& call, const llvm::Value* base) {
  const llvm::Function* callee = call.getCalledFunction();
  if (!callee) return false;
  auto position = fortran_new_communicator_argument(callee->getName().str());
  return position && *position < call.arg_size() && llvm::getUnderlyingObject(call.getArgOperand(*position)) == base;
}

// Whether some MPI routine of the program creates a communicator in `base`.
bool holds_communicator(const llvm::Value* base) {
  for (const llvm::User* u : base->users())
    if (auto* call = llvm::dyn_cast<llvm::CallBase>(u); call && creates_communicator_in(*call, base)) return true;
  return false;
}

const char* const kCommunicatorNote =
    "; a communicator handle (an MPI routine creates it), MPI_COMM_WORLD's by default: the model prices MPI calls "
    "on the job's ranks, so the handle only decides tests against MPI_COMM_NULL";

std::optional<std::string> communicator_default() {
  auto world = fortran_mpi_constant("MPI_COMM_WORLD");
  return world ? std::optional<std::string>(std::to_string(*world)) : std::nullopt;
}

// The integer of type `type` that `at` reads through `pointer`: see
// value_by_reference and scalar_in_memory.
std::optional<expr::Expr> read_through(FunctionScope& s, ScevToExpr& exprs, const llvm::Value* pointer,
                                       llvm::Type* type, const llvm::Instruction& at, const llvm::Loop* scope) {
  using namespace llvm;
  int64_t offset = 0;
  const Value* base = GetPointerBaseWithConstantOffset(pointer, offset, s.dl);
  if (auto c = constant_in(base, offset, static_cast<unsigned>(s.dl.getTypeSizeInBits(type)), s.dl)) return c;
  if (!isa<AllocaInst>(base) && !isa<Argument>(base) && !isa<GlobalVariable>(base)) return std::nullopt;
  MemoryWrites writes(s);
  auto all = writes.writers(base, offset);
  if (!all) return std::nullopt;
  auto last = writes.last_writer(base, offset, &at);
  if (last && *last)
    if (auto* store = dyn_cast<StoreInst>(*last); store && store->getValueOperand()->getType() == type) {
      int64_t stored_at = 0;
      if (GetPointerBaseWithConstantOffset(store->getPointerOperand(), stored_at, s.dl) == base && stored_at == offset)
        return exprs.conv_value(store->getValueOperand(), scope);
    }
  // A module variable (a global) no code of this function before `at` writes,
  // nor a loop around `at`: the one value it has there, named as a read of it
  // is (ScevToExpr); so is a communicator an MPI routine created in it here.
  // Written before `at` here otherwise (a store, a call), it is not.
  auto* last_call = last && *last ? dyn_cast<CallBase>(*last) : nullptr;
  if (auto* g = dyn_cast<GlobalVariable>(base);
      g && offset == 0 && last && (!*last || (last_call && creates_communicator_in(*last_call, g))) &&
      g->getValueType()->isIntegerTy() && s.dl.getTypeSizeInBits(g->getValueType()) == s.dl.getTypeSizeInBits(type) &&
      !writes.global_changes_around(*g, at))
    return global_value(s, *g);
  // Named: one value from outside the code seen (a call wrote it, or the
  // caller passed it), the same for every run of the loops around `at`.
  const DILocalVariable* var = offset == 0 ? integer_variable(exprs.names(), base) : nullptr;
  if (!var || isa<GlobalVariable>(base)) return std::nullopt;
  size_t calls = 0;
  bool communicator = false;
  for (const Instruction* w : *all) {
    if (!isa<CallBase>(w)) return std::nullopt;
    ++calls;
    communicator = communicator || creates_communicator_in(*cast<CallBase>(w), base);
  }
  if (calls > 1 || (calls == 0 && !isa<Argument>(base))) return std::nullopt;
  if (scope && writes.written_in_loop(scope, base, 0)) return std::nullopt;
  std::string source = var->getName().str();
  if (isa<Argument>(base) && !s.entry) return expr::var(sanitize(source));
  std::string fn = var->getScope() && var->getScope()->getSubprogram() ? var->getScope()->getSubprogram()->getName().str()
                                                                       : s.f.getName().str();
  std::string name = s.local_name(source);
  if (communicator)
    s.describe(name,
               fmt::format("source variable {} of {} ({}:{}){}", source, fn, file_tag(var->getFilename().str()),
                           var->getLine(), kCommunicatorNote),
               communicator_default());
  else
    s.describe(name, fmt::format("source variable {} of {} ({}:{}), read from memory{}", source, fn,
                                 file_tag(var->getFilename().str()), var->getLine(),
                                 calls ? " after a call wrote it (input)" : ""));
  return expr::var(name);
}

}  // namespace

std::optional<expr::Expr> value_by_reference(FunctionScope& s, ScevToExpr& exprs, const llvm::Value* pointer,
                                             const llvm::CallBase& call, const llvm::Loop* scope, llvm::Type* type) {
  if (!pointer->getType()->isPointerTy()) return exprs.conv_value(pointer, scope);
  // Fortran's default INTEGER, the kind of every count, rank and handle of
  // the mpif.h bindings, is 4 bytes under flang.
  return read_through(s, exprs, pointer, type ? type : llvm::Type::getInt32Ty(call.getContext()), call, scope);
}

std::string by_reference_unknown_reason(FunctionScope& s, const llvm::Value* pointer, const llvm::CallBase& call) {
  using namespace llvm;
  int64_t offset = 0;
  const Value* base = GetPointerBaseWithConstantOffset(pointer, offset, s.dl);
  if (!isa<AllocaInst>(base) && !isa<Argument>(base) && !isa<GlobalVariable>(base))
    return "its address is computed: an array element, or a pointer read from memory";
  MemoryWrites writes(s);
  if (!writes.writers(base, offset)) return "its address is kept where a later call may write through it";
  auto last = writes.last_writer(base, offset, &call);
  if (!last) return "written on more than one path before the call";
  if (!*last) {
    if (isa<GlobalVariable>(base)) return "a loop around the call changes it";
    if (isa<Argument>(base)) return "what the caller's own callers pass";
    return "nothing writes it before the call";
  }
  if (auto* writer = dyn_cast<CallBase>(*last)) {
    const Function* callee = writer->getCalledFunction();
    std::string name = callee ? function_source_name(*callee) : std::string("an indirect call");
    return fmt::format("a call before it may write it ({})", name);
  }
  return "the value stored before the call is data (read from memory) or not an integer the model writes";
}

expr::Expr global_value(FunctionScope& s, const llvm::GlobalVariable& g) {
  std::string name = global_source_name(g);
  if (holds_communicator(&g))
    s.describe(name, fmt::format("global variable {} (symbol {}){}", name, g.getName().str(), kCommunicatorNote),
               communicator_default());
  else
    s.describe(name, fmt::format("global variable {} (symbol {})", name, g.getName().str()));
  return expr::var(name);
}

const llvm::SCEV* induction_through_memory(FunctionScope& s, const llvm::PHINode& phi) {
  using namespace llvm;
  Loop* loop = s.li.getLoopFor(phi.getParent());
  if (!loop || loop->getHeader() != phi.getParent() || !phi.getType()->isIntegerTy() || phi.getNumIncomingValues() != 2)
    return nullptr;
  const Value *start = nullptr, *back = nullptr;
  for (unsigned k = 0; k < 2; ++k) (loop->contains(phi.getIncomingBlock(k)) ? back : start) = phi.getIncomingValue(k);
  auto* next = dyn_cast_or_null<BinaryOperator>(back);
  if (!start || !next) return nullptr;
  // The reload: an operand of the back edge's value (index + 1, index - 1).
  for (const Value* op : next->operands()) {
    auto* load = dyn_cast<LoadInst>(op);
    if (!load || load->getType() != phi.getType() || load->isVolatile() || !loop->contains(load)) continue;
    int64_t offset = 0;
    const Value* base = GetPointerBaseWithConstantOffset(load->getPointerOperand(), offset, s.dl);
    if (!isa<AllocaInst>(base)) continue;
    auto last = MemoryWrites(s).last_writer(base, offset, load);
    auto* store = last && *last ? dyn_cast<StoreInst>(*last) : nullptr;
    int64_t stored_at = 0;
    if (!store || store->getValueOperand() != &phi || !loop->contains(store) ||
        GetPointerBaseWithConstantOffset(store->getPointerOperand(), stored_at, s.dl) != base || stored_at != offset)
      continue;
    const SCEV* step =
        s.se.getMinusSCEV(s.se.getSCEV(const_cast<Value*>(back)), s.se.getSCEV(const_cast<LoadInst*>(load)));
    if (!s.se.isLoopInvariant(step, loop)) continue;
    return s.se.getAddRecExpr(s.se.getSCEV(const_cast<Value*>(start)), step, loop, SCEV::FlagAnyWrap);
  }
  return nullptr;
}

std::string reference_argument_name(const SourceNames& names, const llvm::Value& a) {
  if (!a.getType()->isPointerTy()) return "";
  const llvm::DILocalVariable* var = integer_variable(names, &a);
  return var && var->getArg() ? sanitize(var->getName().str()) : "";
}

std::optional<expr::Expr> scalar_in_memory(FunctionScope& s, ScevToExpr& exprs, const llvm::LoadInst& load,
                                           const llvm::Loop* scope) {
  if (!load.getType()->isIntegerTy() || load.isVolatile()) return std::nullopt;
  // Only a declared integer variable: other memory (struct fields, arrays)
  // is for field_name and the rank reasoning.
  int64_t offset = 0;
  const llvm::Value* base = llvm::GetPointerBaseWithConstantOffset(load.getPointerOperand(), offset, s.dl);
  if (offset != 0 || !integer_variable(exprs.names(), base)) return std::nullopt;
  return read_through(s, exprs, load.getPointerOperand(), load.getType(), load, scope);
}

}  // namespace perfcast::analyze::detail
