// Our extremely randomized trees and random forests against scikit-learn's
// ExtraTreesRegressor and RandomForestRegressor (Debian's python3-sklearn,
// installed by scripts/setup, so Debian's /usr/bin/python3 runs it whatever
// python3 comes first on PATH): the same rows, the same folds, the same number
// of trees; our cross-validated mean relative error must be no worse than
// scikit-learn's by more than 1.25x + 0.02.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "learn/learner.h"
#include "learn/synthetic.h"
#include "measure/launcher.h"
#include "scratch.h"

namespace perfcast::learn {
namespace {

constexpr const char* kScript = R"(
import json, sys
import numpy as np
from sklearn.ensemble import ExtraTreesRegressor, RandomForestRegressor
path, trees, folds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
table = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
x, y = table[:, :-1], table[:, -1]
fold = np.arange(len(y)) % folds
out = {}
for name, make in (("et", ExtraTreesRegressor), ("rf", RandomForestRegressor)):
    predicted = np.zeros(len(y))
    for f in range(folds):
        model = make(n_estimators=trees, random_state=0).fit(x[fold != f], y[fold != f])
        predicted[fold == f] = model.predict(x[fold == f])
    out[name] = float(np.mean(np.abs(predicted - y) / y))
print(json.dumps(out))
)";

nlohmann::json sklearn_errors(const Dataset& d, size_t trees, size_t folds, const std::string& name) {
  auto dir = perfcast::testing::scratch();
  std::ofstream(dir / "sklearn_cv.py") << kScript;
  std::ofstream(dir / (name + ".csv")) << to_csv(d);
  auto r = measure::run_process({"/usr/bin/python3", (dir / "sklearn_cv.py").string(), (dir / (name + ".csv")).string(),
                                 std::to_string(trees), std::to_string(folds)},
                                std::chrono::seconds(240));
  if (r.exit_code != 0)
    ADD_FAILURE() << "python3 with scikit-learn failed (scripts/setup installs python3-sklearn):\n" << r.stderr_text;
  return r.exit_code == 0 ? nlohmann::json::parse(r.stdout_text) : nlohmann::json();
}

void expect_no_worse_than_sklearn(const Dataset& d, const std::string& name) {
  const size_t trees = 50, folds = 5;
  nlohmann::json sk = sklearn_errors(d, trees, folds, name);
  ASSERT_TRUE(sk.is_object());
  std::vector<size_t> fold_of_row(d.rows());
  for (size_t r = 0; r < d.rows(); ++r) fold_of_row[r] = r % folds;
  for (auto [method, key] : {std::pair{Method::ExtraTrees, "et"}, std::pair{Method::RandomForest, "rf"}}) {
    double ours = cross_validate(d, {.method = method, .trees = trees, .seed = 1}, fold_of_row).mean_relative_error;
    double theirs = sk[key].get<double>();
    EXPECT_LE(ours, 1.25 * theirs + 0.02) << name << " " << key << ": ours " << ours << ", scikit-learn " << theirs;
    ::testing::Test::RecordProperty(name + "_" + key + "_ours", std::to_string(ours));
    ::testing::Test::RecordProperty(name + "_" + key + "_sklearn", std::to_string(theirs));
  }
}

TEST(SklearnCrossCheck, ScalingLawWithJunkFeatures) {
  expect_no_worse_than_sklearn(testing::scaling_runs(300, 0.03, 21), "scaling");
}

TEST(SklearnCrossCheck, StepFunction) { expect_no_worse_than_sklearn(testing::step_runs(200, 22), "step"); }

}  // namespace
}  // namespace perfcast::learn
