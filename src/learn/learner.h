// A learned model of run time from runtime features (Sun, Zhan, Sun and Chen,
// "Automated Performance Modeling of HPC Applications Using Machine Learning"):
// the dataset's features, time-filtered, polynomially expanded,
// importance-filtered, then one estimator. Fitting, predicting with an
// interval, k-fold cross-validation and the comparison of methods by training
// fraction all go through the same pipeline, so a cross-validated error is the
// error of exactly what `fit_learned_model` builds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "learn/dataset.h"
#include "learn/extrap.h"
#include "learn/features.h"
#include "learn/forest.h"
#include "learn/linear.h"

namespace perfcast::learn {

enum class Method { ExtraTrees, RandomForest, Ridge, Lasso, Svr, Extrap };

const char* method_name(Method m);             // "et", "rf", "ridge", "lasso", "svr", "extrap"
Method parse_method(const std::string& name);  // throws UserError naming the choices
const std::vector<Method>& all_methods();

struct LearnOptions {
  Method method = Method::ExtraTrees;
  unsigned expand = 1;                      // polynomial degree; 1: the features as they are
  std::optional<double> time_filter;        // keep features with epoch <= this
  std::optional<double> input_filter;       // before the expansion, keep inputs up to this cumulated importance
  std::optional<double> importance_filter;  // keep features up to this cumulated importance
  size_t trees = 100;
  uint64_t seed = 1;
  size_t max_columns = 5000;  // the expansion's guard
  double interval = 0.9;      // the forests' interval covers this share of the trees
  ExtrapOptions extrap;       // process and size features for --method extrap
};

using Estimator = std::variant<Forest, LinearModel, SvrModel, ExtrapModel>;

struct LearnedModel {
  LearnOptions options;
  std::vector<std::string> inputs;  // the dataset features a prediction needs, in this order
  Expansion expansion;              // over `inputs`
  std::vector<size_t> kept;         // columns of the expansion the estimator sees
  std::vector<std::string> kept_names;
  std::vector<double> importances;             // per kept column (sums to 1), empty when none was computed
  std::vector<std::string> time_filtered_out;  // dataset features the time filter dropped
  Estimator estimator;
  // When each input became final in training, for a run stopped early
  // (`learn predict --run`): per input, the dataset's epoch (the latest over
  // its runs; empty when the dataset had none), and the training runs' mean time.
  std::vector<double> input_epochs;
  double training_time_s = 0;

  // The inputs the kept columns read (a prediction ignores the others), in input order.
  std::vector<size_t> used_inputs() const;

  // One row of `inputs` to the time and its interval (a point-only method gives
  // low = point = high).
  Interval predict(const double* inputs_row) const;
};

// Fits the whole pipeline on every row. Throws UserError for options the data
// cannot honour (a time filter without epochs, an expansion over the guard...).
LearnedModel fit_learned_model(const Dataset& data, const LearnOptions& options);

struct CrossValidation {
  size_t folds = 0;
  double mean_relative_error = 0;   // over all rows, each predicted by a fit without its fold
  std::vector<double> fold_errors;  // mean relative error per fold
  std::vector<double> predicted_s;  // per row, out of fold
};

// Fold of each row: a seeded shuffle dealt round-robin into k folds.
std::vector<size_t> shuffled_folds(size_t rows, size_t folds, uint64_t seed);
CrossValidation cross_validate(const Dataset& data, const LearnOptions& options,
                               const std::vector<size_t>& fold_of_row);
CrossValidation cross_validate(const Dataset& data, const LearnOptions& options, size_t folds);

double mean_relative_error(const std::vector<double>& predicted, const std::vector<double>& real);

struct CompareOptions {
  std::vector<double> train_fractions = {0.1, 0.2, 0.4, 0.8};
  unsigned expand = 3;  // the degree of the "expanded" columns
  size_t repeats = 3;   // random splits averaged per fraction
  size_t trees = 100;
  uint64_t seed = 1;
  size_t max_columns = 5000;
  std::vector<Method> methods = all_methods();
  // The filtrations, in every cell alike (Extra-P takes only the time filter).
  std::optional<double> time_filter, input_filter, importance_filter;
  ExtrapOptions extrap;  // its parameters; naming the size feature spares the search over every feature
};

struct CompareCell {
  Method method = Method::ExtraTrees;
  bool expanded = false;
  double train_fraction = 0;
  std::optional<double> mean_relative_error;  // on the rows not trained on; absent with `note`
  std::string note;
  double inputs = 0, columns = 0;  // features the fit read, columns its estimator saw (means over the splits)
};

// Every method, without and with expansion (Extra-P only without), at every
// training fraction: trained on that share of the rows, tested on the rest.
std::vector<CompareCell> compare_methods(const Dataset& data, const CompareOptions& options);

}  // namespace perfcast::learn
