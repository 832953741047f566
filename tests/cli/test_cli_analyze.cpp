// `perfcast analyze`, run as a process: compile flags after `--` reach clang.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

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
// file with neither them nor a CPU is refused (it would silently not apply),
// and one with them is recorded in the model.
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
  auto refused =
      perfcast_run({"analyze", source.string(), "-o", model.string(), "--mcpu", "znver3", "--machine", "petascale"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.stderr_text.find("no node.cpu and no node.instruction_cycles"), std::string::npos)
      << refused.stderr_text;
  EXPECT_FALSE(std::filesystem::exists(model)) << "nothing written";
  // polus names its CPU and has no cycles: with --mcpu naming another, the file changes nothing.
  auto nothing = perfcast_run({"analyze", source.string(), "-o", model.string(), "--mcpu", "znver3", "--machine", "polus"});
  EXPECT_EQ(nothing.exit_code, 1);
  EXPECT_NE(nothing.stderr_text.find("--mcpu znver3 replaces its node.cpu (pwr8)"), std::string::npos)
      << nothing.stderr_text;
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
  // The cycles the immediate-add clock probe wrote on an Emerald Rapids Xeon
  // (13.6 GHz, FP add 10.8 cycles where it takes 2): refused, not priced.
  auto inflated = dir / "inflated.toml";
  std::ofstream(inflated) << R"(name = "x"
[node]
count = 1
cores = 16
clock = "13.6 GHz"
flops_per_core = "72.5 Gflop/s"
instruction_cycles = { fp_add_latency = 10.8, fp_multiply_latency = 21.6 }
[memory]
DRAM = { bandwidth = "11.2 GB/s" }
[network]
latency = "401 ns"
bandwidth = "7.21 GB/s"
)";
  auto wrong = perfcast_run({"analyze", source.string(), "-o", model.string(), "--mcpu", "znver3", "--machine",
                             inflated.string()});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(wrong.stderr_text.find("node.clock = 13.6 GHz"), std::string::npos) << wrong.stderr_text;
  EXPECT_NE(wrong.stderr_text.find("node.instruction_cycles.fp_add_latency = 10.8 cycles"), std::string::npos)
      << wrong.stderr_text;
  EXPECT_FALSE(std::filesystem::exists(model)) << "nothing written";

  auto taken = perfcast_run({"analyze", source.string(), "-o", model.string(), "--mcpu", "znver3", "--machine",
                             host.string()});
  ASSERT_EQ(taken.exit_code, 0) << taken.stderr_text;
  auto j = nlohmann::json::parse(std::ifstream(model));
  EXPECT_EQ(j["mca"]["host_cycles"]["source"], host.string());
  std::filesystem::remove_all(dir);
}

}  // namespace

namespace {

// MCA's steady-state cycles of every priced loop of a model (`mca.cpi`), by
// the loop's variable.
std::map<std::string, double> loop_cycles(const std::filesystem::path& model) {
  std::map<std::string, double> out;
  std::function<void(const nlohmann::json&)> walk = [&](const nlohmann::json& items) {
    for (const auto& item : items) {
      if (item.value("kind", "") == "loop" && item.contains("mca") && item["mca"].contains("cpi"))
        out[item.value("var", "")] = item["mca"]["cpi"].get<double>();
      for (const char* key : {"body", "then", "else"})
        if (item.contains(key) && item[key].is_array()) walk(item[key]);
    }
  };
  auto j = nlohmann::json::parse(std::ifstream(model));
  for (const auto& [name, fn] : j["functions"].items()) walk(fn["body"]);
  return out;
}

// A machine file naming its CPU (node.cpu) prices in-core work on that CPU's
// scheduling model: a divide-bound loop's cycles differ between two named CPUs
// and are those of --mcpu with the same name; --mcpu still wins, and the model
// says which file chose the CPU. A CPU of another architecture than the code
// is refused, naming the file.
TEST(CliAnalyze, TheMachinesCpuPricesTheLoops) {
  auto dir = perfcast::testing::scratch() / "machine_cpu";
  std::filesystem::create_directories(dir);
  auto source = dir / "divide.c";
  std::ofstream(source) << R"(#include <mpi.h>
double a[1000], b[1000];
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = argc * 500;
  for (int i = 0; i < n; i++) a[i] = b[i] / (a[i] + 1.0);
  MPI_Finalize();
  return (int)a[3];
}
)";
  auto machine_with = [&](const std::string& cpu, const std::string& cycles = "") {
    auto file = dir / (cpu + (cycles.empty() ? "" : "_cycles") + ".toml");
    std::ofstream(file) << "name = \"m\"\n[node]\ncount = 1\ncores = 2\nflops_per_core = \"10 Gflop/s\"\n"
                        << "cpu = \"" << cpu << "\"\n" << cycles << "[memory]\nDRAM = { bandwidth = \"10 GB/s\" }\n"
                        << "[network]\nlatency = \"1 us\"\nbandwidth = \"1 GB/s\"\n";
    return file;
  };
  auto analysed = [&](const std::string& name, std::vector<std::string> extra) {
    auto model = dir / (name + ".json");
    std::vector<std::string> args = {"analyze", source.string(), "-o", model.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = perfcast_run(args);
    EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
    return model;
  };
  auto on_skylake = analysed("skylake_file", {"--machine", machine_with("skylake").string()});
  auto on_znver3 = analysed("znver3_file", {"--machine", machine_with("znver3").string()});
  auto skylake = loop_cycles(on_skylake), znver3 = loop_cycles(on_znver3);
  ASSERT_FALSE(skylake.empty());
  ASSERT_EQ(skylake.size(), znver3.size());
  EXPECT_NE(skylake, znver3) << "the divider differs between the two";
  EXPECT_EQ(loop_cycles(analysed("skylake_mcpu", {"--mcpu", "skylake"})), skylake);
  EXPECT_EQ(loop_cycles(analysed("znver3_mcpu", {"--mcpu", "znver3"})), znver3);
  auto j = nlohmann::json::parse(std::ifstream(on_skylake));
  EXPECT_EQ(j["mca"]["cpu"], "skylake");
  EXPECT_NE(j["mca"]["cpu_chosen"].get<std::string>().find("skylake.toml names it (node.cpu)"), std::string::npos)
      << j["mca"].dump();
  // --mcpu wins over the file's CPU; the file's cycles still go into it.
  auto wins = analysed("mcpu_wins", {"--machine", machine_with("skylake", "instruction_cycles = { fp_add_latency = 2 }\n").string(),
                                     "--mcpu", "znver3"});
  auto w = nlohmann::json::parse(std::ifstream(wins));
  EXPECT_EQ(w["mca"]["cpu"], "znver3");
  EXPECT_FALSE(w["mca"].contains("cpu_chosen")) << w["mca"].dump();
  EXPECT_TRUE(w["mca"].contains("host_cycles")) << w["mca"].dump();

  auto power = perfcast_run({"analyze", source.string(), "-o", (dir / "power.json").string(), "--machine", "polus"});
  EXPECT_EQ(power.exit_code, 1);
  EXPECT_NE(power.stderr_text.find("'pwr8'"), std::string::npos) << power.stderr_text;
  EXPECT_NE(power.stderr_text.find("the machine file polus names it (node.cpu)"), std::string::npos)
      << power.stderr_text;
  std::filesystem::remove_all(dir);
}

}  // namespace

namespace {

// What analyze cannot read is refused before a compiler sees it, saying what it is;
// a --branch-probability that names no line of the sources is an error, not
// an override that silently applies nowhere.
TEST(CliAnalyze, InputsItCannotReadAreRefusedSayingWhy) {
  auto dir = perfcast::testing::scratch() / "refused";
  std::filesystem::create_directories(dir);
  auto python = dir / "solver.py";
  std::ofstream(python) << "print('solver')\n";
  auto f = perfcast_run({"analyze", python.string()});
  EXPECT_EQ(f.exit_code, 1);
  EXPECT_NE(f.stderr_text.find("is not a C, C++ or Fortran source"), std::string::npos) << f.stderr_text;

  auto d = perfcast_run({"analyze", dir.string()});
  EXPECT_EQ(d.exit_code, 1);
  EXPECT_NE(d.stderr_text.find("is a directory"), std::string::npos) << d.stderr_text;

  auto empty = dir / "empty.c";
  std::ofstream(empty).flush();
  auto e = perfcast_run({"analyze", empty.string()});
  EXPECT_EQ(e.exit_code, 1);
  EXPECT_NE(e.stderr_text.find("is empty"), std::string::npos) << e.stderr_text;

  // Only a comment: a source clang compiles to no function at all.
  auto no_main = dir / "comment.c";
  std::ofstream(no_main) << "// nothing here\n";
  auto n = perfcast_run({"analyze", no_main.string(), "--no-mca"});
  EXPECT_EQ(n.exit_code, 1);
  EXPECT_NE(n.stderr_text.find("define no main"), std::string::npos) << n.stderr_text;

  auto source = dir / "loop.c";
  std::ofstream(source) << "#include <mpi.h>\nint main(int argc, char **argv) {\n  MPI_Init(&argc, &argv);\n"
                           "  MPI_Finalize();\n  return 0;\n}\n";
  auto wrong_file = perfcast_run({"analyze", source.string(), "--no-mca", "--branch-probability", "lop.c:3=0.5"});
  EXPECT_EQ(wrong_file.exit_code, 1);
  EXPECT_NE(wrong_file.stderr_text.find("'lop.c' is none of the sources (loop.c)"), std::string::npos)
      << wrong_file.stderr_text;
  auto past_end = perfcast_run({"analyze", source.string(), "--no-mca", "--branch-probability", "loop.c:60=0.5"});
  EXPECT_EQ(past_end.exit_code, 1);
  EXPECT_NE(past_end.stderr_text.find("has 6 lines"), std::string::npos) << past_end.stderr_text;
  std::filesystem::remove_all(dir);
}

}  // namespace

namespace {

// A default may name a parameter listed after it: csr_rows.c's range of the
// gather x[col[e]] (spmv.loop1.x.range) defaults to a product with the
// entries loop's trips (spmv.loop2.trips). predict with only the trips bound
// evaluates the default once the trips have their value: the same prediction
// as binding the range to that value by hand.
TEST(CliAnalyze, ADefaultNamingALaterParameterIsEvaluatedAfterIt) {
  auto dir = perfcast::testing::scratch() / "default_order";
  std::filesystem::create_directories(dir);
  auto model = dir / "csr.json";
  auto r = perfcast_run({"analyze", std::string(PERFCAST_SOURCE_DIR) + "/tests/analyze/cases/csr_rows.c", "-o",
                         model.string(), "--no-mca"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  std::vector<std::string> bound = {"predict", model.string(), "--machine", "polus", "--np", "1", "--json",
                                    "--param", "a.nrows=100", "--param", "build.n=100",
                                    "--param", "spmv.loop2.trips=5"};
  auto p = perfcast_run(bound);
  ASSERT_EQ(p.exit_code, 0) << p.stderr_text;
  // 32 * floordiv(5, 4) * 100 + 8 * mod(5, 4) * 100 bytes.
  bound.insert(bound.end(), {"--param", "spmv.loop1.x.range=4000"});
  auto by_hand = perfcast_run(bound);
  ASSERT_EQ(by_hand.exit_code, 0) << by_hand.stderr_text;
  auto a = nlohmann::json::parse(p.stdout_text)["ranks"][0], b = nlohmann::json::parse(by_hand.stdout_text)["ranks"][0];
  EXPECT_EQ(a, b);
  std::filesystem::remove_all(dir);
}

}  // namespace
