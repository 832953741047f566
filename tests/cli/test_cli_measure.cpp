// `perfcast measure` as users run it: the app's own time read in the app's own
// format (--time-pattern, --time-file) reaches the JSON, and a pattern that
// cannot give a time is refused with a message naming it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "perfcast_cli.h"
#include "scratch.h"

namespace {

using perfcast::testing::perfcast_run;

const std::string kProbe = std::string(PERFCAST_BINARY_DIR) + "/tests/bin/mpi_probe";
const std::string kWallClock = R"(Wall clock\s+([0-9.eE+-]+))";

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(CliMeasure, ATimePatternPutsTheAppsOwnTimeInTheJson) {
  auto r = perfcast_run({"measure", "-n", "1", "-r", "2", "-w", "0", "--json", "--time-pattern", kWallClock, "--",
                         kProbe, "--work", "0.02", "--text"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  auto j = nlohmann::json::parse(r.stdout_text);
  ASSERT_TRUE(j["app_time_s"].is_object()) << r.stdout_text;
  EXPECT_EQ(j["app_time_s"]["count"], 2);
  EXPECT_GE(j["app_time_s"]["min"].get<double>(), 0.02);
  EXPECT_LE(j["app_time_s"]["max"].get<double>(), j["wall_s"]["max"].get<double>());
  EXPECT_TRUE(contains(j["app_time_source"].get<std::string>(), "Wall clock")) << j["app_time_source"];
}

TEST(CliMeasure, ATimeFileIsSearchedForThePattern) {
  const std::string report = (perfcast::testing::scratch() / "probe_report.txt").string();
  auto r = perfcast_run({"measure", "-n", "1", "-r", "1", "-w", "0", "--json", "--time-file", report,
                         "--time-pattern", kWallClock, "--", kProbe, "--work", "0.02", "--report", report});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  auto j = nlohmann::json::parse(r.stdout_text);
  EXPECT_GE(j["app_time_s"]["median"].get<double>(), 0.02);
  EXPECT_TRUE(contains(j["app_time_source"].get<std::string>(), report)) << j["app_time_source"];
}

TEST(CliMeasure, APatternThatFindsNoTimeIsRefusedNamingIt) {
  auto r = perfcast_run({"measure", "-n", "1", "-r", "1", "-w", "0", "--time-pattern", R"(Elapsed (\S+))", "--",
                         kProbe, "--work", "0.001", "--text"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.stderr_text, "Elapsed")) << r.stderr_text;
  EXPECT_TRUE(contains(r.stderr_text, "--time-pattern")) << "the hint names the flag: " << r.stderr_text;
  auto no_group = perfcast_run({"measure", "-n", "1", "-r", "1", "-w", "0", "--time-pattern", "Wall clock", "--",
                                kProbe, "--text"});
  EXPECT_EQ(no_group.exit_code, 1);
  EXPECT_TRUE(contains(no_group.stderr_text, "no capture group")) << no_group.stderr_text;
  auto file_alone = perfcast_run({"measure", "-n", "1", "--time-file", "x.txt", "--", kProbe});
  EXPECT_NE(file_alone.exit_code, 0);
  EXPECT_TRUE(contains(file_alone.stderr_text + file_alone.stdout_text, "--time-pattern"));
}

}  // namespace
