// Quantities have domains: a negative, fractional, infinite or NaN value where
// a count, size or time is meant is refused with a message naming it, by every
// command it can enter through (parameters, event text, machine values, the
// counts a model evaluates to), never turned into a prediction.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "perfcast_cli.h"
#include "scratch.h"

namespace {

using perfcast::testing::perfcast_run;

const std::string kSource = PERFCAST_SOURCE_DIR;
const std::string kWave3d = kSource + "/apps/wave3d/wave3d.model.json";
const std::string kPolus = kSource + "/machines/polus.toml";

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string write(const std::string& name, const std::string& text) {
  auto path = perfcast::testing::scratch() / name;
  std::ofstream(path) << text;
  return path.string();
}

TEST(Domains, NegativeSizeIsRefusedNamingTheCountAndTheValues) {
  auto r = perfcast_run({"predict", kWave3d, "--machine", kPolus, "--np", "4", "--param", "n=-64", "--param",
                         "steps=100"});
  EXPECT_EQ(r.exit_code, 1) << r.stdout_text;
  EXPECT_TRUE(r.stdout_text.empty()) << r.stdout_text;
  // The first item the size makes negative, by its own line: the loop's trip count.
  EXPECT_TRUE(contains(r.stderr_text, "trip count of the loop at line 247 of leapfrog_step")) << r.stderr_text;
  EXPECT_TRUE(contains(r.stderr_text, "lx=-32")) << r.stderr_text;
  EXPECT_TRUE(contains(r.stderr_text, "must be >= 0")) << r.stderr_text;
}

TEST(Domains, FractionalValueOfAnIntegerParameterIsRefused) {
  auto r = perfcast_run({"predict", kWave3d, "--machine", kPolus, "--np", "4", "--param", "n=64.7"});
  EXPECT_EQ(r.exit_code, 1) << r.stdout_text;
  EXPECT_TRUE(contains(r.stderr_text, "--param n=64.7")) << r.stderr_text;
  EXPECT_TRUE(contains(r.stderr_text, "whole number")) << r.stderr_text;
  // A whole value written as a real is the same number.
  auto ok = perfcast_run({"predict", kWave3d, "--machine", kPolus, "--np", "4", "--param", "n=64.0"});
  EXPECT_EQ(ok.exit_code, 0) << ok.stderr_text;
}

TEST(Domains, NegativeTripCountIsRefusedInPredictAndInItsEvents) {
  auto model = write("negative_trips.json", R"({
  "format": "perfcast-program-model", "version": 1, "program": "trips",
  "parameters": {"lx": {"default": "8"}},
  "entry": "main",
  "functions": {"main": {"body": [
    {"kind": "loop", "line": 7, "trip_count": "-lx", "body": [
      {"kind": "compute", "flops_double": "10"},
      {"kind": "mpi", "op": "barrier"}]}]}}})");
  auto p = perfcast_run({"predict", model, "--machine", kPolus, "--np", "2"});
  EXPECT_EQ(p.exit_code, 1) << p.stdout_text;
  EXPECT_TRUE(contains(p.stderr_text, "lx=8")) << p.stderr_text;
  // The events a simulation runs are made per iteration of that loop.
  auto out = (perfcast::testing::scratch() / "negative_trips_events").string();
  auto s = perfcast_run({"model", "events", model, "--np", "2", "-o", out});
  EXPECT_EQ(s.exit_code, 1) << s.stdout_text;
  EXPECT_TRUE(contains(s.stderr_text, "line 7")) << s.stderr_text;
  EXPECT_TRUE(contains(s.stderr_text, "whole number >= 0")) << s.stderr_text;
  // In the model's own names, though its work is composed with lx in place.
  EXPECT_TRUE(contains(s.stderr_text, "trip count -lx = -8")) << s.stderr_text;
}

TEST(Domains, ComputeTimeInEventTextMustBeFiniteAndNonNegative) {
  for (std::string bad : {"-1.0", "nan", "inf", "-0.5"}) {
    auto events = write("bad_compute.txt", "rank 0\ncompute " + bad + "\n");
    auto r = perfcast_run({"simulate", "--machine", kPolus, events});
    EXPECT_EQ(r.exit_code, 1) << bad << ": " << r.stdout_text;
    EXPECT_TRUE(contains(r.stderr_text, events + ":2")) << r.stderr_text;
    EXPECT_TRUE(contains(r.stderr_text, "expected a finite number >= 0")) << r.stderr_text;
  }
  auto flops = write("bad_flops.txt", "rank 0\ncompute flops=-5\n");
  auto r = perfcast_run({"simulate", "--machine", kPolus, flops});
  EXPECT_EQ(r.exit_code, 1) << r.stdout_text;
  EXPECT_TRUE(contains(r.stderr_text, "'flops'")) << r.stderr_text;
}

TEST(Domains, QuantityThatOverflowsIsRefused) {
  for (std::string bad : {"1e300 GB/s", "nan GB/s"}) {
    auto r = perfcast_run({"machine", "show", kPolus, "--set", "network.bandwidth=" + bad});
    EXPECT_EQ(r.exit_code, 1) << bad << ": " << r.stdout_text;
    EXPECT_TRUE(contains(r.stderr_text, "network.bandwidth")) << r.stderr_text;
    EXPECT_FALSE(contains(r.stdout_text, "inf")) << r.stdout_text;
  }
}

TEST(Domains, RankCountIsAWholeNumberOfAtLeastOne) {
  for (std::string bad : {"0", "-3", "2.5"}) {
    auto r = perfcast_run({"predict", kWave3d, "--machine", kPolus, "--np", bad});
    EXPECT_NE(r.exit_code, 0) << bad;
    EXPECT_TRUE(contains(r.stderr_text, "--np")) << r.stderr_text;
    EXPECT_LT(r.stderr_text.size(), 200u) << r.stderr_text;
  }
}

TEST(Domains, ARunThatCannotFitIsRefusedBeforeItIsTried) {
  auto r = perfcast_run({"predict", kWave3d, "--machine", kPolus, "--np", "2000000000"}, std::chrono::seconds(20));
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 1) << r.stdout_text;
  EXPECT_TRUE(contains(r.stderr_text, "a prediction of 2000000000 ranks")) << r.stderr_text;
  EXPECT_TRUE(contains(r.stderr_text, "--max-memory")) << r.stderr_text;
  // The same run fits a budget raised for it: the estimate is what is refused, not the rank count.
  auto small = perfcast_run({"predict", kWave3d, "--machine", kPolus, "--np", "64", "--max-memory", "1 KiB"});
  EXPECT_EQ(small.exit_code, 1);
  EXPECT_TRUE(contains(small.stderr_text, "more than the 1 KiB allowed (--max-memory)")) << small.stderr_text;
  auto events = write("two_ranks.txt", "rank 0\ncompute 1e-3\nrank 1\ncompute 2e-3\n");
  auto sim = perfcast_run({"simulate", "--machine", kPolus, events, "--max-memory", "100 B"});
  EXPECT_EQ(sim.exit_code, 1);
  EXPECT_TRUE(contains(sim.stderr_text, "a simulation of 2 ranks")) << sim.stderr_text;
}

// A count beyond 2^53 is no run's (a 64-bit count that wrapped is near
// 2^64): refused naming the rank, the site and the count, not priced.
TEST(Domains, CountBeyondTwoToThe53IsRefusedNamingTheRank) {
  auto model = write("wrapped_count.json", R"j({
  "format": "perfcast-program-model", "version": 1, "program": "wrapped",
  "parameters": {"n": {"default": "4"}},
  "entry": "main",
  "functions": {"main": {"body": [
    {"kind": "loop", "line": 9, "trip_count": "zext(n - 5 * rank, 32)", "body": [
      {"kind": "compute", "flops_double": "3000000"}]}]}}})j");
  auto r = perfcast_run({"predict", model, "--machine", kPolus, "--np", "2"});
  EXPECT_EQ(r.exit_code, 1) << r.stdout_text;
  EXPECT_TRUE(r.stdout_text.empty()) << r.stdout_text;
  EXPECT_TRUE(contains(r.stderr_text, "on rank 1")) << r.stderr_text;
  EXPECT_TRUE(contains(r.stderr_text, "2^53")) << r.stderr_text;
  EXPECT_TRUE(contains(r.stderr_text, "double-precision flops of main")) << r.stderr_text;
  EXPECT_TRUE(contains(r.stderr_text, "1.2884901885e+16")) << r.stderr_text;
  // Rank 0 alone counts 4 x 3e6 flops: predicted. (Rank 1's count wraps: zext(-1, 32) is 2^32 - 1.)
  auto one = perfcast_run({"predict", model, "--machine", kPolus, "--np", "1"});
  EXPECT_EQ(one.exit_code, 0) << one.stderr_text;
}

// A rank's flops at the machine's peak (flops_per_core, SIMD) take at most
// its predicted time; a scalar rate set above the peak prices them faster
// than that, and the prediction is refused naming the rank and the flops.
TEST(Domains, FlopsBeyondPeakTimesTimeAreRefused) {
  auto model = write("beyond_peak.json", R"({
  "format": "perfcast-program-model", "version": 1, "program": "beyond_peak",
  "parameters": {"n": {"default": "1000000"}},
  "entry": "main",
  "functions": {"main": {"body": [
    {"kind": "loop", "line": 5, "trip_count": "n", "body": [
      {"kind": "compute", "flops_double": "100"}]}]}}})");
  auto r = perfcast_run({"predict", model, "--machine", kPolus, "--np", "2", "--scalar", "--set",
                         "node.flops_per_core_scalar=50 Gflop/s"});
  EXPECT_EQ(r.exit_code, 1) << r.stdout_text;
  EXPECT_TRUE(r.stdout_text.empty()) << r.stdout_text;
  EXPECT_TRUE(contains(r.stderr_text, "rank 0: the model counts 1e+08 flops")) << r.stderr_text;
  EXPECT_TRUE(contains(r.stderr_text, "more flops than peak x time")) << r.stderr_text;
  // At a scalar rate below the peak the same model is predicted.
  auto ok = perfcast_run({"predict", model, "--machine", kPolus, "--np", "2", "--scalar", "--set",
                          "node.flops_per_core_scalar=2 Gflop/s"});
  EXPECT_EQ(ok.exit_code, 0) << ok.stderr_text;
}

}  // namespace
