// A skeleton runs inside the simulator's process: when it faults, aborts,
// exits early, prints, or never ends, `perfcast simulate` still ends with a
// message naming the rank (and the signal, or the budget), never a bare
// "Segmentation fault" or a hang, and `--json` stays one JSON document.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "perfcast_cli.h"

namespace {

using perfcast::testing::perfcast_run;

const std::string kMachine = std::string(PERFCAST_SOURCE_DIR) + "/machines/generic-cluster.toml";
const std::string kSkeleton = std::string(SKELETON_DIR) + "/misbehave";

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

perfcast::measure::ProcessResult simulate(const std::string& what, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"simulate", "--machine", kMachine, "--np", "4", "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  args.insert(args.end(), {kSkeleton, "--", what});
  return perfcast_run(args, std::chrono::seconds(60));
}

TEST(SkeletonMisbehaving, AFaultNamesTheRankTheSignalAndTheFunction) {
  auto r = simulate("segv");
  EXPECT_EQ(r.exit_code, 1) << r.stderr_text;
  EXPECT_TRUE(contains(r.stderr_text, "rank 1 of the skeleton was stopped by SIGSEGV")) << r.stderr_text;
  EXPECT_TRUE(contains(r.stderr_text, "fault_here")) << r.stderr_text;
  // Where no dynamic symbol covers the fault, the object and the offset.
  auto s = simulate("segv-static");
  EXPECT_EQ(s.exit_code, 1) << s.stderr_text;
  EXPECT_TRUE(contains(s.stderr_text, "rank 1 of the skeleton was stopped by SIGSEGV")) << s.stderr_text;
  EXPECT_TRUE(contains(s.stderr_text, " at " + kSkeleton + "+0x")) << s.stderr_text;
}

TEST(SkeletonMisbehaving, AbortAndArithmeticErrorsNameTheRank) {
  auto a = simulate("abort");
  EXPECT_EQ(a.exit_code, 1) << a.stderr_text;
  EXPECT_TRUE(contains(a.stderr_text, "rank 1 of the skeleton was stopped by SIGABRT")) << a.stderr_text;
  auto f = simulate("fpe");
  EXPECT_EQ(f.exit_code, 1) << f.stderr_text;
  EXPECT_TRUE(contains(f.stderr_text, "rank 1 of the skeleton was stopped by SIGFPE")) << f.stderr_text;
}

TEST(SkeletonMisbehaving, ARankThatExitsEarlyIsNamed) {
  auto r = simulate("exit");
  EXPECT_EQ(r.exit_code, 1) << r.stderr_text;
  EXPECT_TRUE(contains(r.stderr_text, "deadlock")) << r.stderr_text;
  EXPECT_TRUE(contains(r.stderr_text, "rank 1 ended without MPI_Finalize")) << r.stderr_text;
}

TEST(SkeletonMisbehaving, WhatASkeletonPrintsStaysOutOfTheJson) {
  auto r = simulate("print");
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  auto parsed = nlohmann::json::parse(r.stdout_text, nullptr, false);
  EXPECT_FALSE(parsed.is_discarded()) << r.stdout_text;
  EXPECT_TRUE(contains(r.stderr_text, "rank 3 prints to stdout")) << r.stderr_text;
}

TEST(SkeletonMisbehaving, AnEndlessSkeletonIsStoppedByItsBudget) {
  auto r = simulate("endless", {"--max-events", "5000"});
  EXPECT_EQ(r.exit_code, 1) << r.stderr_text;
  EXPECT_FALSE(r.timed_out);
  EXPECT_TRUE(contains(r.stderr_text, "stopped after 5000 events")) << r.stderr_text;
  EXPECT_TRUE(contains(r.stderr_text, "4 of 4 ranks still running (0, 1, 2, 3)")) << r.stderr_text;
  auto t = simulate("endless", {"--max-time", "0.01"});
  EXPECT_EQ(t.exit_code, 1) << t.stderr_text;
  EXPECT_TRUE(contains(t.stderr_text, "past the 0.01 s budget")) << t.stderr_text;
}

}  // namespace
