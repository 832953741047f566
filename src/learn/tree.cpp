#include "learn/tree.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace perfcast::learn {

namespace {

struct Split {
  int feature = -1;
  double threshold = 0;
  double score = -1;  // sum of squares removed; larger is better
};

// Sum of squared deviations from the mean, from running sums.
double sse(double sum, double sum_sq, double n) { return n > 0 ? std::max(0.0, sum_sq - sum * sum / n) : 0.0; }

}  // namespace

void RegressionTree::fit(const Matrix& x, const std::vector<double>& y, std::vector<size_t> rows,
                         const TreeOptions& options, Rng& rng) {
  nodes_.clear();
  decrease_.assign(x.cols, 0.0);
  if (rows.empty()) {
    nodes_.push_back({});
    return;
  }
  grow(x, y, rows, 0, rows.size(), 0, options, rng);
}

int RegressionTree::grow(const Matrix& x, const std::vector<double>& y, std::vector<size_t>& rows, size_t begin,
                         size_t end, size_t depth, const TreeOptions& options, Rng& rng) {
  const size_t n = end - begin;
  double sum = 0, sum_sq = 0;
  for (size_t i = begin; i < end; ++i) {
    sum += y[rows[i]];
    sum_sq += y[rows[i]] * y[rows[i]];
  }
  const double node_sse = sse(sum, sum_sq, static_cast<double>(n));
  int id = static_cast<int>(nodes_.size());
  nodes_.push_back({.value = sum / static_cast<double>(n), .samples = static_cast<int>(n)});

  const double tiny = 1e-12 * std::max(1.0, sum_sq);
  if (n < options.min_samples_split || n < 2 * options.min_samples_leaf || node_sse <= tiny ||
      (options.max_depth && depth >= options.max_depth))
    return id;

  std::vector<size_t> order(x.cols);
  std::iota(order.begin(), order.end(), 0);
  rng.shuffle(order);
  const size_t wanted = options.max_features ? std::min(options.max_features, x.cols) : x.cols;

  Split best;
  size_t tried = 0;
  std::vector<std::pair<double, double>> column;  // (feature value, time) of the node's rows
  for (size_t f : order) {
    if (tried >= wanted) break;
    double lo = x.at(rows[begin], f), hi = lo;
    for (size_t i = begin; i < end; ++i) {
      lo = std::min(lo, x.at(rows[i], f));
      hi = std::max(hi, x.at(rows[i], f));
    }
    if (!(hi > lo)) continue;  // constant here: not a candidate, as in scikit-learn
    ++tried;
    if (options.rule == SplitRule::Random) {
      double threshold = rng.uniform(lo, hi);
      if (threshold >= hi) threshold = lo;  // keeps both sides non-empty
      double ls = 0, lss = 0, ln = 0;
      for (size_t i = begin; i < end; ++i)
        if (x.at(rows[i], f) <= threshold) {
          ls += y[rows[i]];
          lss += y[rows[i]] * y[rows[i]];
          ln += 1;
        }
      double rn = static_cast<double>(n) - ln;
      if (ln < static_cast<double>(options.min_samples_leaf) || rn < static_cast<double>(options.min_samples_leaf))
        continue;
      double score = node_sse - sse(ls, lss, ln) - sse(sum - ls, sum_sq - lss, rn);
      if (score > best.score) best = {static_cast<int>(f), threshold, score};
    } else {
      column.clear();
      for (size_t i = begin; i < end; ++i) column.emplace_back(x.at(rows[i], f), y[rows[i]]);
      std::sort(column.begin(), column.end());
      double ls = 0, lss = 0;
      for (size_t k = 0; k + 1 < n; ++k) {
        ls += column[k].second;
        lss += column[k].second * column[k].second;
        if (column[k].first == column[k + 1].first) continue;
        double ln = static_cast<double>(k + 1), rn = static_cast<double>(n - k - 1);
        if (ln < static_cast<double>(options.min_samples_leaf) || rn < static_cast<double>(options.min_samples_leaf))
          continue;
        double score = node_sse - sse(ls, lss, ln) - sse(sum - ls, sum_sq - lss, rn);
        if (score > best.score) {
          double mid = 0.5 * (column[k].first + column[k + 1].first);
          if (mid >= column[k + 1].first) mid = column[k].first;
          best = {static_cast<int>(f), mid, score};
        }
      }
    }
  }
  if (best.feature < 0) return id;

  auto middle = std::partition(rows.begin() + static_cast<long>(begin), rows.begin() + static_cast<long>(end),
                               [&](size_t r) { return x.at(r, static_cast<size_t>(best.feature)) <= best.threshold; });
  size_t mid = static_cast<size_t>(middle - rows.begin());
  decrease_[static_cast<size_t>(best.feature)] += std::max(0.0, best.score);
  int left = grow(x, y, rows, begin, mid, depth + 1, options, rng);
  int right = grow(x, y, rows, mid, end, depth + 1, options, rng);
  nodes_[static_cast<size_t>(id)].feature = best.feature;
  nodes_[static_cast<size_t>(id)].threshold = best.threshold;
  nodes_[static_cast<size_t>(id)].left = left;
  nodes_[static_cast<size_t>(id)].right = right;
  return id;
}

double RegressionTree::predict(const double* features) const {
  size_t i = 0;
  while (nodes_[i].feature >= 0)
    i = static_cast<size_t>(features[nodes_[i].feature] <= nodes_[i].threshold ? nodes_[i].left : nodes_[i].right);
  return nodes_[i].value;
}

size_t RegressionTree::depth() const {
  std::vector<size_t> depth_of(nodes_.size(), 0);
  size_t deepest = 0;
  for (size_t i = 0; i < nodes_.size(); ++i) {  // children come after their parent
    deepest = std::max(deepest, depth_of[i]);
    if (nodes_[i].feature >= 0) {
      depth_of[static_cast<size_t>(nodes_[i].left)] = depth_of[i] + 1;
      depth_of[static_cast<size_t>(nodes_[i].right)] = depth_of[i] + 1;
    }
  }
  return deepest;
}

}  // namespace perfcast::learn
