// `perfcast fit` run as a process: the table and the JSON carry the same
// figures, --emit c prints only C, --predict flags extrapolation, bad input
// exits 1 with one message naming file, line and field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fit/synthetic.h"
#include "perfcast_cli.h"

namespace {

using json = nlohmann::json;
using namespace perfcast::fit::testing;

struct Files {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("perfcast-fit-cli-" + std::to_string(getpid()));
  Files() { std::filesystem::create_directories(dir); }
  ~Files() { std::filesystem::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
};

using perfcast::testing::perfcast_run;

void expect_in(const std::string& text, const std::string& piece) {
  EXPECT_NE(text.find(piece), std::string::npos) << "'" << piece << "' not in:\n" << text;
}

std::string paper_csv() { return csv_of(log_spaced(1e7, 1e10, 12), paper_time, Noise(0, 1), 2); }

TEST(CliFit, TableOfThePapersData) {
  Files f;
  auto r = perfcast_run({"fit", f.write("dgemm.csv", paper_csv()), "--predict", "5e9", "2e10"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(r.stderr_text, "");
  expect_in(r.stdout_text, "12 sizes of flops from 1e+07 to 1e+10 (24 runs, median per size)");
  expect_in(r.stdout_text, "* piecewise 2 (discontinuous)");
  expect_in(r.stdout_text, "0.173 ns/flop");
  expect_in(r.stdout_text, "0.165 ns/flop");
  expect_in(r.stdout_text, "5.78 Gflop/s");
  expect_in(r.stdout_text, "leave-one-out: mean");
  expect_in(r.stdout_text, "extrapolated: outside the measured 1e+07 .. 1e+10");
  // 5e9 is inside: its line carries no flag.
  auto line_of = [&](const std::string& start) {
    size_t p = r.stdout_text.rfind("\n" + start);
    return p == std::string::npos ? std::string() : r.stdout_text.substr(p + 1, r.stdout_text.find('\n', p + 1) - p - 1);
  };
  EXPECT_EQ(line_of("5e+09").find("extrapolated"), std::string::npos) << line_of("5e+09");
}

TEST(CliFit, JsonHasTheFiguresOfTheTable) {
  Files f;
  std::string file = f.write("dgemm.csv", paper_csv());
  auto r = perfcast_run({"fit", file, "--json", "--predict", "5e9", "2e10"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  json doc = json::parse(r.stdout_text);
  EXPECT_EQ(doc["x"], "flops");
  EXPECT_EQ(doc["samples"].size(), 12u);
  const json& chosen = doc["models"][doc["chosen"].get<size_t>()];
  EXPECT_EQ(chosen["label"], doc["chosen_label"]);
  EXPECT_EQ(chosen["segments"].size(), 2u);
  EXPECT_NEAR(chosen["segments"][0]["slope_s_per_x"].get<double>(), kSlowSlope, 1e-18);
  EXPECT_NEAR(chosen["segments"][1]["slope_s_per_x"].get<double>(), kFastSlope, 1e-18);
  EXPECT_TRUE(chosen["loo"]["mean_abs_relative_error"].is_number());
  EXPECT_EQ(chosen["points"].size(), 12u);
  EXPECT_FALSE(doc["predictions"][0]["extrapolated"].get<bool>());
  EXPECT_TRUE(doc["predictions"][1]["extrapolated"].get<bool>());
  EXPECT_NEAR(doc["predictions"][1]["time_s"].get<double>(), kFastSlope * 2e10, 1e-9);
  // The table shows the same LOO figure, rounded.
  auto t = perfcast_run({"fit", file});
  double loo = chosen["loo"]["mean_abs_relative_error"].get<double>();
  expect_in(t.stdout_text, fmt::format("leave-one-out: mean {:.2f} %", 100 * loo));
}

TEST(CliFit, EmitCPrintsOnlyC) {
  Files f;
  auto r = perfcast_run({"fit", f.write("dgemm.csv", paper_csv()), "--emit", "c", "--model", "piecewise",
                         "--segments", "2", "--join", "discontinuous", "--origin"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(r.stdout_text.rfind("/* dgemm_time(flops)", 0), 0u) << r.stdout_text;
  expect_in(r.stdout_text, "static double dgemm_time(double flops) {\n  return flops < ");
}

TEST(CliFit, BadInputExitsOneNamingFileLineField) {
  Files f;
  std::string bad = f.write("bad.csv", "flops,time_s\n1e6,0.001\n2e6,fast\n");
  auto r = perfcast_run({"fit", bad});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.stdout_text, "");
  EXPECT_EQ(r.stderr_text, "perfcast: error: " + bad + ":3: 'time_s': 'fast' is not a number\n");

  std::string few = f.write("few.csv", "flops,time_s\n1e6,0.001\n2e6,0.002\n");
  r = perfcast_run({"fit", few});
  EXPECT_EQ(r.exit_code, 1);
  expect_in(r.stderr_text, few + ": 'flops': 2 distinct flops values, but a line needs at least 3");
  expect_in(r.stderr_text, "perfcast: hint: measure more sizes");

  std::string two = f.write("two.csv", "flops,n,time_s\n1e6,1,0.001\n2e6,2,0.002\n3e6,3,0.003\n");
  r = perfcast_run({"fit", two});
  EXPECT_EQ(r.exit_code, 1);
  expect_in(r.stderr_text, "several work measures (flops, n): which one is x?");
  expect_in(r.stderr_text, "hint: choose one with --x");
  r = perfcast_run({"fit", two, "--x", "n"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;

  r = perfcast_run({"fit", two, "--x", "n", "--model", "cubic"});
  EXPECT_EQ(r.exit_code, 2);  // a usage error
}

}  // namespace
