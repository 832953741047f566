// Running a command under the tracer: the job's processes inherit LD_PRELOAD
// (the tracer library) and PERFCAST_TRACE_DIR (where each rank writes).
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace perfcast::trace {

// The tracer library: $PERFCAST_TRACE_LIBRARY when set, else lib/ beside the
// bin/ directory of `executable`, else the one this build made.
// Throws UserError when none exists.
std::filesystem::path find_trace_library(const std::filesystem::path& executable);

// The command line run: Open MPI's launchers get `-x` for both variables (and
// `also_exported`), so ranks on other nodes inherit them too.
std::vector<std::string> traced_command(const std::vector<std::string>& command,
                                        const std::vector<std::string>& also_exported = {});

// Runs `command` (searched in PATH) with the tracer preloaded, writing into
// `dir` (absolute); waits for it. `fold_loops`: the ranks fold their repeated
// loops (kTraceFoldVariable). Returns its exit status (128 + signal when
// killed). Throws UserError when it cannot be started.
int run_traced(const std::vector<std::string>& command, const std::filesystem::path& library,
               const std::filesystem::path& dir, bool fold_loops = false);

// Makes `dir` ready for a signature run: created when absent; the files of an
// earlier one there (phase patterns, measurements, the job's log, a full
// run's directory) are removed; anything else refuses (UserError).
void prepare_signature_run_dir(const std::filesystem::path& dir);

// A run in the tracer's signature mode (recorder_environment.h).
struct SignatureModeOptions {
  std::filesystem::path library;   // the tracer
  std::filesystem::path dir;       // where the ranks write their measurements (absolute)
  std::filesystem::path patterns;  // the phase patterns file (absolute)
  std::filesystem::path log;       // the job's stdout and stderr go here
  int ranks = 0;                   // the ranks expected to report
  // End the job once every rank has reported (its measurements complete, or
  // an error); false: let it run to its end.
  bool stop_when_measured = true;
  double grace_s = 2;  // after SIGTERM, before SIGKILL
};

struct SignatureModeRun {
  int status = 0;         // the launcher's exit status (128 + signal when killed)
  bool stopped = false;   // ended here, every rank having reported
  double reported_s = 0;  // start to the moment every rank had reported (when stopped)
  double wall_s = 0;      // start to the job's end, reaped
};

// Runs `command` with the tracer preloaded in signature mode, in a process
// group of its own, ended once every rank has reported its measurements
// (run_until_ranks_report). Throws UserError when the command cannot be started.
SignatureModeRun run_signature_mode(const std::vector<std::string>& command, const SignatureModeOptions& options);

// A job whose ranks each report once, by a file of their own, and which may
// be ended as soon as all have: the signature mode's measurements, the
// feature runtime's early-stop reports (docs/learn.md).
struct RankReportOptions {
  std::vector<std::pair<std::string, std::string>> environment;  // set for the job (Open MPI: pass them with -x)
  std::filesystem::path log;                                     // the job's stdout and stderr go here
  int ranks = 0;  // the ranks expected to report; 0: job_size() tells, once it knows (0 before)
  std::function<int()> job_size;
  bool stop_when_reported = true;  // false: let the job run to its end
  double grace_s = 2;              // after SIGTERM, before SIGKILL
  // Asked every 10 ms for each rank not yet reported: its process id once it
  // has reported (0 when the report names none), nothing before.
  std::function<std::optional<long>(int rank)> reported;
  // A rank's process runs with this variable=value: only such processes are
  // signalled by id, never another that took a finished rank's number.
  std::string marker_variable, marker_value;
};

// Runs `words` (searched in PATH) in a process group of its own. When all
// `ranks` have reported it sends SIGTERM to the ranks and the group (the
// launcher ends the ranks it started), then SIGKILL to the group and the
// ranks still alive after `grace_s`, and reaps the launcher. The ranks never
// wait for each other on the reports' account. Throws UserError when the
// command cannot be started or the log cannot be written.
SignatureModeRun run_until_ranks_report(const std::vector<std::string>& words, const RankReportOptions& options);

}  // namespace perfcast::trace
