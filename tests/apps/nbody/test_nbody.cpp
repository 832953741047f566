// apps/nbody run with the pinned Open MPI: the energy drift stays below the
// app's bound for every force x integrator pair; the same run at 1, 2 and 4
// ranks (uneven splits, and more ranks than bodies) gives bitwise the same final
// positions and the same final energy to 1e-12; a too-large time step fails the
// check; bad arguments fail loudly. Small N and few steps: the suite takes seconds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <future>
#include <map>
#include <string>
#include <vector>

#include "common/app_checks.h"

using perfcast::testing::AppRun;
using perfcast::testing::run_app;

namespace {

// A sound run of nbody (run_app_passing) and the figures of its own check.
nlohmann::json run_ok(int ranks, const std::vector<std::string>& args) {
  nlohmann::json j = perfcast::testing::run_app_passing("nbody", ranks, args);
  if (j.empty()) return j;
  EXPECT_TRUE(j.contains("time_s") && j["time_s"].is_number());
  EXPECT_TRUE(j.contains("energy_drift") && j["energy_drift"].is_number());
  EXPECT_TRUE(j.contains("positions_hash") && j["positions_hash"].is_string());
  return j;
}

std::vector<std::string> config(const std::string& force, const std::string& integrator, int bodies, int steps) {
  return {"--bodies", std::to_string(bodies), "--steps", std::to_string(steps), "--force", force,
          "--integrator", integrator, "--repeats", "1"};
}

// 301 bodies: split unevenly over 2 and 4 ranks.
std::vector<std::string> uneven(const std::string& force, const std::string& integrator) {
  return config(force, integrator, 301, 20);
}

// The one-rank result for some arguments, run once per test program.
const nlohmann::json& reference(const std::vector<std::string>& args) {
  static std::map<std::vector<std::string>, nlohmann::json> cache;
  auto it = cache.find(args);
  if (it == cache.end()) it = cache.emplace(args, run_ok(1, args)).first;
  return it->second;
}

void expect_same_run(const nlohmann::json& a, const nlohmann::json& b) {
  // Every body's force is summed in the same order whatever the rank count:
  // the trajectories are bitwise equal; only the energy reductions differ.
  EXPECT_EQ(a.value("positions_hash", "a"), b.value("positions_hash", "b"));
  double ea = a.value("energy_final", 0.0), eb = b.value("energy_final", 1.0);
  EXPECT_LT(std::fabs(ea - eb), 1e-12 * std::fabs(ea)) << ea << " vs " << eb;
  double ia = a.value("energy_initial", 0.0), ib = b.value("energy_initial", 1.0);
  EXPECT_LT(std::fabs(ia - ib), 1e-12 * std::fabs(ia));
  EXPECT_EQ(a.value("interactions", -1L), b.value("interactions", -2L));
}

}  // namespace

TEST(Nbody, DriftBelowBoundForEachForceAndIntegrator) {
  const int steps = 40;
  struct Case {
    std::string force, integrator;
    double bound;  // the app's default bound for this pair (README.md)
    int evals;
  };
  const std::vector<Case> cases = {{"direct", "leapfrog", 1e-4, steps + 1},
                                   {"direct", "rk4", 1e-6, 4 * steps},
                                   {"bh", "leapfrog", 1e-3, steps + 1},
                                   {"bh", "rk4", 1e-3, 4 * steps}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.force + " " + c.integrator);
    auto j = run_ok(2, config(c.force, c.integrator, 400, steps));
    EXPECT_EQ(j.value("force", ""), c.force);
    EXPECT_EQ(j.value("integrator", ""), c.integrator);
    EXPECT_EQ(j.value("bodies", 0), 400);
    EXPECT_EQ(j.value("steps", 0), steps);
    EXPECT_DOUBLE_EQ(j.value("drift_bound", 0.0), c.bound);
    double drift = j.value("energy_drift", 1.0);
    EXPECT_LT(drift, c.bound);
    EXPECT_GT(drift, 0.0);  // a real integration, not a frozen state
    EXPECT_LT(j.value("energy_initial", 0.0), 0.0);  // a bound system
    EXPECT_EQ(j.value("force_evaluations", 0), c.evals);
    EXPECT_EQ(j.value("allgatherv_bytes", 0), 400 * 24);
    long inter = j.value("interactions", 0L);
    if (c.force == "direct") {
      EXPECT_EQ(inter, static_cast<long>(c.evals) * 400 * 400);
    } else {
      EXPECT_GT(inter, 0);
      EXPECT_LT(inter, static_cast<long>(c.evals) * 400 * 400);  // the tree saves work
    }
  }
}

TEST(Nbody, DirectAgreesAtOneAndTwoRanksUnevenSplit) {
  for (const char* integrator : {"leapfrog", "rk4"}) {
    SCOPED_TRACE(integrator);
    const auto& one = reference(uneven("direct", integrator));
    auto two = run_ok(2, uneven("direct", integrator));
    EXPECT_EQ(two.value("bodies_per_rank_min", 0), 150);
    EXPECT_EQ(two.value("bodies_per_rank_max", 0), 151);
    expect_same_run(one, two);
  }
}

TEST(Nbody, BarnesHutAgreesAtOneAndTwoRanks) {
  // Every rank builds the same tree from all positions: same forces, same run.
  // (One integrator: the tree does not care which one asks for the forces.)
  expect_same_run(reference(uneven("bh", "leapfrog")), run_ok(2, uneven("bh", "leapfrog")));
}

TEST(Nbody, AgreesAtFourRanksOversubscribed) {
  RecordProperty("oversubscribed", "true");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"direct", "leapfrog"}, {"direct", "rk4"}, {"bh", "leapfrog"}};
  for (const auto& [force, integrator] : cases) {
    SCOPED_TRACE(force + " " + integrator);
    auto four = run_ok(4, uneven(force, integrator));
    EXPECT_EQ(four.value("bodies_per_rank_min", 0), 75);
    EXPECT_EQ(four.value("bodies_per_rank_max", 0), 76);
    expect_same_run(reference(uneven(force, integrator)), four);
  }
}

TEST(Nbody, MoreRanksThanBodiesOversubscribed) {
  RecordProperty("oversubscribed", "true");
  // 3 bodies on 4 ranks: one rank owns none (a zero count in the allgatherv).
  auto args = config("direct", "leapfrog", 3, 50);
  auto four = run_ok(4, args);
  EXPECT_EQ(four.value("bodies_per_rank_min", -1), 0);
  EXPECT_EQ(four.value("bodies_per_rank_max", -1), 1);
  expect_same_run(reference(args), four);
}

TEST(Nbody, RepeatsGiveMedianOfTimes) {
  auto j = run_ok(2, {"--bodies", "200", "--steps", "10", "--repeats", "3"});
  ASSERT_TRUE(j.contains("times_s"));
  ASSERT_EQ(j["times_s"].size(), 3u);
  std::vector<double> t = j["times_s"].get<std::vector<double>>();
  std::sort(t.begin(), t.end());
  EXPECT_DOUBLE_EQ(j.value("time_s", -1.0), t[1]);
  EXPECT_EQ(j.value("repeats", 0), 3);
}

// Runs that fail cost Open MPI ~2 s more to tear down (mostly idle waiting), so
// they are launched side by side.
std::vector<AppRun> run_all(int ranks, const std::vector<std::vector<std::string>>& arg_lists) {
  std::vector<std::future<AppRun>> futures;
  for (const auto& args : arg_lists)
    futures.push_back(std::async(std::launch::async, [ranks, args] { return run_app("nbody", ranks, args); }));
  std::vector<AppRun> runs;
  for (auto& f : futures) runs.push_back(f.get());
  return runs;
}

TEST(Nbody, TooLargeTimeStepFailsTheCheck) {
  const std::vector<std::string> integrators = {"leapfrog", "rk4"};
  std::vector<std::vector<std::string>> arg_lists;
  for (const auto& integrator : integrators)
    arg_lists.push_back({"--bodies", "200", "--steps", "20", "--dt", "0.1", "--integrator", integrator});
  auto runs = run_all(2, arg_lists);
  for (size_t k = 0; k < runs.size(); ++k) {
    SCOPED_TRACE(integrators[k]);
    const AppRun& run = runs[k];
    EXPECT_NE(run.process.exit_code, 0);
    ASSERT_TRUE(run.result.is_object()) << run.process.stdout_text;
    EXPECT_EQ(run.result.value("ranks", -1), 2);
    EXPECT_EQ(run.result.value("check", ""), "failed");
    EXPECT_GT(run.result.value("energy_drift", 0.0), run.result.value("drift_bound", 1.0));
    EXPECT_NE(run.process.stderr_text.find("energy drift"), std::string::npos) << run.process.stderr_text;
  }
}

TEST(Nbody, BadArgumentsExitNonZeroNamingTheOption) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"--bodies", "1"}, "--bodies"},          {{"--steps", "ten"}, "--steps"},
      {{"--dt", "-0.01"}, "--dt"},              {{"--force", "fmm"}, "--force"},
      {{"--theta"}, "--theta"},                 {{"--frobnicate", "1"}, "--frobnicate"}};
  std::vector<std::vector<std::string>> arg_lists;
  for (const auto& b : bad) arg_lists.push_back(b.first);
  auto runs = run_all(1, arg_lists);
  for (size_t k = 0; k < runs.size(); ++k) {
    SCOPED_TRACE(bad[k].second);
    EXPECT_NE(runs[k].process.exit_code, 0);
    EXPECT_NE(runs[k].process.stderr_text.find(bad[k].second), std::string::npos) << runs[k].process.stderr_text;
    EXPECT_FALSE(runs[k].result.is_object());
  }
}

TEST(Nbody, HelpListsOptions) {
  AppRun run = run_app("nbody", 1, {"--help"});
  EXPECT_EQ(run.process.exit_code, 0);
  for (const char* opt : {"--bodies", "--steps", "--dt", "--softening", "--theta", "--force", "--integrator",
                          "--seed", "--repeats"})
    EXPECT_NE(run.process.stdout_text.find(opt), std::string::npos) << opt;
}
