// apps/fft3d run with the pinned Open MPI: a plane wave transforms to one
// spike of height nx ny nz at its wave vector and the timed round trips restore
// a random grid, both to 1e-10, at 1, 2 and 4 ranks, with slabs and with pencils
// (2 x 2, 4 x 1 and 1 x 4), on cubic and uneven grids (a wave vector that wraps
// around a short side included); the transpose sizes it reports follow the
// decomposition; grids that do not split are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/app_checks.h"

using perfcast::testing::AppRun;
using perfcast::testing::run_app;

namespace {

nlohmann::json run_ok(int ranks, const std::vector<std::string>& args) {
  nlohmann::json j = perfcast::testing::run_app_passing("fft3d", ranks, args);
  if (j.empty()) return j;
  EXPECT_LT(j.value("plane_wave_error", 1.0), 1e-10);
  EXPECT_LT(j.value("roundtrip_error", 1.0), 1e-10);
  EXPECT_GE(j.value("roundtrip_error", -1.0), 0.0);
  EXPECT_GT(j.value("time_s", 0.0), 0.0);
  EXPECT_TRUE(j.contains("times_s") && j["times_s"].is_array());
  return j;
}

// The transpose: every rank sends every rank nx/P x ny/P x nz complex numbers.
void expect_slabs(const nlohmann::json& j, int ranks, long long nx, long long ny, long long nz) {
  EXPECT_EQ(j.value("nx", 0), nx);
  EXPECT_EQ(j.value("ny", 0), ny);
  EXPECT_EQ(j.value("nz", 0), nz);
  EXPECT_EQ(j.value("planes_per_rank", 0), nx / ranks);
  EXPECT_EQ(j.value("alltoall_bytes_per_peer", 0LL), 16 * (nx / ranks) * (ny / ranks) * nz);
  EXPECT_EQ(j.value("alltoalls_per_round_trip", 0), 2);
  const double points = double(nx * ny * nz);
  EXPECT_NEAR(j.value("flops_per_round_trip", 0.0), 2 * 5 * points * std::log2(points), 1e-6 * points);
}

// Pencils on pr x pc: the row transposes send nx/pr x ny/pc x nz/pc numbers to
// each of pc ranks, the column ones nx/pr x nz/pc x ny/pr to each of pr.
void expect_pencils(const nlohmann::json& j, int pr, int pc, long long nx, long long ny, long long nz) {
  EXPECT_EQ(j.value("decomposition", ""), "pencils");
  EXPECT_EQ(j.value("pr", 0), pr);
  EXPECT_EQ(j.value("pc", 0), pc);
  EXPECT_EQ(j.value("alltoalls_per_round_trip", 0), 4);
  EXPECT_EQ(j.value("row_alltoall_bytes_per_peer", 0LL), 16 * (nx / pr) * (ny / pc) * (nz / pc));
  EXPECT_EQ(j.value("column_alltoall_bytes_per_peer", 0LL), 16 * (nx / pr) * (nz / pc) * (ny / pr));
}

std::vector<std::string> pencils(std::vector<std::string> args) {
  args.insert(args.end(), {"--decomp", "pencil"});
  return args;
}

}  // namespace

TEST(Fft3d, OneRank) {
  auto j = run_ok(1, {"--n", "16", "--repeats", "2"});
  expect_slabs(j, 1, 16, 16, 16);
  EXPECT_EQ(j["times_s"].size(), 2u);
  EXPECT_EQ(j["plane_wave"], nlohmann::json::array({1, 2, 3}));
}

TEST(Fft3d, TwoRanksUnevenGrid) {
  auto j = run_ok(2, {"--nx", "12", "--ny", "8", "--nz", "10", "--repeats", "1"});
  expect_slabs(j, 2, 12, 8, 10);
}

TEST(Fft3d, FourRanksOversubscribed) {
  RecordProperty("oversubscribed", "true");
  auto j = run_ok(4, {"--n", "16", "--repeats", "1"});
  expect_slabs(j, 4, 16, 16, 16);
}

TEST(Fft3d, WaveVectorWrapsOnShortSides) {
  // (1, 2, 3) on a 4 x 2 x 3 grid is (1, 0, 0): still one spike
  auto j = run_ok(2, {"--nx", "4", "--ny", "2", "--nz", "3", "--repeats", "1"});
  EXPECT_EQ(j["plane_wave"], nlohmann::json::array({1, 0, 0}));
  expect_slabs(j, 2, 4, 2, 3);
}

TEST(Fft3d, GridsThatDoNotSplitAreRefused) {
  struct Case {
    int ranks;
    std::vector<std::string> args;
    std::string names;
  };
  const std::vector<Case> cases = {
      {4, {"--nx", "6", "--ny", "8"}, "--nx"},
      {1, {"--n", "0"}, "--n"},
      {1, {"--decomp", "cube"}, "--decomp"},
      {2, {"--pr", "2"}, "--pr"},                                                  // a pencil option without pencils
      {4, {"--decomp", "pencil", "--pr", "3"}, "--pr"},                            // not the 4 ranks
      {4, {"--decomp", "pencil", "--nx", "3", "--ny", "4", "--nz", "4"}, "--nx"},  // 2 x 2

  };
  for (const auto& c : cases) {
    AppRun run = run_app("fft3d", c.ranks, c.args);
    EXPECT_NE(run.process.exit_code, 0) << c.names;
    EXPECT_NE(run.process.stderr_text.find(c.names), std::string::npos) << run.process.stderr_text;
    EXPECT_FALSE(run.result.is_object()) << c.names;
  }
}

TEST(Fft3d, PencilsAtOneRank) {
  auto j = run_ok(1, pencils({"--n", "16", "--repeats", "1"}));
  expect_pencils(j, 1, 1, 16, 16, 16);
}

TEST(Fft3d, PencilsAtTwoRanksUnevenGrid) {
  auto j = run_ok(2, pencils({"--nx", "12", "--ny", "8", "--nz", "10", "--repeats", "1"}));
  expect_pencils(j, 1, 2, 12, 8, 10);
}

TEST(Fft3d, PencilsAtFourRanksOversubscribed) {
  RecordProperty("oversubscribed", "true");
  auto square = run_ok(4, pencils({"--nx", "8", "--ny", "12", "--nz", "6", "--repeats", "1"}));
  expect_pencils(square, 2, 2, 8, 12, 6);
  auto column = run_ok(4, pencils({"--nx", "8", "--ny", "12", "--nz", "6", "--pr", "4", "--repeats", "1"}));
  expect_pencils(column, 4, 1, 8, 12, 6);
  auto row = run_ok(4, pencils({"--nx", "6", "--ny", "12", "--nz", "8", "--pc", "4", "--repeats", "1"}));
  expect_pencils(row, 1, 4, 6, 12, 8);
}

TEST(Fft3d, HelpListsOptions) {
  AppRun run = run_app("fft3d", 1, {"--help"});
  EXPECT_EQ(run.process.exit_code, 0);
  for (const char* opt : {"--n", "--nx", "--ny", "--nz", "--decomp", "--pr", "--pc", "--repeats"})
    EXPECT_NE(run.process.stdout_text.find(opt), std::string::npos) << opt;
}
