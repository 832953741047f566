#include "analyze/fortran_arguments.h"

#include <fmt/format.h>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>

#include "analyze/memory_writes.h"
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
  // Named: one value from outside the code seen (a call wrote it, or the
  // caller passed it), the same for every run of the loops around `at`.
  const DILocalVariable* var = offset == 0 ? integer_variable(exprs.names(), base) : nullptr;
  if (!var || isa<GlobalVariable>(base)) return std::nullopt;
  size_t calls = 0;
  for (const Instruction* w : *all) {
    if (!isa<CallBase>(w)) return std::nullopt;
    ++calls;
  }
  if (calls > 1 || (calls == 0 && !isa<Argument>(base))) return std::nullopt;
  if (scope && writes.written_in_loop(scope, base, 0)) return std::nullopt;
  std::string source = var->getName().str();
  if (isa<Argument>(base) && !s.entry) return expr::var(sanitize(source));
  std::string fn = var->getScope() && var->getScope()->getSubprogram() ? var->getScope()->getSubprogram()->getName().str()
                                                                       : s.f.getName().str();
  std::string name = s.local_name(source);
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
