// Trees, forests, baselines and cross-validation on data whose structure is
// known: what must be learned is learned, what is noise is found unimportant,
// and a seed gives the same numbers twice.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "learn/learner.h"
#include "learn/synthetic.h"
#include "support/error.h"

namespace perfcast::learn {
namespace {

using testing::scaling_runs;
using testing::step_runs;

std::vector<size_t> all_rows(size_t n) {
  std::vector<size_t> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

TEST(Tree, BestSplitFindsTheStep) {
  Dataset d = step_runs(200, 4);
  RegressionTree tree;
  Rng rng(1);
  tree.fit(d.features, d.time_s, all_rows(d.rows()), {.rule = SplitRule::Best}, rng);
  // One split separates the two levels exactly, so the tree is a stump on x.
  ASSERT_GE(tree.nodes().size(), 3u);
  EXPECT_EQ(tree.nodes()[0].feature, 0);
  EXPECT_NEAR(tree.nodes()[0].threshold, 0.5, 0.02);
  EXPECT_EQ(tree.depth(), 1u);
  double x_low[] = {0.2, 0.9}, x_high[] = {0.8, 0.1};
  EXPECT_DOUBLE_EQ(tree.predict(x_low), 1.0);
  EXPECT_DOUBLE_EQ(tree.predict(x_high), 3.0);
  EXPECT_EQ(tree.impurity_decrease()[1], 0.0);
}

TEST(Tree, RandomSplitsStillFitTheTrainingRows) {
  Dataset d = step_runs(100, 5);
  RegressionTree tree;
  Rng rng(2);
  tree.fit(d.features, d.time_s, all_rows(d.rows()), {.rule = SplitRule::Random}, rng);
  for (size_t r = 0; r < d.rows(); ++r) EXPECT_DOUBLE_EQ(tree.predict(d.features.row(r)), d.time_s[r]);
}

TEST(Forest, StepIsLearnedAndJunkIsUnimportant) {
  for (ForestKind kind : {ForestKind::ExtraTrees, ForestKind::RandomForest}) {
    Dataset train = step_runs(300, 6), test = step_runs(200, 7);
    Forest f;
    f.fit(train.features, train.time_s, {.kind = kind, .trees = 30, .seed = 3});
    double error = 0;
    for (size_t r = 0; r < test.rows(); ++r)
      error += std::abs(f.predict(test.features.row(r)) - test.time_s[r]) / test.time_s[r];
    EXPECT_LT(error / static_cast<double>(test.rows()), 0.03);
    EXPECT_GT(f.importances()[0], 0.95);
    EXPECT_NEAR(f.importances()[0] + f.importances()[1], 1.0, 1e-9);
  }
}

TEST(Forest, ScalingLawJunkFeaturesGetLowImportance) {
  Dataset d = scaling_runs(400, 0.02, 8);
  Forest f;
  f.fit(d.features, d.time_s, {.kind = ForestKind::ExtraTrees, .trees = 50, .seed = 4});
  const auto& imp = f.importances();  // n, junk1, junk2, ranks
  EXPECT_GT(imp[0], 0.1);
  EXPECT_GT(imp[3], 0.1);
  EXPECT_LT(imp[1], 0.05);
  EXPECT_LT(imp[2], 0.05);
}

TEST(Forest, IntervalContainsThePointAndWidensAwayFromData) {
  Dataset d = scaling_runs(300, 0.05, 9);
  Forest f;
  f.fit(d.features, d.time_s, {.kind = ForestKind::RandomForest, .trees = 60, .seed = 5});
  double inside[] = {256, 0.5, 0.5, 8};
  Interval i = f.predict_interval(inside, 0.9);
  EXPECT_LE(i.low, i.point);
  EXPECT_GE(i.high, i.point);
  EXPECT_LT(i.low, i.high);  // bootstrap trees disagree somewhere
  EXPECT_DOUBLE_EQ(i.point, f.predict(inside));
}

TEST(Forest, SameSeedSameForestOtherSeedOtherForest) {
  Dataset d = scaling_runs(150, 0.05, 10);
  Forest a, b, c;
  a.fit(d.features, d.time_s, {.trees = 10, .seed = 42});
  b.fit(d.features, d.time_s, {.trees = 10, .seed = 42});
  c.fit(d.features, d.time_s, {.trees = 10, .seed = 43});
  double x[] = {200, 0.3, 0.7, 12};
  EXPECT_EQ(a.predict(x), b.predict(x));
  EXPECT_EQ(a.importances(), b.importances());
  EXPECT_NE(a.predict(x), c.predict(x));
}

TEST(Linear, RidgeAndLassoRecoverALinearLaw) {
  Rng rng(11);
  Matrix x(200, 3);
  std::vector<double> y;
  for (size_t r = 0; r < 200; ++r) {
    for (size_t c = 0; c < 3; ++c) x.at(r, c) = rng.uniform(0, 10);
    y.push_back(5 + 2 * x.at(r, 0) - 0.5 * x.at(r, 1));
  }
  double probe[] = {3, 4, 5};
  EXPECT_NEAR(fit_ridge(x, y, {.lambda = 1e-9}).predict(probe), 5 + 6 - 2, 1e-6);
  LinearModel lasso = fit_lasso(x, y, {.alpha = 1e-3});
  EXPECT_NEAR(lasso.predict(probe), 9, 0.05);
  // A strong L1 penalty drops the irrelevant third column entirely.
  LinearModel sparse = fit_lasso(x, y, {.alpha = 0.05});
  EXPECT_EQ(sparse.coefficients[2], 0.0);
  EXPECT_NE(sparse.coefficients[0], 0.0);
}

TEST(Linear, SvrFollowsACurve) {
  Matrix x(120, 1);
  std::vector<double> y;
  for (size_t r = 0; r < 120; ++r) {
    x.at(r, 0) = static_cast<double>(r) / 20.0;
    y.push_back(2 + std::sin(x.at(r, 0)));
  }
  SvrModel m = fit_svr(x, y, {.epsilon = 0.005});
  double worst = 0;
  for (size_t r = 0; r < 120; r += 7) worst = std::max(worst, std::abs(m.predict(x.row(r)) - y[r]));
  EXPECT_LT(worst, 0.05);
  EXPECT_LT(m.dual.size(), 120u);  // points inside the tube are not support vectors
}

TEST(CrossValidation, ReproducibleWithASeed) {
  Dataset d = scaling_runs(120, 0.03, 12);
  LearnOptions o{.trees = 20, .seed = 7};
  CrossValidation a = cross_validate(d, o, 5), b = cross_validate(d, o, 5);
  EXPECT_EQ(a.mean_relative_error, b.mean_relative_error);
  EXPECT_EQ(a.fold_errors, b.fold_errors);
  EXPECT_EQ(a.fold_errors.size(), 5u);
  o.seed = 8;
  EXPECT_NE(cross_validate(d, o, 5).mean_relative_error, a.mean_relative_error);
}

TEST(CrossValidation, ForestsBeatLinearBaselinesOnANonlinearLaw) {
  Dataset d = scaling_runs(250, 0.02, 13);
  auto error = [&](Method m, unsigned expand) {
    return cross_validate(d, {.method = m, .expand = expand, .trees = 40, .seed = 1}, 5).mean_relative_error;
  };
  double et = error(Method::ExtraTrees, 1), rf = error(Method::RandomForest, 1);
  double ridge = error(Method::Ridge, 1);
  EXPECT_LT(et, 0.10);
  EXPECT_LT(rf, 0.15);
  EXPECT_LT(et, ridge);
  // The expansion gives the linear model n² and n²·p terms to work with.
  EXPECT_LT(error(Method::Ridge, 3), ridge);
}

TEST(Pipeline, ImportanceFilterDropsJunkAndPredictsFromRawRows) {
  Dataset d = scaling_runs(300, 0.02, 14);
  LearnedModel m = fit_learned_model(d, {.importance_filter = 0.95, .trees = 40, .seed = 2});
  for (const auto& name : m.kept_names) EXPECT_TRUE(name == "n" || name == "ranks") << name;
  EXPECT_FALSE(m.kept_names.empty());
  EXPECT_NEAR(std::accumulate(m.importances.begin(), m.importances.end(), 0.0), 1.0, 1e-9);
  double row[] = {256, 0.1, 0.9, 4};
  double truth = 1e-6 * 256 * 256 / 4 + 0.05 * 2 + 0.01;
  EXPECT_NEAR(m.predict(row).point, truth, 0.1 * truth);
}

TEST(Pipeline, TimeFilterNeedsEpochsAndKeepsEarlyFeatures) {
  Dataset d = scaling_runs(100, 0.02, 15);
  EXPECT_THROW(fit_learned_model(d, {.time_filter = 0.05, .trees = 5}), UserError);
  d.epochs = std::vector<double>{0.0, 0.5, 0.01, 0.0};  // junk1 is known only half way
  LearnedModel m = fit_learned_model(d, {.time_filter = 0.05, .trees = 5});
  EXPECT_EQ(m.inputs, (std::vector<std::string>{"n", "junk2", "ranks"}));
  EXPECT_EQ(m.time_filtered_out, std::vector<std::string>{"junk1"});
  d.epochs = std::vector<double>{0.5, 0.5, 0.5, 0.5};
  EXPECT_THROW(fit_learned_model(d, {.time_filter = 0.05, .trees = 5}), UserError);
}

TEST(Pipeline, InputFilterBeforeTheExpansionBringsItUnderTheGuard) {
  Dataset d = scaling_runs(200, 0.02, 18);
  // 4 features to degree 3: 34 columns, over a guard of 20.
  EXPECT_THROW(fit_learned_model(d, {.expand = 3, .trees = 20, .max_columns = 20}), UserError);
  // Only n and ranks matter: 2 inputs to degree 3 are 9 columns.
  LearnedModel m = fit_learned_model(d, {.expand = 3, .input_filter = 0.95, .trees = 40, .seed = 3, .max_columns = 20});
  for (const auto& name : m.inputs) EXPECT_TRUE(name == "n" || name == "ranks") << name;
  EXPECT_EQ(m.inputs.size(), 2u);
  EXPECT_EQ(m.expansion.monomials.size(), 9u);
  double row[] = {256, 4};
  double truth = 1e-6 * 256 * 256 / 4 + 0.05 * 2 + 0.01;
  EXPECT_NEAR(m.predict(row).point, truth, 0.1 * truth);
  // compare applies the same filtration in every cell, and says how many columns it left.
  CompareOptions o{.train_fractions = {0.5}, .repeats = 1, .trees = 20, .max_columns = 20, .input_filter = 0.95};
  for (const auto& c : compare_methods(d, o)) {
    if (c.method == Method::Extrap) continue;
    ASSERT_TRUE(c.mean_relative_error) << method_name(c.method) << " " << c.note;
    EXPECT_LE(c.inputs, 2.0) << method_name(c.method);
    EXPECT_LE(c.columns, c.expanded ? 9.0 : 2.0) << method_name(c.method);
  }
}

TEST(Pipeline, OptionsOutOfRangeNameTheirFlag) {
  Dataset d = scaling_runs(30, 0.02, 17);
  auto flag_of = [&](const LearnOptions& o) {
    try {
      fit_learned_model(d, o);
    } catch (const UserError& e) {
      return e.where().field;
    }
    return std::string("no error");
  };
  EXPECT_EQ(flag_of({.importance_filter = 1.5, .trees = 3}), "--importance-filter");
  EXPECT_EQ(flag_of({.input_filter = 0.0, .trees = 3}), "--input-filter");
  EXPECT_EQ(flag_of({.time_filter = -0.1, .trees = 3}), "--time-filter");
  EXPECT_EQ(flag_of({.trees = 0}), "--trees");
  EXPECT_EQ(flag_of({.trees = 3, .interval = 1.0}), "--interval");
}

TEST(Compare, EveryMethodAtEveryFraction) {
  Dataset d = scaling_runs(80, 0.02, 16);
  CompareOptions o{.train_fractions = {0.25, 0.75}, .repeats = 1, .trees = 10};
  auto cells = compare_methods(d, o);
  EXPECT_EQ(cells.size(), 2u * 6u * 2u);
  for (const auto& c : cells) {
    if (c.method == Method::Extrap && c.expanded) {
      EXPECT_FALSE(c.mean_relative_error);
      continue;
    }
    ASSERT_TRUE(c.mean_relative_error) << method_name(c.method) << " " << c.note;
    EXPECT_GE(*c.mean_relative_error, 0.0);
  }
}

}  // namespace
}  // namespace perfcast::learn
