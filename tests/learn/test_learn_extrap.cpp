// The Extra-P-style baseline recovers the exponents of laws inside its search
// space, and its predictions extrapolate.
#include <gtest/gtest.h>

#include <cmath>

#include "learn/extrap.h"
#include "learn/synthetic.h"
#include "support/error.h"

namespace perfcast::learn {
namespace {

using testing::grid_runs;

bool has_term(const ExtrapModel& m, double pe, int pl, double ne, int nl) {
  for (const auto& t : m.terms)
    if (std::abs(t.p_exponent - pe) < 1e-9 && t.p_log == pl && std::abs(t.n_exponent - ne) < 1e-9 && t.n_log == nl)
      return true;
  return false;
}

TEST(Extrap, RecoversTwoSeparateTerms) {
  Dataset d =
      grid_runs([](double p, double n) { return 1 + 0.5 * std::sqrt(p) * std::log2(p) + 2e-3 * std::pow(n, 1.5); });
  ExtrapModel m = fit_extrap(d.features, d.feature_names, d.time_s);
  EXPECT_EQ(m.process_feature, "ranks");
  EXPECT_EQ(m.size_feature, "n");
  ASSERT_EQ(m.terms.size(), 2u) << m.formula();
  EXPECT_TRUE(has_term(m, 0.5, 1, 0, 0)) << m.formula();
  EXPECT_TRUE(has_term(m, 0, 0, 1.5, 0)) << m.formula();
  EXPECT_NEAR(m.constant, 1.0, 1e-6);
  EXPECT_LT(m.cv_error, 1e-6);
  // Far outside the grid the law still holds.
  EXPECT_NEAR(m.predict(4096, 1e5), 1 + 0.5 * 64 * 12 + 2e-3 * std::pow(1e5, 1.5), 1e-3 * m.predict(4096, 1e5));
}

TEST(Extrap, RecoversAProductTerm) {
  Dataset d = grid_runs([](double p, double n) { return 3 + 1e-4 * n * std::log2(p); });
  ExtrapModel m = fit_extrap(d.features, d.feature_names, d.time_s);
  ASSERT_EQ(m.terms.size(), 1u) << m.formula();
  EXPECT_TRUE(has_term(m, 0, 1, 1, 0)) << m.formula();
  EXPECT_NEAR(m.coefficients[0], 1e-4, 1e-9);
}

TEST(Extrap, ProcessCountOnly) {
  Dataset d = grid_runs([](double p, double) { return 0.2 + 0.01 * p * p; });
  ExtrapModel m = fit_extrap(d.features, d.feature_names, d.time_s, {.size_feature = ""});
  EXPECT_TRUE(has_term(m, 2, 0, 0, 0)) << m.formula();
  EXPECT_EQ(m.terms.size(), 1u) << m.formula();
}

TEST(Extrap, NeedsAProcessCount) {
  Dataset d = grid_runs([](double p, double n) { return p + n; });
  d.feature_names = {"procz", "n"};
  EXPECT_THROW(fit_extrap(d.features, d.feature_names, d.time_s), UserError);
  EXPECT_NO_THROW(fit_extrap(d.features, d.feature_names, d.time_s, {.process_feature = "procz"}));
}

}  // namespace
}  // namespace perfcast::learn
