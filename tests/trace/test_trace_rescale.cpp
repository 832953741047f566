// A real run traced with its host's machine file (perfcast trace --machine)
// and replayed on another machine: every measured burst is stretched by the
// two files' clock ratio, nothing else changes; without a host file the
// compute replays as measured, and asking to rescale it is a clear error.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/mpirun_command.h"
#include "perfcast_cli.h"
#include "scratch.h"
#include "trace/collect.h"

namespace perfcast::trace {
namespace {

namespace fs = std::filesystem;
using testing::perfcast_run;
using testing::scratch;

constexpr int kRanks = 2;
const fs::path kProgram = fs::path(TRACE_PROGRAMS) / "trace_fold_loop";

fs::path traced(const std::string& name, const std::vector<std::string>& options) {
  fs::path dir = scratch() / name;
  std::vector<std::string> args = {"trace", "-o", dir.string()};
  args.insert(args.end(), options.begin(), options.end());
  args.push_back("--");
  for (const auto& word : testing::mpirun_command(kRanks, {kProgram.string(), "100", "same"})) args.push_back(word);
  auto result = perfcast_run(args, std::chrono::seconds(180));
  EXPECT_EQ(result.exit_code, 0) << result.stdout_text << result.stderr_text;
  return dir;
}

nlohmann::json simulated(const fs::path& dir, std::vector<std::string> options) {
  std::vector<std::string> args = {"simulate", dir.string(), "--machine", "primequest", "--json"};
  args.insert(args.end(), options.begin(), options.end());
  auto sim = perfcast_run(args);
  EXPECT_EQ(sim.exit_code, 0) << sim.stdout_text << sim.stderr_text;
  return nlohmann::json::parse(sim.stdout_text);
}

TEST(TraceRescale, AReplayOnAnotherMachineStretchesTheMeasuredComputeByTheClockRatio) {
  fs::path dir = traced("rescale-host", {"--machine", "generic-cluster"});
  ASSERT_TRUE(fs::is_regular_file(dir / kTracedMachineName)) << "the host's machine file is kept in the trace";
  nlohmann::json asis = simulated(dir, {"--rescale-by", "none"});
  nlohmann::json rescaled = simulated(dir, {});
  EXPECT_FALSE(asis.contains("compute_rescale"));
  ASSERT_TRUE(rescaled.contains("compute_rescale")) << rescaled.dump(2);
  // generic-cluster's clock is 2.8 GHz, primequest's 1.6 GHz: 1.75.
  EXPECT_EQ(rescaled["compute_rescale"]["by"], "clock");
  EXPECT_EQ(rescaled["compute_rescale"]["traced_machine"], "generic-cluster");
  EXPECT_NEAR(rescaled["compute_rescale"]["factor_max"].get<double>(), 1.75, 1e-12);

  auto shown = perfcast_run({"trace", "show", dir.string(), "--json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.stderr_text;
  nlohmann::json summary = nlohmann::json::parse(shown.stdout_text);
  for (int r = 0; r < kRanks; ++r) {
    double measured = summary["ranks"][r]["compute_s"].get<double>();
    EXPECT_GT(measured, 100 * 1e-4) << "about 100 us of compute an iteration";
    double before = asis["ranks"][r]["calc_s"].get<double>(), after = rescaled["ranks"][r]["calc_s"].get<double>();
    EXPECT_NEAR(after - before, 0.75 * measured, 1e-6 * measured) << "rank " << r;
  }
  // Named explicitly, the same file gives the same replay.
  nlohmann::json named = simulated(dir, {"--traced-machine", "generic-cluster", "--rescale-by", "clock"});
  EXPECT_DOUBLE_EQ(named["predicted_time_s"].get<double>(), rescaled["predicted_time_s"].get<double>());
}

TEST(TraceRescale, WithoutTheHostsFileComputeReplaysAsMeasuredAndRescalingIsRefused) {
  fs::path dir = traced("rescale-nohost", {});
  EXPECT_FALSE(fs::exists(dir / kTracedMachineName));
  nlohmann::json plain = simulated(dir, {});
  EXPECT_FALSE(plain.contains("compute_rescale"));
  auto refused = perfcast_run({"simulate", dir.string(), "--machine", "primequest", "--rescale-by", "clock"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.stderr_text.find("the machine the trace was recorded on is not known"), std::string::npos)
      << refused.stderr_text;
  EXPECT_NE(refused.stderr_text.find("perfcast trace --machine"), std::string::npos) << refused.stderr_text;
  auto wrong = perfcast_run({"trace", "-o", (scratch() / "rescale-bad").string(), "--machine", "no-such-machine",
                             "--", "true"});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(wrong.stderr_text.find("no-such-machine"), std::string::npos) << wrong.stderr_text;
}

}  // namespace
}  // namespace perfcast::trace
