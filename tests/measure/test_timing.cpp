// Timing real MPI runs of a probe program with the pinned Open MPI.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "measure/app_time.h"
#include "measure/launcher.h"
#include "measure/timing.h"
#include "support/error.h"

using namespace perfcast::measure;

namespace {
const std::string probe = std::string(PERFCAST_BINARY_DIR) + "/tests/bin/mpi_probe";
}

TEST(Launcher, MpiRunGetsTheCommunicatorSizeAsked) {
  ProcessResult r = run_mpi({.ranks = 2, .program = {probe, "--work", "0.001"}});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  auto j = last_json_line(r.stdout_text);
  ASSERT_TRUE(j.is_object()) << r.stdout_text;
  EXPECT_EQ(j["ranks"], 2);
}

TEST(Launcher, PinsOnlyWhenRanksFitOnCores) {
  auto pinned = mpirun_command({.ranks = 1, .program = {probe}});
  EXPECT_NE(std::find(pinned.begin(), pinned.end(), "core"), pinned.end());
  auto crowded = mpirun_command({.ranks = online_cores() + 1, .program = {probe}});
  EXPECT_EQ(std::find(crowded.begin(), crowded.end(), "core"), crowded.end());
  EXPECT_EQ(crowded.front(), "mpirun.openmpi");
}

// Polling only where the job has its cores to itself: a pinned launch that
// fits. Everything else yields, so jobs sharing cores do not spin against each
// other; and a launch asks for polling, it is never the default.
TEST(Launcher, RanksBusyPollOnlyWhenAskedAndPinned) {
  auto yields = [](const std::vector<std::string>& cmd) {
    return std::find(cmd.begin(), cmd.end(), "mpi_yield_when_idle") != cmd.end();
  };
  EXPECT_TRUE(yields(mpirun_command({.ranks = 1, .program = {probe}})));
  MpiLaunch polled{.ranks = 1, .program = {probe}, .busy_poll = true};
  EXPECT_FALSE(yields(mpirun_command(polled)));
  EXPECT_TRUE(launch_busy_polls(polled));
  MpiLaunch unpinned{.ranks = 1, .program = {probe}, .pin = false, .busy_poll = true};
  EXPECT_TRUE(yields(mpirun_command(unpinned)));
  MpiLaunch crowded{.ranks = online_cores() + 1, .program = {probe}, .busy_poll = true};
  EXPECT_TRUE(yields(mpirun_command(crowded)));
  EXPECT_FALSE(launch_busy_polls(crowded));
}

TEST(Timing, APolledRunSaysSoAndGetsItsCommunicatorSize) {
  TimingResult r = time_mpi_runs({.ranks = 2, .program = {probe, "--work", "0.001"}, .busy_poll = true},
                                 TimingOptions{.repeats = 1, .warmups = 0});
  EXPECT_EQ(r.last_app_result["ranks"], 2);
  EXPECT_TRUE(r.busy_poll);
  EXPECT_EQ(to_json(r)["busy_poll"], true);
}

TEST(Launcher, MissingProgramIsAClearError) {
  try {
    run_mpi({.ranks = 1, .program = {"/no/such/program"}});
    FAIL();
  } catch (const perfcast::UserError& e) {
    EXPECT_NE(std::string(e.what()).find("/no/such/program"), std::string::npos);
  }
}

TEST(Launcher, TimeoutKillsTheJob) {
  ProcessResult r = run_process({"sleep", "30"}, std::chrono::duration<double>(0.3));
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.wall_s, 10);
}

TEST(Timing, RepeatsAndSummarisesBothTimes) {
  TimingOptions options{.repeats = 5, .warmups = 1};
  int calls = 0, warmups = 0;
  TimingResult r = time_mpi_runs({.ranks = 2, .program = {probe, "--work", "0.02"}}, options,
                                 [&](int, int total, bool warmup) {
                                   ++calls;
                                   warmups += warmup;
                                   EXPECT_EQ(total, 6);
                                 });
  EXPECT_EQ(calls, 6);
  EXPECT_EQ(warmups, 1);
  ASSERT_EQ(r.samples.size(), 5u);
  EXPECT_EQ(r.last_app_result["ranks"], 2);
  EXPECT_FALSE(r.oversubscribed);
  EXPECT_TRUE(r.pinned);
  ASSERT_TRUE(r.app_time.has_value());
  // The probe spins 20 ms; its own time cannot be below that, and the launch
  // (with MPI start-up) cannot be shorter than the region it contains.
  EXPECT_GE(r.app_time->min, 0.02);
  EXPECT_GE(r.wall.min, r.app_time->min);
  EXPECT_LE(r.wall.q1, r.wall.median);
  EXPECT_LE(r.wall.median, r.wall.q3);
  auto j = to_json(r);
  EXPECT_EQ(j["wall_s"]["samples"].size(), 5u);
  EXPECT_DOUBLE_EQ(j["app_time_s"]["median"].get<double>(), r.app_time->median);
}

TEST(Timing, MoreRanksThanCoresIsLabelledOversubscribed) {
  const int ranks = online_cores() + 2;
  TimingResult r = time_mpi_runs({.ranks = ranks, .program = {probe, "--work", "0.001"}},
                                 {.repeats = 1, .warmups = 0});
  EXPECT_TRUE(r.oversubscribed);
  EXPECT_FALSE(r.pinned);
  EXPECT_EQ(r.last_app_result["ranks"], ranks);
  EXPECT_EQ(to_json(r)["oversubscribed"], true);
}

TEST(Timing, AFailedRunIsAnErrorNotATime) {
  try {
    time_mpi_runs({.ranks = 2, .program = {probe, "--fail"}}, {.repeats = 2, .warmups = 0});
    FAIL() << "a failing run produced a time";
  } catch (const perfcast::UserError& e) {
    EXPECT_NE(std::string(e.what()).find("failing on purpose"), std::string::npos) << e.what();
  }
}

// A program reporting its timer in its own format: the pattern's group at its
// last match is the run's own time (the first "Wall clock" is a progress
// report at half the time), and it is at least the region the probe spun.
TEST(Timing, APatternTakesTheAppsOwnTimeFromItsLastMatch) {
  TimingOptions options{.repeats = 3, .warmups = 0, .time_pattern = R"(Wall clock\s+([0-9.eE+-]+))"};
  TimingResult r = time_mpi_runs({.ranks = 2, .program = {probe, "--work", "0.03", "--text"}}, options);
  ASSERT_TRUE(r.app_time.has_value());
  EXPECT_EQ(r.app_time->count, 3u);
  EXPECT_GE(r.app_time->min, 0.03);
  EXPECT_GE(r.wall.min, r.app_time->min);
  EXPECT_NE(r.app_time_source.find("Wall clock"), std::string::npos);
  EXPECT_EQ(to_json(r)["app_time_s"]["samples"].size(), 3u);
}

// Fortran's unit 0 is stderr: a time printed there is found when stdout has none.
TEST(Timing, APatternFallsBackToStderr) {
  TimingOptions options{.repeats = 1, .warmups = 0, .time_pattern = R"(Wall clock\s+([0-9.eE+-]+))"};
  TimingResult r = time_mpi_runs({.ranks = 1, .program = {probe, "--work", "0.02", "--stderr"}}, options);
  ASSERT_TRUE(r.app_time.has_value());
  EXPECT_GE(r.app_time->min, 0.02);
}

TEST(Timing, APatternReadsTheReportFileTheRunWrote) {
  const std::string report = ::testing::TempDir() + "/mpi_probe_report_" + std::to_string(::getpid()) + ".txt";
  TimingOptions options{.repeats = 2,
                        .warmups = 0,
                        .time_pattern = R"(Wall clock\s+([0-9.eE+-]+))",
                        .time_file = report};
  TimingResult r = time_mpi_runs({.ranks = 1, .program = {probe, "--work", "0.02", "--report", report}}, options);
  ASSERT_TRUE(r.app_time.has_value());
  EXPECT_GE(r.app_time->min, 0.02);
  EXPECT_NE(r.app_time_source.find(report), std::string::npos);
  std::remove(report.c_str());
}

// A file left by an earlier run is not this run's report.
TEST(Timing, AReportFileTheRunDidNotWriteIsAnError) {
  const std::string report = ::testing::TempDir() + "/mpi_probe_stale_" + std::to_string(::getpid()) + ".txt";
  { std::ofstream(report) << " Wall clock 1.0E+00\n"; }
  std::filesystem::last_write_time(report, std::filesystem::file_time_type::clock::now() - std::chrono::hours(1));
  TimingOptions options{.repeats = 1, .warmups = 0, .time_pattern = R"(Wall clock\s+(\S+))", .time_file = report};
  try {
    time_mpi_runs({.ranks = 1, .program = {probe, "--work", "0.001"}}, options);
    FAIL() << "a stale report gave a time";
  } catch (const perfcast::UserError& e) {
    EXPECT_NE(std::string(e.what()).find("wrote no file matching"), std::string::npos) << e.what();
  }
  std::remove(report.c_str());
}

TEST(Timing, APatternThatMatchesNothingIsAnErrorNotAMissingTime) {
  TimingOptions options{.repeats = 1, .warmups = 0, .time_pattern = R"(Elapsed: ([0-9.]+))"};
  try {
    time_mpi_runs({.ranks = 1, .program = {probe, "--work", "0.001", "--text"}}, options);
    FAIL() << "no match, yet no error";
  } catch (const perfcast::UserError& e) {
    EXPECT_NE(std::string(e.what()).find("Elapsed"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Wall clock"), std::string::npos) << "quotes the output: " << e.what();
  }
}

TEST(AppTime, PatternsWithoutAGroupOrWithAGroupThatIsNoNumberAreRefused) {
  EXPECT_THROW(AppTimePattern("Wall clock [0-9.]+"), perfcast::UserError);
  EXPECT_THROW(AppTimePattern("Wall clock ([0-9.]+"), perfcast::UserError);
  AppTimePattern words(R"(Wall (\w+))");
  EXPECT_THROW(words.find_seconds("Wall clock 1.0", "stdout"), perfcast::UserError);
  AppTimePattern fortran(R"(Solve\s+(\S+))");
  EXPECT_DOUBLE_EQ(*fortran.find_seconds("    Solve    5.7579E+00\n", "out"), 5.7579);
  EXPECT_DOUBLE_EQ(*fortran.find_seconds("    Solve    1.5D-01\n", "out"), 0.15);
  EXPECT_FALSE(fortran.find_seconds("Setup 1.0\n", "out").has_value());
}
