#include "learn/learner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "support/error.h"

namespace perfcast::learn {

namespace {

ForestOptions forest_options(const LearnOptions& o, ForestKind kind) {
  return {.kind = kind, .trees = o.trees, .seed = o.seed};
}

std::vector<double> normalised(std::vector<double> v) {
  double total = std::accumulate(v.begin(), v.end(), 0.0);
  if (total > 0)
    for (auto& x : v) x /= total;
  return v;
}

// The pipeline on every row of `data`. `want_importances`: compute importances
// for a method that has none of its own (for `learn show`), at the cost of a
// forest; cross-validation does without.
void check_options(const LearnOptions& o) {
  if (o.time_filter && !(*o.time_filter >= 0 && *o.time_filter <= 1))
    throw UserError(fmt::format("{} is not a fraction of the run (0..1)", *o.time_filter), {"", {}, "--time-filter"});
  if (o.input_filter && !(*o.input_filter > 0 && *o.input_filter <= 1))
    throw UserError(fmt::format("{} is not a share of the importance (above 0, at most 1)", *o.input_filter),
                    {"", {}, "--input-filter"});
  if (o.importance_filter && !(*o.importance_filter > 0 && *o.importance_filter <= 1))
    throw UserError(fmt::format("{} is not a share of the importance (above 0, at most 1)", *o.importance_filter),
                    {"", {}, "--importance-filter"});
  if (!(o.interval > 0 && o.interval < 1))
    throw UserError(fmt::format("{} is not a share of the trees (between 0 and 1)", o.interval),
                    {"", {}, "--interval"});
  if (o.trees < 1) throw UserError("a forest needs at least one tree", {"", {}, "--trees"});
}

LearnedModel fit_pipeline(const Dataset& data, const LearnOptions& options, bool want_importances) {
  check_options(options);
  if (data.rows() < 2)
    throw UserError(fmt::format("{} rows are too few to learn from", data.rows()), {data.source, {}, ""});
  LearnedModel m;
  m.options = options;

  std::vector<size_t> inputs(data.feature_names.size());
  std::iota(inputs.begin(), inputs.end(), 0);
  if (options.time_filter) {
    if (!data.epochs)
      throw UserError("the time filter needs each feature's epoch, and the dataset has none", {data.source, {}, ""},
                      "add an epoch row after the header, or give a side file with --epochs");
    inputs = time_filter(*data.epochs, *options.time_filter);
    for (size_t f = 0; f < data.feature_names.size(); ++f)
      if (std::find(inputs.begin(), inputs.end(), f) == inputs.end())
        m.time_filtered_out.push_back(data.feature_names[f]);
    if (inputs.empty())
      throw UserError(fmt::format("no feature is known by {} of the run", *options.time_filter), {data.source, {}, ""},
                      "raise --time-filter");
  }
  Matrix x_in = data.features.select_cols(inputs);
  std::vector<std::string> input_names;
  for (size_t f : inputs) input_names.push_back(data.feature_names[f]);

  if (options.method == Method::Extrap) {
    ExtrapModel e = fit_extrap(x_in, input_names, data.time_s, options.extrap);
    m.inputs = {e.process_feature};
    if (!e.size_feature.empty()) m.inputs.push_back(e.size_feature);
    m.expansion = polynomial_expansion(m.inputs.size(), 1);
    m.kept.resize(m.inputs.size());
    std::iota(m.kept.begin(), m.kept.end(), 0);
    m.kept_names = m.inputs;
    m.estimator = std::move(e);
    return m;
  }

  // The input filter, as the paper orders its steps: the features that matter
  // are chosen before the expansion multiplies their number (C(m+D, D) - 1
  // columns from m), so an expansion of hundreds of features fits the guard.
  if (options.input_filter) {
    Forest judge;
    judge.fit(x_in, data.time_s, forest_options(options, ForestKind::ExtraTrees));
    std::vector<size_t> keep = importance_filter(judge.importances(), *options.input_filter);
    if (keep.empty()) keep = {0};  // every time alike: one input for a constant model
    std::sort(keep.begin(), keep.end());
    x_in = x_in.select_cols(keep);
    std::vector<std::string> kept_names;
    for (size_t k : keep) kept_names.push_back(input_names[k]);
    input_names = std::move(kept_names);
  }
  m.inputs = input_names;
  m.expansion = polynomial_expansion(m.inputs.size(), options.expand, options.max_columns);
  Matrix x_all = m.expansion.apply(x_in);
  std::vector<std::string> all_names = m.expansion.names(m.inputs);

  const bool is_forest = options.method == Method::ExtraTrees || options.method == Method::RandomForest;
  std::vector<double> filter_importances;
  if (options.importance_filter || (want_importances && !is_forest)) {
    Forest judge;
    judge.fit(x_all, data.time_s, forest_options(options, ForestKind::ExtraTrees));
    filter_importances = judge.importances();
  }
  m.kept.resize(x_all.cols);
  std::iota(m.kept.begin(), m.kept.end(), 0);
  if (options.importance_filter) {
    m.kept = importance_filter(filter_importances, *options.importance_filter);
    if (m.kept.empty())  // no split anywhere: every time alike; keep one column for a constant model
      m.kept = {0};
    std::sort(m.kept.begin(), m.kept.end());
  }
  for (size_t c : m.kept) m.kept_names.push_back(all_names[c]);
  Matrix x = x_all.select_cols(m.kept);

  switch (options.method) {
    case Method::ExtraTrees:
    case Method::RandomForest: {
      Forest f;
      f.fit(x, data.time_s,
            forest_options(options,
                           options.method == Method::ExtraTrees ? ForestKind::ExtraTrees : ForestKind::RandomForest));
      m.importances = f.importances();
      m.estimator = std::move(f);
      break;
    }
    case Method::Ridge:
      m.estimator = fit_ridge(x, data.time_s);
      break;
    case Method::Lasso:
      m.estimator = fit_lasso(x, data.time_s);
      break;
    case Method::Svr:
      m.estimator = fit_svr(x, data.time_s, {.seed = options.seed});
      break;
    case Method::Extrap:
      break;  // handled above
  }
  if (!is_forest && !filter_importances.empty()) m.importances = normalised(select(filter_importances, m.kept));
  return m;
}

std::vector<size_t> input_columns(const Dataset& data, const LearnedModel& m) {
  std::vector<size_t> cols;
  for (const auto& name : m.inputs) cols.push_back(*data.column_of(name));
  return cols;
}

}  // namespace

const char* method_name(Method m) {
  switch (m) {
    case Method::ExtraTrees:
      return "et";
    case Method::RandomForest:
      return "rf";
    case Method::Ridge:
      return "ridge";
    case Method::Lasso:
      return "lasso";
    case Method::Svr:
      return "svr";
    case Method::Extrap:
      return "extrap";
  }
  return "?";
}

const std::vector<Method>& all_methods() {
  static const std::vector<Method> m = {Method::ExtraTrees, Method::RandomForest, Method::Svr,
                                        Method::Ridge,      Method::Lasso,        Method::Extrap};
  return m;
}

Method parse_method(const std::string& name) {
  for (Method m : all_methods())
    if (name == method_name(m)) return m;
  throw UserError(fmt::format("unknown method '{}'", name), {"", {}, "--method"},
                  "one of et, rf, ridge, lasso, svr, extrap");
}

Interval LearnedModel::predict(const double* inputs_row) const {
  std::vector<double> expanded(expansion.monomials.size());
  expansion.apply(inputs_row, expanded.data());
  std::vector<double> x = select(expanded, kept);
  if (const auto* f = std::get_if<Forest>(&estimator)) return f->predict_interval(x.data(), options.interval);
  double point = 0;
  if (const auto* l = std::get_if<LinearModel>(&estimator)) point = l->predict(x.data());
  if (const auto* s = std::get_if<SvrModel>(&estimator)) point = s->predict(x.data());
  if (const auto* e = std::get_if<ExtrapModel>(&estimator)) point = e->predict(x[0], x.size() > 1 ? x[1] : 1.0);
  return {point, point, point};
}

LearnedModel fit_learned_model(const Dataset& data, const LearnOptions& options) {
  LearnedModel m = fit_pipeline(data, options, true);
  if (data.epochs)
    for (const auto& name : m.inputs) {
      std::optional<size_t> column = data.column_of(name);
      m.input_epochs.push_back(column ? (*data.epochs)[*column] : 0.0);
    }
  double total_s = 0;
  for (double t : data.time_s) total_s += t;
  m.training_time_s = data.time_s.empty() ? 0 : total_s / static_cast<double>(data.time_s.size());
  return m;
}

std::vector<size_t> LearnedModel::used_inputs() const {
  std::vector<bool> used(inputs.size(), false);
  for (size_t column : kept)
    for (uint32_t input : expansion.monomials.at(column)) used.at(input) = true;
  std::vector<size_t> out;
  for (size_t i = 0; i < used.size(); ++i)
    if (used[i]) out.push_back(i);
  return out;
}

double mean_relative_error(const std::vector<double>& predicted, const std::vector<double>& real) {
  double sum = 0;
  for (size_t i = 0; i < real.size(); ++i) sum += std::abs(predicted[i] - real[i]) / real[i];
  return real.empty() ? 0.0 : sum / static_cast<double>(real.size());
}

std::vector<size_t> shuffled_folds(size_t rows, size_t folds, uint64_t seed) {
  std::vector<size_t> order(rows);
  std::iota(order.begin(), order.end(), 0);
  Rng rng(seed);
  rng.shuffle(order);
  std::vector<size_t> fold(rows);
  for (size_t i = 0; i < rows; ++i) fold[order[i]] = i % std::max<size_t>(1, folds);
  return fold;
}

CrossValidation cross_validate(const Dataset& data, const LearnOptions& options,
                               const std::vector<size_t>& fold_of_row) {
  CrossValidation cv;
  cv.folds = fold_of_row.empty() ? 0 : *std::max_element(fold_of_row.begin(), fold_of_row.end()) + 1;
  if (cv.folds < 2) throw UserError("cross-validation needs at least 2 folds", {"", {}, "--folds"});
  if (data.rows() < cv.folds)
    throw UserError(fmt::format("{} folds for {} rows", cv.folds, data.rows()), {"", {}, "--folds"},
                    "use at most as many folds as rows");
  cv.predicted_s.assign(data.rows(), 0.0);
  for (size_t f = 0; f < cv.folds; ++f) {
    std::vector<size_t> train, test;
    for (size_t r = 0; r < data.rows(); ++r) (fold_of_row[r] == f ? test : train).push_back(r);
    if (test.empty()) continue;
    LearnedModel m = fit_pipeline(data.subset(train), options, false);
    std::vector<size_t> cols = input_columns(data, m);
    std::vector<double> row(cols.size()), predicted, real;
    for (size_t r : test) {
      for (size_t j = 0; j < cols.size(); ++j) row[j] = data.features.at(r, cols[j]);
      cv.predicted_s[r] = m.predict(row.data()).point;
      predicted.push_back(cv.predicted_s[r]);
      real.push_back(data.time_s[r]);
    }
    cv.fold_errors.push_back(mean_relative_error(predicted, real));
  }
  cv.mean_relative_error = mean_relative_error(cv.predicted_s, data.time_s);
  return cv;
}

CrossValidation cross_validate(const Dataset& data, const LearnOptions& options, size_t folds) {
  return cross_validate(data, options, shuffled_folds(data.rows(), folds, options.seed));
}

std::vector<CompareCell> compare_methods(const Dataset& data, const CompareOptions& options) {
  if (data.rows() < 3) throw UserError("comparing methods needs at least 3 rows", {data.source, {}, ""});
  std::vector<CompareCell> cells;
  for (double fraction : options.train_fractions) {
    if (!(fraction > 0 && fraction < 1))
      throw UserError(fmt::format("training fraction {} is not between 0 and 1", fraction),
                      {"", {}, "--train-fractions"});
    size_t n_train = std::clamp<size_t>(static_cast<size_t>(std::lround(fraction * static_cast<double>(data.rows()))),
                                        2, data.rows() - 1);
    for (Method method : options.methods)
      for (bool expanded : {false, true}) {
        CompareCell cell{method, expanded, fraction, std::nullopt, ""};
        if (method == Method::Extrap && expanded) {
          cell.note = "the normal form is its own expansion";
          cells.push_back(cell);
          continue;
        }
        LearnOptions lo{.method = method,
                        .expand = expanded ? options.expand : 1u,
                        .time_filter = options.time_filter,
                        .input_filter = options.input_filter,
                        .importance_filter = options.importance_filter,
                        .trees = options.trees,
                        .max_columns = options.max_columns};
        double sum = 0;
        try {
          for (size_t rep = 0; rep < options.repeats; ++rep) {
            std::vector<size_t> order(data.rows());
            std::iota(order.begin(), order.end(), 0);
            Rng rng(options.seed + rep);
            rng.shuffle(order);
            std::vector<size_t> train(order.begin(), order.begin() + static_cast<long>(n_train));
            std::vector<size_t> test(order.begin() + static_cast<long>(n_train), order.end());
            lo.seed = options.seed + rep;
            lo.extrap = options.extrap;
            lo.extrap.seed = lo.seed;
            LearnedModel m = fit_pipeline(data.subset(train), lo, false);
            std::vector<size_t> cols = input_columns(data, m);
            std::vector<double> row(cols.size()), predicted, real;
            for (size_t r : test) {
              for (size_t j = 0; j < cols.size(); ++j) row[j] = data.features.at(r, cols[j]);
              predicted.push_back(m.predict(row.data()).point);
              real.push_back(data.time_s[r]);
            }
            sum += mean_relative_error(predicted, real);
            cell.inputs += static_cast<double>(m.inputs.size());
            cell.columns += static_cast<double>(m.kept.size());
          }
          double splits = static_cast<double>(std::max<size_t>(1, options.repeats));
          cell.mean_relative_error = sum / splits;
          cell.inputs /= splits;
          cell.columns /= splits;
        } catch (const UserError& e) {
          cell.note = e.what();
        }
        cells.push_back(cell);
      }
  }
  return cells;
}

}  // namespace perfcast::learn
