#include "support/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "support/error.h"

extern char** environ;

namespace perfcast {

namespace {

void drain(int fd, std::string& into, bool& open) {
  std::array<char, 65536> buffer{};
  ssize_t n = ::read(fd, buffer.data(), buffer.size());
  if (n > 0) {
    into.append(buffer.data(), static_cast<size_t>(n));
  } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    open = false;
  }
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv,
                          std::optional<std::chrono::duration<double>> timeout,
                          const EnvironmentOverrides& environment) {
  if (argv.empty()) throw UserError("no program to run");
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0)
    throw UserError(fmt::format("cannot create pipes: {}", std::strerror(errno)));

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // Own process group, so a timeout can stop mpirun and every rank it started.
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);

  std::vector<char*> c_argv;
  for (const auto& a : argv) c_argv.push_back(const_cast<char*>(a.c_str()));
  c_argv.push_back(nullptr);

  // This process's environment with the overrides in place of their names.
  std::vector<std::string> variables;
  for (char** e = environ; *e; ++e) {
    std::string_view entry(*e);
    if (!environment.count(std::string(entry.substr(0, entry.find('='))))) variables.emplace_back(entry);
  }
  for (const auto& [name, value] : environment) variables.push_back(name + "=" + value);
  std::vector<char*> c_environment;
  for (auto& v : variables) c_environment.push_back(v.data());
  c_environment.push_back(nullptr);

  auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, c_argv[0], &actions, &attributes, c_argv.data(), c_environment.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (rc != 0) {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    throw UserError(fmt::format("cannot start '{}': {}", argv[0], std::strerror(rc)),
                    {}, "check that the program exists and is executable");
  }

  ProcessResult result;
  bool out_open = true, err_open = true;
  while (out_open || err_open) {
    std::array<pollfd, 2> fds{{{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}}};
    int wait_ms = -1;
    if (timeout) {
      auto elapsed = std::chrono::steady_clock::now() - start;
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*timeout - elapsed).count();
      if (left <= 0) {
        result.timed_out = true;
        ::kill(-pid, SIGKILL);
        break;
      }
      wait_ms = static_cast<int>(left);
    }
    if (!out_open) fds[0].fd = -1;
    if (!err_open) fds[1].fd = -1;
    int ready = ::poll(fds.data(), fds.size(), wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (fds[0].revents) drain(out_pipe[0], result.stdout_text, out_open);
    if (fds[1].revents) drain(err_pipe[0], result.stderr_text, err_open);
  }
  ::close(out_pipe[0]);
  ::close(err_pipe[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) result.exit_code = 128 + WTERMSIG(status);
  return result;
}

}  // namespace perfcast
