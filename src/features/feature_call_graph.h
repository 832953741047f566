// The functions of a unit whose entries the probes count (feature_pass.cpp),
// from its calls and vtables. For recursions: the cycles of direct calls
// within the unit, whose
// probes count each function's entries and the calls its cycle makes of it;
// and the functions another unit may call back, a cycle across source files
// that the unit alone cannot see (the analyser, on the linked program, names
// the sites of its calls back, whose `call.calls` count those), whose
// probes count their entries.
#pragma once
#include <vector>

#include <llvm/ADT/DenseSet.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

namespace perfcast::features {

// The cycles of direct calls among the functions `m` defines, each its functions.
std::vector<std::vector<const llvm::Function*>> call_cycles(llvm::Module& m);

// Of `functions`, those whose direct calls reach, within `m`, a program
// function `m` only declares (defined in another unit, which may call back):
// not an intrinsic, a C library function LLVM knows, MPI, a runtime's
// reserved name (program_callee), nor one declared not to return. Calls into
// code of a system header are not followed.
std::vector<const llvm::Function*> calling_other_units(llvm::Module& m,
                                                       const std::vector<llvm::Function*>& functions);

// The functions a vtable of `m` holds (Itanium C++ ABI vtables, _ZTV<class>):
// the overrides a virtual call may land on.
llvm::DenseSet<const llvm::Function*> in_vtables(const llvm::Module& m);

}  // namespace perfcast::features
