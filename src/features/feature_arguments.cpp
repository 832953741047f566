#include "features/feature_arguments.h"

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
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

// The integer type of the object `address` names as the front end wrote it:
// a variable (alloca or global) of that type, or an element or component
// addressed by a GEP whose last index lands on one. Null for anything else
// (a pointer loaded from memory, an array's base), whose type the IR does
// not say.
Type* integer_at(const Value* address) {
  Type* t = nullptr;
  if (const auto* alloca = dyn_cast<AllocaInst>(address))
    t = alloca->isArrayAllocation() ? nullptr : alloca->getAllocatedType();
  else if (const auto* global = dyn_cast<GlobalVariable>(address))
    t = global->getValueType();
  else if (const auto* gep = dyn_cast<GEPOperator>(address))
    t = gep->getResultElementType();
  return sized_integer(t) ? t : nullptr;
}

// C library functions (memcpy, printf), MPI's bindings (C and Fortran), the
// Fortran runtime (_FortranA*) and the probes' own hooks.
bool library_callee(const Function& callee) {
  StringRef name = callee.getName();
  if (callee.isIntrinsic() || name.starts_with("_Fortran") || name.starts_with("__perfcast") ||
      name.starts_with("perfcast.") || name.starts_with_insensitive("mpi_") || name.starts_with_insensitive("pmpi_"))
    return true;
  return false;
}

}  // namespace

std::vector<ArgumentRead> arguments_to_record(const CallBase& call) {
  std::vector<ArgumentRead> out;
  const Function* callee = call.getCalledFunction();
  if (!callee || call.isInlineAsm() || isa<DbgInfoIntrinsic>(call) || library_callee(*callee)) return out;
  // A declaration that is no function of the program: the C library's, whose
  // names LLVM knows as library functions, or one declared in a system header.
  if (callee->isDeclaration() && callee->getName().starts_with("__")) return out;
  const bool by_reference_is_an_object = fortran(*call.getFunction());
  for (unsigned i = 0; i < call.arg_size(); ++i) {
    const Value* passed = call.getArgOperand(i);
    Type* t = passed->getType();
    if (sized_integer(t)) {
      out.push_back({i, nullptr});
      continue;
    }
    if (!t->isPointerTy() || isa<ConstantPointerNull>(passed) || isa<UndefValue>(passed)) continue;
    Type* referenced = integer_at(passed);
    if (!referenced) continue;
    const std::uint64_t size = referenced->getIntegerBitWidth() / 8;
    if (by_reference_is_an_object || call.getParamDereferenceableBytes(i) >= size) out.push_back({i, referenced});
  }
  return out;
}

}  // namespace perfcast::features
