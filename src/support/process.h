// Starting a program and collecting what it says: the one process launcher.
//
// Every part of perfcast that runs another program (the analyser's clang, the
// MPI launcher of src/measure, calibrate's lscpu, callgrind) starts it here:
// without a shell (arguments may hold spaces or quotes), in its own process
// group (a timeout stops it and every process it started), its two output
// streams captured apart.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perfcast {

struct ProcessResult {
  int exit_code = -1;        // exit status, or 128+signal when killed by a signal
  bool timed_out = false;
  double wall_s = 0;         // from spawn to exit, measured by the parent
  std::string stdout_text;
  std::string stderr_text;
};

// Variables the child sees set to these values, on top of this process's
// environment (a name given here replaces the inherited one).
using EnvironmentOverrides = std::map<std::string, std::string>;

// Runs argv[0] (searched in this process's PATH) with the given arguments,
// capturing both output streams; killed (with its process group) once
// `timeout` has passed. Throws UserError when the program cannot be started.
ProcessResult run_process(const std::vector<std::string>& argv,
                          std::optional<std::chrono::duration<double>> timeout = std::nullopt,
                          const EnvironmentOverrides& environment = {});

}  // namespace perfcast
