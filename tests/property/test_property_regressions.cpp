// The smallest inputs of what the property harness (property.py) found, each as the
// test that would have caught it. DISABLED_ ones are not fixed yet: each says what
// is wrong and where the fix belongs; enable it with the fix.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "perfcast_cli.h"
#include "scratch.h"

namespace {

using json = nlohmann::json;
using perfcast::testing::perfcast_run;

const std::string kPolus = std::string(PERFCAST_SOURCE_DIR) + "/machines/polus.toml";

std::string write(const std::string& name, const std::string& text) {
  auto path = perfcast::testing::scratch() / name;
  std::ofstream(path) << text;
  return path.string();
}

int error_lines(const std::string& stderr_text) {
  std::istringstream in(stderr_text);
  int n = 0;
  for (std::string line; std::getline(in, line);) n += line.rfind("perfcast: error:", 0) == 0;
  return n;
}

// A model whose main runs `body` (JSON items).
std::string model(const std::string& name, const std::string& body, const std::string& main_extra = "") {
  return write(name, R"({"format": "perfcast-program-model", "version": 1, "program": "t", "entry": "main",
  "functions": {"main": {)" + main_extra + R"("body": [)" + body + "]}}}");
}

// --set with a name under a key an earlier --set made an array: the walk reached
// std::stoul with the name and died as an internal error (exit 3).
TEST(PropertyRegressions, SetANameUnderAnArrayIsAUserError) {
  auto r = perfcast_run({"machine", "show", kPolus, "--set", "node=[1, 2]", "--set", "node.cores=4"});
  EXPECT_EQ(r.exit_code, 1) << r.stderr_text;
  EXPECT_EQ(error_lines(r.stderr_text), 1) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("'cores' is not an index"), std::string::npos) << r.stderr_text;
  EXPECT_EQ(r.stdout_text, "");
}

// A function's "line" that is not a number: read unchecked, nlohmann's type_error
// escaped as an internal error (exit 3) instead of an error naming '/functions/main/line'.
TEST(PropertyRegressions, AFunctionLineThatIsNotANumberIsAUserError) {
  auto r = perfcast_run({"predict", model("line.json", R"({"kind": "compute", "flops_double": "1"})", R"("line": "12", )"),
                         "--machine", kPolus, "--np", "1"});
  EXPECT_EQ(r.exit_code, 1) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("/functions/main/line"), std::string::npos) << r.stderr_text;
}

// A function's "parameters" that is not an array of names: the loader iterated
// whatever JSON value it was, so "a" and {"x": "y"} were accepted as lists.
TEST(PropertyRegressions, FunctionParametersMustBeAnArrayOfNames) {
  auto r = perfcast_run({"predict", model("params.json", R"({"kind": "compute", "flops_double": "1"})", R"("parameters": "a", )"),
                         "--machine", kPolus, "--np", "1"});
  EXPECT_EQ(r.exit_code, 1) << r.stdout_text;
  EXPECT_NE(r.stderr_text.find("/functions/main/parameters"), std::string::npos) << r.stderr_text;
}

// docs/program-model.md: every count an item contributes must be >= 0, else an error
// naming the function and the line. src/model/costs.cpp checked each site's composed
// total only, so a negative item (or a negative trip count) was subtracted from the
// rest of its site unseen: 1000 flops and -5 flops predicted 995. Each item's own
// counts are now checked where it runs (SymbolicCosts::checks).
TEST(PropertyRegressions, ANegativeItemCountIsAnErrorEvenWhenTheTotalIsPositive) {
  auto r = perfcast_run({"predict",
                         model("negative.json", R"({"kind": "compute", "line": 1, "flops_double": "1000"},
                                                  {"kind": "compute", "line": 2, "flops_double": "0 - 5"})"),
                         "--machine", kPolus, "--np", "1", "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.stdout_text;
  EXPECT_EQ(error_lines(r.stderr_text), 1) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("main"), std::string::npos) << r.stderr_text;
  bool names_line = r.stderr_text.find("main:2") != std::string::npos || r.stderr_text.find("line 2") != std::string::npos;
  EXPECT_TRUE(names_line) << r.stderr_text;
}

TEST(PropertyRegressions, ANegativeTripCountIsAnError) {
  auto r = perfcast_run({"predict",
                         model("trips.json", R"({"kind": "compute", "line": 1, "flops_double": "1000"},
                                               {"kind": "loop", "line": 2, "trip_count": "0 - 3",
                                                "body": [{"kind": "compute", "line": 3, "flops_double": "10"}]})"),
                         "--machine", kPolus, "--np", "1", "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.stdout_text;
  EXPECT_EQ(error_lines(r.stderr_text), 1) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("in function 'main', the item at line 2: the trip count of the loop at line 2 of main "
                                "evaluates to -3"),
            std::string::npos)
      << r.stderr_text;
}

// More ranks than cores on the same nodes: the ranks share the cores, so the job
// cannot do more flops per second than the nodes' peak. Polus has 4 nodes of 20
// cores at 5.3 Gflop/s (424 Gflop/s); 160 ranks of 5.3 Gflop each need >= 2 s.
// predict priced each rank at a whole core and the simulator ran every rank's bursts at
// a whole core, so both said 1 s; now machine::NodeLoad gives each rank its share.
TEST(PropertyRegressions, PredictOversubscribedRanksShareTheirCores) {
  auto r = perfcast_run({"predict", model("busy.json", R"({"kind": "compute", "flops_double": "5.3e9"})"),
                         "--machine", kPolus, "--np", "160", "--json", "--simulate"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  auto j = json::parse(r.stdout_text);
  double peak = 4 * 20 * 5.3e9, flops = 160 * 5.3e9;
  EXPECT_LE(flops / j["predicted_time_s"].get<double>(), peak * (1 + 1e-9));
  EXPECT_LE(flops / j["refined_time_s"].get<double>(), peak * (1 + 1e-9));
  EXPECT_LE(flops / j["simulated"]["predicted_time_s"].get<double>(), peak * (1 + 1e-9));
}

TEST(PropertyRegressions, SimulateOversubscribedRanksShareTheirCores) {
  std::string text = "# perfcast events 1\n";
  for (int r = 0; r < 160; ++r) text += "rank " + std::to_string(r) + "\ncompute flops=5.3e9\n";
  auto r = perfcast_run({"simulate", "--machine", kPolus, write("busy.txt", text), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  auto j = json::parse(r.stdout_text);
  EXPECT_GE(j["predicted_time_s"].get<double>(), 2.0 * (1 - 1e-9));
}

// A burst or a message whose time passes the largest double: the engine's clocks
// became infinity and the JSON writer printed null, with exit 0. Now an error
// (src/sim/engine.cpp) naming the rank.
TEST(PropertyRegressions, SimulatedTimeThatOverflowsIsAnError) {
  auto burst = perfcast_run({"simulate", "--machine", kPolus,
                             write("overflow.txt", "# perfcast events 1\nrank 0\ncompute 1.7e308\ncompute 1.7e308\n"),
                             "--json"});
  EXPECT_EQ(burst.exit_code, 1) << burst.stdout_text;
  EXPECT_EQ(burst.stdout_text, "");
  EXPECT_EQ(error_lines(burst.stderr_text), 1) << burst.stderr_text;
  EXPECT_NE(burst.stderr_text.find("rank 0"), std::string::npos) << burst.stderr_text;
  auto message = perfcast_run(
      {"simulate", "--machine", kPolus, "--set", "network.bandwidth=\"1e-300 B/s\"",
       write("slow.txt", "# perfcast events 1\nrank 0\nsend peer=1 bytes=18446744073709551615\n"
                         "rank 1\nrecv peer=0 bytes=18446744073709551615\n"),
       "--json"});
  EXPECT_EQ(message.exit_code, 1) << message.stdout_text;
  EXPECT_EQ(message.stdout_text, "");
  EXPECT_NE(message.stderr_text.find("overflows"), std::string::npos) << message.stderr_text;
}

// The same for predict: two messages at a latency of 1e308 s add up to infinity,
// which was printed as a null predicted_time_s with exit 0.
TEST(PropertyRegressions, PredictedTimeThatOverflowsIsAnError) {
  auto r = perfcast_run({"predict",
                         model("latency.json", R"({"kind": "mpi", "op": "allreduce", "bytes": "8"},
                                                 {"kind": "mpi", "op": "allreduce", "bytes": "8"})"),
                         "--machine", kPolus, "--np", "2", "--json", "--set", "network.latency=\"1e308 s\""});
  if (r.exit_code == 0) {
    auto j = json::parse(r.stdout_text);
    EXPECT_TRUE(j["predicted_time_s"].is_number()) << j["predicted_time_s"];
  } else {
    EXPECT_EQ(r.exit_code, 1) << r.stderr_text;
    EXPECT_EQ(error_lines(r.stderr_text), 1) << r.stderr_text;
  }
}

// docs/machine-format.md: "a communicator of one rank moves nothing". The refined
// prediction and the simulation price a 1-rank allreduce of 1 GB at 0 s, and so
// does the plain formula (it charged latency + 1 GB / bandwidth).
TEST(PropertyRegressions, ACollectiveOfOneRankMovesNothingInThePlainFormula) {
  auto r = perfcast_run({"predict", model("alone.json", R"({"kind": "mpi", "op": "allreduce", "bytes": "1e9"})"),
                         "--machine", kPolus, "--np", "1", "--json", "--simulate"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  auto j = json::parse(r.stdout_text);
  EXPECT_EQ(j["simulated"]["predicted_time_s"].get<double>(), 0.0);
  EXPECT_EQ(j["predicted_time_s"].get<double>(), j["simulated"]["predicted_time_s"].get<double>());
}

// docs/program-model.md: an error in a model's content names "the function, the line,
// the expression". What the loader finds named the file and the JSON path; what only
// evaluation finds (a division by zero, a name without a value, a negative count, an
// unknown callee) named neither the file nor the item's line. Now model::ModelItemError
// is raised once where the item is known (costs.cpp, model_events.cpp), so predict,
// predict --simulate and model events all name file, function and line.
TEST(PropertyRegressions, EvaluationErrorsNameTheModelFileTheFunctionAndTheLine) {
  struct Case {
    const char* name;
    std::string body;
    const char* must;  // what is wrong, besides where
  };
  const Case cases[] = {
      {"divide.json", R"({"kind": "compute", "line": 7, "flops_double": "1000"},
                         {"kind": "compute", "line": 41, "store_bytes": "n / 0"})", "division by zero"},
      {"unknown.json", R"({"kind": "loop", "line": 7, "trip_count": "10", "body": [
                           {"kind": "compute", "line": 41, "flops_double": "zq_nowhere + 1"}]})", "zq_nowhere"},
      {"negative.json", R"({"kind": "compute", "line": 7, "flops_double": "1000"},
                           {"kind": "compute", "line": 41, "loads": "0 - 5 * n"})", "-20"},
      {"callee.json", R"({"kind": "compute", "line": 7, "flops_double": "1"},
                         {"kind": "call", "line": 41, "function": "zq_missing_fn"})", "zq_missing_fn"},
  };
  for (const auto& c : cases) {
    const std::string path = write(c.name, std::string(R"({"format": "perfcast-program-model", "version": 1,
      "program": "t", "entry": "main", "parameters": {"n": {"default": 4}},
      "functions": {"main": {"body": [)") + c.body + "]}}}");
    const std::vector<std::vector<std::string>> commands = {
        {"predict", path, "--machine", kPolus, "--np", "2", "--json"},
        {"predict", path, "--machine", kPolus, "--np", "2", "--json", "--simulate"},
        {"model", "events", path, "--np", "2", "-o", (perfcast::testing::scratch() / "events_out").string()}};
    for (const auto& command : commands) {
      auto r = perfcast_run(command);
      SCOPED_TRACE(c.name + std::string(" ") + command[0] + " " + command.back());
      EXPECT_EQ(r.exit_code, 1) << r.stderr_text;
      EXPECT_EQ(r.stdout_text, "");
      EXPECT_EQ(error_lines(r.stderr_text), 1) << r.stderr_text;
      EXPECT_NE(r.stderr_text.find(path), std::string::npos) << r.stderr_text;
      EXPECT_NE(r.stderr_text.find("function 'main'"), std::string::npos) << r.stderr_text;
      EXPECT_NE(r.stderr_text.find("line 41"), std::string::npos) << r.stderr_text;
      EXPECT_NE(r.stderr_text.find(c.must), std::string::npos) << r.stderr_text;
    }
  }
}

}  // namespace
