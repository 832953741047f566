// apps/wave3d run with the pinned Open MPI: the checksum of the final state is
// bit-identical whatever the rank count and process grid (even and uneven
// splits), every run checks itself against the exact discrete solution, and bad
// arguments fail loudly. Small grids and few steps: the whole suite takes seconds.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "common/app_checks.h"

using perfcast::testing::AppRun;
using perfcast::testing::run_app;

namespace {

// A sound run of wave3d (run_app_passing) and the figures of its own check.
nlohmann::json run_ok(int ranks, const std::vector<std::string>& args) {
  nlohmann::json j = perfcast::testing::run_app_passing("wave3d", ranks, args);
  if (j.empty()) return j;
  EXPECT_TRUE(j.contains("checksum") && j["checksum"].is_string());
  EXPECT_TRUE(j.contains("time_s") && j["time_s"].is_number());
  if (j.contains("px") && j.contains("py") && j.contains("pz")) {
    EXPECT_EQ(j["px"].get<int>() * j["py"].get<int>() * j["pz"].get<int>(), ranks);
  }
  return j;
}

const std::vector<std::string> cube = {"--n", "16", "--steps", "10", "--repeats", "1"};
const std::vector<std::string> uneven = {"--n", "13", "--steps", "7", "--repeats", "1"};

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

std::string checksum_of(const nlohmann::json& j) { return j.value("checksum", std::string("<none>")); }

// The one-rank result for some arguments, run once per test program.
const nlohmann::json& reference(const std::vector<std::string>& args) {
  static std::map<std::vector<std::string>, nlohmann::json> cache;
  auto it = cache.find(args);
  if (it == cache.end()) it = cache.emplace(args, run_ok(1, args)).first;
  return it->second;
}

}  // namespace

TEST(Wave3d, OneRankReportsItsRun) {
  const auto& j = reference(cube);
  EXPECT_EQ(j.value("nx", 0), 16);
  EXPECT_EQ(j.value("steps", 0), 10);
  EXPECT_EQ(j.value("px", 0), 1);
  EXPECT_EQ(j.value("halo_msgs_per_step", -1), 0);
  EXPECT_GT(j.value("max_abs", 0.0), 0.1);  // not a trivially zero solution
  EXPECT_EQ(j["times_s"].size(), 1u);
}

TEST(Wave3d, ChecksumSameAtOneAndTwoRanks) {
  const auto& one = reference(cube);
  auto two = run_ok(2, cube);
  EXPECT_EQ(checksum_of(two), checksum_of(one));
  EXPECT_EQ(two.value("halo_msgs_per_step", -1), 2);  // one face each way
  // the same two ranks split along z instead of x
  auto z = run_ok(2, with(cube, {"--px", "1", "--py", "1", "--pz", "2"}));
  EXPECT_EQ(z.value("pz", 0), 2);
  EXPECT_EQ(checksum_of(z), checksum_of(one));
}

TEST(Wave3d, ChecksumSameAtFourRanksOversubscribed) {
  RecordProperty("oversubscribed", "true");
  const auto& one = reference(cube);
  auto four = run_ok(4, cube);
  EXPECT_EQ(checksum_of(four), checksum_of(one));
}

TEST(Wave3d, UnevenProcessGridFourRanksOversubscribed) {
  RecordProperty("oversubscribed", "true");
  const auto& one = reference(uneven);
  // 13 points over 2 ranks along y and z: blocks of 7 and 6
  auto four = run_ok(4, with(uneven, {"--px", "1", "--py", "2", "--pz", "2"}));
  EXPECT_EQ(four.value("px", 0), 1);
  EXPECT_EQ(four.value("py", 0), 2);
  EXPECT_EQ(four.value("pz", 0), 2);
  EXPECT_EQ(checksum_of(four), checksum_of(one));
  // a non-cubic grid, 13 over 4 ranks along x (4,3,3,3)
  std::vector<std::string> box = {"--nx", "13", "--ny", "5", "--nz", "9", "--steps", "7", "--repeats", "1"};
  auto box1 = run_ok(1, box);
  auto box4 = run_ok(4, with(box, {"--px", "4"}));
  EXPECT_EQ(checksum_of(box4), checksum_of(box1));
}

TEST(Wave3d, ChecksumSameAtThreeRanksOversubscribed) {
  RecordProperty("oversubscribed", "true");
  const auto& one = reference(uneven);
  auto three = run_ok(3, uneven);
  EXPECT_EQ(checksum_of(three), checksum_of(one));
}

TEST(Wave3d, ChecksumChangesWithSteps) {
  const auto& a = reference(cube);
  auto b = run_ok(1, {"--n", "16", "--steps", "11", "--repeats", "1"});
  EXPECT_NE(checksum_of(a), checksum_of(b));
  auto c = run_ok(1, {"--n", "17", "--steps", "10", "--repeats", "1"});
  EXPECT_NE(checksum_of(a), checksum_of(c));
}

TEST(Wave3d, RepeatsReportTheMedian) {
  auto j = run_ok(1, {"--n", "8", "--steps", "5", "--repeats", "3"});
  ASSERT_EQ(j["times_s"].size(), 3u);
  std::vector<double> t = j["times_s"].get<std::vector<double>>();
  std::sort(t.begin(), t.end());
  EXPECT_DOUBLE_EQ(j["time_s"].get<double>(), t[1]);
  EXPECT_EQ(j.value("repeats_agree", false), true);
}

TEST(Wave3d, BadArgumentsFailWithAMessage) {
  struct Case {
    int ranks;
    std::vector<std::string> args;
    std::string names;  // the option the message must name
  };
  const std::vector<Case> cases = {
      {1, {"--steps", "abc"}, "--steps"},
      {1, {"--repeats"}, "--repeats"},
      {1, {"--frobnicate", "1"}, "--frobnicate"},
      {2, {"--n", "8", "--px", "3"}, "--px"},
  };
  for (const Case& c : cases) {
    AppRun run = run_app("wave3d", c.ranks, c.args);
    EXPECT_NE(run.process.exit_code, 0) << c.names;
    EXPECT_NE(run.process.stderr_text.find(c.names), std::string::npos)
        << "stderr does not name " << c.names << ":\n" << run.process.stderr_text;
    EXPECT_TRUE(run.result.is_null()) << c.names;
  }
}

TEST(Wave3d, HelpListsTheOptions) {
  AppRun run = run_app("wave3d", 1, {"--help"});
  EXPECT_EQ(run.process.exit_code, 0);
  for (const char* opt : {"--n", "--nx", "--steps", "--px", "--repeats"})
    EXPECT_NE(run.process.stdout_text.find(opt), std::string::npos) << opt;
}
