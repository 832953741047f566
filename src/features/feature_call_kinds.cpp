#include "features/feature_call_kinds.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IntrinsicInst.h>

#include <cstring>

using namespace llvm;

namespace perfcast::features {

namespace {

constexpr MpiBinding kMpiBindings[] = {
#define PERFCAST_MPI_BINDING(function, Id, count, datatype, peer, root) {#function, count, datatype},
#include "support/mpi_ops.def"
};

}  // namespace

const MpiBinding* mpi_binding(StringRef name, bool& fortran) {
  for (const auto& b : kMpiBindings) {
    if (b.count < 0 || b.datatype < 0) continue;
    if (name == b.function) {
      fortran = false;
      return &b;
    }
    if (name.size() == std::strlen(b.function) + 1 && name.ends_with("_") &&
        name.drop_back().equals_insensitive(b.function) && name == name.lower()) {
      fortran = true;
      return &b;
    }
  }
  return nullptr;
}

const char* memory_call_kind(const CallBase& call) {
  const char* kind = nullptr;
  if (auto* intrinsic = dyn_cast<MemIntrinsic>(&call)) {
    kind = isa<MemSetInst>(intrinsic) ? "memset" : isa<MemMoveInst>(intrinsic) ? "memmove" : "memcpy";
  } else if (const Function* callee = call.getCalledFunction(); callee && callee->isDeclaration()) {
    StringRef name = callee->getName();
    for (const char* libc : {"memset", "memcpy", "memmove"})
      if (name == libc) kind = libc;
  }
  if (!kind || call.arg_size() < 3 || isa<Constant>(call.getArgOperand(2)) ||
      !call.getArgOperand(2)->getType()->isIntegerTy())
    return nullptr;
  return kind;
}

}  // namespace perfcast::features
