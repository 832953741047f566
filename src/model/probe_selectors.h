// A value that varied in a probe run, tested for equality (docs/program-model.md,
// "Probe runs"): CloverLeaf's `mom_sweep = direction + 2*(sweep_number - 1)`
// takes 1..4 and `IF (mom_sweep .EQ. 1) ... ELSEIF (mom_sweep .EQ. 4)` picks a
// side; the optimiser makes the chain a switch, which the analyser writes as
// branches on `mom_sweep == k`. The parameter's mean (2.5 -> 3) evaluates every
// such test as one value would, so every call runs one side. A test is not
// linear in the value: what the run measured of it is how often each side ran.
//
// So a branch whose condition compares such a parameter for equality or
// inequality with a constant (alone, cast, or inside a select) loses its
// condition and becomes a guessed branch, listed in the coverage; the branch
// counts of the run price it by the lines its sides start at. A size (a trip
// count, bytes) keeps the mean: a cost linear in it is right with it.
#pragma once
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "model/probe_bind.h"
#include "model/program_model.h"

namespace perfcast::model {

// The coverage `why` of such a branch, followed by its test (`kernel.sel == 3`),
// which the branch item's note repeats.
inline constexpr const char* kEqualityTestWhy = "tests for equality a value that varied in the probe run: ";
// The same of a function's ordered test of an argument that varied (`n < 0`), followed by its test.
inline constexpr const char* kOrderedTestWhy = "compares with a bound a value that varied in the probe run: ";

// Whether a coverage entry's `why` is one of those.
inline bool tests_a_varied_value(std::string_view why) {
  return why.starts_with(kEqualityTestWhy) || why.starts_with(kOrderedTestWhy);
}

// Whether `item` is such a branch (its note names kEqualityTestWhy or
// kOrderedTestWhy): the other binders of branches at its line leave it to
// bind_equality_test.
inline bool is_equality_test(const Item& item) {
  return item.note.find(kEqualityTestWhy) != std::string::npos || item.note.find(kOrderedTestWhy) != std::string::npos;
}

// Makes every branch item of `model` whose condition tests one of `varied`
// (parameter name -> the file of its variable's probe, "" for a global's) for
// equality or inequality with a constant a guessed branch (no condition;
// `then_line`, `else_line` from its sides' first items where the analyser
// wrote none) and adds its coverage entry, its site in that file (a global's:
// in the function's other coverage sites' file, else none until priced).
// Returns how many.
int unfold_equality_tests(ProgramModel& model, const std::map<std::string, std::string>& varied);

// The same for a function's tests of its own arguments whose values varied
// between its calls or ranks, where a caller passes what the model cannot
// evaluate (`varied`: function -> those arguments, varied_arguments): a test
// for equality of such an argument with anything (`IF (proc == myproc)
// RETURN` on a peer and a rank), or an ordered one (`if (global_size < 0)`,
// a check no call failed: no one value decides it for every call either;
// kOrderedTestWhy; kept only where every arrival went one way:
// restore_ordered_tests_not_one_way), is priced by the run's counts. Not a test at the line of
// one of the function's loops (its guard). Returns how many.
int unfold_argument_tests(ProgramModel& model, const std::map<std::string, std::set<std::string>>& varied);

// Gives back its condition to each ordered test unfold_argument_tests made a
// guessed branch where the run's counts did not price it (no probe at its
// line) or priced both sides: an exact test is not turned into a guess, nor
// into a share that another input's sizes would not move; its names stay
// required. Those every arrival took one way (a check no call failed) stay
// priced so. Returns how many.
int restore_ordered_tests_not_one_way(ProgramModel& model);

// Prices `function`'s tests of its `argument` (unfold_argument_tests: tests
// for equality, ordered ones) by the run's counts now, each rank its own
// where the ranks' shares differ: for an argument whose values varied that
// the model cannot express (a count a call through a pointer passes), bound
// after the other branches. Where the run did not count a test, it keeps its
// condition. Says per test in `out` what became of it; returns how many it priced.
int price_argument_tests(ProgramModel& model, const ProbeRun& run, const std::string& function,
                         const std::string& argument, const std::string& origin, std::vector<ProbeFinding>& out);

// Adds to `varied` each argument of `passed_on` (function -> arguments handed
// on from one that varied, which no probe read at their calls:
// varied_arguments) whose tests the run prices, every one of them (tried on
// a copy of `model`): never an exact condition turned into a guess.
void add_priced_arguments(const ProgramModel& model, const ProbeRun& run,
                          const std::map<std::string, std::set<std::string>>& passed_on, const std::string& origin,
                          std::map<std::string, std::set<std::string>>& varied);

// Prices one coverage entry unfold_equality_tests wrote: the run's arrivals
// into the line one of its sides starts at (the branch probes whose taken or
// not-taken side starts there, and the switches' sides that do) over its
// arrivals at the branch's line (the first branch probe there, else the runs
// of all the sides of the switch there, the probes' `switch.runs`); where
// neither of its sides' lines is found and one of its sides is empty (`IF
// (proc == myproc) RETURN`, the other side starting where the optimiser sank
// code into it), that side's arrivals are those into the line's probed sides
// that do nothing (`.taken_empty`, `.not_taken_empty`). Leaves it guessed,
// with the reason in `f`, where the run has no such counts. Where the
// ranks' shares differ (`rank_views`, probe_per_rank.h's rank_views of the
// run; none: the mean alone), each rank its own at the run's process count.
void bind_equality_test(ProgramModel& model, const ProbeRun& run, const std::vector<ProbeRun>& rank_views,
                        Coverage::Branch& b, const std::string& origin, ProbeFinding& f);

}  // namespace perfcast::model
