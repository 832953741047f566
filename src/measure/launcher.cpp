#include "measure/launcher.h"

#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "support/error.h"

namespace perfcast::measure {

int online_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
  return CPU_COUNT(&set);
}

bool is_oversubscribed(int ranks) { return ranks > online_cores(); }

bool launch_pins(const MpiLaunch& launch) { return launch.pin && !is_oversubscribed(launch.ranks); }

bool launch_busy_polls(const MpiLaunch& launch) { return launch.busy_poll && launch_pins(launch); }

std::vector<std::string> mpirun_command(const MpiLaunch& launch) {
  std::vector<std::string> cmd = {"mpirun.openmpi", "--allow-run-as-root", "--oversubscribe"};
  if (!launch_busy_polls(launch)) cmd.insert(cmd.end(), {"--mca", "mpi_yield_when_idle", "1"});
  cmd.insert(cmd.end(), {"-n", std::to_string(launch.ranks)});
  if (launch_pins(launch)) {
    cmd.insert(cmd.end(), {"--bind-to", "core", "--map-by", "core"});
  } else {
    cmd.insert(cmd.end(), {"--bind-to", "none"});
  }
  cmd.insert(cmd.end(), launch.extra_mpirun_flags.begin(), launch.extra_mpirun_flags.end());
  cmd.insert(cmd.end(), launch.program.begin(), launch.program.end());
  return cmd;
}

ProcessResult run_mpi(const MpiLaunch& launch, std::optional<std::chrono::duration<double>> timeout) {
  if (launch.ranks < 1) throw UserError("the number of ranks must be at least 1", {}, "set -n/--np");
  if (launch.program.empty()) throw UserError("no program to launch", {}, "give it after '--'");
  // mpirun's own message for a missing program is a page long; say it in one line.
  const std::string& program = launch.program.front();
  if (program.find('/') != std::string::npos && ::access(program.c_str(), X_OK) != 0)
    throw UserError(fmt::format("cannot run '{}': {}", program, std::strerror(errno)), {},
                    "check the path; apps are built into build/apps/");
  return run_process(mpirun_command(launch), timeout);
}

}  // namespace perfcast::measure
