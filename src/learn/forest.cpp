#include "learn/forest.h"

#include <algorithm>
#include <numeric>

namespace perfcast::learn {

void Forest::fit(const Matrix& x, const std::vector<double>& y, const ForestOptions& options) {
  kind_ = options.kind;
  trees_.assign(options.trees, RegressionTree());
  importances_.assign(x.cols, 0.0);
  TreeOptions tree_options{.rule = options.kind == ForestKind::ExtraTrees ? SplitRule::Random : SplitRule::Best,
                           .max_features = options.max_features,
                           .min_samples_leaf = options.min_samples_leaf};
  Rng seeds(options.seed);
  size_t splitting_trees = 0;
  for (auto& tree : trees_) {
    Rng rng(seeds.next());  // one stream per tree: a tree's shape does not depend on the ones before it
    std::vector<size_t> rows(x.rows);
    if (options.kind == ForestKind::RandomForest) {
      for (auto& r : rows) r = rng.index(x.rows);
    } else {
      std::iota(rows.begin(), rows.end(), 0);
    }
    tree.fit(x, y, std::move(rows), tree_options, rng);
    const auto& d = tree.impurity_decrease();
    double total = std::accumulate(d.begin(), d.end(), 0.0);
    if (total > 0) {
      ++splitting_trees;
      for (size_t f = 0; f < d.size(); ++f) importances_[f] += d[f] / total;
    }
  }
  double total = std::accumulate(importances_.begin(), importances_.end(), 0.0);
  if (total > 0)
    for (auto& v : importances_) v /= total;
}

double Forest::predict(const double* features) const {
  if (trees_.empty()) return 0.0;
  double sum = 0;
  for (const auto& t : trees_) sum += t.predict(features);
  return sum / static_cast<double>(trees_.size());
}

Interval Forest::predict_interval(const double* features, double coverage) const {
  std::vector<double> each;
  each.reserve(trees_.size());
  double sum = 0;
  for (const auto& t : trees_) {
    each.push_back(t.predict(features));
    sum += each.back();
  }
  Interval out;
  if (each.empty()) return out;
  out.point = sum / static_cast<double>(each.size());
  // Widened to hold the mean, which a skewed spread of trees can push past a quantile.
  out.low = std::min(out.point, quantile(each, (1 - coverage) / 2));
  out.high = std::max(out.point, quantile(each, (1 + coverage) / 2));
  return out;
}

}  // namespace perfcast::learn
