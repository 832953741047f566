// A program model specialised to one job: the names every rank binds alike
// (the size, the parameters given as numbers, defaults and lets of those)
// replaced by their values before the costs are composed.
//
// Composing costs symbolically (costs.h) substitutes each call's arguments
// into its callee's counts; over a large call graph whose sizes are all
// names, those expressions grow with every level and the composition does not
// finish in bounded time or memory. With the job's values in place, most
// counts fold to numbers at the function they are in, and only what differs
// between ranks stays a name.
#pragma once

#include <map>
#include <string>

#include "model/program_model.h"
#include "support/expr.h"

namespace perfcast::model {

// The names bind_rank (costs.h) gives the same value on every rank of a job
// of `size` ranks: size and the MPI_Dims_create names, every parameter given a
// value, and every default or let whose names are all such names (a default
// naming `rank` is not), except those bound to no number (Value::unknown).
// Throws what bind_rank throws for rank 0.
expr::Bindings rank_independent_bindings(const ProgramModel& model,
                                         const std::map<std::string, expr::Value>& parameters, int size);

// `model` with each name of `fixed` replaced by its value in every expression
// of every function, except where a function's own parameter or one of its
// loop indices has that name (the call's argument or the index binds it
// there); a call that leaves a callee's parameter of such a name unpassed
// passes its value instead, as evaluation would have bound it. Each
// expression touched is simplified. Counts of the result, evaluated with the
// same bindings, are those of `model`.
ProgramModel specialised(const ProgramModel& model, const expr::Bindings& fixed);

}  // namespace perfcast::model
