// A probe run's measures bound onto a program model (docs/program-model.md,
// "Probe runs"): what the static analysis could not say, taken from one run of
// the program built with the feature probes (docs/learn.md, "Recording
// features") on a small input.
//
// Only what the analyser left unknown is filled: a loop's trips parameter
// without a default (coverage `unknown_loops`, which also lists the
// invocations per call of each recursive function), a branch priced at a guessed
// probability (coverage `guessed_branches`), a memset/memcpy's bytes the
// analyser could not express (its mean bytes per call), a size that is the trips
// of loops (their mean, or each loop its own where they ran different means:
// probe_loop_sizes.h), a required parameter named after one of main's scalar variables, and one named after another
// function's variable, a global or an MPI call's count (probe_values.h), whose
// tests for equality, where its values varied, are priced by the sides the run
// entered instead (probe_selectors.h); a call site's argument it could not
// follow (probe_arguments.h); and the targets of a call through a pointer
// (probe_indirect.h). Last, a required
// parameter read only where the run never went (a side never taken or ruled
// out by the bound values, a loop never entered, a function no call reaches)
// is bound to 0 (1 where it divides), and one no priced count names once the
// others are in is bound as not changing the prediction (probe_unpriced.h). A bound parameter
// gets the measure as its default and `origin` saying which run gave it; a
// site the run never reached stays as it was and is marked so. Values measured at one input may
// not hold at another: the origin says at which input they were taken.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/program_model.h"

namespace perfcast::model {

struct ProbeRun {
  std::string command;  // as the record gives it
  int ranks = 0;
  // Feature name (`file:line:what`) -> value, counts summed over the ranks,
  // values the maximum over the ranks that assigned them.
  std::map<std::string, double> features;
  // Facts of the code the probes' pass knew: `file:line:branch.taken_line` and
  // `.not_taken_line`, the source line each side of that branch starts at.
  std::map<std::string, double> code;
  // Calls through pointers: site (`file:line:column`) -> target -> calls,
  // summed over the ranks; a site the run never executed has no targets.
  std::map<std::string, std::map<std::string, double>> indirect_calls;
  // An integer variable's assignments outside loops, summed over the ranks:
  // `file:line:name.assignments`, `.sum` (of the values) and `.changes`
  // (assignments of another value than the one before), at its declaration.
  std::map<std::string, double> measures;
  // The threads an OpenMP parallel region of the run starts; 0 without OpenMP.
  int omp_threads = 0;
  // Each rank's value of the features and measures whose value differed
  // between the ranks (NaN: never assigned on that rank); a name not here
  // held one value on every rank (per_rank_values, probe_per_rank.h).
  std::map<std::string, std::vector<double>> per_rank;
  bool per_rank_recorded = false;  // a run that recorded none cannot tell the ranks apart
};

struct ProbeFinding {
  // Recursion: a recursive function's invocations per call from outside its recursion.
  // IndirectCall: a target of a call through a pointer (one finding per target).
  enum class Kind { Loop, Branch, Value, Recursion, IndirectCall } kind = Kind::Loop;
  std::string site;       // "file.c:12" (loops, branches, recursive functions), the feature's name (values),
                          // "file.c:12:9" (indirect calls)
  std::string name;       // the parameter (loops, values, recursions), the function (branches), the target
                          // (indirect calls; the caller when no target was measured)
  // trips per arrival, taken fraction, the variable's value, invocations per
  // call, a target's calls per execution of its site; none when not bound
  std::optional<double> value;
  std::string status;     // "bound", or why not ("not reached by the probe run", "no probe at that line", ...)
};

// Binds the run's measures into `model` (which must carry the analyser's
// coverage) and says, per unknown loop, guessed branch and value parameter,
// what became of it. Throws UserError for a model without coverage.
std::vector<ProbeFinding> bind_probe_run(ProgramModel& model, const ProbeRun& run);

// "probe run: `CMD` on N ranks": the origin written on what a run bound.
std::string probe_origin(const ProbeRun& run);

// The origin's words, after a probe run's, for a measure of a site the run
// never reached (0 trips, bytes or share).
inline constexpr const char* kNeverReached = ", never reached there";

// Helpers of the binders (probe_bind, probe_values): `value` as `p`'s default
// with `origin` (a fractional one drops `integer`); the analyser's tag of a
// source file in descriptions (its name without the folder, each character
// but letters and digits as `_`, src/analyze/source_names.cpp); a function's
// or a global's id as the feature pass records it (`.function`, `.symbol`:
// FNV-1a of its linkage name, kept to 53 bits, src/features/feature_pass.cpp).
void bind_measure(Parameter& p, double value, const std::string& origin);
std::string file_tag(const std::string& file);
double function_id(const std::string& linkage_name);
// A coverage entry's site as the probes name its file (`dir/f.c:12` ->
// `f.c:12`: the file without its folder), and its line (0 where it has none).
std::string feature_site(const std::string& site);
int site_line(const std::string& site);
// The run's feature `name` (a count summed over the ranks, a value their
// maximum); none where no probe recorded it.
std::optional<double> feature(const ProbeRun& run, const std::string& name);
// The instance tag a library template's probes carry (`loop@<id>`): `@` and the
// function id of its linkage name in hex (src/features/feature_pass.cpp).
std::string library_tag(const std::string& linkage_name);

// The feature at `at` (`f.c:12`) of `kind` ("loop", "branch") that is
// `function`'s: the one feature of that kind there (`count`, "headers" or
// "taken", tells it is there), or, where several are (`loop#2`: a template's
// instances, each a function defined at one line), the one whose `.function`
// fact is its id; several of `function` (a Fortran array statement's nest in
// a function defined at the line of another) are told apart by `depth`, how
// deep each is in the line's loops (the `.depth` fact, 1 when absent), when
// it is given; none when they cannot be told apart (two loops on one line of
// one function, or a record without the facts).
std::optional<std::string> own_feature(const ProbeRun& run, const std::string& at, const std::string& kind,
                                       const char* count, const std::string& function, int depth = 0);

// The probe's loop (`f.c:12:loop#2`) at feature site `at` (`f.c:12`) that is
// `depth` deep among the loops of its line, or the line's only one; none, with
// `why`, when no loop or several are. The mean trips per arrival of such a
// loop from its headers and entries, as its code facts say it is tested; its
// iterations left from the body after their work are the run's count of them
// unless `exits_after_work` gives one rank's.
std::optional<std::string> probe_loop(const ProbeRun& run, const std::string& at, int depth, std::string& why);
double trips_per_arrival(const ProbeRun& run, const std::string& probe, double headers, double entries,
                         std::optional<double> exits_after_work = std::nullopt);

// How many times the run arrived at each loop whose trips read `name`, a
// variable of one function declared in the file the analyser tagged `tag`,
// each counted at the function's outermost loop around it (itself, at the
// top), where those loops are that function's own (none inlined), each told
// by its probe, and all were arrived at equally often; none otherwise. A
// local assigned outside loops before such a loop, once per arrival, holds
// through each arrival the value last assigned: the mean of its assignments
// is the mean its loops read (a halo's row loop inside the loop over the
// halo's depth reads one value per arrival at the depth loop).
std::optional<double> arrivals_at_loops_reading(const ProgramModel& model, const ProbeRun& run,
                                                const std::string& name, const std::string& tag);

}  // namespace perfcast::model
