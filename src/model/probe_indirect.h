// A probe run's targets of the calls through pointers bound onto a program
// model (docs/program-model.md, "Probe runs"): each indirect call item the
// analyser left without a function becomes calls of the targets the run
// measured at its site, each taken its calls per execution of the site. A
// target's argument the call passes that the analyser could not express is
// a parameter `<target>.<argument>`, bound by the probes of the target's
// entry (bind_entry_argument, probe_arguments.h).
#pragma once
#include <string>
#include <vector>

#include "model/probe_bind.h"
#include "model/program_model.h"

namespace perfcast::model {

// Binds every unbound indirect call item of `model` whose site the run
// recorded, marks the coverage's entries (`probe_targets`, or
// `probe_not_reached`), adds the instructions of the functions now reached
// to the priced ones, and says per site and target, and per argument
// parameter made, what became of it.
void bind_indirect_calls(ProgramModel& model, const ProbeRun& run, const std::string& origin,
                         std::vector<ProbeFinding>& out);

}  // namespace perfcast::model
