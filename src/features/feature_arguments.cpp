#include "features/feature_arguments.h"

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/DebugProgramInstruction.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>

using namespace llvm;

namespace perfcast::features {

namespace {

bool sized_integer(const Type* t) {
  return t && t->isIntegerTy() && t->getIntegerBitWidth() >= 8 && t->getIntegerBitWidth() <= 64;
}

bool fortran(const Function& f) {
  const DISubprogram* sp = f.getSubprogram();
  const DICompileUnit* unit = sp ? sp->getUnit() : nullptr;
  if (!unit) return false;
  switch (unit->getSourceLanguage()) {
    case dwarf::DW_LANG_Fortran77:
    case dwarf::DW_LANG_Fortran90:
    case dwarf::DW_LANG_Fortran95:
    case dwarf::DW_LANG_Fortran03:
    case dwarf::DW_LANG_Fortran08:
      return true;
    default:
      return false;
  }
}

// The integer type of the object `address` names as the front end wrote it,
// where the object is sure to exist: a variable (alloca or global) of that
// type, a component of a struct (a GEP whose source type is a struct, the
// derived type's `t%n`), or an element of an array variable (a GEP into an
// alloca or a global). Null for anything else: an element of an array reached
// through a pointer (a Fortran array's descriptor), which a program may pass
// as `a(1)` even where the array is empty, unless `any_element` (a reference
// the call says is dereferenceable); or a pointer loaded from memory.
Type* integer_at(const Value* address, bool any_element) {
  Type* t = nullptr;
  if (const auto* alloca = dyn_cast<AllocaInst>(address)) {
    t = alloca->isArrayAllocation() ? nullptr : alloca->getAllocatedType();
  } else if (const auto* global = dyn_cast<GlobalVariable>(address)) {
    t = global->getValueType();
  } else if (const auto* gep = dyn_cast<GEPOperator>(address)) {
    const Value* base = gep->getPointerOperand();
    if (any_element || gep->getSourceElementType()->isStructTy() || isa<AllocaInst>(base) || isa<GlobalVariable>(base))
      t = gep->getResultElementType();
  }
  return sized_integer(t) ? t : nullptr;
}

// The integer a Fortran procedure's scalar dummy argument `address` holds
// (its debug info's type: an integer of 8 to 64 bits), passed on by
// reference: the caller's object, which a scalar dummy is sure to have where
// the argument is present (an absent OPTIONAL one is null, which the probe
// tests first). Null for an array, a character or a derived-type dummy.
Type* scalar_dummy_integer(const Value* address) {
  const auto* arg = dyn_cast<Argument>(address);
  if (!arg) return nullptr;
  const DILocalVariable* variable = nullptr;
  for (DbgDeclareInst* declare : findDbgDeclares(const_cast<Argument*>(arg))) variable = declare->getVariable();
  for (DbgVariableRecord* declare : findDVRDeclares(const_cast<Argument*>(arg))) variable = declare->getVariable();
  if (!variable || !variable->isParameter()) return nullptr;
  const auto* basic = dyn_cast_or_null<DIBasicType>(variable->getType());
  if (!basic || (basic->getEncoding() != dwarf::DW_ATE_signed && basic->getEncoding() != dwarf::DW_ATE_unsigned))
    return nullptr;
  Type* t = IntegerType::get(arg->getContext(), static_cast<unsigned>(basic->getSizeInBits()));
  return sized_integer(t) ? t : nullptr;
}

// Whether `size` bytes at `address` lie inside a variable of the caller (a
// local or a global) at a constant offset: `&n`, `pbc_flags` of a local
// `int pbc_flags[4]` (its element 0), `&a[2]`; an object there whatever the
// language, unlike a pointer read from memory or an element at an index
// computed at run time, which may lie past the end.
bool inside_a_variable(const Value* address, std::uint64_t size, const DataLayout& dl) {
  APInt offset(dl.getIndexTypeSizeInBits(address->getType()), 0);
  const Value* base = address->stripAndAccumulateConstantOffsets(dl, offset, /*AllowNonInbounds=*/false);
  std::optional<TypeSize> bytes;
  if (const auto* alloca = dyn_cast<AllocaInst>(base); alloca && !alloca->isArrayAllocation())
    bytes = dl.getTypeAllocSize(alloca->getAllocatedType());
  else if (const auto* global = dyn_cast<GlobalVariable>(base))
    bytes = dl.getTypeAllocSize(global->getValueType());
  return bytes && !bytes->isScalable() && offset.isNonNegative() &&
         offset.getZExtValue() + size <= bytes->getFixedValue();
}

// Intrinsics, MPI's bindings (C and Fortran), the Fortran runtime
// (_FortranA*), the probes' own hooks, and a declared function of a reserved
// name (the C++ and OpenMP runtimes', `__cxa_*`, `__kmpc_*`). The C library's
// functions the pass tells by LLVM's list of them.
bool library_callee(const Function& callee) {
  StringRef name = callee.getName();
  return callee.isIntrinsic() || name.starts_with("_Fortran") || name.starts_with("perfcast.") ||
         name.starts_with_insensitive("mpi_") || name.starts_with_insensitive("pmpi_") ||
         (callee.isDeclaration() && name.starts_with("__"));
}

}  // namespace

bool program_callee(const CallBase& call) {
  const Function* callee = call.getCalledFunction();
  return callee && !call.isInlineAsm() && !isa<DbgInfoIntrinsic>(call) && !library_callee(*callee);
}

std::vector<ArgumentRead> arguments_to_record(const CallBase& call) {
  std::vector<ArgumentRead> out;
  if (!program_callee(call)) return out;
  const bool by_reference_is_an_object = fortran(*call.getFunction());
  for (unsigned i = 0; i < call.arg_size(); ++i) {
    const Value* passed = call.getArgOperand(i);
    Type* t = passed->getType();
    if (sized_integer(t)) {
      out.push_back({i, nullptr});
      continue;
    }
    if (!t->isPointerTy() || isa<ConstantPointerNull>(passed) || isa<UndefValue>(passed)) continue;
    const std::uint64_t dereferenceable = call.getParamDereferenceableBytes(i);
    Type* referenced = integer_at(passed, dereferenceable > 0);
    if (!referenced && by_reference_is_an_object) referenced = scalar_dummy_integer(passed);
    if (!referenced) continue;
    const std::uint64_t size = referenced->getIntegerBitWidth() / 8;
    if (dereferenceable >= size || (dereferenceable == 0 && by_reference_is_an_object) ||
        inside_a_variable(passed, size, call.getModule()->getDataLayout()))
      out.push_back({i, referenced});
  }
  return out;
}

}  // namespace perfcast::features
