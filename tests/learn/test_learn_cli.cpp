// `perfcast learn` run as a process: learn writes a model and prints its
// cross-validated error, show draws the importances (text and SVG), predict
// gives a point and an interval per row, compare prints every method, and a
// malformed dataset exits 1 naming the file, line and column.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "learn/synthetic.h"
#include "perfcast_cli.h"
#include "scratch.h"

namespace perfcast::learn {
namespace {

using json = nlohmann::json;
using perfcast::testing::perfcast_run;

std::string write(const std::string& name, const std::string& text) {
  auto path = perfcast::testing::scratch() / name;
  std::ofstream(path) << text;
  return path.string();
}

std::string dataset_with_epochs() {
  Dataset d = testing::scaling_runs(120, 0.02, 31);
  d.epochs = std::vector<double>{0.0, 0.6, 0.0, 0.0};  // junk1 is known late
  return write("runs.csv", to_csv(d));
}

void expect_in(const std::string& text, const std::string& piece) {
  EXPECT_NE(text.find(piece), std::string::npos) << "'" << piece << "' not in:\n" << text;
}

TEST(CliLearn, LearnShowPredict) {
  std::string data = dataset_with_epochs();
  std::string model = (perfcast::testing::scratch() / "model.json").string();
  auto r = perfcast_run({"learn", data, "-o", model, "--time-filter", "0.05", "--importance-filter", "0.95", "--expand",
                         "2", "--trees", "30", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  json j = json::parse(r.stdout_text);
  double cv = j["cross_validation"]["mean_relative_error"].get<double>();
  EXPECT_GT(cv, 0.0);
  EXPECT_LT(cv, 0.15);
  EXPECT_EQ(j["time_filtered_out"], json::array({"junk1"}));
  for (const auto& name : j["kept"]) EXPECT_EQ(name.get<std::string>().find("junk1"), std::string::npos);

  std::string svg = (perfcast::testing::scratch() / "imp.svg").string();
  auto show = perfcast_run({"learn", "show", model, "--svg", svg});
  ASSERT_EQ(show.exit_code, 0) << show.stderr_text;
  expect_in(show.stdout_text, "kept columns by importance");
  expect_in(show.stdout_text, "█");
  expect_in(show.stdout_text, "dropped by the time filter: junk1");
  std::ifstream in(svg);
  std::string svg_text((std::istreambuf_iterator<char>(in)), {});
  expect_in(svg_text, "<svg");
  expect_in(svg_text, "<rect");

  std::string features = write("new.csv", "ranks,junk2,n\n8,0.5,512\n64,0.1,96\n");
  auto p = perfcast_run({"learn", "predict", model, "--features", features, "--json"});
  ASSERT_EQ(p.exit_code, 0) << p.stderr_text;
  json preds = json::parse(p.stdout_text)["predictions"];
  ASSERT_EQ(preds.size(), 2u);
  double truth = 1e-6 * 512 * 512 / 8 + 0.05 * 3 + 0.01;
  EXPECT_NEAR(preds[0]["time_s"].get<double>(), truth, 0.15 * truth);
  for (const auto& row : preds) {
    EXPECT_LE(row["low_s"].get<double>(), row["time_s"].get<double>());
    EXPECT_GE(row["high_s"].get<double>(), row["time_s"].get<double>());
  }
  auto table = perfcast_run({"learn", "predict", model, "--features", features});
  ASSERT_EQ(table.exit_code, 0) << table.stderr_text;
  expect_in(table.stdout_text, "low");
}

// predict's two sources of features, a file or a run, are one or the other,
// and a CSV model's epochs travel in the model file for --run's stop rule.
TEST(CliLearn, PredictTakesAFileOrARunNotBoth) {
  std::string model = (perfcast::testing::scratch() / "both.json").string();
  auto learned = perfcast_run({"learn", dataset_with_epochs(), "-o", model, "--trees", "5", "--folds", "0"});
  ASSERT_EQ(learned.exit_code, 0) << learned.stderr_text;
  std::ifstream in(model);
  json m = json::parse(in);
  EXPECT_EQ(m.at("input_epochs").size(), m.at("inputs").size());
  EXPECT_GT(m.at("training_time_s").get<double>(), 0);

  std::string features = write("both.csv", "ranks,junk1,junk2,n\n8,1,0.5,512\n");
  auto both = perfcast_run({"learn", "predict", model, "--features", features, "--run", "--", "true"});
  EXPECT_NE(both.exit_code, 0);
  auto command_alone = perfcast_run({"learn", "predict", model, "--", "true"});
  EXPECT_NE(command_alone.exit_code, 0);
  expect_in(command_alone.stderr_text, "--run");
  auto neither = perfcast_run({"learn", "predict", model});
  EXPECT_NE(neither.exit_code, 0);
  expect_in(neither.stderr_text, "--features");
  // junk1 is known at 60 % of the runs: a model reading it cannot stop a run early.
  auto late = perfcast_run({"learn", "predict", model, "--run", "--", "true"});
  EXPECT_NE(late.exit_code, 0);
  expect_in(late.stderr_text, "junk1 (epoch 0.60)");
}

TEST(CliLearn, SameSeedSameError) {
  std::string data = dataset_with_epochs();
  auto run = [&](const std::string& seed) {
    auto r = perfcast_run({"learn", data, "-o", (perfcast::testing::scratch() / "m.json").string(), "--method", "rf",
                           "--trees", "10", "--seed", seed, "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
    return json::parse(r.stdout_text)["cross_validation"]["mean_relative_error"].get<double>();
  };
  EXPECT_EQ(run("5"), run("5"));
}

TEST(CliLearn, ExtrapPrintsItsFormula) {
  Dataset d = testing::grid_runs([](double p, double n) { return 1 + 2e-3 * n * std::log2(p); });
  auto r = perfcast_run({"learn", write("grid.csv", to_csv(d)), "-o",
                         (perfcast::testing::scratch() / "e.json").string(), "--method", "extrap"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  expect_in(r.stdout_text, "log2(ranks)·n");
}

TEST(CliLearn, CompareTableHasEveryMethod) {
  Dataset d = testing::scaling_runs(60, 0.02, 32);
  auto r = perfcast_run({"learn", "compare", write("small.csv", to_csv(d)), "--train-fractions", "0.3,0.7", "--repeats",
                         "1", "--trees", "10"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  for (const char* m : {"et ", "rf ", "svr ", "ridge ", "lasso ", "extrap ", "et (degree 3)", "svr (degree 3)"})
    expect_in(r.stdout_text, m);
  expect_in(r.stdout_text, "train 30 %");
  expect_in(r.stdout_text, "train 70 %");
}

TEST(CliLearn, MalformedDatasetExitsOneNamingLineAndColumn) {
  std::string bad = write("bad.csv", "n,time_s\n1,2\n3,slow\n");
  auto r = perfcast_run({"learn", bad, "-o", (perfcast::testing::scratch() / "x.json").string()});
  EXPECT_EQ(r.exit_code, 1);
  expect_in(r.stderr_text, bad + ":3: 'column 2 (time_s)': 'slow' is not a number");
}

TEST(CliLearn, WideExpansionIsRefusedWithAHint) {
  std::string data = dataset_with_epochs();
  auto r = perfcast_run({"learn", data, "-o", (perfcast::testing::scratch() / "x.json").string(), "--expand", "3",
                         "--max-columns", "10"});
  EXPECT_EQ(r.exit_code, 1);
  expect_in(r.stderr_text, "over the limit of 10");
  expect_in(r.stderr_text, "--time-filter and --importance-filter");
}

}  // namespace
}  // namespace perfcast::learn
