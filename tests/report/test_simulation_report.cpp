// The simulation's renderings: its table, its JSON and its Chrome-trace
// timeline, on results the simulator computes for hand-made jobs.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/simulation.h"
#include "report/timeline.h"
#include "sim/sim_test_util.h"

namespace perfcast::report {
namespace {

using namespace sim::test;
using sim::SimResult;

constexpr double us = 1e-6;

TEST(SimulationReport, SubPicosecondNoiseShowsAsZeroJsonKeepsIt) {
  // A wait of 3.903e-18 s is the rounding of end - start - comm: the table shows
  // 0 s (not "3.903e-09 ns"); the JSON keeps the double as computed.
  SimResult r;
  r.ranks = {{1e-3, 3.903e-18, 2e-6, 1.002e-3}, {1e-3, 5e-12, 2e-6, 1.002e-3}};
  r.predicted_time_s = 1.002e-3;
  r.slowest_component = "calc";
  auto table = simulation_table(r, {"noise", "flat"});
  EXPECT_EQ(table.find("e-"), std::string::npos) << table;
  EXPECT_NE(table.find(" 0 s"), std::string::npos) << table;
  EXPECT_NE(table.find("5 ps"), std::string::npos) << "a real 5 ps stays visible:\n" << table;
  EXPECT_EQ(seconds_text(1.211e-16), "0 s") << "as predict --simulate's line shows a rank's wait";
  EXPECT_EQ(seconds_text(2.5e-3), "2.5 ms");
  auto j = simulation_json(r, {"noise", "flat"});
  EXPECT_EQ(j["ranks"][0]["wait_s"].get<double>(), 3.903e-18);
}

TEST(SimulationReport, JsonAndTable) {
  auto r = run({{compute(10 * us), sendrecv(1, 100, 1, 100)}, {compute(2 * us), sendrecv(0, 100, 0, 100)}},
               flat_machine());
  auto j = simulation_json(r, {"two", "flat"});
  for (const char* key : {"predicted_time_s", "events", "mpi_calls", "wall_s", "ranks", "slowest_rank"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["ranks"].size(), 2u);
  EXPECT_EQ(j["slowest_rank"], 1);
  EXPECT_EQ(j["slowest"]["waited_on"], 0);
  EXPECT_EQ(j["ranks"][1]["end_s"].get<double>(), r.ranks[1].end_s);
  auto table = simulation_table(r, {"two", "flat"});
  EXPECT_NE(table.find("mostly wait (mostly for rank 0)"), std::string::npos) << table;
}

TEST(SimulationReport, ManyRanksShowTheSpreadAndTheSlowest) {
  // 40 ranks computing 1..40 us: rank 39 is the slowest, the median is rank 20's 21 us.
  std::vector<std::vector<Event>> ranks;
  for (int r = 0; r < 40; ++r) ranks.push_back({compute((r + 1) * us)});
  auto many = simulation_table(run(ranks, flat_machine()), {"many", "flat"});
  EXPECT_NE(many.find("median"), std::string::npos) << many;
  EXPECT_NE(many.find("slowest rank"), std::string::npos) << many;
  EXPECT_NE(many.find("calc  1 us   21 us  40 us"), std::string::npos) << many;
  EXPECT_NE(many.find("predicted time: 40 us (rank 39, mostly calc)"), std::string::npos) << many;
}

TEST(SimulationReport, WallTimesOnlyWhenAskedFor) {
  auto r = run({{compute(10 * us)}}, flat_machine());
  auto with = sim_result_json(r, true), without = sim_result_json(r, false);
  for (const char* key : {"wall_s", "mpi_calls_per_s", "engine_bytes_per_rank"}) {
    EXPECT_TRUE(with.contains(key)) << key;
    EXPECT_FALSE(without.contains(key)) << key;
  }
}

TEST(SimulationReport, ProgressLine) {
  sim::SimProgress p;
  p.events = 2'500'000;
  p.simulated_s = 0.5;
  p.ranks_done = 3;
  p.ranks = 8;
  p.wall_s = 12;
  EXPECT_EQ(simulation_progress_text(p),
            "simulating: 2.5 M events, simulated clock 0.5 s, 3 of 8 ranks done, 12 s");
}

TEST(SimulationReport, TimelineIsChromeTraceJson) {
  auto path = std::filesystem::temp_directory_path() /
              ("perfcast_report_timeline_test_" + std::to_string(::getpid()) + ".json");
  {
    ChromeTraceWriter writer(path, 2);
    sim::SimOptions options;
    options.timeline = &writer;
    run({{compute(10 * us), sendrecv(1, 100, 1, 100)}, {compute(2 * us), sendrecv(0, 100, 0, 100)}}, flat_machine(),
        options);
    writer.close();
  }
  std::ifstream in(path);
  auto j = nlohmann::json::parse(in);
  int spans = 0, waits = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++spans;
    if (e["cat"] == "wait") {
      ++waits;
      EXPECT_EQ(e["tid"], 1);
      EXPECT_NEAR(e["dur"].get<double>(), 8.0, 1e-9) << "8 us of wait on rank 1";
      EXPECT_EQ(e["name"], "sendrecv wait");
    }
  }
  EXPECT_EQ(waits, 1);
  EXPECT_EQ(spans, 4) << "2 compute, 1 wait, 1 comm";
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace perfcast::report
