// `perfcast mpicc ARGS...` and `perfcast mpicxx ARGS...`: MPI compilers for a
// whole application's own build (`make CC="perfcast mpicc" CXX="perfcast
// mpicxx"`, or the same variables for CMake). Each call runs Open MPI's
// wrapper (mpicc.openmpi, mpicxx.openmpi) with the analyser's clang as its
// compiler, exactly as given, so the build gets its objects and links; a
// compile (-c) that succeeded then also writes each unit's analysable bitcode
// beside its object (foo.o -> foo.o.perfcast.bc), compiled from the same
// front-end flags as `perfcast analyze` compiles them (build_command.h), with
// the command line recorded in the debug info so `analyze --ir` knows the
// build's -O level. A build that fails fails as it would without perfcast.
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "analyze/analyze.h"
#include "analyze/build_command.h"
#include "cli/commands.h"
#include "support/error.h"
#include "support/process.h"

extern char** environ;

namespace perfcast::cli {

namespace {

namespace fs = std::filesystem;

// Runs argv with this process's streams (the build shows the compiler's own
// messages) and environment; its exit status, or 128+signal.
int run_in_place(const std::vector<std::string>& argv) {
  std::vector<char*> words;
  for (const auto& w : argv) words.push_back(const_cast<char*>(w.c_str()));
  words.push_back(nullptr);
  pid_t pid = 0;
  int err = posix_spawnp(&pid, words[0], nullptr, nullptr, words.data(), environ);
  if (err != 0)
    throw UserError(fmt::format("cannot run {}: {}", argv[0], std::strerror(err)), {},
                    "install Debian's openmpi (libopenmpi-dev) and clang");
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw UserError(fmt::format("cannot wait for {}: {}", argv[0], std::strerror(errno)));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void run_build_compiler(bool cxx, const std::vector<std::string>& args) {
  const analyze::AnalyzeOptions analyser;  // the analyser's compiler and MPI wrappers
  const std::string compiler = cxx ? analyze::cxx_driver_of(analyser.clang) : analyser.clang;
  const std::string wrapper = cxx ? analyser.mpicxx : analyser.mpicc;
  // Open MPI's wrappers read their compiler from these (docs: mpicc(1)).
  setenv(cxx ? "OMPI_CXX" : "OMPI_CC", compiler.c_str(), 1);

  std::vector<std::string> real = {wrapper};
  real.insert(real.end(), args.begin(), args.end());
  std::cout.flush();
  if (int rc = run_in_place(real); rc != 0) std::exit(rc);

  std::vector<std::string> argv = {compiler};
  argv.insert(argv.end(), args.begin(), args.end());
  analyze::BuildCommand b = analyze::parse_build_command(argv, fs::current_path());
  // Only a compile to objects has objects to put bitcode beside; a compile and
  // link in one step leaves none (its objects are the compiler's temporaries).
  if (!b.compile_only || b.preprocess_only || b.sources.empty()) return;
  const std::string level = b.opt_level.value_or("0");  // what the compiler itself used

  ProcessResult showme = run_process({wrapper, "--showme:compile"}, std::nullopt, {{"OMPI_CC", compiler}});
  if (showme.exit_code != 0)
    throw UserError(fmt::format("cannot ask {} for the MPI compile flags: {}", wrapper, showme.stderr_text));
  std::vector<std::string> mpi;
  std::istringstream words(showme.stdout_text);
  for (std::string w; words >> w;) mpi.push_back(w);

  for (const auto& source : b.sources) {
    fs::path object = b.output ? fs::path(*b.output) : fs::path(fs::path(source).stem().string() + ".o");
    fs::path bitcode = object.string() + ".perfcast.bc";
    std::vector<std::string> ir = {compiler, "-c"};
    for (auto& f : analyze::bitcode_flags(level)) ir.push_back(f);
    ir.push_back("-grecord-command-line");
    ir.insert(ir.end(), mpi.begin(), mpi.end());
    ir.insert(ir.end(), b.front_end_flags.begin(), b.front_end_flags.end());
    ir.insert(ir.end(), {source, "-o", bitcode.string()});
    if (int rc = run_in_place(ir); rc != 0)
      throw UserError(fmt::format("{} compiled, but its bitcode {} did not (exit {})", source, bitcode.string(), rc),
                      {}, "the compiler's message is above");
  }
}

}  // namespace

void add_mpicc_command(CLI::App& app) {
  for (bool cxx : {false, true}) {
    CLI::App* cmd = app.add_subcommand(
        cxx ? "mpicxx" : "mpicc",
        fmt::format("MPI {} compiler for a build ({}=\"perfcast {}\" make): compiles as {}.openmpi with the analyser's "
                    "clang and writes each object's bitcode beside it (foo.o.perfcast.bc) for `perfcast analyze --ir`",
                    cxx ? "C++" : "C", cxx ? "CXX" : "CC", cxx ? "mpicxx" : "mpicc", cxx ? "mpicxx" : "mpicc"));
    cmd->prefix_command();
    cmd->allow_extras();
    cmd->set_help_flag();  // every argument, -h included, is the compiler's
    cmd->callback([cxx, cmd] { run_build_compiler(cxx, cmd->remaining()); });
  }
}

}  // namespace perfcast::cli
