// Tests of values no probe measure bound (docs/program-model.md, "Probe
// runs"). A test the model states (`if (cnt > 0)`, `if (addlvl == -1)`)
// whose condition reads a parameter the run left required (a count a loop
// computed, a variable assigned at several places with values that varied) is
// priced, where the run measured that test, by how often it was taken: its
// condition is dropped and it becomes a guessed branch, which the branch
// binder prices at its line's measure like any other. Only a line of its
// function with that one test, or copies of it the optimiser made (a loop's
// first iteration peeled: each of the line's tests starts its `then` side at
// one line, or each its `else` side; the copy outside the loop compares the
// values the loop reads at its first iteration, and the line's measure over
// all iterations prices it as their mean), and no loop, whose sides' first lines the
// analyser recorded (which way the optimised code tests it), and that does
// not read the rank (whose sides the ranks take apart, which a count summed
// over the ranks cannot say); or the one test of a loop's line that guards it
// (one side holds the loop: a `while (oz * 8 <= khi)` rotated, its test
// `khi < 0`), which the run's trips at that loop price as the loop's guard
// alone, never the source's branches there (the loop's own test).
#pragma once
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/probe_bind.h"
#include "model/program_model.h"

namespace perfcast::model {

// Why the coverage lists such a test as a guessed branch.
inline constexpr const char* kUnboundTestWhy =
    "its test reads a value the probe run could not bind: priced by how often the run took it";

struct UnboundTest {
  std::string function;
  int line = 0;
  // The test, or each copy of it at the line that reads an unbound name,
  // with its condition as the analyser stated it, for restore().
  std::vector<std::pair<BranchItem*, std::optional<Expr>>> branches;
  bool guards_loop = false;  // the guard of a loop at its line: priced only as that
};

// Such tests of `model`'s functions reading a name of `unbound`.
std::vector<UnboundTest> tests_reading(ProgramModel& model, const std::set<std::string>& unbound);

// The names of `model`'s parameters still without a value.
std::set<std::string> required_names(const ProgramModel& model);

// The files (as the probes name them) with a branch probe at the test's line
// whose tag is that of the declaration of a local of its function the test
// reads (`source variable lo of pass (f_c:8)`): where a function with no
// other coverage site has its test probed.
std::set<std::string> files_of_locals_tested(const ProgramModel& model, const ProbeRun& run, const UnboundTest& t,
                                             const std::set<std::string>& unbound);

// The test (each copy) as a guessed branch (condition dropped, probability 0.5), and back.
void drop_condition(UnboundTest& t);
void restore(UnboundTest& t);

}  // namespace perfcast::model
