// `perfcast analyze`, run as a process: compile flags after `--` reach clang.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "perfcast_cli.h"
#include "scratch.h"

namespace {

// analyze compiles with clang: slower than the other commands.
perfcast::measure::ProcessResult perfcast_run(std::vector<std::string> args) {
  return perfcast::testing::perfcast_run(std::move(args), std::chrono::seconds(120));
}

// The trip count is a macro only the command line defines: with `-- -DN=37`
// the model counts 2 flops x 37; without it clang's error names N.
TEST(CliAnalyze, CompileFlagsAfterTheDashesReachClang) {
  auto dir = perfcast::testing::scratch() / "flags";
  std::filesystem::create_directories(dir);
  auto source = dir / "macro_trips.c";
  std::ofstream(source) << R"(#include <mpi.h>
double a[1000];
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  for (int i = 0; i < N; i++) a[i] = 2.0 * a[i] + 1.0;
  MPI_Finalize();
  return (int)a[3];
}
)";
  auto model = dir / "m.json";
  auto r = perfcast_run({"analyze", source.string(), "-o", model.string(), "--no-mca", "--", "-DN=37"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  auto p = perfcast_run({"predict", model.string(), "--machine", "polus", "--np", "1", "--json"});
  ASSERT_EQ(p.exit_code, 0) << p.stderr_text;
  EXPECT_EQ(nlohmann::json::parse(p.stdout_text)["ranks"][0]["flops_double"].get<double>(), 2.0 * 37);

  auto missing = perfcast_run({"analyze", source.string(), "-o", model.string(), "--no-mca"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.stderr_text.find("'N'"), std::string::npos) << missing.stderr_text;
  std::filesystem::remove_all(dir);
}

}  // namespace

namespace {

// --machine takes a machine's measured instruction cycles into MCA's model; a
// file without them is refused (they would silently not apply), and one with
// them is recorded in the model.
TEST(CliAnalyze, MachineCyclesAreTakenOrTheirAbsenceIsAnError) {
  auto dir = perfcast::testing::scratch() / "machine";
  std::filesystem::create_directories(dir);
  auto source = dir / "sum.c";
  std::ofstream(source) << R"(#include <mpi.h>
double a[1000];
int main(int argc, char **argv) {
  double s = 0;
  MPI_Init(&argc, &argv);
  for (int i = 0; i < 1000; i++) s += a[i];
  MPI_Finalize();
  return (int)s;
}
)";
  auto model = dir / "m.json";
  auto refused = perfcast_run({"analyze", source.string(), "-o", model.string(), "--mcpu", "znver3", "--machine", "polus"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.stderr_text.find("no node.instruction_cycles"), std::string::npos) << refused.stderr_text;
  EXPECT_FALSE(std::filesystem::exists(model)) << "nothing written";

  auto host = dir / "host.toml";
  std::ofstream(host) << R"(name = "h"
[node]
count = 1
cores = 2
flops_per_core = "10 Gflop/s"
instruction_cycles = { fp_add_latency = 2 }
[memory]
DRAM = { bandwidth = "10 GB/s" }
[network]
latency = "1 us"
bandwidth = "1 GB/s"
)";
  auto taken = perfcast_run({"analyze", source.string(), "-o", model.string(), "--mcpu", "znver3", "--machine",
                             host.string()});
  ASSERT_EQ(taken.exit_code, 0) << taken.stderr_text;
  auto j = nlohmann::json::parse(std::ifstream(model));
  EXPECT_EQ(j["mca"]["host_cycles"]["source"], host.string());
  std::filesystem::remove_all(dir);
}

}  // namespace
