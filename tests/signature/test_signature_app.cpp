// A real app traced, its signature built with both algorithms: the time-step
// loop is a phase whose weight is the step count the app was given, and the
// prediction rebuilds the traced total.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "measure/launcher.h"
#include "perfcast_cli.h"
#include "scratch.h"

namespace perfcast::signature {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using perfcast::testing::perfcast_run;
using perfcast::testing::scratch;

std::vector<std::string> traced(const fs::path& dir, int ranks, std::vector<std::string> program) {
  std::vector<std::string> args = {"trace", "-o", dir.string(), "--", MPIRUN};
  std::istringstream flags(MPIRUN_FLAGS);
  for (std::string flag; flags >> flag;) args.push_back(flag);
  args.insert(args.end(), {"-n", std::to_string(ranks)});
  args.insert(args.end(), program.begin(), program.end());
  return args;
}

json build(const fs::path& trace, const std::string& algorithm) {
  auto sig = scratch() / (trace.filename().string() + "-" + algorithm + ".sig");
  auto r = perfcast_run({"signature", "build", trace.string(), "-o", sig.string(), "--algorithm", algorithm});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_NE(r.stdout_text.find("phase 1"), std::string::npos) << r.stdout_text;
  auto shown = perfcast_run({"signature", "show", sig.string(), "--json"});
  EXPECT_EQ(shown.exit_code, 0) << shown.stderr_text;
  return json::parse(shown.stdout_text);
}

// The phases whose weight is `steps`, and the ticks they cover per occurrence.
std::vector<json> with_weight(const json& sig, int steps) {
  std::vector<json> out;
  for (const auto& p : sig["phases"])
    if (p["weight"] == steps) out.push_back(p);
  return out;
}

// The tracer timed every call, so the rebuilt total is the traced region's
// time: the slowest rank's compute and calls from MPI_Init's return to
// MPI_Finalize. That is its wall time less MPI_Finalize less the tracer's
// own work between calls, which the tracer header states per rank: the two
// agree to rounding, and the total is within the tracer's work of the wall
// time less MPI_Finalize.
void expect_traced_region_time(const json& sig, const fs::path& trace) {
  EXPECT_EQ(sig["calls_timed"], true);
  json manifest = json::parse(std::ifstream(trace / "trace.json"));
  double region = 0;
  for (const auto& rank : manifest["tracer"]["ranks"])
    region = std::max(region,
                      rank["wall_s"].get<double>() - rank["finalize_s"].get<double>() - rank["tracer_s"].get<double>());
  double total = sig["traced_total_s"].get<double>();
  double wall = sig["traced_wall_before_finalize_s"].get<double>();
  std::cout << "traced total " << total << " s, slowest rank's wall time less MPI_Finalize " << wall
            << " s, less the tracer's work " << region << " s\n";
  EXPECT_NEAR(total, region, 1e-6);
  EXPECT_LE(total, wall + 1e-6);
  EXPECT_GT(total, 0.5 * wall);  // the tracer's work is microseconds per call
}

void expect_halo_step_phase(const json& sig, int steps, const fs::path& trace) {
  auto phases = with_weight(sig, steps);
  ASSERT_FALSE(phases.empty()) << sig.dump(1);
  // wave3d's step: six irecv and six isend per rank, then their waitall.
  int irecv = 0, isend = 0, waitall = 0;
  for (const auto& p : phases)
    for (const auto& block : p["blocks"])
      for (const auto& e : block) {
        if (e["rank"] != 0) continue;
        irecv += e["kind"] == "irecv";
        isend += e["kind"] == "isend";
        waitall += e["kind"] == "waitall";
      }
  // loops folds runs of equal faces into inner loops, so at least one of each.
  EXPECT_GE(irecv, 1);
  EXPECT_GE(isend, 1);
  EXPECT_EQ(waitall, 1) << sig.dump(1);
  EXPECT_NEAR(sig["predicted_total_s"].get<double>(), sig["traced_total_s"].get<double>(),
              1e-9 + 1e-9 * sig["traced_total_s"].get<double>());
  EXPECT_GT(sig["traced_wall_s"].get<double>(), 0);
  expect_traced_region_time(sig, trace);
}

TEST(SignatureApp, Wave3dStepLoopHasTheStepCountAsWeight) {
  fs::path app = fs::path(PERFCAST_BINARY_DIR) / "apps" / "wave3d";
  if (!fs::exists(app)) GTEST_SKIP() << "apps are not built";
  constexpr int kSteps = 7;
  fs::path dir = scratch() / "wave3d";
  auto r =
      perfcast_run(traced(dir, 2, {app.string(), "--n", "16", "--steps", std::to_string(kSteps), "--repeats", "1"}),
                   std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  for (std::string algorithm : {"repeats", "loops"}) {
    SCOPED_TRACE(algorithm);
    json sig = build(dir, algorithm);
    EXPECT_EQ(sig["algorithm"], algorithm);
    EXPECT_EQ(sig["ranks"], 2);
    expect_halo_step_phase(sig, kSteps, dir);
  }
}

// cg's iteration: a halo exchange, then two dot products (allreduces).
// loops folds the two equal allreduces into an inner loop and finds the
// iteration's own blocks with weight = the iterations; repeats also counts
// the same five blocks where the set-up and the final check make them, so at
// least the iterations.
TEST(SignatureApp, CgIterationLoop) {
  fs::path app = fs::path(PERFCAST_BINARY_DIR) / "apps" / "cg";
  if (!fs::exists(app)) GTEST_SKIP() << "apps are not built";
  constexpr int kIters = 9;
  fs::path dir = scratch() / "cg";
  auto r =
      perfcast_run(traced(dir, 2, {app.string(), "--n", "16", "--iters", std::to_string(kIters), "--repeats", "1"}),
                   std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  auto halo_weight = [](const json& sig) {
    std::vector<std::int64_t> weights;
    for (const auto& p : sig["phases"])
      for (const auto& block : p["blocks"])
        for (const auto& e : block)
          if (e["kind"] == "waitall" && e["rank"] == 0) weights.push_back(p["weight"].get<std::int64_t>());
    return weights;
  };
  json loops = build(dir, "loops");
  EXPECT_EQ(halo_weight(loops), (std::vector<std::int64_t>{kIters})) << loops.dump(1);
  json repeats = build(dir, "repeats");
  auto w = halo_weight(repeats);
  ASSERT_EQ(w.size(), 1u) << repeats.dump(1);
  EXPECT_GE(w[0], kIters);
  for (const json* sig : {&loops, &repeats}) {
    EXPECT_NEAR((*sig)["predicted_total_s"].get<double>(), (*sig)["traced_total_s"].get<double>(), 1e-9);
    expect_traced_region_time(*sig, dir);
  }
}

TEST(SignatureApp, BadCoverageAndAlgorithmAreRefused) {
  auto r = perfcast_run({"signature", "build", "nowhere", "-o", (scratch() / "x.sig").string(), "--algorithm", "x"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.stderr_text.find("--algorithm"), std::string::npos) << r.stderr_text;
}

}  // namespace
}  // namespace perfcast::signature
