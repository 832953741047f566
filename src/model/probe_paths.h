// The paths a probe run took (docs/program-model.md, "Probe runs"): a
// parameter the code the run executed never reads prices nothing at its input
// (read only on a side the run never took, in a loop it never entered, in a
// function no call reached), so it is bound instead of asked for. A test of
// the process count (`if (num_procs > 1)`) is decided at the run's count, and
// one of the rank where every rank of the run decides it alike; what those
// decisions leave unread is bound for that count only: a prediction at another
// count that reads it is refused (read_off_the_probed_paths).
#pragma once
#include <set>
#include <string>
#include <vector>

#include "model/probe_bind.h"
#include "model/program_model.h"
#include "support/expr.h"

namespace perfcast::model {

// The names the code a run may have executed reads, once the run's measures
// are in (`known`): from the entry, every item's expressions, each called
// function's once; not a branch's side weighed 0 (the run never took it), nor
// the side a condition rules out (a flag the input set, as predict evaluates
// it), nor the body of a loop of 0 trips (never entered). `ranks` > 0 is the
// run's process count: `size` is it, and a condition on `rank` is decided
// where every rank of the run decides it alike (up to 64 ranks; beyond, and
// with `ranks` 0, a condition on either keeps both sides). A condition on a
// parameter still unbound keeps both sides. A callee's loop whose trips are its
// own argument is walked whatever the caller passes.
std::set<std::string> names_read_on_paths_taken(const ProgramModel& model, const expr::Substitution& known, int ranks);

// Binds each parameter still required that no path the run on `ranks`
// processes took reads (after everything else, so the measures decide which
// paths the run took) to 0, or to 1 where it divides (any value prices nothing
// there, and predict must be able to evaluate the side it weighs 0), with
// `origin`; one finding each. One that only the run's process count left
// unread has that count in its origin (ranks_left_unread).
void bind_parameters_on_no_path_taken(ProgramModel& model, const std::string& origin, int ranks,
                                      std::vector<ProbeFinding>& out);

// The process count at whose run `p` was bound as read on no path that count
// took, or as pricing nothing on it (probe_unpriced.h), where another count
// may read it; 0 for any other parameter.
int ranks_left_unread(const Parameter& p);

// The parameters a prediction on `np` processes reads that a probe run on
// another count bound for its count only (read on no path it took,
// ranks_left_unread; each rank's own value, ranks_bound_each_rank), other
// than those in `user_bound`: their value is no measure at `np`.
std::vector<std::string> read_off_the_probed_paths(const ProgramModel& model, int np,
                                                   const std::set<std::string>& user_bound);

}  // namespace perfcast::model
