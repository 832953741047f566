// Regression trees: binary splits `feature <= threshold`, leaves predicting the
// mean time of their training rows, grown until a leaf is pure or too small.
//
// Two ways to choose a split, the two ensembles' own:
//   best    (random forests, Breiman): for each candidate feature, the threshold
//           that most reduces the squared error, among midpoints of sorted values;
//   random  (extremely randomized trees, Geurts et al.): for each candidate
//           feature, one threshold drawn uniformly between its minimum and
//           maximum in the node; the best of those candidates wins.
// Each split's impurity decrease (n·var - n_l·var_l - n_r·var_r) is credited to
// its feature: the mean-decrease-in-impurity importance.
#pragma once

#include <cstdint>
#include <vector>

#include "learn/matrix.h"

namespace perfcast::learn {

enum class SplitRule { Best, Random };

struct TreeOptions {
  SplitRule rule = SplitRule::Random;
  size_t max_features = 0;       // candidate features per split; 0: all
  size_t min_samples_split = 2;  // a node with fewer rows is a leaf
  size_t min_samples_leaf = 1;
  size_t max_depth = 0;  // 0: unlimited
};

struct TreeNode {
  int feature = -1;      // -1: a leaf
  double threshold = 0;  // rows with x[feature] <= threshold go left
  int left = -1;
  int right = -1;
  double value = 0;  // mean time of the node's training rows
  int samples = 0;
};

class RegressionTree {
 public:
  RegressionTree() = default;
  explicit RegressionTree(std::vector<TreeNode> nodes) : nodes_(std::move(nodes)) {}

  // Grows the tree on rows `rows` of x (duplicates allowed) with targets y.
  void fit(const Matrix& x, const std::vector<double>& y, std::vector<size_t> rows, const TreeOptions& options,
           Rng& rng);
  double predict(const double* features) const;
  // Impurity decrease per feature (x.cols entries), unnormalised.
  const std::vector<double>& impurity_decrease() const { return decrease_; }
  const std::vector<TreeNode>& nodes() const { return nodes_; }
  size_t depth() const;

 private:
  int grow(const Matrix& x, const std::vector<double>& y, std::vector<size_t>& rows, size_t begin, size_t end,
           size_t depth, const TreeOptions& options, Rng& rng);

  std::vector<TreeNode> nodes_;
  std::vector<double> decrease_;
};

}  // namespace perfcast::learn
