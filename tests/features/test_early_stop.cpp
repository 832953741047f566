// `perfcast learn predict MODEL --run`: early_stop.c built with the probes,
// a model learned from a short sweep of its step count, then a long run
// stopped once the features the model reads have settled, and predicted from
// them. Timings on a shared machine move, so the checks are on what the
// stopped run recorded and on how little of it ran, not on the error.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/mpirun_command.h"
#include "learn/dataset.h"
#include "learn/model_file.h"
#include "perfcast_cli.h"
#include "scratch.h"
#include "support/process.h"

namespace perfcast {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::perfcast_run;
using testing::scratch;

constexpr int kRanks = 2;
const std::string kBin = std::string(PERFCAST_BINARY_DIR) + "/bin";

// "early_stop.c:LINE:NAME" of the line carrying `marker: MARKER`.
std::string feature(const std::string& marker, const std::string& name) {
  std::ifstream in(EARLY_STOP_SOURCE);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number)
    if (line.find("marker: " + marker + " ") != std::string::npos)
      return "early_stop.c:" + std::to_string(number) + ":" + name;
  ADD_FAILURE() << "no marker " << marker << " in " << EARLY_STOP_SOURCE;
  return "";
}

json last_json(const std::string& out) {
  size_t start = out.rfind("\n{");
  return json::parse(out.substr(start == std::string::npos ? 0 : start + 1));
}

// The program, a sweep of its steps, and the two models every test reads: one
// learned from the features known 5 % into a run, one from every feature.
class EarlyStop : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(scratch() / "early_stop");
    fs::create_directories(*dir_);
    program_ = new fs::path(*dir_ / "early_stop");
    ProcessResult build = run_process({kBin + "/perfcast-mpicc", "-O2", EARLY_STOP_SOURCE, "-o", program_->string()},
                                      std::chrono::seconds(120));
    ASSERT_EQ(build.exit_code, 0) << build.stderr_text;
    fs::path dataset = *dir_ / "runs.jsonl";
    std::vector<std::string> sweep = {"sweep", "--dataset", dataset.string(), "--param", "steps=20:80:20", "--"};
    for (auto& w : testing::mpirun_command(kRanks, {program_->string(), "{steps}"})) sweep.push_back(w);
    auto swept = perfcast_run(sweep, std::chrono::seconds(300));
    ASSERT_EQ(swept.exit_code, 0) << swept.stdout_text << swept.stderr_text;
    for (auto [name, filter] : {std::pair{"early.json", true}, std::pair{"late.json", false}}) {
      std::vector<std::string> learn = {"learn",    dataset.string(), "-o",      (*dir_ / name).string(),
                                        "--method", "ridge",          "--folds", "0"};
      if (filter) learn.insert(learn.end(), {"--time-filter", "0.05"});
      auto learned = perfcast_run(learn, std::chrono::seconds(120));
      ASSERT_EQ(learned.exit_code, 0) << learned.stderr_text;
    }
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete program_;
  }

  static measure::ProcessResult predict_run(const std::string& model, long steps,
                                            const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"learn", "predict", (*dir_ / model).string(), "--run", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("--");
    for (auto& w : testing::mpirun_command(kRanks, {program_->string(), std::to_string(steps)})) args.push_back(w);
    return perfcast_run(args, std::chrono::seconds(300));
  }

  static fs::path* dir_;
  static fs::path* program_;
};

fs::path* EarlyStop::dir_ = nullptr;
fs::path* EarlyStop::program_ = nullptr;

TEST_F(EarlyStop, LongRunStopsOnceItsStepCountIsKnown) {
  learn::ModelFile model = learn::read_model_file((*dir_ / "early.json").string());
  const std::string steps = feature("steps", "steps");
  ASSERT_NE(std::find(model.model.inputs.begin(), model.model.inputs.end(), steps), model.model.inputs.end())
      << "the time filter dropped the step count";
  double longest_training_s = 0;
  for (const auto& t : learn::read_dataset((*dir_ / "runs.jsonl").string()).time_s)
    longest_training_s = std::max(longest_training_s, t);

  const long long_steps = 4000;  // 50 times the longest training run's
  auto r = predict_run("early.json", long_steps);
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  json out = last_json(r.stdout_text);
  EXPECT_TRUE(out.at("stopped_early").get<bool>()) << out.dump(2);
  // The stopped run's features are the long run's own: the step count it was given, its ranks.
  EXPECT_EQ(out.at("features").at(steps).get<double>(), long_steps) << out.dump(2);
  EXPECT_EQ(out.at("ranks").get<int>(), kRanks);
  // A linear model extrapolates the step count: far past every training run.
  const double predicted_s = out.at("time_s").get<double>();
  EXPECT_GT(predicted_s, 5 * longest_training_s) << out.dump(2);
  // Stopped well before its end: a small share of the predicted run executed,
  // and less wall time (mpirun's start included) than the run would take.
  EXPECT_LT(out.at("executed_fraction").get<double>(), 0.3) << out.dump(2);
  EXPECT_LT(out.at("wall_s").get<double>(), predicted_s) << out.dump(2);
  EXPECT_GE(out.at("executed_s").get<double>(), out.at("settle_s").get<double>()) << out.dump(2);
}

TEST_F(EarlyStop, ModelReadingLateFeaturesRefusesToStop) {
  auto r = predict_run("late.json", 4000);
  EXPECT_NE(r.exit_code, 0) << r.stdout_text;
  EXPECT_NE(r.stderr_text.find("cannot stop early"), std::string::npos) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("--time-filter"), std::string::npos) << r.stderr_text;
}

// Told to try anyway, the runtime sees the main loop's count still growing
// (its stamp moves only when the loop is left) and never reports: the run
// ends by itself and is predicted from its whole record.
TEST_F(EarlyStop, FeatureStillChangingKeepsTheRunGoing) {
  const long steps = 150;
  auto r = predict_run("late.json", steps, {"--max-epoch", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  json out = last_json(r.stdout_text);
  EXPECT_FALSE(out.at("stopped_early").get<bool>()) << out.dump(2);
  EXPECT_EQ(out.at("features").at(feature("main_loop", "loop.headers")).get<double>(), (steps + 1) * kRanks)
      << out.dump(2);
}

}  // namespace
}  // namespace perfcast
