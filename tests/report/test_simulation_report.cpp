// The simulation's renderings: its table, its JSON and its Chrome-trace
// timeline, on results the simulator computes for hand-made jobs.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/otf2_timeline.h"
#include "report/simulation.h"
#include "report/timeline.h"
#include "sim/sim_test_util.h"
#include "support/error.h"

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


// The OTF2 archive read back by OTF2's own reader (otf2-print, Debian's
// otf2-tools): every span an Enter and a Leave at its time in nanoseconds, each
// location's events in time order, regions named after the MPI functions.
TEST(SimulationReport, Otf2ArchiveReadsBackWithOtf2Print) {
  auto dir = std::filesystem::temp_directory_path() / ("perfcast_report_otf2_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  {
    Otf2TimelineWriter writer(dir, 2, "test job");
    sim::SimOptions options;
    options.timeline = &writer;
    run({{compute(10 * us), sendrecv(1, 100, 1, 100)}, {compute(2 * us), sendrecv(0, 100, 0, 100)}}, flat_machine(),
        options);
    writer.close();
    EXPECT_EQ(writer.clamped_spans(), 0u);
  }
  ASSERT_TRUE(std::filesystem::exists(dir / "traces.otf2"));
  std::string command = "otf2-print " + (dir / "traces.otf2").string() + " 2>&1";
  std::FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string text;
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) text.append(buffer, n);
  int status = ::pclose(pipe);
  ASSERT_EQ(status, 0) << "otf2-print (Debian's otf2-tools, installed by scripts/setup) failed:\n" << text;
  EXPECT_EQ(text.find("warning"), std::string::npos) << text;
  EXPECT_EQ(text.find("error"), std::string::npos) << text;

  std::istringstream lines(text);
  std::string line;
  int enters = 0, leaves = 0;
  std::map<int, unsigned long long> last_time;
  std::map<std::string, unsigned long long> entered_at;  // "rank region" -> time
  unsigned long long rank1_wait_ns = 0;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string event;
    int location = -1;
    unsigned long long time = 0;
    if (!(fields >> event >> location >> time) || (event != "ENTER" && event != "LEAVE")) continue;
    EXPECT_GE(time, last_time[location]) << "location " << location << " out of order:\n" << text;
    last_time[location] = time;
    auto quote = line.find('"');
    std::string region = line.substr(quote + 1, line.find('"', quote + 1) - quote - 1);
    std::string key = std::to_string(location) + " " + region;
    if (event == "ENTER") {
      ++enters;
      entered_at[key] = time;
    } else {
      ++leaves;
      if (key == "1 MPI_Sendrecv wait") rank1_wait_ns = time - entered_at[key];
    }
  }
  EXPECT_EQ(enters, 4) << "2 compute, 1 wait, 1 comm:\n" << text;
  EXPECT_EQ(leaves, 4) << text;
  EXPECT_EQ(rank1_wait_ns, 8000u) << "8 us of wait on rank 1, in ns:\n" << text;
  std::filesystem::remove_all(dir);
}

TEST(SimulationReport, Otf2ArchiveNeverOverwritesAndLeavesNothingHalfWritten) {
  auto dir = std::filesystem::temp_directory_path() / ("perfcast_report_otf2_exists_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  EXPECT_THROW(Otf2TimelineWriter(dir, 1, "x"), UserError) << "an existing directory is never written into";
  std::filesystem::remove_all(dir);
  {
    Otf2TimelineWriter writer(dir, 1, "abandoned");
    writer.span(0, sim::SpanKind::Compute, events::Kind::Compute, 0, 1e-6);
  }  // no close(): the run failed
  EXPECT_FALSE(std::filesystem::exists(dir));
  for (const auto& entry : std::filesystem::directory_iterator(dir.parent_path()))
    EXPECT_EQ(entry.path().filename().string().find("." + dir.filename().string() + ".partial"), std::string::npos)
        << "scratch left behind: " << entry.path();
}

}  // namespace
}  // namespace perfcast::report
