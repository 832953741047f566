// `perfcast predict`, run as a process: parameters that are expressions of the
// rank, the overlap refinement (--simulate) in the JSON, and the timed part
// (--baseline-param).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "perfcast_cli.h"
#include "scratch.h"

namespace {

using json = nlohmann::json;

const std::string kMachines = std::string(PERFCAST_SOURCE_DIR) + "/machines/";

using perfcast::testing::perfcast_run;

// Each rank computes `work` flops and exchanges 1 KiB with `peer` (a sendrecv:
// it receives from whoever sends to it), a ring when peer = rank + 1 mod size.
std::string ring_model() {
  auto path = perfcast::testing::scratch() / "ring.json";
  std::ofstream(path) << R"({
  "format": "perfcast-program-model", "version": 1, "program": "ring",
  "parameters": {"work": {}, "peer": {}},
  "entry": "main",
  "functions": {"main": {"body": [
    {"kind": "compute", "flops_double": "work"},
    {"kind": "mpi", "op": "sendrecv", "bytes": "1024", "peer": "peer"}]}}})";
  return path.string();
}

TEST(CliPredict, ParametersMayBeExpressionsOfTheRank) {
  auto r = perfcast_run({"predict", ring_model(), "--machine", kMachines + "polus.toml", "--np", "3", "--json",
                         "--param", "work=1000 * (rank + 1)", "--param", "peer=mod(rank + 1, size)"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  auto j = json::parse(r.stdout_text);
  ASSERT_EQ(j["ranks"].size(), 3u);
  for (int rank = 0; rank < 3; ++rank) EXPECT_EQ(j["ranks"][rank]["flops_double"], 1000.0 * (rank + 1));
  EXPECT_FALSE(j.contains("simulated"));
}

// The estimate named `name` of predict's JSON (null when there is none).
const json& estimate(const json& j, const std::string& name) {
  static const json none;
  for (const auto& e : j["estimates"])
    if (e["name"] == name) return e;
  ADD_FAILURE() << "no estimate " << name;
  return none;
}

TEST(CliPredict, SimulateRunsTheModelsCallsOnTheEngine) {
  auto r = perfcast_run({"predict", ring_model(), "--machine", kMachines + "polus.toml", "--np", "4", "--json",
                         "--simulate", "--param", "work=1e6 * (rank + 1)", "--param", "peer=mod(rank + 1, size)"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  auto j = json::parse(r.stdout_text);
  ASSERT_TRUE(j.contains("simulated"));
  const auto& s = j["simulated"];
  ASSERT_EQ(s["ranks"].size(), 4u);
  // The last rank computes longest; the ring's exchanges make the others wait for it.
  EXPECT_EQ(s["ranks"][3]["wait_s"], 0.0);
  EXPECT_GT(s["ranks"][0]["wait_s"].get<double>(), 0.0);
  EXPECT_GE(s["predicted_time_s"].get<double>(), j["ranks"][3]["compute_s"].get<double>());
  // A rank's simulated result is written as `perfcast simulate` writes it (docs/json.md),
  // and the simulation is one of the prediction's estimates.
  EXPECT_EQ(s["ranks"][s["slowest_rank"].get<int>()]["end_s"], s["predicted_time_s"]);
  EXPECT_FALSE(s["ranks"][3].contains("time_s"));
  const auto& simulated = estimate(j, "simulated");
  EXPECT_EQ(simulated["time_s"], s["predicted_time_s"]);
  EXPECT_EQ(simulated["rank_time_s"].size(), 4u);
}

// The simulation's event budget is predict's own option, named by the error.
TEST(CliPredict, SimulateRefusesMoreEventsThanMaxEvents) {
  std::vector<std::string> args = {"predict", ring_model(), "--machine", kMachines + "polus.toml", "--np", "4",
                                   "--simulate", "--param", "work=1e6", "--param", "peer=mod(rank + 1, size)"};
  auto refused = args;
  refused.insert(refused.end(), {"--max-events", "7"});  // 4 ranks x (a burst and a sendrecv) = 8
  auto r = perfcast_run(refused);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.stderr_text.find("more than 7 events"), std::string::npos) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("--max-events"), std::string::npos) << r.stderr_text;
  auto allowed = args;
  allowed.insert(allowed.end(), {"--max-events", "8", "--json"});
  r = perfcast_run(allowed);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(json::parse(r.stdout_text)["simulated"]["events"], 8u);
}

// A machine file whose clock no core runs at (calibrate's old probe wrote
// 13.6 GHz on an Emerald Rapids Xeon) still prices, with a warning on stderr
// and in the JSON naming the key, the figure and the bound; a sound one has none.
TEST(CliPredict, AClockOutsideWhatHardwareDoesIsWarnedAbout) {
  const std::vector<std::string> args = {"predict", ring_model(), "--machine", kMachines + "polus.toml", "--np", "2",
                                         "--json", "--param", "work=1e6", "--param", "peer=mod(rank + 1, size)"};
  auto sound = perfcast_run(args);
  ASSERT_EQ(sound.exit_code, 0) << sound.stderr_text;
  EXPECT_EQ(sound.stderr_text.find("node.clock"), std::string::npos) << sound.stderr_text;
  auto with = args;
  with.insert(with.end(), {"--set", "node.clock=\"13.6 GHz\""});
  auto r = perfcast_run(with);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("warning: machine 'polus': node.clock = 13.6 GHz, expected at most 6.5 GHz"),
            std::string::npos)
      << r.stderr_text;
  auto j = json::parse(r.stdout_text);
  ASSERT_EQ(j["warnings"].size(), 1u) << j["warnings"].dump();
  EXPECT_NE(j["warnings"][0].get<std::string>().find("node.clock = 13.6 GHz"), std::string::npos);
}

// A model's in-core cycles are its mca.cpu's: on a machine whose node.cpu is
// another CPU, predict says so (stderr and --json warnings) and how to price
// them for it; on the same CPU, or where either is not known, it says nothing.
TEST(CliPredict, InCoreCyclesPricedForAnotherCpuAreWarnedAbout) {
  auto path = perfcast::testing::scratch() / "priced_on_znver3.json";
  std::ofstream(path) << R"({
  "format": "perfcast-program-model", "version": 1, "program": "loop",
  "parameters": {},
  "entry": "main",
  "mca": {"cpu": "znver3"},
  "functions": {"main": {"body": [
    {"kind": "loop", "var": "i", "trip_count": "1000", "cycles_per_iteration": "2.5",
     "body": [{"kind": "compute", "flops_double": "2"}]}]}}})";
  const std::string cpu_warning = "in-core cycles were priced for znver3";
  auto predict = [&](const std::string& model, const std::string& machine, std::vector<std::string> extra) {
    std::vector<std::string> args = {"predict", model, "--machine", machine, "--np", "1"};
    args.insert(args.end(), extra.begin(), extra.end());
    return perfcast_run(args);
  };
  auto text = predict(path.string(), "polus", {});
  ASSERT_EQ(text.exit_code, 0) << text.stderr_text;
  EXPECT_NE(text.stderr_text.find("warning: in-core cycles were priced for znver3 (the model's mca.cpu), the "
                                  "machine's CPU is pwr8 (node.cpu): analyse the program with --machine polus"),
            std::string::npos)
      << text.stderr_text;
  auto j = predict(path.string(), "polus", {"--json"});
  ASSERT_EQ(j.exit_code, 0) << j.stderr_text;
  bool warned = false;
  const json doc = json::parse(j.stdout_text);
  for (const auto& w : doc["warnings"]) warned |= w.get<std::string>().find(cpu_warning) == 0;
  EXPECT_TRUE(warned) << j.stdout_text;

  for (const auto& quiet : {predict(path.string(), "generic-cluster", {"--json"}),  // node.cpu = znver3
                            predict(path.string(), "polus", {"--json", "--set", "node.cpu=\"znver3\""}),
                            predict(path.string(), "petascale", {"--json"}),  // names no CPU
                            predict(ring_model(), "polus", {"--json", "--param", "work=1", "--param", "peer=0"})}) {
    ASSERT_EQ(quiet.exit_code, 0) << quiet.stderr_text;
    EXPECT_EQ(quiet.stderr_text.find(cpu_warning), std::string::npos) << quiet.stderr_text;
    EXPECT_EQ(json::parse(quiet.stdout_text)["warnings"].dump().find("in-core cycles were priced"), std::string::npos);
  }
}

TEST(CliPredict, AnExpressionForAnUnknownParameterIsAClearError) {
  auto r = perfcast_run({"predict", ring_model(), "--machine", kMachines + "polus.toml", "--np", "2", "--param",
                         "nope=rank", "--param", "work=1", "--param", "peer=0"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.stderr_text.find("no parameter 'nope'"), std::string::npos) << r.stderr_text;
}

TEST(CliPredict, AParameterThatIsNoExpressionIsAClearError) {
  auto r = perfcast_run({"predict", ring_model(), "--machine", kMachines + "polus.toml", "--np", "2", "--param",
                         "work=rank +", "--param", "peer=0"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.stderr_text.find("--param work"), std::string::npos) << r.stderr_text;
}

// A set-up that streams memory, then `steps` steps that compute and exchange
// 1 KiB around a ring.
std::string time_loop_model() {
  auto path = perfcast::testing::scratch() / "time_loop.json";
  std::ofstream(path) << R"J({
  "format": "perfcast-program-model", "version": 1, "program": "time_loop",
  "parameters": {"steps": {}},
  "entry": "main",
  "functions": {"main": {"body": [
    {"kind": "compute", "load_bytes": "1000000000"},
    {"kind": "loop", "line": 5, "trip_count": "steps", "body": [
      {"kind": "compute", "flops_double": "10000000"},
      {"kind": "mpi", "op": "sendrecv", "line": 7, "bytes": "1024", "peer": "mod(rank + 1, size)"}]}]}}})J";
  return path.string();
}

// The timed part: every count and estimate of the steps alone; the simulated
// estimate is the run's simulation less the baseline's.
TEST(CliPredict, BaselineParamPredictsTheTimedPart) {
  const std::vector<std::string> args = {"predict", time_loop_model(), "--machine", kMachines + "polus.toml",
                                         "--np", "2", "--json", "--simulate", "--param", "steps=10"};
  auto whole = perfcast_run(args);
  ASSERT_EQ(whole.exit_code, 0) << whole.stderr_text;
  EXPECT_FALSE(json::parse(whole.stdout_text).contains("baseline_parameters"));
  auto with_baseline = args;
  with_baseline.insert(with_baseline.end(), {"--baseline-param", "steps=0"});
  auto r = perfcast_run(with_baseline);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  auto j = json::parse(r.stdout_text);
  EXPECT_EQ(j["baseline_parameters"], json::array({"steps=0"}));
  for (const auto& rank : j["ranks"]) {
    EXPECT_EQ(rank["flops_double"], 10 * 1e7);
    EXPECT_EQ(rank["load_bytes"], 0.0);  // the set-up's stream is not in the timed part
    EXPECT_EQ(rank["mpi_calls"], 10.0);
  }
  const auto& sim = estimate(j, "simulated");
  EXPECT_DOUBLE_EQ(sim["time_s"].get<double>(), j["simulated"]["predicted_time_s"].get<double>() -
                                                     j["baseline_simulated"]["predicted_time_s"].get<double>());
  // "simulated" is the run's whole simulation, as without a baseline.
  const auto whole_simulated = json::parse(whole.stdout_text)["simulated"];
  EXPECT_EQ(j["simulated"]["predicted_time_s"], whole_simulated["predicted_time_s"]);
  EXPECT_EQ(j["simulated"]["ranks"], whole_simulated["ranks"]);
  EXPECT_LT(j["baseline_simulated"]["predicted_time_s"].get<double>(), whole_simulated["predicted_time_s"].get<double>());
}

// With noise in the machine file, --simulate also simulates under it: each step
// of the time loop (its flops; the timed part leaves out the set-up's stream)
// at a drawn stretch of 2 or 3, so slower than undisturbed; the same seed
// gives the same figure. Without noise, the reason it is absent.
TEST(CliPredict, SimulateUnderTheMachinesNoiseIsItsOwnEstimate) {
  const std::vector<std::string> args = {"predict", time_loop_model(), "--machine", kMachines + "polus.toml",
                                         "--np", "2", "--json", "--simulate", "--param", "steps=10",
                                         "--baseline-param", "steps=0"};
  auto plain = perfcast_run(args);
  ASSERT_EQ(plain.exit_code, 0) << plain.stderr_text;
  EXPECT_EQ(estimate(json::parse(plain.stdout_text), "simulated-noisy")["unavailable"],
            "the machine file has no node.noise");
  auto noisy_args = args;
  noisy_args.insert(noisy_args.end(), {"--set", "node.noise={ quantum = \"20 us\", stretch = [2.0, 3.0] }",
                                       "--noise-seed", "5"});
  auto first = perfcast_run(noisy_args), again = perfcast_run(noisy_args);
  ASSERT_EQ(first.exit_code, 0) << first.stderr_text;
  ASSERT_EQ(again.exit_code, 0) << again.stderr_text;
  const json j = json::parse(first.stdout_text);
  const double simulated = estimate(j, "simulated")["time_s"].get<double>();
  const double noisy = estimate(j, "simulated-noisy")["time_s"].get<double>();
  EXPECT_GT(noisy, 1.5 * simulated) << "every burst at least 2x its in-core time";
  EXPECT_EQ(estimate(json::parse(again.stdout_text), "simulated-noisy")["time_s"],
            estimate(j, "simulated-noisy")["time_s"]);
}

// predict names the estimate to read first: the text's first result line and
// the JSON's `estimate`, the noisy one with its range where the machine file
// has noise, the refined one, a lower bound, where it has none.
TEST(CliPredict, TheFirstResultLineIsTheEstimateToReadWithItsRange) {
  const std::vector<std::string> args = {"predict", time_loop_model(), "--machine", kMachines + "polus.toml",
                                         "--np", "2", "--param", "steps=10"};
  auto quiet_args = args;
  quiet_args.push_back("--json");
  auto quiet = perfcast_run(quiet_args);
  ASSERT_EQ(quiet.exit_code, 0) << quiet.stderr_text;
  const json q = json::parse(quiet.stdout_text);
  EXPECT_EQ(q["estimate"]["which"], "refined");
  EXPECT_EQ(q["estimate"]["time_s"], q["refined_time_s"]);
  EXPECT_EQ(q["estimate"]["envelope_s"][0], q["refined_time_s"]);
  EXPECT_TRUE(q["estimate"]["envelope_s"][1].is_null()) << "no node.noise: no slowest state";

  auto noisy_args = args;
  noisy_args.insert(noisy_args.end(), {"--set", "node.noise={ quantum = \"20 us\", stretch = [1.0, 2.0, 3.0] }"});
  auto text = perfcast_run(noisy_args);
  noisy_args.push_back("--json");
  auto noisy = perfcast_run(noisy_args);
  ASSERT_EQ(text.exit_code, 0) << text.stderr_text;
  ASSERT_EQ(noisy.exit_code, 0) << noisy.stderr_text;
  const json j = json::parse(noisy.stdout_text);
  EXPECT_EQ(j["estimate"]["which"], "noisy");
  EXPECT_EQ(j["estimate"]["time_s"], j["noisy_time_s"]);
  EXPECT_EQ(j["estimate"]["envelope_s"][0], j["refined_time_s"]);
  EXPECT_EQ(j["estimate"]["envelope_s"][1], j["noisy_slowest_state_time_s"]);
  EXPECT_GT(j["noisy_time_s"].get<double>(), j["refined_time_s"].get<double>()) << "a stretch of 2 on average";
  EXPECT_EQ(j["estimate"]["inside_envelope"], true);
  // The first line after the header and the placement is that estimate.
  std::vector<std::string> lines;
  for (size_t at = 0, end; at < text.stdout_text.size(); at = end + 1) {
    end = text.stdout_text.find('\n', at);
    if (end == std::string::npos) end = text.stdout_text.size();
    if (end > at) lines.push_back(text.stdout_text.substr(at, end - at));
  }
  ASSERT_GE(lines.size(), 3u) << text.stdout_text;
  EXPECT_EQ(lines[2].rfind("estimate: ", 0), 0u) << text.stdout_text;
  EXPECT_NE(lines[2].find("(noisy, read first)"), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find("(refined: the fastest state, a lower bound)"), std::string::npos) << lines[2];
  EXPECT_NE(text.stdout_text.find("\nrefined (the fastest state, a lower bound): "), std::string::npos);
}

TEST(CliPredict, ABaselineDoingMoreThanTheRunIsAClearError) {
  auto r = perfcast_run({"predict", time_loop_model(), "--machine", kMachines + "polus.toml", "--np", "2",
                         "--param", "steps=2", "--baseline-param", "steps=5"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.stderr_text.find("steps = 2 in the run, 5 in the baseline"), std::string::npos) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("--baseline-param"), std::string::npos) << r.stderr_text;
  r = perfcast_run({"predict", time_loop_model(), "--machine", kMachines + "polus.toml", "--np", "2", "--param",
                    "steps=2", "--baseline-param", "steps"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.stderr_text.find("--baseline-param 'steps' is not NAME=VALUE"), std::string::npos) << r.stderr_text;
}

// Where the ranks sit is shown. 64 ranks of a ring on generic-cluster (64
// cores a node) all sit on node 0, so --set network.latency prices no message:
// the file gives its own intra-node figures. The prediction and the
// simulation say so, and the time does not move. Spread over the nodes, the
// same --set is no warning and moves it. On polus, whose intra-node latency
// follows network.latency, the --set does price the messages: no warning.
TEST(CliPredict, RanksOnOneNodeAreShownAndANetworkSetThatPricesNothingIsAWarning) {
  auto run = [&](const std::string& machine, int np, std::vector<std::string> extra) {
    std::vector<std::string> a = {"predict", ring_model(), "--machine", kMachines + machine, "--np",
                                  std::to_string(np), "--param", "work=1e6", "--param", "peer=mod(rank + 1, size)",
                                  "--simulate"};
    a.insert(a.end(), extra.begin(), extra.end());
    return perfcast_run(a);
  };
  auto text = run("generic-cluster.toml", 64, {});
  ASSERT_EQ(text.exit_code, 0) << text.stderr_text;
  EXPECT_NE(text.stdout_text.find("placement: 64 ranks on 1 of 16 nodes (64 a node), 64 cores: all on node 0, no "
                                  "message crosses the network"),
            std::string::npos)
      << text.stdout_text;
  EXPECT_EQ(text.stderr_text.find("warning"), std::string::npos) << "no --set: the line says it, no warning";

  auto base = run("generic-cluster.toml", 64, {"--json"});
  auto slow = run("generic-cluster.toml", 64, {"--json", "--set", "network.latency=\"1 ms\""});
  ASSERT_EQ(slow.exit_code, 0) << slow.stderr_text;
  EXPECT_NE(slow.stderr_text.find("warning: --set network.latency: all 64 ranks sit on node 0 of the machine's 16"),
            std::string::npos)
      << slow.stderr_text;
  auto b = json::parse(base.stdout_text), s = json::parse(slow.stdout_text);
  EXPECT_EQ(s["placement"]["nodes"], 1);
  EXPECT_EQ(s["placement"]["one_node_of_many"], true);
  EXPECT_EQ(s["placement"]["ranks_per_node"]["max"], 64);
  ASSERT_EQ(s["placement"]["warnings"].size(), 1u);
  EXPECT_EQ(s["warnings"], s["placement"]["warnings"]);
  EXPECT_EQ(s["simulated"]["placement"]["warnings"], s["placement"]["warnings"]);
  EXPECT_TRUE(b["placement"]["warnings"].empty());
  EXPECT_EQ(s["refined_time_s"], b["refined_time_s"]);
  EXPECT_EQ(s["simulated"]["predicted_time_s"], b["simulated"]["predicted_time_s"]);

  auto spread = run("generic-cluster.toml", 64,
                    {"--json", "--set", "mapping.policy=round_robin", "--set", "network.latency=\"1 ms\""});
  ASSERT_EQ(spread.exit_code, 0) << spread.stderr_text;
  auto j = json::parse(spread.stdout_text);
  EXPECT_EQ(j["placement"]["nodes"], 16);
  EXPECT_EQ(j["placement"]["one_node_of_many"], false);
  EXPECT_TRUE(j["placement"]["warnings"].empty());
  EXPECT_GT(j["refined_time_s"].get<double>(), b["refined_time_s"].get<double>() + 0.9e-3);

  auto polus = run("polus.toml", 4, {"--json", "--set", "network.latency=\"1 ms\""});
  ASSERT_EQ(polus.exit_code, 0) << polus.stderr_text;
  EXPECT_EQ(polus.stderr_text.find("warning"), std::string::npos) << polus.stderr_text;
  EXPECT_EQ(json::parse(polus.stdout_text)["placement"]["one_node_of_many"], true);

  // A collective without a [[collective]] table (generic-cluster has none) on one
  // node: every estimate prices it at the node's own figures, so the --set moves
  // none of them, the plain formula's included, and the warning speaks of every message.
  auto collective = perfcast::testing::scratch() / "allreduce.json";
  std::ofstream(collective) << R"({"format": "perfcast-program-model", "version": 1, "program": "reduce",
    "entry": "main", "functions": {"main": {"body": [
      {"kind": "compute", "flops_double": "1e6"},
      {"kind": "mpi", "op": "allreduce", "bytes": "65536", "count": "10"}]}}})";
  auto reduce = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = {"predict", collective.string(), "--machine", kMachines + "generic-cluster.toml",
                                  "--np", "8", "--simulate", "--json"};
    a.insert(a.end(), extra.begin(), extra.end());
    return perfcast_run(a);
  };
  auto reduce_base = reduce({}), reduce_slow = reduce({"--set", "network.latency=\"1 ms\"", "--set",
                                                       "network.bandwidth=\"1 MB/s\""});
  ASSERT_EQ(reduce_base.exit_code, 0) << reduce_base.stderr_text;
  ASSERT_EQ(reduce_slow.exit_code, 0) << reduce_slow.stderr_text;
  EXPECT_NE(reduce_slow.stderr_text.find("every message, point-to-point or a collective's, takes the intra-node "
                                         "figures, which these do not change"),
            std::string::npos)
      << reduce_slow.stderr_text;
  auto rb = json::parse(reduce_base.stdout_text), rs = json::parse(reduce_slow.stdout_text);
  EXPECT_GT(rb["predicted_time_s"].get<double>(), 0);
  for (const char* estimate : {"predicted_time_s", "refined_time_s"}) EXPECT_EQ(rs[estimate], rb[estimate]) << estimate;
  EXPECT_EQ(rs["simulated"]["predicted_time_s"], rb["simulated"]["predicted_time_s"]);
}

// More ranks than cores: the placement says oversubscribed, with the ranks a
// core, in the text, the JSON and a warning, and the job runs at the nodes' peak at most.
TEST(CliPredict, OversubscriptionIsShownAndPriced) {
  auto model = perfcast::testing::scratch() / "busy.json";
  std::ofstream(model) << R"({"format": "perfcast-program-model", "version": 1, "program": "busy", "entry": "main",
    "functions": {"main": {"body": [{"kind": "compute", "flops_double": "5.3e9"}]}}})";
  auto r = perfcast_run({"predict", model.string(), "--machine", kMachines + "polus.toml", "--np", "160", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("warning: oversubscribed: 160 ranks on the 80 cores of 4 nodes, up to 2 ranks a core"),
            std::string::npos)
      << r.stderr_text;
  auto j = json::parse(r.stdout_text);
  EXPECT_EQ(j["placement"]["oversubscribed"], true);
  EXPECT_EQ(j["placement"]["oversubscribed_nodes"], 4);
  EXPECT_EQ(j["placement"]["ranks_per_core"], 2.0);
  EXPECT_DOUBLE_EQ(j["predicted_time_s"].get<double>(), 2.0);  // 5.3 Gflop at 5.3 Gflop/s, half a core
  auto text = perfcast_run({"predict", model.string(), "--machine", kMachines + "polus.toml", "--np", "160"});
  EXPECT_NE(text.stdout_text.find("oversubscribed: up to 2 ranks a core"), std::string::npos) << text.stdout_text;
}

}  // namespace
