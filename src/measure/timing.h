// Timing real MPI runs: the ground truth every perfcast method is judged by.
//
// A shared machine is noisy, so one run means little: a run is repeated
// (at least 5 times by default) after warm-up runs, ranks are pinned to cores
// when they fit, and the median and interquartile range are reported. A run with
// more ranks than cores is "oversubscribed": its time is kept for counts and
// correctness, and every rendering of it says so.
//
// Two times are recorded per run: the wall time of the whole launch, measured
// here (includes MPI start-up), and, when the program reports one, its own time
// of the region it times: the "time_s" field of the last JSON line it prints
// (the convention of apps/README.md), or, with a time pattern, the number the
// pattern captures in its stdout or in a file the run wrote (app_time.h).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/app_time.h"
#include "measure/launcher.h"
#include "measure/stats.h"

namespace perfcast::measure {

struct TimingOptions {
  int repeats = 5;
  int warmups = 1;
  double timeout_s = 600;  // per run
  // The app's own time: by default its last JSON line's "time_s"; with a
  // pattern, the pattern's capture in stdout (else stderr), or in the newest file matching
  // time_file (a glob) the run wrote. Then every run must report one.
  std::optional<std::string> time_pattern;
  std::optional<std::string> time_file;
};

struct RunSample {
  double wall_s = 0;
  std::optional<double> app_time_s;
};

struct TimingResult {
  std::vector<std::string> command;  // the full mpirun.openmpi command line
  int ranks = 0;
  int cores = 0;
  bool oversubscribed = false;
  bool pinned = false;
  bool busy_poll = false;  // waiting ranks polled their cores (else they yielded them)
  std::vector<RunSample> samples;          // timed runs only, in order
  Summary wall;
  std::optional<Summary> app_time;         // when every run reported its own time
  std::string app_time_source;             // where that time was read, in words
  nlohmann::json last_app_result;          // the program's last JSON line, if any
};

// Called before each run: (run index from 1, total runs incl. warm-ups, is_warmup).
using TimingProgress = std::function<void(int run, int total, bool warmup)>;

// Runs the launch warmups + repeats times. Throws UserError if any run fails
// (non-zero exit, timeout), quoting the end of its stderr: a failed run has no
// time worth reporting; likewise when a time pattern was given and a timed run
// printed (or wrote) nothing it matches.
TimingResult time_mpi_runs(const MpiLaunch& launch, const TimingOptions& options,
                           const TimingProgress& progress = {});

// The last line of `text` that parses as a JSON object, or null.
nlohmann::json last_json_line(const std::string& text);

nlohmann::json to_json(const TimingResult& result);
nlohmann::json to_json(const Summary& summary);

}  // namespace perfcast::measure
