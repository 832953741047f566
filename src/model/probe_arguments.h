// A probe run's values of the arguments a call passes, for the parameters the
// analyser named after a call site's argument it could not follow
// (`main.kernel1.x_min`, described "argument x_min of the call of kernel at
// f_c:12, read from memory: ..."): a loop bound a caller reads from memory it
// cannot follow (a field of one of several structs, CloverLeaf's
// `chunk%tiles(t)%t_xmin`) and passes to a kernel. The probes record, per call
// of a program's function, each integer argument's value at the callee's
// entry (`file:line:call.argN`: the calls, the sum of the values and how many
// differed from the call before; `.callee`, the callee's id). Such a
// parameter is bound to the value of its call site's calls where it did not
// vary (to 0 where the run never made that call, as an unreached loop's
// trips); where it varied (between calls or between ranks), to their mean only
// where the callee uses it as a size: trip counts, counts and bytes, and
// the tests of the loops it bounds, whose totals are linear in it, never a
// test whose side a mean would decide for every call.
#pragma once
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/probe_bind.h"
#include "model/program_model.h"

namespace perfcast::model {

// Binds every required parameter of `model` not in `bound` that the analyser
// described as an argument of a call of one of the model's functions, whose
// call site the run recorded; adds each to `bound` and says in `out` what
// became of those the run measured.
void bind_call_arguments(ProgramModel& model, const ProbeRun& run, const std::string& origin,
                         std::set<std::string>& bound, std::vector<ProbeFinding>& out);

// A parameter whose default is the value the source gives its variable
// first (an option's default: `int n = 10;` before the loop that parses
// `-n 500`, whose assignments the probes do not watch), passed alone as an
// argument of a call whose probes at that line saw every call pass one other
// value: the run did not use the source's first value. Rebinds each such
// parameter to the run's value (where its calls agree) and says so in `out`.
void rebind_defaults_the_run_contradicts(ProgramModel& model, const ProbeRun& run, const std::string& origin,
                                         std::vector<ProbeFinding>& out);

// The linkage names the probes may know a callee the model names by:
// itself, and for a C++ constructor or destructor the model names by its
// base-object symbol (C2, D2), the complete-object one (C1, D1) the probes,
// compiled before the units are linked, saw called.
std::vector<std::string> names_of_callee(const std::string& callee);

// The arguments of each of the model's functions (function -> its
// parameters) whose values the run's calls of it entered it with varied,
// between calls, call sites or ranks, where some call passes an expression
// that reads a parameter still required (SNAP's `isend_d_3d(proc, myproc)`
// called with `select(jd == 1, ylop, yhip)` and `yproc`, its direction and
// its rank in a communicator of its own), or every call passes it one
// (names_standing_for: CloverLeaf's kernels given the sweep's `dir` through
// their driver): no one value of theirs decides the function's tests of them
// for every call. Also, into `passed_on` where given, the arguments a function
// hands on as it received them from one of those (a driver called with
// either direction passing its `dir` to the kernel that tests it) where no
// probe read the callee's calls (Fortran's by reference as it came): they
// varied too, but tests of them are worth unfolding only where the run
// prices them (probe_bind's check).
std::map<std::string, std::set<std::string>> varied_arguments(
    const ProgramModel& model, const ProbeRun& run,
    std::map<std::string, std::set<std::string>>* passed_on = nullptr);

// Whether `name` is used in `model` only as a size: in trip counts, counts
// and bytes, and in a branch at the line of one of its function's loops (the
// loop's guard, the vectoriser's checks, an unrolled loop's remainder);
// through calls, as the callee's parameter it is passed as. Never in another branch's condition,
// an MPI call's peer or root, or an argument of a call through a pointer.
bool used_only_as_size(const ProgramModel& model, const std::string& name);

// Whether the model reads the low bits of `name` (or of a callee's parameter
// it is passed as): a trunc to fewer than 8 bits, an unrolled or vectorised
// loop's remainder (trunc(n, 2), n mod 4), which a mean of the values does not
// give and cannot be evaluated on: a probe run binds such a size rounded.
bool reads_low_bits(const ProgramModel& model, const std::string& name);

// Whether a mean of the values `name` took prices the model exactly, so that
// a probe run binds it unrounded: it is only a size (used_only_as_size), its
// low bits are not read (reads_low_bits) and it sizes a loop (its trips name
// it, or a callee's parameter standing for it), not a flag whose mean would be
// no value it held.
bool keeps_its_mean(const ProgramModel& model, const std::string& name);

// Where `name` stands for the value a function's own parameter holds, as
// (function, parameter) pairs: `name` itself in every function (a parameter
// of the model), and a callee's parameter that every call of that callee in
// the model passes as `name`, or as a caller's parameter that stands for it
// (SNAP's `inner` passing its `ng_per_thrd`, read from memory, to `sweep`, its
// only caller): the callee's loop probes then count those calls and no others.
std::set<std::pair<std::string, std::string>> names_standing_for(const ProgramModel& model, const std::string& name);


// Binds `p`, the analyser's parameter for the argument at `position` of
// `target` where calls through pointers reach it (probe_indirect.h), by the
// values the run's probes of the target's entry read (`file:line:entry.argN`:
// the function's address is taken in its unit), less those its direct
// calls' probes read: their value where they did not vary, each rank's where
// each rank passed one, else their mean where the callee only sizes with it
// once its tests of it are priced by the run's counts (price_argument_tests,
// probe_selectors.h; said in `tests`). Says in the finding what became of it.
ProbeFinding bind_entry_argument(ProgramModel& model, const ProbeRun& run, Parameter& p, const std::string& target,
                                 std::size_t position, const std::string& origin, std::vector<ProbeFinding>& tests);

}  // namespace perfcast::model
