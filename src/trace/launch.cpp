#include "trace/launch.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "events/phase_patterns.h"
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

std::vector<std::string> traced_command(const std::vector<std::string>& command,
                                        const std::vector<std::string>& also_exported) {
  std::vector<std::string> out = command;
  if (command.empty()) return out;
  std::string launcher = fs::path(command.front()).filename().string();
  if (launcher == "mpirun.openmpi" || launcher == "mpiexec.openmpi" || launcher == "orterun") {
    std::vector<std::string> flags = {"-x", "LD_PRELOAD", "-x", kTraceDirVariable};
    for (const auto& name : also_exported) flags.insert(flags.end(), {"-x", name});
    out.insert(out.begin() + 1, flags.begin(), flags.end());
  }
  return out;
}

int run_traced(const std::vector<std::string>& command, const fs::path& library, const fs::path& dir,
               bool fold_loops) {
  if (command.empty())
    throw UserError("no command to trace", {}, "give it after --: perfcast trace -o DIR -- mpirun.openmpi -n 4 ./app");
  std::string preload = library.string();
  if (const char* earlier = std::getenv("LD_PRELOAD"); earlier && *earlier) preload += std::string(":") + earlier;
  std::vector<std::string> words = traced_command(command, {kTraceFoldVariable});
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
    setenv(kTraceFoldVariable, fold_loops ? "1" : "0", 1);
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

void prepare_signature_run_dir(const fs::path& dir) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error || !fs::is_directory(dir))
    throw UserError("cannot create the directory", {dir.string()}, "choose another run directory with -o");
  std::vector<fs::path> old;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    bool ours =
        name == "phases.json" || name == "job.log" || name == "full" ||
        (name.starts_with("rank-") && (name.ends_with(".phases.json") || name.ends_with(".phases.json.partial")));
    if (!ours)
      throw UserError(fmt::format("holds '{}', which is not part of a signature run: not writing here", name),
                      {dir.string()}, "choose another run directory with -o, or empty this one");
    old.push_back(entry.path());
  }
  for (const auto& path : old) fs::remove_all(path, error);
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Reaps `pid` when it has ended; true then, with its exit status.
bool reaped(pid_t pid, int& status) {
  int raw = 0;
  pid_t got;
  while ((got = waitpid(pid, &raw, WNOHANG)) < 0 && errno == EINTR) {
  }
  if (got != pid) return false;
  status = WIFEXITED(raw) ? WEXITSTATUS(raw) : WIFSIGNALED(raw) ? 128 + WTERMSIG(raw) : 1;
  return true;
}

// True when process `pid` runs with `variable`=`value` in its environment: a
// rank of this job still alive, not another process that took its number.
bool runs_with(pid_t pid, const std::string& variable, const std::string& value) {
  std::ifstream in(fmt::format("/proc/{}/environ", pid), std::ios::binary);
  std::string entry, wanted = variable + "=" + value;
  while (std::getline(in, entry, '\0'))
    if (entry == wanted) return true;
  return false;
}

}  // namespace

SignatureModeRun run_signature_mode(const std::vector<std::string>& command, const SignatureModeOptions& o) {
  if (command.empty())
    throw UserError("no command to run", {},
                    "give it after --: perfcast signature run app.sig -- mpirun.openmpi -n 4 ./app");
  std::string preload = o.library.string();
  if (const char* earlier = std::getenv("LD_PRELOAD"); earlier && *earlier) preload += std::string(":") + earlier;
  RankReportOptions r;
  r.environment = {
      {"LD_PRELOAD", preload}, {kTraceDirVariable, o.dir.string()}, {kSignaturePhasesVariable, o.patterns.string()}};
  r.log = o.log;
  r.ranks = o.ranks;
  r.stop_when_reported = o.stop_when_measured;
  r.grace_s = o.grace_s;
  r.marker_variable = kSignaturePhasesVariable;
  r.marker_value = o.patterns.string();
  r.reported = [&o](int rank) -> std::optional<long> {
    fs::path file = o.dir / events::phase_measurement_file_name(rank);
    std::ifstream in(file);
    if (!in) return std::nullopt;
    std::stringstream text;
    text << in.rdbuf();
    try {
      events::RankMeasurement m = events::parse_measurement(text.str(), file.string());
      if (!m.complete && m.error.empty()) return std::nullopt;
      return static_cast<long>(m.pid);
    } catch (const UserError&) {
      return std::nullopt;  // files are renamed into place whole: read it again next time
    }
  };
  return run_until_ranks_report(traced_command(command, {kSignaturePhasesVariable}), r);
}

SignatureModeRun run_until_ranks_report(const std::vector<std::string>& words_in, const RankReportOptions& o) {
  if (words_in.empty()) throw UserError("no command to run", {}, "give the command after --");
  std::vector<std::string> words = words_in;
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);

  int ready[2];  // the child reports a failed exec through this pipe
  if (pipe2(ready, O_CLOEXEC) != 0)
    throw UserError(fmt::format("cannot start {}: {}", words.front(), std::strerror(errno)));
  int log = ::open(o.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log < 0) throw UserError(fmt::format("cannot write: {}", std::strerror(errno)), {o.log.string()});
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) throw UserError(fmt::format("cannot start {}: fork failed", words.front()));
  if (pid == 0) {
    ::close(ready[0]);
    setpgid(0, 0);
    dup2(log, STDOUT_FILENO);
    dup2(log, STDERR_FILENO);
    for (const auto& [name, value] : o.environment) setenv(name.c_str(), value.c_str(), 1);
    execvp(argv[0], argv.data());
    int error = errno;
    ssize_t ignored = ::write(ready[1], &error, sizeof error);
    (void)ignored;
    _exit(127);
  }
  setpgid(pid, pid);  // also here: no signal may reach the group before the child made it
  ::close(ready[1]);
  ::close(log);
  int exec_error = 0;
  ssize_t got = ::read(ready[0], &exec_error, sizeof exec_error);
  ::close(ready[0]);
  SignatureModeRun run;
  if (got == static_cast<ssize_t>(sizeof exec_error)) {
    while (!reaped(pid, run.status)) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    throw UserError(fmt::format("cannot run {}: {}", words.front(), std::strerror(exec_error)), {},
                    "check the command after --");
  }

  std::set<int> reported;
  std::vector<pid_t> rank_pids;
  auto is_rank = [&o](pid_t rank) { return runs_with(rank, o.marker_variable, o.marker_value); };
  int ranks = o.ranks;
  while (!reaped(pid, run.status)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (!o.stop_when_reported || run.stopped) continue;
    if (ranks == 0 && o.job_size) ranks = o.job_size();
    if (ranks == 0) continue;
    for (int r = 0; r < ranks; ++r) {
      if (reported.count(r)) continue;
      std::optional<long> rank_pid = o.reported(r);
      if (!rank_pid) continue;
      reported.insert(r);
      if (*rank_pid > 0) rank_pids.push_back(static_cast<pid_t>(*rank_pid));
    }
    if (static_cast<int>(reported.size()) < ranks) continue;
    run.stopped = true;
    run.reported_s = seconds_since(start);
    // The ranks directly too: the launcher takes a while to pass a SIGTERM on,
    // and each step run meanwhile is time spent for nothing.
    for (pid_t rank : rank_pids)
      if (is_rank(rank)) kill(rank, SIGTERM);
    kill(-pid, SIGTERM);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.grace_s);
    bool ended = false;
    while (!(ended = reaped(pid, run.status)) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    kill(-pid, SIGKILL);          // what is left of the group, the launcher included when it did not end
    for (pid_t rank : rank_pids)  // ranks the launcher put in process groups of their own
      if (is_rank(rank)) kill(rank, SIGKILL);
    if (ended) break;
  }
  run.wall_s = seconds_since(start);
  return run;
}

}  // namespace perfcast::trace
