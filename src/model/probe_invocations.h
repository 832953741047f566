// The invocation counts a probe run binds from the probes' counts of function
// entries: a recursion's invocations per call from outside it, and the share
// of a virtual call's calls that land on one override.
#pragma once
#include <string>

#include "model/probe_bind.h"
#include "model/program_model.h"

namespace perfcast::model {

// A recursive function's invocations per call from outside its recursion,
// bound to `p` (`<function>.calls_per_entry`, the loop `l`): the pass counts
// the function's entries (`recursion.entries` in a cycle of calls within one
// file, `function.entries` for a function another file's may call back), and
// the calls made of it at the sites of its calls back (the analyser's
// `called_back_at`, their `call.calls`) or by its cycle within the file
// (`recursion.recursive_calls`), the larger, so the calls from outside are
// the difference and the invocations per such call the ratio. Says in `f`
// what became of it.
void bind_recursion(const ProbeRun& run, Coverage::Loop& l, Parameter* p, const std::string& origin,
                    ProbeFinding& f);

// The share of a virtual call's calls that land on one of its overrides: the
// pass counts each override's entries at its definition (`virtual.entries`),
// so the share is its entries over those of all the call's overrides. An
// override also called directly, or from another virtual call of the same
// slot, counts those entries too: exact when the overrides are reached through
// this call alone, as a virtual method is through its base class.
void bind_virtual_share(const ProbeRun& run, const Coverage& c, Coverage::Loop& l, Parameter* p,
                        const std::string& origin, ProbeFinding& f);

}  // namespace perfcast::model
