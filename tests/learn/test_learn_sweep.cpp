// The points of a sweep: lists and ranges parsed, the grid in order or a
// seeded sample of distinct points, and commands with every {name} replaced.
#include <gtest/gtest.h>

#include <algorithm>

#include <set>

#include "learn/sweep_plan.h"
#include "support/error.h"

namespace perfcast::learn {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_sweep_parameter(text);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Sweep, ListsArithmeticAndGeometricRanges) {
  EXPECT_EQ(parse_sweep_parameter("np=1,2,4").values, (std::vector<std::string>{"1", "2", "4"}));
  EXPECT_EQ(parse_sweep_parameter("n=16:64:16").values, (std::vector<std::string>{"16", "32", "48", "64"}));
  EXPECT_EQ(parse_sweep_parameter("n=16:128:*2").values, (std::vector<std::string>{"16", "32", "64", "128"}));
  EXPECT_EQ(parse_sweep_parameter("dt=0.5:1:0.25").values, (std::vector<std::string>{"0.5", "0.75", "1"}));
  EXPECT_EQ(error_of("n"), "'--param': 'n' is not NAME=VALUES");
  EXPECT_EQ(error_of("n=1:x:2"), "'--param': 'x' in 'n=1:x:2' is not a number");
  EXPECT_EQ(error_of("n=8:1:-1"), "'--param': 'n=8:1:-1': the step must make the range grow");
  EXPECT_EQ(error_of("n-1=2"), "'--param': 'n-1' is not a parameter name (letters, digits, _)");
}

TEST(Sweep, GridInOrderAndSamplesDistinctAndRepeatable) {
  std::vector<SweepParameter> ps = {parse_sweep_parameter("np=1,2"), parse_sweep_parameter("n=8:24:8")};
  auto grid = sweep_points(ps, std::nullopt, 1);
  ASSERT_EQ(grid.size(), 6u);
  EXPECT_EQ(grid[0].label, "np=1 n=8");
  EXPECT_EQ(grid[1].label, "np=1 n=16");
  EXPECT_EQ(grid[5].label, "np=2 n=24");
  auto sample = sweep_points(ps, 4, 7);
  ASSERT_EQ(sample.size(), 4u);
  std::set<std::string> labels;
  for (const auto& p : sample) labels.insert(p.label);
  EXPECT_EQ(labels.size(), 4u);
  auto again = sweep_points(ps, 4, 7);
  for (size_t i = 0; i < sample.size(); ++i) EXPECT_EQ(again[i].label, sample[i].label);
  // As many samples as the grid or more: every point once, in random order.
  std::vector<SweepParameter> wide = {parse_sweep_parameter("np=1:4:1"), parse_sweep_parameter("n=1:50:1")};
  auto all = sweep_points(wide, 1000, 7);
  ASSERT_EQ(all.size(), 200u);
  std::set<std::string> every;
  for (const auto& p : all) every.insert(p.label);
  EXPECT_EQ(every.size(), 200u);
  // The first quarter of the order reaches np=4 (in grid order it holds only np=1).
  EXPECT_TRUE(std::any_of(all.begin(), all.begin() + 50, [](const auto& p) { return p.label.starts_with("np=4 "); }));
}

TEST(Sweep, CommandsTakeThePointsValues) {
  std::vector<SweepParameter> ps = {parse_sweep_parameter("np=2"), parse_sweep_parameter("n=32")};
  auto point = sweep_points(ps, std::nullopt, 1)[0];
  EXPECT_EQ(sweep_command({"mpirun", "-n", "{np}", "./app", "--size={n}x{n}"}, ps, point),
            (std::vector<std::string>{"mpirun", "-n", "2", "./app", "--size=32x32"}));
  try {
    sweep_command({"./app", "{m}", "{np}", "{n}"}, ps, point);
    ADD_FAILURE() << "an unknown name was accepted";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), "'--': the command uses {m}, which no --param names");
  }
  try {
    sweep_command({"./app", "{np}"}, ps, point);
    ADD_FAILURE() << "an unused parameter was accepted";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), "'--param': no word of the command uses {n}");
  }
}

}  // namespace
}  // namespace perfcast::learn
