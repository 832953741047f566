// Measurement files: CSV and JSON carry the same rows and give the same fit;
// repeats become medians; every malformed input names the file, the line and
// the field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "fit/fit.h"
#include "fit/synthetic.h"
#include "support/error.h"

namespace perfcast::fit {
namespace {

using namespace testing;

struct TempDir {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("perfcast-fit-input-" + std::to_string(getpid()));
  TempDir() { std::filesystem::create_directories(path); }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

// The error a parse raises, or "(no error)".
std::string error_of(std::string_view text, std::string_view format, const std::string& x = "") {
  try {
    parse_measurements(text, format, "bad." + std::string(format), x);
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(FitInput, CsvRepeatsBecomeMedians) {
  auto m = parse_measurements(
      "# dgemm on this machine\n"
      "flops, n, time_s\n"
      "2e6, 100, 0.0004\n"
      "2e6, 100, 0.0009\n"   // an interrupted run: the median ignores it
      "2e6, 100, 0.00035\n"
      "\n"
      "1.6e7, 200, 0.0028\n",
      "csv", "dgemm.csv", "flops");
  ASSERT_EQ(m.samples.size(), 2u);
  EXPECT_EQ(m.variables, (std::vector<std::string>{"flops", "n"}));
  EXPECT_EQ(m.samples[0].x, 2e6);
  EXPECT_EQ(m.samples[0].time_s, 0.0004);
  EXPECT_EQ(m.samples[0].repeats, 3);
  EXPECT_EQ(m.samples[0].first_line, 3);
  EXPECT_EQ(m.samples[1].time_s, 0.0028);
  EXPECT_EQ(m.rows, 4);
  // The other work measure, by name.
  auto by_n = parse_measurements("flops,n,time_s\n2e6,100,1\n1.6e7,200,2\n", "csv", "d.csv", "n");
  EXPECT_EQ(by_n.samples[1].x, 200);
}

TEST(FitInput, TimeUnitsAndRepeatsColumn) {
  auto m = parse_measurements("n,time_us,repeats\n10,250,7\n20,500,5\n", "csv", "d.csv");
  EXPECT_DOUBLE_EQ(m.samples[0].time_s, 250e-6);
  EXPECT_EQ(m.samples[0].repeats, 7);
}

TEST(FitInput, JsonRowsAndRepeatArrays) {
  auto m = parse_measurements(R"({"rows": [
      {"flops": 2e6, "time_s": [0.0004, 0.0009, 0.00035]},
      {"flops": 1.6e7, "time_s": 0.0028, "repeats": 4}]})",
                              "json", "d.json");
  ASSERT_EQ(m.samples.size(), 2u);
  EXPECT_EQ(m.samples[0].time_s, 0.0004);
  EXPECT_EQ(m.samples[0].repeats, 3);
  EXPECT_EQ(m.samples[0].first_line, 2);
  EXPECT_EQ(m.samples[1].repeats, 4);
}

TEST(FitInput, CsvAndJsonGiveTheSameFit) {
  TempDir dir;
  auto sizes = log_spaced(1e7, 1e10, 12);
  Noise noise(0.01, 11);
  std::string csv = "flops,time_s\n";
  std::string json = "[\n";
  for (double x : sizes)
    for (int r = 0; r < 3; ++r) {
      double t = noise(paper_time(x));
      csv += fmt::format("{:.17g},{:.17g}\n", x, t);
      json += fmt::format("  {}{{\"flops\": {:.17g}, \"time_s\": {:.17g}}}\n", json.size() > 2 ? "," : "", x, t);
    }
  json += "]\n";
  auto from_csv = read_measurements(dir.write("k.csv", csv));
  auto from_json = read_measurements(dir.write("k.json", json));
  ASSERT_EQ(from_csv.samples.size(), from_json.samples.size());
  FitReport a = fit(from_csv), b = fit(from_json);
  ASSERT_EQ(a.chosen, b.chosen);
  const Model &ma = a.best().model, &mb = b.best().model;
  EXPECT_EQ(ma.label(), mb.label());
  ASSERT_EQ(ma.segments.size(), mb.segments.size());
  for (size_t j = 0; j < ma.segments.size(); ++j) {
    EXPECT_EQ(ma.segments[j].slope_s_per_x, mb.segments[j].slope_s_per_x);
    EXPECT_EQ(ma.segments[j].intercept_s, mb.segments[j].intercept_s);
  }
  EXPECT_EQ(ma.breakpoints, mb.breakpoints);
  EXPECT_EQ(*a.best().loo_mean_abs_relative_error, *b.best().loo_mean_abs_relative_error);
}

TEST(FitInput, FileFormatFromExtensionOrContent) {
  TempDir dir;
  auto m = read_measurements(dir.write("noext", "[{\"n\": 1, \"time_s\": 1}, {\"n\": 2, \"time_s\": 2}]"));
  EXPECT_EQ(m.samples.size(), 2u);
  std::string missing = (dir.path / "absent.csv").string();
  try {
    read_measurements(missing);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open measurements file '" + missing + "'"), std::string::npos);
  }
}

TEST(FitInput, MalformedCsvNamesFileLineAndField) {
  EXPECT_EQ(error_of("flops,time_s\n1e6,0.001\n2e6,abc\n", "csv"), "bad.csv:3: 'time_s': 'abc' is not a number");
  EXPECT_EQ(error_of("flops,time_s\n1e6,0.001\n2e6,-0.002\n", "csv"),
            "bad.csv:3: 'time_s': negative time -0.002: a kernel time cannot be negative");
  EXPECT_EQ(error_of("flops,time_s\n1e6,0.001\nx1,0.002\n", "csv"), "bad.csv:3: 'flops': 'x1' is not a number");
  EXPECT_EQ(error_of("flops,time_s\n1e6,\n", "csv"), "bad.csv:2: 'time_s': empty cell: expected a number");
  EXPECT_EQ(error_of("flops,time_s\n1e6,0.1,7\n", "csv"),
            "bad.csv:2: 3 cells, but the header has 2 columns (flops, time_s)");
  EXPECT_EQ(error_of("flops,seconds\n1e6,0.1\n", "csv"),
            "bad.csv:1: the header has no time column: expected time_s (or time_ms, time_us, time_ns); it has: "
            "flops, seconds");
  EXPECT_EQ(error_of("flops,n,time_s\n1,1,1\n", "csv", "m"),
            "bad.csv: no column 'm'; the work measures are: flops, n");
  EXPECT_EQ(error_of("flops,n,time_s\n1,1,1\n", "csv"), "bad.csv: several work measures (flops, n): which one is x?");
  EXPECT_EQ(error_of("time_s\n1\n", "csv"),
            "bad.csv: no work-measure column: besides the time there must be an x such as flops or n");
  EXPECT_EQ(error_of("n,time_s\n1,0\n", "csv"), "bad.csv:2: 'time_s': time is 0: the kernel ran below the timer's resolution");
  EXPECT_EQ(error_of("n,time_s,repeats\n1,1,2.5\n", "csv"),
            "bad.csv:2: 'repeats': repeats must be a whole number of runs, at least 1 (got 2.5)");
  EXPECT_EQ(error_of("", "csv"), "bad.csv: empty file: expected a header line, then one row per measurement");
  EXPECT_EQ(error_of("n,time_s\n1,nan\n", "csv"), "bad.csv:2: 'time_s': 'nan' is not a number");
}

TEST(FitInput, MalformedJsonNamesFileLineAndField) {
  EXPECT_EQ(error_of("[\n {\"n\": 1, \"time_s\": 1},\n {\"n\": \"big\", \"time_s\": 2}\n]", "json"),
            "bad.json:3: '[1].n': expected a number, got the string \"big\"");
  EXPECT_EQ(error_of("{\"rows\": [\n {\"n\": 1, \"time_s\": -1}]}", "json"),
            "bad.json:2: 'rows[0].time_s': negative time -1: a kernel time cannot be negative");
  EXPECT_EQ(error_of("[{\"n\": 1}]", "json"), "bad.json:1: '[0].time_s': the row has no time: expected time_s (or "
                                               "time_ms, time_us, time_ns)");
  EXPECT_EQ(error_of("[{\"n\": 1, \"time_s\": 1}, {\"flops\": 2, \"time_s\": 1}]", "json", "n"),
            "bad.json:1: 'n': this row has no 'n'");
  EXPECT_NE(error_of("[\n{\"n\": 1,,}]", "json").find("bad.json:2: not valid JSON"), std::string::npos);
  EXPECT_EQ(error_of("{\"n\": 1}", "json"), "bad.json: expected an array of rows, or an object with a \"rows\" array");
}

}  // namespace
}  // namespace perfcast::fit
