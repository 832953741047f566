// Probes in hot loops (hot_loops.c): counts inside a call-free loop nest are
// kept in registers and added to the slots where the nest is left. The record
// must hold what the code did, at -O0 (the counts in stack memory) and -O2,
// with every probe and with a keep list; and at -O2 the probes must cost the
// nest about an add per probed branch per iteration, not the loads, adds and
// stores of counters in memory with their epochs (about 20 per iteration).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/mpirun_command.h"
#include "perfcast_cli.h"
#include "scratch.h"
#include "support/process.h"

namespace perfcast {
namespace {

namespace fs = std::filesystem;
using testing::perfcast_run;
using testing::scratch;

constexpr int kRanks = 2;
const std::string kBin = std::string(PERFCAST_BINARY_DIR) + "/bin";

// "hot_loops.c:LINE" of the line carrying `marker: NAME`.
std::string site(const std::string& name) {
  std::ifstream in(HOT_LOOPS_SOURCE);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number)
    if (line.find("marker: " + name + " ") != std::string::npos) return "hot_loops.c:" + std::to_string(number);
  ADD_FAILURE() << "no marker " << name << " in " << HOT_LOOPS_SOURCE;
  return "";
}

// Built with the probes (`keep`: a keep list), or plain (clang-19 through Open MPI's wrapper).
fs::path build(const std::string& name, const std::string& opt, bool probes, const std::string& keep = "") {
  fs::path program = scratch() / name;
  EnvironmentOverrides env;
  if (!keep.empty()) env["PERFCAST_FEATURES_KEEP"] = keep;
  if (!probes) env["OMPI_CC"] = CLANG;
  std::vector<std::string> command = {
      probes ? kBin + "/perfcast-mpicc" : std::string(MPICC), opt, "-g", HOT_LOOPS_SOURCE, "-o", program.string()};
  ProcessResult r = run_process(command, std::chrono::seconds(120), env);
  EXPECT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  return program;
}

nlohmann::json features(const fs::path& program, int n, int repeats) {
  fs::path dataset = program.string() + ".jsonl";
  std::vector<std::string> args = {"run", "--json", "--dataset", dataset.string(), "--"};
  for (auto& w : testing::mpirun_command(kRanks, {program.string(), std::to_string(n), std::to_string(repeats)}))
    args.push_back(w);
  auto r = perfcast_run(args, std::chrono::seconds(120));
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  std::string out = r.stdout_text;
  size_t last = out.rfind('\n', out.rfind('{'));
  return nlohmann::json::parse(out.substr(last == std::string::npos ? 0 : last + 1)).at("features");
}

double value(const nlohmann::json& features, const std::string& name) {
  if (!features.contains(name)) {
    ADD_FAILURE() << "no feature " << name << " in " << features.dump();
    return -1;
  }
  return features[name][0].get<double>();
}

// What the code does, per rank, summed over ranks and repeats.
void expect_counts(const nlohmann::json& f, int n, int repeats) {
  const double times = kRanks * repeats;
  EXPECT_EQ(value(f, site("outer") + ":loop.headers"), times * (n + 1));
  EXPECT_EQ(value(f, site("outer") + ":loop.entries"), times);
  EXPECT_EQ(value(f, site("inner") + ":loop.headers"), times * n * (n + 1));
  EXPECT_EQ(value(f, site("inner") + ":loop.entries"), times * n);
  for (const char* branch : {"left", "right"}) {
    EXPECT_EQ(value(f, site(branch) + ":branch.taken"), times * n * (n - 1)) << branch;
    EXPECT_EQ(value(f, site(branch) + ":branch.not_taken"), times * n) << branch;
  }
  // n + 1 is first found at index 3n - 1: the loop is left from its body.
  EXPECT_EQ(value(f, site("search") + ":loop.headers"), times * 3 * n);
  EXPECT_EQ(value(f, site("search") + ":loop.entries"), times);
  EXPECT_EQ(value(f, site("found") + ":branch.taken"), times);
  EXPECT_EQ(value(f, site("found") + ":branch.not_taken"), times * (3 * n - 1));
  // j * n is odd for the odd j when n is odd.
  EXPECT_EQ(value(f, site("rows") + ":loop.headers"), times * (n + 1));
  EXPECT_EQ(value(f, site("odd") + ":branch.taken"), times * (n % 2 ? n / 2 : 0));
  EXPECT_EQ(value(f, site("odd") + ":branch.not_taken"), times * (n - (n % 2 ? n / 2 : 0)));
  // The loop that calls functions counts in memory, as before.
  EXPECT_EQ(value(f, site("repeats") + ":loop.headers"), kRanks * (repeats + 1));
  for (auto& [name, pair] : f.items()) {
    EXPECT_GE(pair[1].get<double>(), 0) << name;
    EXPECT_LE(pair[1].get<double>(), 1) << name;
  }
}

class HotLoopsAtLevel : public ::testing::TestWithParam<std::string> {};

TEST_P(HotLoopsAtLevel, CountsInCallFreeNestsAreWhatTheCodeDid) {
  fs::path program = build("hot_loops" + GetParam(), GetParam(), true);
  expect_counts(features(program, 17, 3), 17, 3);
}

INSTANTIATE_TEST_SUITE_P(Levels, HotLoopsAtLevel, ::testing::Values("-O0", "-O2"),
                         [](const auto& info) { return info.param == "-O0" ? std::string("O0") : std::string("O2"); });

TEST(HotLoops, KeptProbesCountTheSame) {
  fs::path keep = scratch() / "keep.txt";
  std::ofstream(keep) << site("inner") << ":loop.headers\n" << site("left") << ":branch.not_taken\n";
  nlohmann::json f = features(build("hot_loops_kept", "-O2", true, keep.string()), 17, 3);
  EXPECT_EQ(f.size(), 4u) << f.dump();
  EXPECT_EQ(value(f, site("inner") + ":loop.headers"), kRanks * 3 * 17 * 18);
  EXPECT_EQ(value(f, site("left") + ":branch.not_taken"), kRanks * 3 * 17);
}

// Executed instructions of `assemble`, from callgrind (perfcast counts), one rank.
long long assemble_instructions(const fs::path& program, int n) {
  auto r = perfcast_run({"counts", "-n", "1", "--json", "--no-inlining", "--no-cache-sim", "-q", "--function",
                         "assemble", "--", program.string(), std::to_string(n), "1"},
                        std::chrono::seconds(600));
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  return nlohmann::json::parse(r.stdout_text).at("per_rank")[0].at("functions")[0].at("instructions").get<long long>();
}

TEST(HotLoops, ProbesInACallFreeNestCostAboutAnAddPerBranch) {
  const int n = 200;
  long long plain = assemble_instructions(build("hot_loops_plain", "-O2", false), n);
  long long probed = assemble_instructions(build("hot_loops_probed", "-O2", true), n);
  // Two probed branches per inner iteration; the header counts are induction
  // variables. Counters in memory with their epochs cost about 20 here.
  double per_iteration = static_cast<double>(probed - plain) / (n * n);
  EXPECT_LT(per_iteration, 3.0) << "plain " << plain << ", with probes " << probed;
  EXPECT_GT(plain, 5LL * n * n) << "the nest itself should cost several instructions per iteration";
}

}  // namespace
}  // namespace perfcast
