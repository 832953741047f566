// Internal: the values a Fortran call passes by reference. flang passes every
// argument as a pointer: a variable's own memory, a temporary it stored a
// constant or an expression in just before the call, or a constant global (a
// PARAMETER). What the call reads there is the value the model needs (a count,
// a peer, a root, a datatype or communicator handle).
#pragma once

#include <cstdint>
#include <optional>

#include "analyze/function_scope.h"
#include "analyze/scev_to_expr.h"

namespace llvm {
class CallBase;
class GlobalVariable;
class LoadInst;
class Loop;
class PHINode;
class SCEV;
class Type;
class Value;
}  // namespace llvm

namespace perfcast::analyze::detail {

// The integer `call` reads through `pointer`, at loop `scope`: a constant
// global's value, or the value of the one store that is the last to write
// there before the call, or a variable's name as scalar_in_memory gives it;
// nothing when none is known (the memory is written by more than one path,
// by a callee, or elsewhere). `type`: the integer's (nullptr: Fortran's
// default INTEGER, 4 bytes).
std::optional<expr::Expr> value_by_reference(FunctionScope& s, ScevToExpr& exprs, const llvm::Value* pointer,
                                             const llvm::CallBase& call, const llvm::Loop* scope,
                                             llvm::Type* type = nullptr);

// An integer source variable read from its memory at loop `scope`: a local
// whose address a call took (Fortran passes every variable by reference, to
// MPI and to its I/O runtime) or a dummy argument passed by reference. The
// value of the one store that writes it last before the load; else, when the
// one other write is a call (`read (arg, *) n`) or, for a dummy argument,
// nothing here writes it, and no code of `scope` writes it, the variable's
// name (a dummy's: the function's parameter, bound at each call). Nothing for
// other loads.
std::optional<expr::Expr> scalar_in_memory(FunctionScope& s, ScevToExpr& exprs, const llvm::LoadInst& load,
                                           const llvm::Loop* scope);

// Why value_by_reference found no value for what `call` reads through
// `pointer`, for the description of the parameter that stands for it: "a call
// before it may write it (widen)", "the value stored before the call is data",
// ...
std::string by_reference_unknown_reason(FunctionScope& s, const llvm::Value* pointer, const llvm::CallBase& call);

// A global variable's value as a parameter named after the source (a C
// global, a Fortran module variable `settings.nsteps`), described. A
// communicator handle (a variable an MPI routine creates a communicator in:
// MPI_Comm_dup, MPI_Cart_create, ...) gets MPI_COMM_WORLD's handle as its
// default: the model prices every MPI call on the job's ranks, so the handle
// only decides tests against MPI_COMM_NULL, which a created communicator
// passes.
expr::Expr global_value(FunctionScope& s, const llvm::GlobalVariable& g);

// A loop index the loop keeps in memory because a call in the loop takes its
// address (a Fortran DO variable passed by reference): the loop header's
// `phi`, whose value on the back edge is what the iteration stored from `phi`
// reloaded after the call (which does not write it), plus a step the loop does
// not change. ScalarEvolution's recurrence {start,+,step} of that loop;
// nullptr for other phis, or when a call in the loop may write the memory.
const llvm::SCEV* induction_through_memory(FunctionScope& s, const llvm::PHINode& phi);

// The name of the dummy argument `a` passes by reference when it is an
// integer scalar (Fortran's `integer, intent(in) :: m`); empty otherwise.
std::string reference_argument_name(const SourceNames& names, const llvm::Value& a);

}  // namespace perfcast::analyze::detail
