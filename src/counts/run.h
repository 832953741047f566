// Running a program, or every rank of an MPI job, under callgrind and counting.
//
// MPI: `mpirun.openmpi ... valgrind --tool=callgrind ... ./app` runs each rank
// under its own valgrind; the profile of each is named after the rank through
// valgrind's %q{OMPI_COMM_WORLD_RANK}, which Open MPI sets in every rank's
// environment. Works with Open MPI 4.1 and valgrind 3.19 here without
// suppressions or MCA settings (valgrind's warnings about the cache geometry
// and DWARF forms are harmless).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "counts/callgrind.h"
#include "counts/counts.h"

namespace perfcast::counts {

struct CallgrindRunOptions {
  std::vector<std::string> program;  // program and arguments
  int ranks = 0;                     // 0: run the program directly; >= 1: under mpirun with that many ranks
  std::string output_dir;            // where profiles are written and kept; empty: a scratch directory, removed on return
  std::string label = "run";         // file name prefix, so several runs can share output_dir
  double timeout_s = 1800;
  // Callgrind's cache simulation gives its own Dr/Dw per instruction, a cross-check
  // only (loads and stores come from the disassembly); without it runs are about 2x faster.
  bool cache_sim = true;
  std::vector<std::string> valgrind_flags;  // extra flags, e.g. --toggle-collect=kernel
};

struct RankProfile {
  int rank = 0;
  std::string path;  // where it was read from (gone unless output_dir was given)
  CallgrindProfile profile;
};

using Progress = std::function<void(const std::string& message)>;

// The valgrind command line for the program (without mpirun), under `env LD_BIND_NOW=1`.
std::vector<std::string> callgrind_command(const CallgrindRunOptions& options, const std::string& out_pattern);

// Runs and parses one profile per rank (rank order). Throws UserError when the
// program fails (its exit code and the end of its stderr) or a profile is missing.
std::vector<RankProfile> run_callgrind(const CallgrindRunOptions& options, const Progress& progress = {});

// Counts of each rank, in rank order; a second run's counts are subtracted
// rank by rank when `baseline` is given (same rank count).
std::vector<ProfileCounts> count_ranks(const std::vector<RankProfile>& profiles, CodeCache& cache,
                                       const CountOptions& options = {}, const Progress& progress = {});

}  // namespace perfcast::counts
