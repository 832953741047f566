// apps/wave3d/skeleton/wave3d_skel.c run by `perfcast simulate` against the
// real wave3d run by the pinned Open MPI with the same arguments: the skeleton
// makes the same MPI calls, kind by kind (the real run counted by a preloaded
// PMPI shim, mpi_count.c; the skeleton's by the simulator), on the same process
// grid with the same halo traffic, and its predicted time is positive and grows
// with the step count. 8 ranks are oversubscribed on this machine: the real run
// there serves counts only.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/app_run.h"
#include "measure/launcher.h"

namespace {

using perfcast::measure::MpiLaunch;
using perfcast::measure::ProcessResult;

const std::string kPerfcast = std::string(PERFCAST_BINARY_DIR) + "/bin/perfcast";
const std::string kSkeleton = std::string(PERFCAST_BINARY_DIR) + "/apps/wave3d_skel";
// Any machine will do for counts; the skeleton's compute times are its own.
const std::string kMachine = std::string(PERFCAST_SOURCE_DIR) + "/machines/generic-cluster.toml";

struct SimRun {
  ProcessResult process;
  nlohmann::json skeleton;  // the skeleton's JSON line (rank 0)
  nlohmann::json sim;       // perfcast simulate --json
};

// stdout holds simulate's JSON document alone; the skeleton's own lines go to stderr.
SimRun simulate(int ranks, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {kPerfcast, "simulate", "--machine", kMachine, "--json",
                                   "--np",    std::to_string(ranks), "--", kSkeleton};
  argv.insert(argv.end(), args.begin(), args.end());
  SimRun run;
  run.process = perfcast::measure::run_process(argv, std::chrono::duration<double>(120));
  std::istringstream lines(run.process.stderr_text);
  std::string line;
  while (std::getline(lines, line))
    if (line.rfind("{\"app\":\"wave3d_skel\"", 0) == 0) run.skeleton = nlohmann::json::parse(line, nullptr, false);
  run.sim = nlohmann::json::parse(run.process.stdout_text, nullptr, false);
  return run;
}

struct RealRun {
  perfcast::testing::AppRun app;
  std::map<std::string, long long> calls;  // summed over ranks
  int ranks_counted = 0;
};

// The real wave3d with the PMPI counter preloaded in every rank.
RealRun run_real(int ranks, const std::vector<std::string>& args) {
  MpiLaunch launch;
  launch.ranks = ranks;
  launch.program.push_back(perfcast::testing::app_path("wave3d"));
  launch.program.insert(launch.program.end(), args.begin(), args.end());
  launch.extra_mpirun_flags = {"-x", std::string("LD_PRELOAD=") + SKEL_MPI_COUNT_LIB};
  RealRun run;
  run.app.process = perfcast::measure::run_mpi(launch, std::chrono::duration<double>(180));
  std::istringstream out(run.app.process.stdout_text);
  std::string line, last;
  while (std::getline(out, line))
    if (!line.empty() && line.front() == '{') last = line;
  run.app.result = nlohmann::json::parse(last, nullptr, false);
  std::istringstream err(run.app.process.stderr_text);
  while (std::getline(err, line)) {
    if (line.rfind("mpi_count ", 0) != 0) continue;
    ++run.ranks_counted;
    std::istringstream fields(line.substr(10));
    std::string field;
    while (fields >> field) {
      auto eq = field.find('=');
      if (eq == std::string::npos || field.substr(0, eq) == "rank") continue;
      run.calls[field.substr(0, eq)] += std::stoll(field.substr(eq + 1));
    }
  }
  return run;
}

long long total(const std::map<std::string, long long>& calls) {
  long long n = 0;
  for (const auto& [kind, count] : calls) n += count;
  return n;
}

const std::vector<std::string> kArgs = {"--n", "12", "--steps", "4", "--repeats", "2"};

void expect_same_as_real(int ranks) {
  SCOPED_TRACE("ranks " + std::to_string(ranks));
  RealRun real = run_real(ranks, kArgs);
  ASSERT_EQ(real.app.process.exit_code, 0) << real.app.process.stderr_text;
  ASSERT_TRUE(real.app.result.is_object()) << real.app.process.stdout_text;
  EXPECT_EQ(real.app.result.value("ranks", -1), ranks) << "launched by the wrong MPI?";
  EXPECT_EQ(real.app.result.value("check", ""), "passed");
  ASSERT_EQ(real.ranks_counted, ranks) << "one mpi_count line per rank expected:\n" << real.app.process.stderr_text;

  SimRun sim = simulate(ranks, kArgs);
  ASSERT_EQ(sim.process.exit_code, 0) << sim.process.stderr_text << sim.process.stdout_text;
  ASSERT_TRUE(sim.skeleton.is_object()) << sim.process.stdout_text;
  ASSERT_TRUE(sim.sim.is_object()) << sim.process.stdout_text;
  EXPECT_EQ(sim.skeleton.value("ranks", -1), ranks);
  EXPECT_EQ(sim.sim.value("nranks", -1), ranks);
  EXPECT_EQ(sim.skeleton.value("check", ""), "skeleton");

  // Same process grid and halo traffic, as each program reports them.
  for (const char* key : {"px", "py", "pz", "steps", "repeats", "halo_msgs_per_step", "halo_bytes_per_step",
                          "max_rank_halo_msgs_per_step", "max_rank_halo_bytes_per_step"})
    EXPECT_EQ(sim.skeleton.value(key, -1LL), real.app.result.value(key, -2LL)) << key;

  // Same MPI calls, kind by kind, over all ranks.
  std::map<std::string, long long> simulated;
  for (const auto& [kind, count] : sim.sim["kinds"].items())
    if (kind != "compute" && kind != "marker") simulated[kind] = count.get<long long>();
  EXPECT_EQ(simulated, real.calls);
  EXPECT_EQ(sim.sim.value("mpi_calls", -1LL), total(real.calls));
  EXPECT_GT(total(real.calls), 0);

  EXPECT_GT(sim.sim.value("predicted_time_s", 0.0), 0.0);
  EXPECT_GT(sim.skeleton.value("time_s", 0.0), 0.0);
}

}  // namespace

TEST(Wave3dSkeleton, SameCallsAsTheRealAppAtOneRank) { expect_same_as_real(1); }
TEST(Wave3dSkeleton, SameCallsAsTheRealAppAtTwoRanks) { expect_same_as_real(2); }
TEST(Wave3dSkeleton, SameCallsAsTheRealAppAtEightRanksOversubscribed) {
  RecordProperty("oversubscribed", "true");
  expect_same_as_real(8);
}

TEST(Wave3dSkeleton, UnevenGridSameCalls) {
  // 13 points over 3 ranks along one axis (5,4,4): uneven messages
  SimRun sim = simulate(3, {"--n", "13", "--steps", "3", "--repeats", "1"});
  ASSERT_EQ(sim.process.exit_code, 0) << sim.process.stderr_text;
  RealRun real = run_real(3, {"--n", "13", "--steps", "3", "--repeats", "1"});
  ASSERT_EQ(real.app.process.exit_code, 0) << real.app.process.stderr_text;
  EXPECT_EQ(sim.skeleton.value("ranks", -1), 3);
  EXPECT_EQ(real.app.result.value("ranks", -1), 3);
  EXPECT_EQ(sim.skeleton.value("halo_bytes_per_step", -1LL), real.app.result.value("halo_bytes_per_step", -2LL));
  EXPECT_EQ(sim.sim.value("mpi_calls", -1LL), total(real.calls));
}

TEST(Wave3dSkeleton, PredictedTimeGrowsWithSteps) {
  double previous = 0, previous_loop = 0;
  for (int steps : {2, 4, 8}) {
    SimRun sim = simulate(2, {"--n", "24", "--steps", std::to_string(steps), "--repeats", "1"});
    ASSERT_EQ(sim.process.exit_code, 0) << sim.process.stderr_text;
    ASSERT_EQ(sim.skeleton.value("ranks", -1), 2);
    double predicted = sim.sim.value("predicted_time_s", 0.0);
    double loop = sim.skeleton.value("time_s", 0.0);
    EXPECT_GT(predicted, previous) << steps << " steps";
    EXPECT_GT(loop, previous_loop) << steps << " steps";
    // The step loop is compute plus MPI, as the skeleton measures it on its clock.
    EXPECT_NEAR(sim.skeleton.value("calc_s", 0.0) + sim.skeleton.value("mpi_s", 0.0), loop, 1e-9 + 1e-9 * loop);
    EXPECT_NEAR(sim.skeleton.value("calc_s", 0.0), steps * sim.skeleton.value("step_calc_s", 0.0), 1e-12 + 1e-9 * loop);
    previous = predicted;
    previous_loop = loop;
  }
}

TEST(Wave3dSkeleton, BadProcessGridFailsLikeTheApp) {
  SimRun sim = simulate(2, {"--n", "8", "--px", "3"});
  EXPECT_NE(sim.process.stderr_text.find("--px"), std::string::npos) << sim.process.stderr_text;
  EXPECT_TRUE(sim.skeleton.is_null());
}

TEST(Wave3dSkeleton, ModelComputeIsWhatPredictComputes) {
  // --compute-model: each step's compute is the model's halo_exchange and
  // leapfrog_step work for the rank's block (BSIM_Add_model_work), so the
  // skeleton's step loop computes what `perfcast predict` prices for the
  // model's main on the same machine file, and makes the same MPI calls as
  // with its fitted compute.
  const std::string model = std::string(PERFCAST_SOURCE_DIR) + "/apps/wave3d/wave3d.model.json";
  for (int ranks : {1, 2}) {
    SCOPED_TRACE("ranks " + std::to_string(ranks));
    const std::vector<std::string> args = {"--n", "24", "--steps", "5", "--repeats", "1"};
    std::vector<std::string> with_model = args;
    with_model.insert(with_model.end(), {"--compute-model", model});
    SimRun fitted = simulate(ranks, args), priced = simulate(ranks, with_model);
    ASSERT_EQ(priced.process.exit_code, 0) << priced.process.stderr_text;
    ASSERT_TRUE(priced.skeleton.is_object()) << priced.process.stderr_text;
    EXPECT_EQ(priced.skeleton.value("compute", ""), "model");
    EXPECT_EQ(priced.sim["kinds"].value("allreduce", -1), fitted.sim["kinds"].value("allreduce", -2));
    EXPECT_EQ(priced.sim.value("mpi_calls", -1LL), fitted.sim.value("mpi_calls", -2LL));

    auto predict = perfcast::measure::run_process(
        {kPerfcast, "predict", model, "--machine", kMachine, "--np", std::to_string(ranks), "--param", "n=24", "--param",
         "steps=5", "--json"},
        std::chrono::duration<double>(120));
    ASSERT_EQ(predict.exit_code, 0) << predict.stderr_text;
    const auto doc = nlohmann::json::parse(predict.stdout_text);
    double compute = 0;
    for (const auto& rank : doc["ranks"]) {
      double sites = 0;
      for (const auto& site : rank["sites"]) sites += site["refined_s"].get<double>();
      compute = std::max(compute, sites);
    }
    ASSERT_GT(compute, 0);
    EXPECT_NEAR(priced.skeleton.value("calc_s", 0.0), compute, 1e-9 * compute);
    EXPECT_NE(priced.skeleton.value("calc_s", 0.0), fitted.skeleton.value("calc_s", 0.0));
  }
}
