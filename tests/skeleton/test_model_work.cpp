// BSIM_Add_model_work: a hand skeleton's compute from a program model, priced by
// the engine when the burst starts with the rules `perfcast predict` prices the
// same counts with. The skeleton model_work.c adds a model function's work; the
// simulated compute of each rank must be predict's compute (the sum of the
// refined time of its sites) on the same machine and parameters: alone, with
// ranks sharing a node's bandwidth and clock, beyond the node's cores, and on a
// machine changed by --set (prices follow the machine the engine runs, not the
// call).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "machine/machine_io.h"
#include "model/costs.h"
#include "model/predict.h"
#include "model/program_model.h"
#include "model/specialise.h"
#include "modelsim/model_work.h"
#include "deep_call_chain.h"
#include "scratch.h"
#include "sim/engine.h"
#include "sim/skeleton/live_job.h"
#include "support/error.h"

namespace {

using namespace perfcast;

std::string skeleton() { return std::string(SKELETON_DIR) + "/model_work"; }
std::string wave3d_model() { return std::string(PERFCAST_SOURCE_DIR) + "/apps/wave3d/wave3d.model.json"; }

// One 16-core node whose cores share DRAM (bandwidth by cores streaming) and
// slow their clock when busy, with a clock for MCA cycles.
const char* kSharedNode = R"(
name = "shared"
[node]
count = 1
cores = 16
flops_per_core = "1 Gflop/s"
clock = "2 GHz"
busy_slowdown = 1.09
[memory]
L1 = { size = "32 KiB", bandwidth = "100 GB/s" }
L2 = { size = "1 MiB", bandwidth = "40 GB/s" }
DRAM = { bandwidth = "9 GB/s", bandwidth_by_cores = { cores = [1, 2, 4, 16], per_core = ["9 GB/s", "8 GB/s", "6 GB/s", "3 GB/s"] } }
[network]
latency = "1 us"
bandwidth = "10 GB/s"
)";

machine::Machine shared_node(const std::vector<std::string>& overrides = {}) {
  return machine::load_machine_string(kSharedNode, "shared.toml", ".", overrides);
}

// The same node with nothing measured about sharing: every rank placed on it
// counts as computing, whenever its bursts start (predict's assumption).
machine::Machine plain_node() {
  std::string text = kSharedNode;
  text.erase(text.find("busy_slowdown"), std::string("busy_slowdown = 1.09\n").size());
  const std::string table = R"(, bandwidth_by_cores = { cores = [1, 2, 4, 16], per_core = ["9 GB/s", "8 GB/s", "6 GB/s", "3 GB/s"] })";
  text.erase(text.find(table), table.size());
  return machine::load_machine_string(text, "plain.toml", ".");
}

struct SkeletonRun {
  sim::SimResult result;
  std::vector<int> exit_codes;
};

SkeletonRun simulate_skeleton(const std::vector<std::string>& args, int np, const machine::Machine& machine) {
  auto job = sim::skeleton::open_live_skeleton(skeleton(), args, np, {});
  sim::SimOptions options;
  options.mover = job.get();
  options.work_pricer = job->work_pricer();
  SkeletonRun run{sim::simulate(*job, machine, options), {}};
  for (int r = 0; r < np; ++r) run.exit_codes.push_back(job->exit_code(r));
  return run;
}

// predict's compute of each rank: its sites' refined times, the model
// composed as `perfcast predict` composes it (the job's shared values in place).
std::vector<double> predicted_compute(const std::string& model_file, const machine::Machine& machine, int np,
                                      const std::map<std::string, expr::Value>& parameters) {
  const auto m = model::load_program_model(model_file);
  const auto costs = model::symbolic_costs(model::specialised(m, model::rank_independent_bindings(m, parameters, np)));
  const auto p = model::predict(m, costs, machine, np, parameters);
  std::vector<double> out;
  for (const auto& rank : p.ranks) {
    double s = 0;
    for (const auto& site : rank.sites) s += site.refined_s;
    out.push_back(s);
  }
  return out;
}

void expect_same_compute(const SkeletonRun& run, const std::vector<double>& predicted, const std::string& what) {
  ASSERT_EQ(run.result.ranks.size(), predicted.size()) << what;
  for (std::size_t r = 0; r < predicted.size(); ++r) {
    EXPECT_EQ(run.exit_codes[r], 0) << what << ", rank " << r;
    EXPECT_GT(predicted[r], 0) << what;
    EXPECT_NEAR(run.result.ranks[r].calc_s, predicted[r], 1e-12 * predicted[r]) << what << ", rank " << r;
  }
}

TEST(SkeletonModelWork, WholeProgramCostsWhatPredictComputes) {
  // wave3d's model (a loop nest with a working set: its level is chosen by the
  // ranks streaming at once) for the whole of main, at 1 rank, at 4 and 16
  // sharing the node, and at 32 time-sharing its 16 cores.
  const std::map<std::string, expr::Value> params = {{"n", expr::Value(48)}, {"steps", expr::Value(3)}};
  for (int np : {1, 4, 16, 32}) {
    const auto machine = shared_node();
    const SkeletonRun run = simulate_skeleton({wave3d_model(), "main", "1", "0", "n=48", "steps=3"}, np, machine);
    expect_same_compute(run, predicted_compute(wave3d_model(), machine, np, params), std::to_string(np) + " ranks");
  }
  // The test can fail: at 16 ranks the node's load moves the price well away
  // from the same counts priced for a rank alone on the node.
  const auto m = model::load_program_model(wave3d_model());
  const auto costs = model::symbolic_costs(m);
  const auto counts = model::evaluate_rank(costs, model::bind_rank(m, params, 0, 16), 0);
  double alone = 0;
  for (const auto& site : model::price_sites(counts, shared_node().groups.front(), 1, {})) alone += site.refined_s;
  const double shared =
      simulate_skeleton({wave3d_model(), "-", "1", "0", "n=48", "steps=3"}, 16, shared_node()).result.ranks[0].calc_s;
  EXPECT_GT(std::fabs(shared - alone), 0.1 * alone) << shared << " s shared, " << alone << " s alone";
}

TEST(SkeletonModelWork, PricesFollowTheMachineTheEngineRuns) {
  // The same skeleton on the machine with DRAM halved and the clock slower:
  // its compute moves with predict's on that machine (priced when the burst
  // runs, not when the skeleton called). At n = 96 every rank's block is in DRAM.
  const std::map<std::string, expr::Value> params = {{"n", expr::Value(96)}, {"steps", expr::Value(3)}};
  const std::vector<std::string> slower = {
      R"(memory.DRAM={ bandwidth = "2 GB/s", bandwidth_by_cores = { cores = [1, 16], per_core = ["2 GB/s", "0.7 GB/s"] } })",
      "node.busy_slowdown=1.3"};
  for (int np : {1, 8}) {
    const auto base = shared_node(), changed = shared_node(slower);
    const SkeletonRun a = simulate_skeleton({wave3d_model(), "-", "1", "0", "n=96", "steps=3"}, np, base);
    const SkeletonRun b = simulate_skeleton({wave3d_model(), "-", "1", "0", "n=96", "steps=3"}, np, changed);
    expect_same_compute(b, predicted_compute(wave3d_model(), changed, np, params), "changed machine");
    EXPECT_GT(b.result.ranks[0].calc_s, 1.5 * a.result.ranks[0].calc_s) << np << " ranks";
  }
}

TEST(SkeletonModelWork, StepByStepCallsAddUpToTheWholeProgram) {
  // wave3d's main is steps x (halo_exchange + leapfrog_step): calling the two
  // functions once per step, each step its own burst (a barrier between), or
  // all merged into one, costs what main costs. On the node without sharing
  // figures: 6 uneven blocks leave the barrier at different moments, and
  // where sharing is measured the engine counts the ranks computing when each
  // burst starts (sim/costs.h), fewer than predict's all-at-once.
  const std::map<std::string, expr::Value> params = {{"n", expr::Value(40)}, {"steps", expr::Value(4)}};
  for (int np : {1, 6}) {
    const auto machine = np == 1 ? shared_node() : plain_node();
    const auto predicted = predicted_compute(wave3d_model(), machine, np, params);
    const SkeletonRun stepped_kernel = simulate_skeleton({wave3d_model(), "leapfrog_step", "4", "1", "n=40"}, np, machine);
    const SkeletonRun stepped_halo = simulate_skeleton({wave3d_model(), "halo_exchange", "4", "1", "n=40"}, np, machine);
    const SkeletonRun merged_kernel = simulate_skeleton({wave3d_model(), "leapfrog_step", "4", "0", "n=40"}, np, machine);
    for (int r = 0; r < np; ++r) {
      const double stepped = stepped_kernel.result.ranks[r].calc_s + stepped_halo.result.ranks[r].calc_s;
      EXPECT_NEAR(stepped, predicted[r], 1e-9 * predicted[r]) << np << " ranks, rank " << r;
      EXPECT_NEAR(merged_kernel.result.ranks[r].calc_s, stepped_kernel.result.ranks[r].calc_s,
                  1e-9 * predicted[r]);
      EXPECT_GT(stepped_halo.result.ranks[r].calc_s, 0);
    }
  }
}

TEST(SkeletonModelWork, McaCyclesArePricedAtTheClock) {
  // A hand-written model whose loop carries cycles_per_iteration: 1e6
  // iterations x 4 cycles at 2 GHz is 2 ms alone, with the busy clock's 1.09
  // at 16 ranks, as predict says.
  const std::string file = (perfcast::testing::scratch() / "mca.model.json").string();
  std::ofstream(file) << R"({"format": "perfcast-program-model", "version": 1, "program": "mca",
    "parameters": {"iters": {"default": "1000000", "integer": true}},
    "entry": "main",
    "functions": {"main": {"line": 1, "body": [
      {"kind": "loop", "line": 2, "var": "i", "trip_count": "iters", "cycles_per_iteration": "4",
       "body": [{"kind": "compute", "line": 3, "flops_double": 2}]}]}}})";
  const auto machine = shared_node();
  const SkeletonRun one = simulate_skeleton({file, "-", "1", "0"}, 1, machine);
  EXPECT_NEAR(one.result.ranks[0].calc_s, 2e-3, 1e-15);
  expect_same_compute(one, predicted_compute(file, machine, 1, {}), "MCA, 1 rank");
  const SkeletonRun sixteen = simulate_skeleton({file, "-", "1", "0", "iters=1000000"}, 16, machine);
  EXPECT_NEAR(sixteen.result.ranks[3].calc_s, 2e-3 * 1.09, 1e-15);
  expect_same_compute(sixteen, predicted_compute(file, machine, 16, {}), "MCA, 16 ranks");
}

TEST(SkeletonModelWork, ADeepChainOfCallsComposesToNumbers) {
  // deep_call_chain.h: main calls the chain with the model's size. Composed
  // with every name symbolic, its counts grow with every level and do not
  // finish; a call's work is composed as predict composes the job's model,
  // with the call's values in place: a number at each level.
  const int depth = 30;
  const std::string file = (perfcast::testing::scratch() / "deep_calls.model.json").string();
  std::ofstream(file) << R"({"format": "perfcast-program-model", "version": 1, "program": "deep_calls",
    "parameters": {"n": {"integer": true}}, "entry": "main", "functions": )"
                      << perfcast::testing::deep_call_chain(
                             depth, R"("main": {"body": [{"kind": "call", "function": "f0", "args": {"a": "n"}}]})")
                      << "}";
  modelsim::ModelWork work;
  const int m = work.load(file);
  for (int n : {5, 9}) {
    const int id = work.work(m, "", {{"n", n}}, 1, 2);
    EXPECT_EQ(work.counts(id).flops_double, perfcast::testing::deep_call_chain_flops(depth, 0, n)) << "n = " << n;
  }
  EXPECT_EQ(work.work(m, "main", {{"n", 5}}, 0, 2), work.work(m, "", {{"n", 5}}, 1, 2)) << "one count for both ranks";

  // Through the engine: each rank's compute is predict's.
  const auto machine = shared_node();
  const SkeletonRun run = simulate_skeleton({file, "-", "2", "1", "n=5"}, 2, machine);
  std::vector<double> twice = predicted_compute(file, machine, 2, {{"n", expr::Value(5)}});
  for (double& s : twice) s *= 2;
  expect_same_compute(run, twice, "the chain, called twice");
}

TEST(SkeletonModelWork, ARefusedCountNamesTheModelsParameters) {
  // Composed with the call's values in place, refused in the model's names.
  const std::string file = (perfcast::testing::scratch() / "refused.model.json").string();
  std::ofstream(file) << R"({"format": "perfcast-program-model", "version": 1, "program": "refused",
    "parameters": {"n": {}}, "entry": "main", "functions": {"main": {"body": [
      {"kind": "compute", "line": 3, "flops_double": "n - 10"}]}}})";
  modelsim::ModelWork work;
  const int m = work.load(file);
  try {
    work.work(m, "", {{"n", 4}}, 0, 1);
    FAIL() << "a negative count was not refused";
  } catch (const UserError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("n - 10"), std::string::npos) << what;
    EXPECT_NE(what.find("-6"), std::string::npos) << what;
  }
}

std::string failure(const std::vector<std::string>& args) {
  try {
    simulate_skeleton(args, 2, shared_node());
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SkeletonModelWork, BadCallsEndTheRankNamingWhatIsWrong) {
  const std::string unknown_function = failure({wave3d_model(), "step_kernel", "1", "0"});
  EXPECT_NE(unknown_function.find("rank 0: BSIM_Add_model_work"), std::string::npos) << unknown_function;
  EXPECT_NE(unknown_function.find("no function 'step_kernel'"), std::string::npos) << unknown_function;
  EXPECT_NE(unknown_function.find("leapfrog_step"), std::string::npos) << "lists the functions: " << unknown_function;
  EXPECT_NE(unknown_function.find("wave3d.model.json"), std::string::npos) << unknown_function;

  const std::string unknown_parameter = failure({wave3d_model(), "-", "1", "0", "grid=64"});
  EXPECT_NE(unknown_parameter.find("BSIM_Add_model_work"), std::string::npos) << unknown_parameter;
  EXPECT_NE(unknown_parameter.find("grid"), std::string::npos) << unknown_parameter;

  const std::string missing = failure({"/nonexistent/model.json", "-", "1", "0"});
  EXPECT_NE(missing.find("BSIM_Model_load"), std::string::npos) << missing;
  EXPECT_NE(missing.find("/nonexistent/model.json"), std::string::npos) << missing;
}

TEST(SkeletonModelWork, TheEngineRefusesWorkItCannotPrice) {
  auto job = sim::skeleton::open_live_skeleton(skeleton(), {wave3d_model(), "-", "1", "0"}, 1, {});
  sim::SimOptions options;
  options.mover = job.get();
  try {
    sim::simulate(*job, shared_node(), options);
    FAIL() << "simulated work without a pricer";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("nothing to price it with"), std::string::npos) << e.what();
  }
}

}  // namespace
