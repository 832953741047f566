// Tree ensembles: extremely randomized trees (every tree on all rows, random
// thresholds; Geurts, Ernst and Wehenkel 2006) and random forests (every tree on
// a bootstrap sample, best thresholds; Breiman 2001). A seed makes the ensemble
// reproducible. The prediction is the mean over the trees; the interval is a pair
// of quantiles of the trees' predictions (a spread of the ensemble, not a
// calibrated confidence interval).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "learn/tree.h"

namespace perfcast::learn {

enum class ForestKind { ExtraTrees, RandomForest };

struct ForestOptions {
  ForestKind kind = ForestKind::ExtraTrees;
  size_t trees = 100;
  size_t max_features = 0;  // candidate features per split; 0: all (scikit-learn's default for regression)
  size_t min_samples_leaf = 1;
  uint64_t seed = 1;
};

struct Interval {
  double low = 0;
  double point = 0;
  double high = 0;
};

class Forest {
 public:
  Forest() = default;
  Forest(ForestKind kind, std::vector<RegressionTree> trees, std::vector<double> importances)
      : kind_(kind), trees_(std::move(trees)), importances_(std::move(importances)) {}

  void fit(const Matrix& x, const std::vector<double>& y, const ForestOptions& options);
  double predict(const double* features) const;
  // The mean and the (1-coverage)/2 and (1+coverage)/2 quantiles of the trees,
  // widened where needed so that low <= point <= high.
  Interval predict_interval(const double* features, double coverage) const;
  // Mean decrease in impurity per feature: each tree's decreases normalised to
  // sum 1, averaged over the trees, normalised again (scikit-learn's
  // feature_importances_). All zero when no tree split.
  const std::vector<double>& importances() const { return importances_; }
  ForestKind kind() const { return kind_; }
  const std::vector<RegressionTree>& trees() const { return trees_; }

 private:
  ForestKind kind_ = ForestKind::ExtraTrees;
  std::vector<RegressionTree> trees_;
  std::vector<double> importances_;
};

}  // namespace perfcast::learn
