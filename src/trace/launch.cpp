#include "trace/launch.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "support/error.h"
#include "trace/recorder_environment.h"

namespace perfcast::trace {

namespace fs = std::filesystem;

fs::path find_trace_library(const fs::path& executable) {
  const fs::path built_path = PERFCAST_TRACE_LIBRARY_BUILT;
  if (const char* chosen = std::getenv(kTraceLibraryVariable); chosen && *chosen) {
    if (!fs::exists(chosen))
      throw UserError(fmt::format("{} names {}, which does not exist", kTraceLibraryVariable, chosen));
    return fs::absolute(chosen);
  }
  std::error_code ignored;
  fs::path beside = executable.parent_path().parent_path() / "lib" / kTraceLibraryName;
  if (fs::exists(beside, ignored)) return fs::absolute(beside);
  if (!built_path.empty() && fs::exists(built_path, ignored)) return built_path;
  throw UserError(fmt::format("cannot find the tracer library {}", kTraceLibraryName), {},
                  fmt::format("build the perfcast_trace target, or set {} to its path", kTraceLibraryVariable));
}

std::vector<std::string> traced_command(const std::vector<std::string>& command) {
  std::vector<std::string> out = command;
  if (command.empty()) return out;
  std::string launcher = fs::path(command.front()).filename().string();
  if (launcher == "mpirun.openmpi" || launcher == "mpiexec.openmpi" || launcher == "orterun")
    out.insert(out.begin() + 1, {"-x", "LD_PRELOAD", "-x", kTraceDirVariable});
  return out;
}

int run_traced(const std::vector<std::string>& command, const fs::path& library, const fs::path& dir) {
  if (command.empty())
    throw UserError("no command to trace", {}, "give it after --: perfcast trace -o DIR -- mpirun.openmpi -n 4 ./app");
  std::string preload = library.string();
  if (const char* earlier = std::getenv("LD_PRELOAD"); earlier && *earlier) preload += std::string(":") + earlier;
  std::vector<std::string> words = traced_command(command);
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);

  int ready[2];  // the child reports a failed exec through this pipe
  if (pipe2(ready, O_CLOEXEC) != 0)
    throw UserError(fmt::format("cannot start {}: {}", command.front(), std::strerror(errno)));
  pid_t pid = fork();
  if (pid < 0) throw UserError(fmt::format("cannot start {}: fork failed", command.front()));
  if (pid == 0) {
    ::close(ready[0]);
    setenv("LD_PRELOAD", preload.c_str(), 1);
    setenv(kTraceDirVariable, dir.c_str(), 1);
    execvp(argv[0], argv.data());
    int error = errno;
    ssize_t ignored = ::write(ready[1], &error, sizeof error);
    (void)ignored;
    _exit(127);
  }
  ::close(ready[1]);
  int exec_error = 0;
  ssize_t got = ::read(ready[0], &exec_error, sizeof exec_error);
  ::close(ready[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (got == static_cast<ssize_t>(sizeof exec_error))
    throw UserError(fmt::format("cannot run {}: {}", command.front(), std::strerror(exec_error)), {},
                    "check the command after --");
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace perfcast::trace
