// Running an app's BSIM skeleton under `perfcast simulate` and the real app
// under the pinned Open MPI with a PMPI counter preloaded (mpi_count.c), so a
// test can compare them call for call and byte for byte, and checking that a
// skeleton's predicted time grows with the problem. Shared by the cg, nbody,
// mg and bfs skeleton tests (header only; the counter library's path
// comes from the SKEL_MPI_COUNT_LIB definition their CMake sets).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/app_run.h"
#include "measure/launcher.h"

namespace perfcast::testing {

using Counts = std::map<std::string, long long>;

struct SkeletonRun {
  measure::ProcessResult process;
  nlohmann::json skeleton;  // the skeleton's JSON line (rank 0); null if none
  nlohmann::json sim;       // perfcast simulate --json
  Counts calls;             // MPI calls by kind, all ranks, as the simulator counted them
  Counts bytes;             // bytes by kind, all ranks, as the skeleton's ranks tallied them
  int ranks_tallied = 0;    // skel_bytes lines seen
};

struct RealRun {
  AppRun app;
  Counts calls;  // summed over ranks, from the PMPI counter
  Counts empty_completions;  // wait_empty, waitall_empty: completions of no request (no simulator event)
  Counts bytes;
  int ranks_counted = 0;
};

// "prefix rank=R kind=n kind=n ..." -> adds every kind=n to `into`.
inline void add_fields(const std::string& line, size_t prefix_length, Counts& into) {
  std::istringstream fields(line.substr(prefix_length));
  std::string field;
  while (fields >> field) {
    auto eq = field.find('=');
    if (eq == std::string::npos || field.substr(0, eq) == "rank") continue;
    into[field.substr(0, eq)] += std::stoll(field.substr(eq + 1));
  }
}

inline long long total(const Counts& counts) {
  long long n = 0;
  for (const auto& [kind, count] : counts) n += count;
  return n;
}

// `perfcast simulate --json --np ranks -- build/apps/<skeleton> args`. stdout
// holds simulate's JSON document alone; the skeleton's own lines (its JSON
// line, its byte tallies) go to stderr, beside perfcast's messages.
inline SkeletonRun simulate_skeleton(const std::string& skeleton, int ranks, const std::vector<std::string>& args,
                                     double timeout_s = 180) {
  const std::string perfcast = std::string(PERFCAST_BINARY_DIR) + "/bin/perfcast";
  const std::string machine = std::string(PERFCAST_SOURCE_DIR) + "/machines/generic-cluster.toml";
  std::vector<std::string> argv = {perfcast, "simulate", "--machine", machine, "--json", "--np", std::to_string(ranks),
                                   "--", std::string(PERFCAST_BINARY_DIR) + "/apps/" + skeleton};
  argv.insert(argv.end(), args.begin(), args.end());
  SkeletonRun run;
  run.process = measure::run_process(argv, std::chrono::duration<double>(timeout_s));
  std::istringstream lines(run.process.stderr_text);
  std::string line;
  const std::string json_prefix = "{\"app\":\"" + skeleton + "\"";
  while (std::getline(lines, line)) {
    if (line.rfind(json_prefix, 0) == 0) run.skeleton = nlohmann::json::parse(line, nullptr, false);
    if (line.rfind("skel_bytes ", 0) == 0) {
      ++run.ranks_tallied;
      add_fields(line, 11, run.bytes);
    }
  }
  const std::string& doc = run.process.stdout_text;
  run.sim = nlohmann::json::parse(doc, nullptr, false);
  if (run.sim.is_object() && run.sim.contains("kinds"))
    for (const auto& [kind, count] : run.sim["kinds"].items())
      if (kind != "compute" && kind != "marker") run.calls[kind] = count.get<long long>();
  return run;
}

// The real app with the PMPI counter preloaded in every rank.
inline RealRun run_counted(const std::string& app, int ranks, const std::vector<std::string>& args,
                           double timeout_s = 180) {
  measure::MpiLaunch launch;
  launch.ranks = ranks;
  launch.program.push_back(app_path(app));
  launch.program.insert(launch.program.end(), args.begin(), args.end());
  launch.extra_mpirun_flags = {"-x", std::string("LD_PRELOAD=") + SKEL_MPI_COUNT_LIB};
  RealRun run;
  run.app.process = measure::run_mpi(launch, std::chrono::duration<double>(timeout_s));
  std::istringstream out(run.app.process.stdout_text);
  std::string line, last;
  while (std::getline(out, line))
    if (!line.empty() && line.front() == '{') last = line;
  run.app.result = nlohmann::json::parse(last, nullptr, false);
  std::istringstream err(run.app.process.stderr_text);
  while (std::getline(err, line)) {
    if (line.rfind("mpi_count ", 0) == 0) {
      ++run.ranks_counted;
      add_fields(line, 10, run.calls);
      for (const char* kind : {"wait_empty", "waitall_empty"}) {
        auto found = run.calls.find(kind);
        if (found == run.calls.end()) continue;
        run.empty_completions[kind] = found->second;
        run.calls.erase(found);
      }
    } else if (line.rfind("mpi_bytes ", 0) == 0) {
      add_fields(line, 10, run.bytes);
    }
  }
  return run;
}

// The checks every skeleton test makes at a rank count: both runs succeeded on
// `ranks` ranks, and the skeleton made the same MPI calls, kind by kind, and
// handed the same bytes to them, summed over ranks (except the kinds in
// `modelled_bytes`, whose volumes the skeleton models: the caller checks those).
inline void expect_same_communication(const SkeletonRun& sim, const RealRun& real, int ranks,
                                      const std::set<std::string>& modelled_bytes = {}) {
  ASSERT_EQ(real.app.process.exit_code, 0) << real.app.process.stderr_text << real.app.process.stdout_text;
  ASSERT_TRUE(real.app.result.is_object()) << real.app.process.stdout_text;
  EXPECT_EQ(real.app.result.value("ranks", -1), ranks) << "launched by the wrong MPI?";
  EXPECT_EQ(real.app.result.value("check", ""), "passed");
  ASSERT_EQ(real.ranks_counted, ranks) << "one mpi_count line per rank expected:\n" << real.app.process.stderr_text;

  ASSERT_EQ(sim.process.exit_code, 0) << sim.process.stderr_text << sim.process.stdout_text;
  ASSERT_TRUE(sim.skeleton.is_object()) << sim.process.stdout_text;
  ASSERT_TRUE(sim.sim.is_object()) << sim.process.stdout_text;
  EXPECT_EQ(sim.skeleton.value("ranks", -1), ranks);
  EXPECT_EQ(sim.sim.value("nranks", -1), ranks);
  EXPECT_EQ(sim.skeleton.value("check", ""), "skeleton");
  EXPECT_EQ(sim.ranks_tallied, ranks);

  EXPECT_GT(total(real.calls), 0);
  EXPECT_EQ(sim.calls, real.calls);
  EXPECT_EQ(sim.sim.value("mpi_calls", -1LL), total(real.calls));
  Counts sim_bytes = sim.bytes, real_bytes = real.bytes;
  for (const auto& kind : modelled_bytes) {
    sim_bytes.erase(kind);
    real_bytes.erase(kind);
  }
  EXPECT_EQ(sim_bytes, real_bytes);
  EXPECT_GT(sim.sim.value("predicted_time_s", 0.0), 0.0);
}

// Simulates `skeleton` on `ranks` ranks once per argument list, the lists in
// order of growing problem size, and checks that the predicted time of the
// whole run (simulate's predicted_time_s) and the skeleton's own timed part
// (its "time_s") both grow from one list to the next, the timed part staying
// within the run. Returns the runs made, for the caller's own checks.
inline std::vector<SkeletonRun> expect_time_grows_with_size(const std::string& skeleton, int ranks,
                                                            const std::vector<std::vector<std::string>>& arg_lists) {
  std::vector<SkeletonRun> runs;
  double previous = 0, previous_timed = 0;
  for (const auto& args : arg_lists) {
    std::string call = skeleton;
    for (const auto& arg : args) call += " " + arg;
    SCOPED_TRACE(call);
    SkeletonRun sim = simulate_skeleton(skeleton, ranks, args);
    if (sim.process.exit_code != 0 || !sim.skeleton.is_object() || !sim.sim.is_object()) {
      ADD_FAILURE() << "exit code " << sim.process.exit_code << "\n" << sim.process.stderr_text << sim.process.stdout_text;
      break;
    }
    EXPECT_EQ(sim.skeleton.value("ranks", -1), ranks);
    double predicted = sim.sim.value("predicted_time_s", 0.0), timed = sim.skeleton.value("time_s", 0.0);
    EXPECT_GT(predicted, previous);
    EXPECT_GT(timed, previous_timed);
    EXPECT_LT(timed, predicted);  // the timed part is part of the run
    previous = predicted;
    previous_timed = timed;
    runs.push_back(std::move(sim));
  }
  return runs;
}

}  // namespace perfcast::testing
