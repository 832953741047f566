// A deep chain of calls (deep_call_chain.h) through every path that composes a
// model's callees per rank: the event streams of `model events` and `predict
// --simulate` (model_events.h), and the simulator's pricing of them
// (modelsim). Composed symbolically, the chain's counts grow with every level
// and do not finish; composed as predict composes it (the job's shared values
// in place, a call's numbers in its callee), each level is a number. What is
// asserted is the numbers; a return of the growth is caught by the test's
// timeout.
#include <gtest/gtest.h>

#include "deep_call_chain.h"
#include "machine/machine_io.h"
#include "model/costs.h"
#include "model/model_events.h"
#include "model/predict.h"
#include "model/specialise.h"
#include "model_text.h"
#include "modelsim/model_simulation.h"
#include "support/error.h"

using namespace perfcast;
using namespace perfcast::model;
using perfcast::testing::deep_call_chain;
using perfcast::testing::deep_call_chain_flops;
using perfcast::testing::model_from;

namespace {

constexpr int kDepth = 30;
constexpr int kSteps = 3;

// Each step, main calls the chain with a number (n + 1, once n is in place),
// and `mid`, whose MPI calls the streams make one by one, calls it with its
// own parameter: a number only once mid's argument is in place in its body.
ProgramModel chain_model() {
  return model_from(deep_call_chain(kDepth, R"J(
      "main": {"body": [
        {"kind": "loop", "var": "step", "trip_count": "steps", "body": [
          {"kind": "call", "function": "f0", "args": {"a": "n + 1"}},
          {"kind": "call", "function": "mid", "args": {"a": "n"}}]}]},
      "mid": {"parameters": ["a"], "body": [
        {"kind": "mpi", "op": "barrier"},
        {"kind": "call", "function": "f0", "args": {"a": "a"}},
        {"kind": "mpi", "op": "allreduce", "bytes": "8"}]})J"),
                    R"J("parameters": {"n": {}, "steps": {"default": ")J" + std::to_string(kSteps) + R"J("}})J",
                    "deep_calls.json");
}

// By hand: each step, the chain at n + 1 and at n.
double chain_flops(long n) {
  return kSteps * (deep_call_chain_flops(kDepth, 0, n + 1) + deep_call_chain_flops(kDepth, 0, n));
}

}  // namespace

TEST(DeepCalls, ModelEventsComposeTheChainToNumbers) {
  const ProgramModel m = chain_model();
  const std::map<std::string, expr::Value> params{{"n", 5}};
  const int np = 2;
  const double want = chain_flops(5);
  ASSERT_GT(want, 1e9) << "the chain's 2^30 calls";
  // predict's counts, for the same figure.
  const SymbolicCosts folded = symbolic_costs(specialised(m, rank_independent_bindings(m, params, np)));
  const auto streams = model_events(m, np, params);
  ASSERT_EQ(streams.size(), 2u);
  for (int r = 0; r < np; ++r) {
    double flops = 0;
    int bursts = 0;
    for (const auto& e : streams[static_cast<std::size_t>(r)].events)
      if (e.kind == events::Kind::Compute) flops += e.flops, ++bursts;
    EXPECT_EQ(flops, want) << "rank " << r;
    EXPECT_EQ(bursts, 2 * kSteps) << "rank " << r << ": the chain before each of mid's calls";
    EXPECT_EQ(streams[static_cast<std::size_t>(r)].mpi_calls, 2 * kSteps) << "rank " << r;
    EXPECT_EQ(evaluate_rank(folded, bind_rank(m, params, r, np), r).flops_double, want) << "rank " << r;
  }

  // The bursts the simulator prices carry the same counts.
  EventOptions options;
  options.work = true;
  ModelJobSource job(m, np, params, options);
  auto rank1 = job.open_rank(1);
  double work_flops = 0;
  for (events::Event e; rank1->next(e, 0);) {
    if (e.kind != events::Kind::Compute) continue;
    ASSERT_NE(e.live, nullptr);
    double burst = 0;
    for (const auto& run : static_cast<const BurstWork*>(e.live)->runs)
      burst += static_cast<double>(run.repeats) * run.counts->flops_double;
    EXPECT_EQ(burst, e.flops);
    work_flops += burst;
  }
  EXPECT_EQ(work_flops, want);
}

// The work is composed with the job's values in place; a count it refuses is
// named in the model's own names all the same (a model this small is
// composed again as given to say so).
TEST(DeepCalls, ARefusedCountNamesTheModelsParameters) {
  const ProgramModel m = model_from(R"J({"main": {"body": [
      {"kind": "mpi", "op": "barrier"},
      {"kind": "call", "line": 4, "function": "f", "args": {"a": "n"}},
      {"kind": "mpi", "op": "barrier"}]},
    "f": {"parameters": ["a"], "body": [{"kind": "compute", "line": 9, "flops_double": "a - 10"}]}})J",
                                    R"J("parameters": {"n": {}})J", "refused.json");
  try {
    model_events(m, 2, {{"n", 4}});
    FAIL() << "a negative count was not refused";
  } catch (const UserError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("n - 10 with n=4"), std::string::npos) << "the call's argument in the callee: " << what;
    EXPECT_NE(what.find("-6"), std::string::npos) << what;
    EXPECT_NE(what.find("line 9 of f"), std::string::npos) << what;
    EXPECT_NE(what.find("refused.json"), std::string::npos) << what;
  }
}

TEST(DeepCalls, SimulatedComputeIsPredictsRefinedCompute) {
  const ProgramModel m = chain_model();
  const std::map<std::string, expr::Value> params{{"n", 4}};
  const machine::Machine polus = machine::load_machine_file(std::string(PERFCAST_SOURCE_DIR) + "/machines/polus.toml");
  // One rank: its bursts meet the node's load predict prices with.
  const Prediction p =
      predict(m, symbolic_costs(specialised(m, rank_independent_bindings(m, params, 1))), polus, 1, params);
  double refined = 0;
  for (const auto& site : p.ranks.at(0).sites) refined += site.refined_s;
  ASSERT_GT(refined, 0);
  const sim::SimResult simulated = modelsim::simulate_model(m, polus, 1, params);
  ASSERT_EQ(simulated.ranks.size(), 1u);
  EXPECT_NEAR(simulated.ranks[0].calc_s, refined, 1e-9 * refined);
  EXPECT_EQ(simulated.mpi_calls, 2u * kSteps);
}
