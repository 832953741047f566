// Which calls the feature probes count by their kind (feature_pass.cpp): the
// MPI bindings that move data, whose bytes a call's count and datatype give,
// and the memory calls whose length the code computes.
#pragma once
#include <llvm/ADT/StringRef.h>
#include <llvm/IR/InstrTypes.h>

namespace perfcast::features {

// The count and datatype argument positions of an MPI binding that moves data.
struct MpiBinding {
  const char* function;
  int count, datatype;
};

// The binding `name` calls: its C name (MPI_Send), or the Fortran binding's
// (mpi_send_, as flang and gfortran name it), whose arguments are the C
// ones' by reference, in the same positions, and an error code after them.
// Null for a call that moves no data.
const MpiBinding* mpi_binding(llvm::StringRef name, bool& fortran);

// "memset", "memcpy" or "memmove" for such a call whose length is not a
// constant (the llvm.mem* intrinsics, or the C library's functions called
// by name): the analyser names its bytes a parameter, which the probe run's
// mean bytes per call binds. Null for any other call.
const char* memory_call_kind(const llvm::CallBase& call);

}  // namespace perfcast::features
