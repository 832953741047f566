// Parameters a prediction does not depend on (docs/program-model.md, "Probe
// runs"): once a probe run's values are in, a parameter still required that no
// count or time the model prices names (a set-up loop with nothing priced in
// its body, a grid size read only by code that costs nothing) changes no
// prediction at the run's values. It is proven by the model's own expressions:
// every site's counts, cycles, memory traffic and address streams and every
// MPI call's count, bytes, peer and root, with the other parameters' values
// substituted and simplified, do not name it, or name it only in tests of its
// equality with constants whose outcome does not change theirs (a sweep's
// direction choosing a loop's first and last cell: the same cells either
// way). Such a parameter is bound, and its origin says that it does not
// change the prediction.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "model/probe_bind.h"
#include "model/program_model.h"

namespace perfcast::model {

// The names in a divisor (of /, floordiv, ceildiv, mod) anywhere in the model
// (any item of any function, on any side, and the parameters' defaults):
// predict evaluates the counts of a side never taken too (times 0), and a
// division by 0 is an error there, so a value that prices nothing is 1 there.
std::set<std::string> names_dividing(const ProgramModel& model);

// The origin's words for such a parameter, which `model params` shows.
inline constexpr const char* kPricesNothing = "does not change the prediction";
// Followed by the run's process count: a parameter that prices nothing only
// on each rank of that count (`rank` and `size` known there, and the
// defaults written in them: a peer's), a measure for that count only.
inline constexpr const char* kPricesNothingAtCount = " on its process count ";

// Binds each parameter still without a default that no priced expression of
// the entry names once the parameters' constant defaults are substituted, to
// 0 (1 where it divides), with `origin` and kPricesNothing; one finding each.
// Also, where the run on `ranks` processes had at most 16, one that no
// rank of that count prices (each walked with `rank`, `size` and the defaults
// in them), for that count only (kPricesNothingAtCount: a prediction at
// another count that reads it is refused, as ranks_left_unread says).
// A model whose costs do not compose (the error predict would give) binds none.
void bind_parameters_pricing_nothing(ProgramModel& model, const std::string& origin, int ranks,
                                     std::vector<ProbeFinding>& out);

}  // namespace perfcast::model
