#include "counts/run.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "measure/launcher.h"
#include "support/error.h"
#include "support/scratch_directory.h"

namespace perfcast::counts {

namespace {

std::string tail(const std::string& text, size_t n = 1500) {
  return text.size() <= n ? text : "..." + text.substr(text.size() - n);
}

}  // namespace

std::vector<std::string> callgrind_command(const CallgrindRunOptions& options, const std::string& out_pattern) {
  // Bind symbols at start-up: with lazy binding the first call of each library
  // function goes through the dynamic linker's resolver, and callgrind records
  // that call as made by the resolver rather than by the program.
  std::vector<std::string> cmd = {"env",
                                  "LD_BIND_NOW=1",
                                  "valgrind",
                                  "--tool=callgrind",
                                  "--dump-instr=yes",
                                  options.cache_sim ? "--cache-sim=yes" : "--cache-sim=no",
                                  "--callgrind-out-file=" + out_pattern};
  cmd.insert(cmd.end(), options.valgrind_flags.begin(), options.valgrind_flags.end());
  cmd.insert(cmd.end(), options.program.begin(), options.program.end());
  return cmd;
}

std::vector<RankProfile> run_callgrind(const CallgrindRunOptions& options, const Progress& progress) {
  if (options.program.empty()) throw UserError("no program to run", {}, "give it after '--'");
  // Without an output directory the profiles are read into memory and their
  // files removed on return: the caller asked for counts, not for files.
  std::optional<ScratchDirectory> scratch;
  if (options.output_dir.empty()) scratch.emplace("perfcast-counts");
  std::string dir = scratch ? scratch->path().string() : options.output_dir;
  std::filesystem::create_directories(dir);
  bool mpi = options.ranks >= 1;
  int ranks = mpi ? options.ranks : 1;
  auto path_of = [&](int rank) { return fmt::format("{}/{}.callgrind.{}.out", dir, options.label, rank); };
  for (int r = 0; r < ranks; ++r) std::filesystem::remove(path_of(r));

  std::string pattern =
      mpi ? fmt::format("{}/{}.callgrind.%q{{OMPI_COMM_WORLD_RANK}}.out", dir, options.label) : path_of(0);
  auto command = callgrind_command(options, pattern);
  if (progress)
    progress(fmt::format("running {} under callgrind{} (about 50x slower than natively)...", options.program.front(),
                         mpi ? fmt::format(" with {} ranks", ranks) : ""));
  auto timeout = std::chrono::duration<double>(options.timeout_s);
  measure::ProcessResult run;
  if (mpi) {
    measure::MpiLaunch launch;
    launch.ranks = ranks;
    launch.program = command;
    // Pinning would bind valgrind and its rank to one core each anyway; leave
    // placement to the OS so oversubscribed runs do not stack.
    launch.pin = false;
    run = measure::run_mpi(launch, timeout);
  } else {
    run = measure::run_process(command, timeout);
  }
  if (run.timed_out)
    throw UserError(fmt::format("the run under callgrind timed out after {} s", options.timeout_s), {},
                    "use smaller inputs: callgrind runs about 50 times slower");
  if (run.exit_code != 0) {
    bool dwarf = run.stderr_text.find("debuginfo reader") != std::string::npos;
    throw UserError(
        fmt::format("the program failed under callgrind (exit code {}): {}", run.exit_code, tail(run.stderr_text)), {},
        dwarf ? "valgrind 3.19 cannot read some DWARF 5 debug info (clang's default since 14): rebuild with "
                "-gdwarf-4"
              : "check that it runs without valgrind with the same arguments");
  }
  if (progress) progress(fmt::format("ran in {:.1f} s; reading {} profile(s)", run.wall_s, ranks));

  std::vector<RankProfile> profiles;
  for (int r = 0; r < ranks; ++r) {
    std::string path = path_of(r);
    if (!std::filesystem::exists(path))
      throw UserError(fmt::format("callgrind wrote no profile for rank {} ('{}')", r, path), {},
                      mpi ? "is the program an Open MPI program? OMPI_COMM_WORLD_RANK names the profiles"
                          : "check valgrind's output");
    profiles.push_back({r, path, read_callgrind_file(path)});
  }
  return profiles;
}

std::vector<ProfileCounts> count_ranks(const std::vector<RankProfile>& profiles, CodeCache& cache,
                                       const CountOptions& options, const Progress& progress) {
  std::vector<ProfileCounts> out;
  for (const auto& p : profiles) {
    if (progress) progress(fmt::format("classifying the instructions of rank {} ({})", p.rank, p.path));
    out.push_back(count(p.profile, cache, options));
    out.back().rank = p.rank;
  }
  return out;
}

}  // namespace perfcast::counts
