// Which integer arguments of a call the feature probes record (feature_pass.cpp,
// `file:line:call.argN`): the value a callee receives, where the analyser may
// have left it a parameter of the call site (an argument read from memory it
// cannot follow: `kernel(tiles[t].xmin, ...)`, Fortran's
// `CALL kernel(chunk%tiles(t)%t_xmin, ...)`). Pure queries of the IR.
#pragma once
#include <llvm/IR/InstrTypes.h>
#include <llvm/IR/Type.h>

#include <vector>

namespace perfcast::features {

// One argument to record: its position, and, for an argument passed by
// reference, the integer type read through it just before the call (the
// value the callee finds there when it is entered); null for one by value.
struct ArgumentRead {
  unsigned position;
  llvm::Type* referenced;
};

// Whether `call` is a direct call of a function the program may define: not
// inline assembly, an intrinsic, MPI's bindings, the Fortran runtime, the
// probes' own hooks, nor a declaration of a reserved name (the C++ and
// OpenMP runtimes'). The C library's functions the pass tells apart itself.
bool program_callee(const llvm::CallBase& call);

// The integer arguments of `call` whose value at the callee's entry can be
// read safely: by value, an integer of 8 to 64 bits; by reference, only where
// there is an object: a variable of the caller, or an element of one at a
// constant index (`f(&n)`, a local array `int flags[4]` passed as `flags`:
// the value the callee finds at the address, its element 0); a C++
// reference to an integer (the call's `dereferenceable` attribute covers
// it); or, in a Fortran caller, the address of an integer variable, an
// element of an array variable, a derived-type component or the caller's own
// scalar integer dummy argument passed on (Fortran passes every argument by
// reference; an absent OPTIONAL argument is a null pointer, which the probe
// tests first). Not an element of an array reached through a pointer, which
// a program may pass as `a(1)` of an empty array. Nothing for calls of
// intrinsics and of declarations the C library, MPI or the Fortran runtime
// define, whose arguments size nothing the model prices as a call.
std::vector<ArgumentRead> arguments_to_record(const llvm::CallBase& call);

}  // namespace perfcast::features
