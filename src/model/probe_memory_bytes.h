// The bytes of a memset, memcpy or memmove the analyser could not express
// (`<function>.memset<k>.bytes`, described "bytes of the memset at
// <file tag>:<line>"), bound from a probe run (docs/program-model.md, "Probe
// runs"): the run's mean bytes per call at that line, where the probes saw
// the call; where they could not, because the optimiser made the memset of a
// loop that fills memory with a constant (loop idiom: `a = 0` over an array,
// a CHARACTER's blank padding, as the front end writes them), that loop's mean
// trips per arrival times the bytes of its one store (the pass's code fact
// `.fill_bytes`); several such loops at one line (`mu = 0; wmu = 0`), which
// the analyser names alike, their iterations times their bytes over their
// arrivals.
#pragma once
#include <optional>
#include <string>

#include "model/probe_bind.h"
#include "model/program_model.h"

namespace perfcast::model {

// Binds `p` as above when it is such a parameter: the finding says what the
// run measured (0 where it never reached the line), or why nothing was bound.
// Nothing when `p` is no such parameter.
std::optional<ProbeFinding> bind_memory_bytes(const ProbeRun& run, Parameter& p, const std::string& origin);

}  // namespace perfcast::model
