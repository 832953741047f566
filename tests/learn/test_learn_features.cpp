// Expansion and the two filtrations: the columns an expansion makes, its guard,
// and what each filter must keep and drop.
#include <gtest/gtest.h>

#include "learn/features.h"
#include "support/error.h"

namespace perfcast::learn {
namespace {

TEST(Expansion, DegreeThreeOfTwoFeatures) {
  Expansion e = polynomial_expansion(2, 3);
  // x, y, x², xy, y², x³, x²y, xy², y³
  EXPECT_EQ(e.monomials.size(), 9u);
  EXPECT_EQ(expanded_column_count(2, 3), 9u);
  auto names = e.names({"n", "p"});
  EXPECT_EQ(names, (std::vector<std::string>{"n", "p", "n^2", "n*p", "p^2", "n^3", "n^2*p", "n*p^2", "p^3"}));
  double in[] = {2, 3}, out[9];
  e.apply(in, out);
  EXPECT_EQ(out[3], 6);
  EXPECT_EQ(out[6], 12);
  EXPECT_EQ(out[8], 27);
}

TEST(Expansion, CountMatchesTheBinomial) {
  for (size_t m : {1u, 3u, 7u})
    for (unsigned d : {1u, 2u, 3u}) EXPECT_EQ(polynomial_expansion(m, d).monomials.size(), expanded_column_count(m, d));
  EXPECT_EQ(expanded_column_count(100, 3), 176850u);
}

TEST(Expansion, GuardRefusesWideExpansionsAndSaysToFilter) {
  try {
    polynomial_expansion(100, 3, 5000);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("176850 columns"), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find("filter first"), std::string::npos) << e.hint();
  }
  EXPECT_THROW(polynomial_expansion(3, 0), UserError);
}

TEST(TimeFilter, KeepsFeaturesKnownByTheThreshold) {
  std::vector<double> epochs = {0.0, 0.04, 0.05, 0.06, 1.0};
  EXPECT_EQ(time_filter(epochs, 0.05), (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(time_filter(epochs, 1.0).size(), 5u);
  EXPECT_TRUE(time_filter(epochs, -0.1).empty());
}

TEST(ImportanceFilter, KeepsTheMostImportantUpToTheFraction) {
  std::vector<double> imp = {0.05, 0.5, 0.3, 0.1, 0.05, 0.0};
  // 0.5 + 0.3 = 0.8 < 0.85; + 0.1 crosses it.
  EXPECT_EQ(importance_filter(imp, 0.85), (std::vector<size_t>{1, 2, 3}));
  EXPECT_EQ(importance_filter(imp, 0.8), (std::vector<size_t>{1, 2}));
  // Zero importance is never kept, even at 100 %.
  EXPECT_EQ(importance_filter(imp, 1.0).size(), 5u);
  EXPECT_EQ(importance_filter({0.0, 0.0}, 0.95).size(), 0u);
}

}  // namespace
}  // namespace perfcast::learn
