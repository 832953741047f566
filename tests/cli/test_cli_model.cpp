// `perfcast model events`, run as a process: the trace it writes holds the
// streams the model gives (sendrecv sources matched across ranks), and a model
// that gives more events than allowed fails without touching the trace that
// was there. `perfcast model params`: where each default came from.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "events/trace.h"
#include "perfcast_cli.h"
#include "scratch.h"

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

using perfcast::testing::perfcast_run;

// `steps` times: each rank computes `work` flops, then a sendrecv to rank + 1
// (the last rank sends to no one: MPI_PROC_NULL), so rank r receives from r - 1.
std::string shift_model() {
  auto path = perfcast::testing::scratch() / "shift.json";
  std::ofstream(path) << R"json({
  "format": "perfcast-program-model", "version": 1, "program": "shift",
  "parameters": {"work": {"default": "1000"}, "steps": {}},
  "entry": "main",
  "functions": {"main": {"body": [
    {"kind": "loop", "var": "it", "trip_count": "steps", "body": [
      {"kind": "compute", "flops_double": "work"},
      {"kind": "mpi", "op": "sendrecv", "bytes": "1024", "peer": "select(rank + 1 < size, rank + 1, -1)"}]}]}}})json";
  return path.string();
}

// The same loop with a barrier: no sendrecv to match, so events are made only
// as the trace is written.
std::string barrier_model() {
  auto path = perfcast::testing::scratch() / "barrier.json";
  std::ofstream(path) << R"json({
  "format": "perfcast-program-model", "version": 1, "program": "barrier",
  "parameters": {"steps": {}},
  "entry": "main",
  "functions": {"main": {"body": [
    {"kind": "loop", "var": "it", "trip_count": "steps", "body": [
      {"kind": "compute", "flops_double": "1000"},
      {"kind": "mpi", "op": "barrier"}]}]}}})json";
  return path.string();
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(CliModelEvents, TheTraceHoldsTheModelsStreams) {
  auto out = perfcast::testing::scratch() / "shift.trace";
  auto r = perfcast_run({"model", "events", shift_model(), "--np", "3", "--param", "steps=5", "-o", out.string(),
                         "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  auto j = json::parse(r.stdout_text);
  ASSERT_EQ(j["ranks"].size(), 3u);
  for (const auto& rank : j["ranks"]) {
    EXPECT_EQ(rank["events"], 10u);
    EXPECT_EQ(rank["mpi_calls"], 5u);
    EXPECT_EQ(rank["flops"], 5000.0);
  }

  perfcast::events::TraceJobSource trace(out);
  ASSERT_EQ(trace.size(), 3);
  for (int rank = 0; rank < 3; ++rank) {
    auto source = trace.open_rank(rank);
    int sendrecvs = 0;
    for (perfcast::events::Event e; source->next(e, 0);) {
      if (e.kind != perfcast::events::Kind::Sendrecv) continue;
      ++sendrecvs;
      EXPECT_EQ(e.peer, rank < 2 ? rank + 1 : perfcast::events::kProcNull);
      EXPECT_EQ(e.root, rank > 0 ? rank - 1 : perfcast::events::kProcNull) << "rank " << rank;
      EXPECT_EQ(e.bytes2, rank > 0 ? 1024u : 0u);
    }
    EXPECT_EQ(sendrecvs, 5);
  }
}

TEST(CliModelEvents, TooManyEventsFailsAndLeavesTheTraceThatWasThere) {
  auto out = perfcast::testing::scratch() / "kept.trace";
  auto first = perfcast_run({"model", "events", barrier_model(), "--np", "2", "--param", "steps=3", "-o", out.string()});
  ASSERT_EQ(first.exit_code, 0) << first.stderr_text;
  std::string manifest = read_text(out / "trace.json");
  ASSERT_FALSE(manifest.empty());

  // 2 ranks x 2000 steps x 2 events: the 101st, met while rank 0 is being
  // written (the sendrecv model's first pass would meet it before any writing).
  for (const std::string& model : {barrier_model(), shift_model()}) {
    auto r = perfcast_run({"model", "events", model, "--np", "2", "--param", "steps=2000", "--max-events", "100", "-o",
                           out.string()});
    EXPECT_NE(r.exit_code, 0) << model;
    EXPECT_NE(r.stderr_text.find("more than 100 events"), std::string::npos) << r.stderr_text;
    EXPECT_NE(r.stderr_text.find("--max-events"), std::string::npos) << r.stderr_text;
    EXPECT_EQ(read_text(out / "trace.json"), manifest) << model;
  }
  perfcast::events::TraceJobSource kept(out);
  auto rank1 = kept.open_rank(1);
  int events = 0;
  for (perfcast::events::Event e; rank1->next(e, 0);) ++events;
  EXPECT_EQ(events, 6);
  for (const auto& entry : fs::directory_iterator(out.parent_path()))
    EXPECT_EQ(entry.path().filename().string().find(".kept.trace"), std::string::npos)
        << "a staging directory left behind: " << entry.path();
}

// A default a probe run gave because the parameter changes no prediction
// (probe_unpriced.h) is marked so in the list, and every origin is in the JSON.
TEST(CliModelParams, SaysWhichDefaultsDoNotChangeThePrediction) {
  auto path = perfcast::testing::scratch() / "params_origin.json";
  std::ofstream(path) << R"json({
  "format": "perfcast-program-model", "version": 1, "program": "grid",
  "parameters": {
    "n": {"default": "64", "origin": "probe run: `./app` on 2 ranks"},
    "px": {"default": "1", "origin": "probe run: `./app` on 2 ranks, does not change the prediction: no count or time the model prices names it at the run's values"},
    "steps": {}},
  "entry": "main",
  "functions": {"main": {"body": [{"kind": "compute", "flops_double": "n * steps"}]}}})json";
  auto r = perfcast_run({"model", "params", path.string()});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  std::istringstream lines(r.stdout_text);
  std::map<std::string, std::string> line_of;
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("  ")) line_of[line.substr(2, line.find(' ', 2) - 2)] = line;
  EXPECT_NE(line_of["px"].find("[does not change the prediction"), std::string::npos) << r.stdout_text;
  EXPECT_EQ(line_of["n"].find("does not change"), std::string::npos) << r.stdout_text;
  EXPECT_NE(line_of["steps"].find("(required)"), std::string::npos) << r.stdout_text;
  r = perfcast_run({"model", "params", path.string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  std::map<std::string, json> by_name;
  for (const json& p : json::parse(r.stdout_text)) by_name[p["name"].get<std::string>()] = p;
  EXPECT_NE(by_name["px"].value("origin", "").find("does not change the prediction"), std::string::npos);
  EXPECT_EQ(by_name["n"].value("origin", ""), "probe run: `./app` on 2 ranks");
  EXPECT_FALSE(by_name["steps"].contains("origin"));
  EXPECT_FALSE(by_name["steps"].contains("default"));
}

}  // namespace
