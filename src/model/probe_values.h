// A probe run's values of the source variables the analyser left as
// parameters (docs/program-model.md, "Probe runs"): a size a function reads
// and passes on (`CG.nrow`), a module or global variable read from the input,
// an MPI call's element count read from memory. The probes record, per
// integer variable assigned outside loops, its assignments, the sum of the
// values and how many differed from the one before; the parameter named
// after that variable (its declaration's file and line, or a global's
// symbol, as the analyser describes it) is bound to the mean.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "model/probe_bind.h"
#include "model/program_model.h"

namespace perfcast::model {

// Binds every required parameter of `model` not in `bound` that the analyser
// described as a source variable (`source variable x of f (f_c:12)`), a
// global variable (`global variable m.x (symbol S)`) or the elements per call
// of an MPI call at a line, whose measures the run recorded; adds each to
// `bound` and says in `out` what became of those the run measured.
void bind_source_values(ProgramModel& model, const ProbeRun& run, const std::string& origin,
                        std::set<std::string>& bound, std::vector<ProbeFinding>& out);

// The required parameters of `model` described as a source variable, a
// global or a field whose values the run measured and that varied (an
// assignment differed from the one before, or the ranks' values differed)
// -> the file of the variable's probe ("" for a global, assigned anywhere).
std::map<std::string, std::string> varied_source_values(const ProgramModel& model, const ProbeRun& run);

}  // namespace perfcast::model
