// Running a command under the tracer: the job's processes inherit LD_PRELOAD
// (the tracer library) and PERFCAST_TRACE_DIR (where each rank writes).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace perfcast::trace {

// The tracer library: $PERFCAST_TRACE_LIBRARY when set, else lib/ beside the
// bin/ directory of `executable`, else the one this build made.
// Throws UserError when none exists.
std::filesystem::path find_trace_library(const std::filesystem::path& executable);

// The command line run: Open MPI's launchers get `-x` for both variables, so
// ranks on other nodes inherit them too.
std::vector<std::string> traced_command(const std::vector<std::string>& command);

// Runs `command` (searched in PATH) with the tracer preloaded, writing into
// `dir` (absolute); waits for it. Returns its exit status (128 + signal when
// killed). Throws UserError when it cannot be started.
int run_traced(const std::vector<std::string>& command, const std::filesystem::path& library,
               const std::filesystem::path& dir);

}  // namespace perfcast::trace
