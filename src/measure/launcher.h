// Launching real programs, and real MPI jobs with the pinned Open MPI.
//
// The one place that knows how perfcast starts an MPI job: the launcher's full
// name (mpirun.openmpi), whether waiting ranks yield their core or busy-poll,
// and rank pinning. Tests, `perfcast measure` and `perfcast calibrate`
// all launch through here so that they cannot disagree. Processes start
// through support/process.h, the launcher below every module (the analyser
// runs clang with it and depends on nothing of measuring).
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "support/process.h"

namespace perfcast::measure {

using perfcast::ProcessResult;
using perfcast::run_process;

int online_cores();  // cores this process may run on (sched_getaffinity)

struct MpiLaunch {
  int ranks = 1;
  std::vector<std::string> program;  // program and its arguments
  // Pin each rank to a core when ranks fit on the cores; when they do not, the
  // run is oversubscribed and pinning would stack ranks, so it is left off.
  bool pin = true;
  // Wait for messages by polling the core (Open MPI's own default, what a job
  // on dedicated cores does) instead of yielding it (mpi_yield_when_idle).
  // Only where the launch is pinned and not oversubscribed: there polling is
  // what the machine does for a real job, and yielding costs each wait a
  // system call and the core (wave3d 8^3 on 2 ranks: 4.5-5 us per step with
  // yield, 1.8 with polling). Elsewhere, and by default,
  // ranks yield: jobs that share cores (tests under ctest -j, oversubscribed
  // runs) would otherwise spin against each other for whole time slices.
  bool busy_poll = false;
  std::vector<std::string> extra_mpirun_flags;
};

bool is_oversubscribed(int ranks);

// Whether `launch` pins its ranks (asked, and they fit on the cores) and
// whether its ranks busy-poll (asked, and pinned).
bool launch_pins(const MpiLaunch& launch);
bool launch_busy_polls(const MpiLaunch& launch);

// The full mpirun.openmpi command line for a launch (useful for messages too).
std::vector<std::string> mpirun_command(const MpiLaunch& launch);

ProcessResult run_mpi(const MpiLaunch& launch,
                      std::optional<std::chrono::duration<double>> timeout = std::nullopt);

}  // namespace perfcast::measure
