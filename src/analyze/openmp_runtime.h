// Internal: the OpenMP runtime's entry points, as clang-19 -fopenmp calls them
// (libomp's __kmpc_* interface), read as what they mean for the counts of a
// rank. A parallel region is outlined into a function the runtime runs once
// per thread of the team (`__kmpc_fork_call`): the model calls it in a loop
// over the thread number `omp.thread`, `omp.threads` times. A static
// worksharing loop asks the runtime for its thread's block of iterations
// (`__kmpc_for_static_init_*`): the bounds it reads back are that block's, so
// the blocks of all threads add up to the serial loop's iterations. Work that
// one thread does (`single`, `master`, `masked`) is counted once per team;
// each thread's share of a reduction is combined once.
#pragma once

#include <optional>
#include <string>

#include "analyze/function_scope.h"
#include "analyze/scev_to_expr.h"
#include "support/expr.h"

namespace llvm {
class CallBase;
class Function;
class LoadInst;
class Loop;
}  // namespace llvm

namespace perfcast::analyze::detail {

// The threads of each team, a parameter of the model (no default: the
// runtime's default, the cores a rank may run on, is the run's, not the
// code's). The report's prediction warns by this name (docs/program-model.md).
inline constexpr const char* kOmpThreads = "omp.threads";
// The thread that runs the code and the size of its team: a thread's number,
// 0 .. omp.team - 1, is the loop variable of a region's loop over threads and
// the outlined function's first parameter. Both are implicit parameters of
// every other function whose counts use them (an orphaned `omp for` in a
// function a region calls), passed on at each call; the program's initial
// thread (main, outside a region) is thread 0 of a team of 1.
inline constexpr const char* kOmpThread = "omp.thread";
inline constexpr const char* kOmpTeam = "omp.team";
// The first argument of __kmpc_fork_call passed on to the outlined function,
// whose arguments 0 and 1 are the runtime's (thread ids) and the rest these.
inline constexpr unsigned kForkFirstShared = 3;

// Whether `name` is an entry point of the OpenMP runtime (`__kmpc_*`,
// `omp_*`): none does floating-point work of the program's.
bool is_openmp_runtime(const std::string& name);

// The outlined function a `__kmpc_fork_call` runs; nullptr for other calls.
llvm::Function* forked_region(const llvm::CallBase& call);

// Whether the function analysed is a region's outlined function.
bool in_parallel_region(const FunctionScope& s);

// What a call from the function analysed passes for the callee's implicit
// parameter `name` (kOmpThread or kOmpTeam): its own, or main's initial
// thread's (0, a team of 1).
expr::Expr implicit_argument(const FunctionScope& s, const std::string& name);

// The source name of the integer shared variable an outlined function's
// argument `a` points to (`n` of `for (i = 0; i < n; ...)`); empty for the
// runtime's arguments and for shared data of other types.
std::string shared_integer_name(const SourceNames& names, const llvm::Argument& a);

// What a runtime call returns, where the model knows it: the thread's number
// and its team's size (`omp_get_thread_num`, `omp_get_num_threads`), the
// size of the teams regions make (`omp_get_max_threads`), whether this thread runs a `single`, `master` or
// `masked` block (thread 0 does: one thread of the team), and the way of a
// reduction (`__kmpc_reduce*`: 1, each thread combines its share once).
std::optional<expr::Expr> runtime_call_value(FunctionScope& s, const llvm::CallBase& call);

// Describes the model's parameter kOmpThreads.
void describe_team_size(FunctionScope& s);

// The value `load` reads when it is a thread's number (through the outlined
// function's first argument), or a bound of the thread's block of a static
// worksharing loop, in a region or orphaned in a function a region calls
// (the lower or upper bound `__kmpc_for_static_init_*` wrote last); nothing
// for other loads.
std::optional<expr::Expr> runtime_loaded_value(FunctionScope& s, ScevToExpr& exprs, const llvm::LoadInst& load,
                                               const llvm::Loop* scope);

}  // namespace perfcast::analyze::detail
