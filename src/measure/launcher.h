// Launching real programs, and real MPI jobs with the pinned Open MPI.
//
// The one place that knows how perfcast starts an MPI job: the launcher's full
// name (mpirun.openmpi), the flags that make oversubscribed runs yield instead of
// busy-poll, and rank pinning. Tests, `perfcast measure` and `perfcast calibrate`
// all launch through here so that they cannot disagree.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace perfcast::measure {

struct ProcessResult {
  int exit_code = -1;        // exit status, or 128+signal when killed by a signal
  bool timed_out = false;
  double wall_s = 0;         // from spawn to exit, measured by the parent
  std::string stdout_text;
  std::string stderr_text;
};

// Runs argv[0] (searched in PATH) with the given arguments, capturing both
// output streams. Throws UserError when the program cannot be started.
ProcessResult run_process(const std::vector<std::string>& argv,
                          std::optional<std::chrono::duration<double>> timeout = std::nullopt);

int online_cores();  // cores this process may run on (sched_getaffinity)

struct MpiLaunch {
  int ranks = 1;
  std::vector<std::string> program;  // program and its arguments
  // Pin each rank to a core when ranks fit on the cores; when they do not, the
  // run is oversubscribed and pinning would stack ranks, so it is left off.
  bool pin = true;
  std::vector<std::string> extra_mpirun_flags;
};

bool is_oversubscribed(int ranks);

// The full mpirun.openmpi command line for a launch (useful for messages too).
std::vector<std::string> mpirun_command(const MpiLaunch& launch);

ProcessResult run_mpi(const MpiLaunch& launch,
                      std::optional<std::chrono::duration<double>> timeout = std::nullopt);

}  // namespace perfcast::measure
