// How often a probe run arrived at a source line, and the guesses of the
// model those arrivals price (docs/program-model.md, "Probe runs"): a join
// the analyser could not place, and a case of a switch the optimiser made of
// a chain of tests (`if (t == 9) ... else if (t == 18) ...`), which the
// probes count as the chain's tests at their own lines.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "model/probe_bind.h"
#include "model/program_model.h"

namespace perfcast::model {

// The analyser's guess for code that a branch's sides both may reach but that
// follows neither on every path (a join it could not place): its item's note
// and its coverage entry's `why` (src/analyze/function_analyser.cpp).
inline constexpr const char kReachedOnSomePaths[] = "reached on some paths";
bool is_join(const Item& item);

// The analyser's guess for one side of a switch whose value it cannot state:
// "one of N switch cases", with the line the case's code starts at as its
// `then_line` (src/analyze/function_analyser.cpp).
bool is_switch_case_why(std::string_view why);
bool is_switch_case(const Item& item);

// How often the run arrived at `line` of `function` (in the file of feature
// site `file`): a loop there is entered once per arrival (its `entries`);
// otherwise the line's first test, where the line is entered (`a` of
// `a && b`), is evaluated once per arrival. None when the probes have
// neither, or several instances of a template share the line and none is
// told to be `function`'s.
std::optional<double> line_arrivals(const ProbeRun& run, const std::string& file, int line,
                                    const std::string& function);

// The calls of `callee` (a linkage name) the probes counted at `line` of
// `file` (the pass's `call.calls`, with `call.callee` its id); none where no
// probe there calls it, or one that does has no count.
std::optional<double> call_arrivals(const ProbeRun& run, const std::string& file, int line,
                                    const std::string& callee);

// The run's arrivals into the code that starts at `line` of `file`: the
// taken or not-taken counts of the probes' branches whose side starts there
// (of the line's own tests, what runs a statement there, not what goes on to
// its later tests), and the runs of their switches' sides that do; none where
// no probed side starts there. `own_tests_only`: the sides of the line's own
// tests alone, what a one-line `IF (c) CALL f` runs of its statement (the
// sides of earlier lines that land there arrive at the test, not into it).
std::optional<double> arrivals_into(const ProbeRun& run, const std::string& file, int line,
                                    bool own_tests_only = false);

// The arrivals of the first item of `items`, in order (but `skip`), whose
// line the run counted (line_arrivals; a call, call_arrivals); each item of a
// list runs once per arrival at the list.
std::optional<double> first_counted(const ProbeRun& run, const std::string& file, const std::string& function,
                                    const Items& items, const Item* skip = nullptr);

// A join the analyser could not place (the code after `if (a && b) return;`,
// reached on some paths) is reached in the run as often as the first counted
// line of its `then` (else the probes' sides that go to its first line),
// out of the arrivals at the list that holds it (another
// counted item of that list): their ratio is its probability, a mean over
// every arrival as a taken fraction is; 0 where the code it reaches never
// ran though the run reached its line (line_arrivals), whatever the arrivals
// around it. Returns how many joins at `line` it
// set (the first one's probability in `probability`), or 0 with `why`.
int set_join_reach(const ProbeRun& run, Items& items, const std::string& file, int line, const std::string& function,
                   const std::string& origin, std::optional<double>& probability, std::string& why);

// A branch at `line` of `items` (at any depth) that its line's probes could
// not bind, at a line the run reached (line_arrivals), one of whose sides
// starts with code the run never reached (its first counted item,
// first_counted, ran 0 times) while the other's did or is not counted: that
// side never ran, its probability is 0. Returns how many
// it set (the first one's probability in `probability`).
int set_unreached_sides(const ProbeRun& run, Items& items, const std::string& file, int line,
                        const std::string& function, const std::string& origin, std::optional<double>& probability);

// set_unreached_sides for the coverage entry `b` that the line's probes left
// unbound (finding `f`): its probability and the finding's value and status.
void bind_unreached_side(const ProbeRun& run, ProgramModel& model, Coverage::Branch& b, const std::string& origin,
                         ProbeFinding& f);

// In the loops of `items` (at any depth) whose trips are `trips`, a loop an
// inner loop was merged into: the joins at `line` directly in the body (the
// outer loop's code after the inner loop's exit, reached on some passes) set
// to `share`, the outer loop's iterations over the passes. How many it set.
int set_merged_joins(Items& items, const std::string& trips, int line, double share, const std::string& origin);

// The cases at `line` of a switch the optimiser made of a chain of tests:
// each is entered in the run as often as the probes' tests of `function`
// went to the line its code starts at (the sides whose first line is its
// `then_line`), out of the arrivals at the switch's line. Returns how many
// cases it set (the first one's probability in `probability`), or 0 with `why`.
int set_switch_cases(const ProbeRun& run, Items& items, const std::string& file, int line,
                     const std::string& function, const std::string& origin, std::optional<double>& probability,
                     std::string& why);

}  // namespace perfcast::model
