// `perfcast validate`: every method against real runs of the apps, one row per
// (run, method), one data collection rendered as a table or JSON (docs/validate.md).
//
// The measured method times real runs in this process (measure/timing.h). The
// predicting methods run as `perfcast` subcommands in child processes, as a user
// would run them: a method that fails or crashes (a skeleton, an analysis) then
// becomes its row's note instead of ending the validation, and each row's cost is
// what the user's command costs.
#pragma once
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "validate/cases.h"

namespace perfcast::validate {

// The methods, in row order. `measured` always runs: the others are judged by it.
inline const std::vector<std::string> kMethods = {"measured",     "naive",           "skeleton",  "trace-replay", "static",
                                                  "static-noisy", "simulated-noisy", "signature", "learned"};
// Named in the table's notes so readers see what is not compared yet (none today).
inline const std::vector<std::string> kMethodsNotBuilt = {};

// What a row's two figures are times of (Row::basis).
inline const std::string kTimedRegion = "timed region";  // both the app's own time_s region
inline const std::string kWholeRun = "whole run";        // both MPI_Init's return to MPI_Finalize, the slowest rank
// A whole-run prediction against the timed region: biased upwards by the set-up.
inline const std::string kWholeRunVsTimedRegion = "whole run vs timed region";

// Throws UserError for an unknown name (listing the methods) or one not built yet.
std::set<std::string> parse_methods(const std::string& list);

struct Tools {
  std::filesystem::path perfcast;   // this executable: the child processes' `perfcast`
  std::filesystem::path build_dir;  // holds apps/<app> and apps/<app>_skel
  std::filesystem::path apps_dir;   // the source tree's apps/ (apps/<app>/validate.toml)
  std::string machine;              // passed to --machine: a file or a bundled name
  // Where the static method keeps each app's program model between validations
  // (<app>.model.json and its <app>.model.source: the checksum of the source and
  // flags it was analysed from, and the CPU and instruction cycles of `machine`
  // it was priced with); empty: analysed once per validation, not kept.
  std::filesystem::path models_dir;
};

// One rank of a simulated job (`perfcast simulate --json`'s ranks[]): what the
// simulating methods carry so the report can show where each rank's time went.
struct RankTimes {
  int rank = 0;
  double calc_s = 0, wait_s = 0, comm_s = 0;
};

struct Row {
  std::string app, size, args;
  int ranks = 1;
  std::string method;
  std::string machine;  // the machine file that priced the prediction; empty for measured and naive
  std::optional<double> measured_s, measured_q1_s, measured_q3_s;
  std::optional<double> predicted_s;
  std::optional<double> error;  // predicted / measured - 1
  double cost_s = 0;            // seconds the method took for this row
  std::string cost_runs;        // what it had to run ("1 traced run", "none")
  bool oversubscribed = false;
  std::string note;      // why a cell is empty, or how the figure was made
  std::string basis;     // kTimedRegion, kWholeRun or kWholeRunVsTimedRegion; "" for an empty cell
  bool resumed = false;  // read back from the results file, not run now
  // skeleton and trace-replay: calc, wait and comm per rank of the whole simulated job
  // (the run's, not its baseline's); empty for the other methods and failed cells.
  std::vector<RankTimes> per_rank;
};

nlohmann::json to_json(const Row& row);
Row row_from_json(const nlohmann::json& j);  // throws UserError on a malformed row

struct Options {
  std::set<std::string> methods;                // among kMethods
  std::optional<std::filesystem::path> resume;  // JSON lines, one row each
  std::function<void(const std::string&)> progress;
};

struct Outcome {
  std::vector<Row> rows;
  int timed_runs = 0;   // real launches the measured method made in this invocation
  int traced_runs = 0;  // real launches the trace-replay and signature methods traced
  int rows_resumed = 0;
  std::string machine;
  bool counts_known = true;  // false for rows read back from a results file (read_outcome)
};

Outcome run_validation(const CasesFile& file, const Tools& tools, const Options& options);

// Analyses each app of the cases (its [static] source and flags, priced for
// tools.machine's CPU) into tools.models_dir, as the static method would, and runs nothing else: the
// models a validation on a machine without clang reads (Tools::models_dir).
// Returns how many apps failed (each named through options.progress).
int keep_models(const CasesFile& file, const Tools& tools, const Options& options);

// Per method: rows with an error, mean |error|, rows within 20 %, and the naive
// baseline's figures over the same runs (those with more than one rank).
struct MethodSummary {
  std::string method;
  int rows = 0;
  double mean_abs_error = 0;
  int within_20 = 0;
  int naive_rows = 0;
  double naive_mean_abs_error = 0;
  int naive_within_20 = 0;
};
std::vector<MethodSummary> summarize(const std::vector<Row>& rows);

nlohmann::json outcome_json(const Outcome& outcome);
std::string outcome_table(const Outcome& outcome);

// The rows of an earlier validation, for `perfcast validate report`: the document
// `--json` printed, or a results file (`--resume`, one row per line). Throws UserError
// naming the file (and line) of a malformed row.
Outcome read_outcome(const std::filesystem::path& file);

// One self-contained HTML page (docs/validate.md, "The HTML report"): the table, and
// Vega plots of predicted against measured, the signed errors and the simulated ranks'
// calc/wait/comm. `vega_js` is the Vega library's JavaScript, inlined into the page.
std::string outcome_html(const Outcome& outcome, const std::string& vega_js);

// The folder of Debian's libjs-vega modules found when perfcast was configured.
std::filesystem::path vega_directory();
// The Vega modules of `dir`, ready to inline into a page; throws UserError naming the
// missing file and the package when one cannot be read.
std::string read_vega_library(const std::filesystem::path& dir = vega_directory());

}  // namespace perfcast::validate
