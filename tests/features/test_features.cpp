// The feature probes end to end: probe.c built with perfcast's feature
// compiler (through Open MPI's wrapper, as a user's build would), run on real
// ranks under mpirun.openmpi by `perfcast run`, its record compared with what
// the program does; concurrent runs and a torn record in the dataset file.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/mpirun_command.h"
#include "learn/dataset.h"
#include "learn/feature_records.h"
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

std::vector<std::string> mpirun(int ranks, const std::vector<std::string>& program) {
  return testing::mpirun_command(ranks, program);
}

// "probe.c:LINE" of the line carrying `marker: NAME`.
std::string site(const std::string& name) {
  std::ifstream in(PROBE_SOURCE);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number)
    if (line.find("marker: " + name + " ") != std::string::npos) return "probe.c:" + std::to_string(number);
  ADD_FAILURE() << "no marker " << name << " in " << PROBE_SOURCE;
  return "";
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The program built as a user's Make would build it: compile, then link.
// `wrapper`: bin/perfcast-mpicc, or Open MPI's own with OMPI_CC set.
fs::path build_probe(const std::string& opt, bool through_script, const std::string& keep = "") {
  fs::path dir = scratch() / ("probe" + opt + (keep.empty() ? "" : "keep"));
  fs::create_directories(dir);
  fs::path object = dir / "probe.o", program = dir / "probe";
  std::vector<std::string> compiler = {through_script ? kBin + "/perfcast-mpicc" : std::string(MPICC)};
  EnvironmentOverrides env;
  if (!keep.empty()) env["PERFCAST_FEATURES_KEEP"] = keep;
  if (!through_script) env["OMPI_CC"] = kBin + "/perfcast cc --features";
  auto compile = compiler, link = compiler;
  compile.insert(compile.end(), {opt, "-c", PROBE_SOURCE, "-o", object.string()});
  link.insert(link.end(), {object.string(), "-o", program.string()});
  for (const auto& command : {compile, link}) {
    ProcessResult r = run_process(command, std::chrono::seconds(120), env);
    EXPECT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  }
  return program;
}

nlohmann::json run_recorded(const fs::path& dataset, const fs::path& program, int steps) {
  std::vector<std::string> args = {"run", "--json", "--dataset", dataset.string(), "--"};
  for (auto& w : mpirun(kRanks, {program.string(), std::to_string(steps)})) args.push_back(w);
  auto r = perfcast_run(args, std::chrono::seconds(120));
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  // The program's own output comes first; the record is the last line.
  std::string out = r.stdout_text;
  size_t last = out.rfind('{');
  last = out.rfind('\n', last);
  return nlohmann::json::parse(out.substr(last == std::string::npos ? 0 : last + 1));
}

double value(const nlohmann::json& record, const std::string& name) {
  const auto& features = record.at("features");
  if (!features.contains(name)) {
    ADD_FAILURE() << "no feature " << name << " in " << features.dump();
    return -1;
  }
  return features[name][0].get<double>();
}

class FeaturesAtLevel : public ::testing::TestWithParam<std::string> {};

TEST_P(FeaturesAtLevel, RecordHoldsWhatTheProgramDid) {
  const bool script = GetParam() == "-O2";
  fs::path program = build_probe(GetParam(), script);
  fs::path dataset = scratch() / ("known" + GetParam() + ".jsonl");
  const int steps = 37;
  nlohmann::json r = run_recorded(dataset, program, steps);

  EXPECT_EQ(r.at("ranks"), kRanks);
  EXPECT_GT(r.at("time_s").get<double>(), 0);
  EXPECT_NE(r.at("command").get<std::string>().find("probe 37"), std::string::npos) << r.at("command");
  // Values assigned outside loops: the last value, the maximum over ranks.
  EXPECT_EQ(value(r, site("steps") + ":steps"), steps);
  EXPECT_EQ(value(r, site("global") + ":doubled_steps"), 2 * steps);
  // Fields of a struct written through a pointer parameter and of a local
  // struct object, named at the field's declaration.
  EXPECT_EQ(value(r, site("field_steps") + ":probe_options.steps"), steps);
  EXPECT_EQ(value(r, site("field_scale") + ":probe_options.scale"), 0.5 * steps);
  EXPECT_EQ(value(r, site("field_ranks") + ":probe_options.ranks"), kRanks);
  for (auto& [name, pair] : r.at("features").items())
    EXPECT_EQ(name.find("probe_options.flags"), std::string::npos) << "an array field became a feature: " << name;
  // work()'s accumulator is assigned inside the loop too, but its last
  // assignment outside a loop is its initialisation.
  EXPECT_EQ(value(r, site("loop") + ":i"), 0);
  // The loop is tested at its header: steps + 1 headers per entry, one entry per rank.
  EXPECT_EQ(value(r, site("loop") + ":loop.headers"), (steps + 1) * kRanks);
  EXPECT_EQ(value(r, site("loop") + ":loop.entries"), kRanks);
  // rank == 0 holds on one rank of two.
  EXPECT_EQ(value(r, site("branch") + ":branch.taken"), 1);
  EXPECT_EQ(value(r, site("branch") + ":branch.not_taken"), kRanks - 1);
  // Rank 0 sends `steps` ints to each other rank; every rank allreduces one double.
  EXPECT_EQ(value(r, site("send") + ":MPI_Send.calls"), kRanks - 1);
  EXPECT_EQ(value(r, site("send") + ":MPI_Send.bytes"), (kRanks - 1) * steps * 4);
  EXPECT_EQ(value(r, site("allreduce") + ":MPI_Allreduce.calls"), kRanks);
  EXPECT_EQ(value(r, site("allreduce") + ":MPI_Allreduce.bytes"), kRanks * 8);
  for (auto& [name, pair] : r.at("features").items()) {
    EXPECT_GE(pair[1].get<double>(), 0) << name;
    EXPECT_LE(pair[1].get<double>(), 1) << name;
  }
  // The allreduce comes after the loop and the parsed argument: its epoch is no earlier.
  EXPECT_GE(r["features"][site("allreduce") + ":MPI_Allreduce.calls"][1].get<double>(),
            r["features"][site("steps") + ":steps"][1].get<double>());
}

INSTANTIATE_TEST_SUITE_P(Levels, FeaturesAtLevel, ::testing::Values("-O0", "-O2"),
                         [](const auto& info) { return info.param == "-O0" ? std::string("O0") : std::string("O2"); });

// A keep list (the features a learned model uses) leaves the other probes out
// and names the kept ones as a full build does.
TEST(Features, KeepListLeavesOtherProbesOut) {
  fs::path keep = scratch() / "keep.txt";
  std::ofstream(keep) << "# features to keep\n" << site("steps") << ":steps\n" << site("loop") << ":loop.headers\n";
  fs::path program = build_probe("-O2", true, keep.string());
  nlohmann::json r = run_recorded(scratch() / "kept.jsonl", program, 9);
  std::vector<std::string> names;
  for (auto& [name, pair] : r.at("features").items()) names.push_back(name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{site("loop") + ":loop.entries", site("loop") + ":loop.headers",
                                             site("steps") + ":steps"}));
  EXPECT_EQ(value(r, site("loop") + ":loop.headers"), 10 * kRanks);

  // A learned model keeps the inputs of its kept columns: here column 1, the loop's headers.
  fs::path model = scratch() / "model.json";
  std::ofstream(model) << nlohmann::json{{"inputs", {site("steps") + ":steps", site("loop") + ":loop.headers",
                                                     site("branch") + ":branch.taken"}},
                                         {"expansion", {{"degree", 1}, {"monomials", {{0}, {1}, {2}}}}},
                                         {"kept", {{{"column", 1}, {"name", site("loop") + ":loop.headers"}}}}}
                                             .dump();
  fs::path from_model = build_probe("-O1", true, model.string());
  nlohmann::json m = run_recorded(scratch() / "kept_by_model.jsonl", from_model, 9);
  EXPECT_EQ(m.at("features").size(), 2u) << m.at("features").dump();
  EXPECT_EQ(value(m, site("loop") + ":loop.headers"), 10 * kRanks);

  // A keep list that cannot be read stops the compile, naming it.
  ProcessResult bad = run_process({kBin + "/perfcast-mpicc", "-c", PROBE_SOURCE, "-o", (scratch() / "bad.o").string()},
                                  std::chrono::seconds(120), {{"PERFCAST_FEATURES_KEEP", "/nonexistent/keep.txt"}});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.stderr_text.find("PERFCAST_FEATURES_KEEP=/nonexistent/keep.txt"), std::string::npos) << bad.stderr_text;
}

// perfcast-mpicxx (perfcast c++ --features): the program's own features; of /usr's headers (the
// C++ library's and MPI's C++ bindings' templates) only loops and memory calls, named by instance.
TEST(Features, CxxProgramRecordsItsOwnCodeAndTheLibrarysLoops) {
  fs::path dir = scratch() / "cxx";
  fs::create_directories(dir);
  ProcessResult build =
      run_process({kBin + "/perfcast-mpicxx", "-O2", PROBE_CXX_SOURCE, "-o", (dir / "probe_cxx").string()},
                  std::chrono::seconds(120));
  ASSERT_EQ(build.exit_code, 0) << build.stderr_text;
  nlohmann::json r = run_recorded(dir / "runs.jsonl", dir / "probe_cxx", 11);
  ASSERT_FALSE(r.at("features").empty());
  static const std::regex library_probe(R"(^[^:]+:[0-9]+:(loop|memset|memcpy|memmove)@[0-9A-F]+(#[0-9]+)?\.[a-z_]+$)");
  for (auto& [name, pair] : r.at("features").items())
    EXPECT_TRUE(name.rfind("probe_cxx.cpp:", 0) == 0 || std::regex_match(name, library_probe)) << name;
  EXPECT_EQ(value(r, "probe_cxx.cpp:12:length"), 11);
}

// "probe_fortran.f90:LINE" of the line carrying `! marker: NAME`.
std::string fortran_site(const std::string& name) {
  std::ifstream in(PROBE_FORTRAN_SOURCE);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number)
    if (line.find("! marker: " + name) != std::string::npos && line.size() == line.find("! marker: " + name) + 10 + name.size())
      return "probe_fortran.f90:" + std::to_string(number);
  ADD_FAILURE() << "no marker " << name << " in " << PROBE_FORTRAN_SOURCE;
  return "";
}

// perfcast-mpif90 (flang with the probes, `use mpi` from perfcast's module):
// loops, branches, values and the MPI calls made through the Fortran
// bindings, and the record written by the runtime's mpi_finalize_.
TEST(Features, FortranProgramRecordsThroughTheFortranBindings) {
  fs::path dir = scratch() / "fortran";
  fs::create_directories(dir);
  ProcessResult build = run_process(
      {kBin + "/perfcast-mpif90", "-O2", PROBE_FORTRAN_SOURCE, "-o", (dir / "probe_fortran").string()},
      std::chrono::seconds(180));
  ASSERT_EQ(build.exit_code, 0) << build.stdout_text << build.stderr_text;
  const int steps = 23;
  nlohmann::json r = run_recorded(dir / "runs.jsonl", dir / "probe_fortran", steps);
  EXPECT_EQ(r.at("ranks"), kRanks);
  EXPECT_GT(r.at("time_s").get<double>(), 0);
  EXPECT_EQ(value(r, fortran_site("loop") + ":loop.headers"), (steps + 1) * kRanks);
  EXPECT_EQ(value(r, fortran_site("loop") + ":loop.entries"), kRanks);
  EXPECT_EQ(value(r, fortran_site("allreduce") + ":MPI_Allreduce.calls"), steps * kRanks);
  EXPECT_EQ(value(r, fortran_site("allreduce") + ":MPI_Allreduce.bytes"), steps * kRanks * 8);
  EXPECT_EQ(value(r, fortran_site("branch") + ":branch.taken"), 1);
  EXPECT_EQ(value(r, fortran_site("branch") + ":branch.not_taken"), kRanks - 1);
  // A variable is named at its declaration, as in C.
  EXPECT_EQ(value(r, fortran_site("x_declared") + ":x"), 1.5);
}

// A sweep records one labelled run per point; run again, it skips them all.
TEST(Features, SweepRecordsEachPointOnceAndResumes) {
  fs::path program = build_probe("-O1", true);
  fs::path dataset = scratch() / "sweep.jsonl";
  std::vector<std::string> args = {"sweep", "--dataset", dataset.string(), "--param", "np=1,2", "--param",
                                   "steps=3:5:2", "--"};
  for (auto& w : mpirun(0, {program.string(), "{steps}"})) args.push_back(w == "0" ? "{np}" : w);
  auto first = perfcast_run(args, std::chrono::seconds(300));
  ASSERT_EQ(first.exit_code, 0) << first.stderr_text;
  EXPECT_NE(first.stdout_text.find("4 points run, 0 already there, 0 failed"), std::string::npos) << first.stdout_text;
  learn::RecordFile file = learn::parse_feature_records(read_file(dataset), dataset.string());
  ASSERT_EQ(file.records.size(), 4u);
  for (const auto& r : file.records) {
    int np = r.label.find("np=2") != std::string::npos ? 2 : 1;
    int steps = r.label.find("steps=5") != std::string::npos ? 5 : 3;
    EXPECT_EQ(r.ranks, np) << r.label;
    EXPECT_EQ(r.features.at(site("loop") + ":loop.headers").value, (steps + 1) * np) << r.label;
  }
  auto again = perfcast_run(args, std::chrono::seconds(300));
  ASSERT_EQ(again.exit_code, 0) << again.stderr_text;
  EXPECT_NE(again.stdout_text.find("0 points run, 4 already there, 0 failed"), std::string::npos) << again.stdout_text;
}

TEST(Features, UninstrumentedRunIsAnError) {
  fs::path dir = scratch() / "plain";
  fs::create_directories(dir);
  ProcessResult build = run_process({MPICC, PROBE_SOURCE, "-o", (dir / "probe").string()}, std::chrono::seconds(120));
  ASSERT_EQ(build.exit_code, 0) << build.stderr_text;
  std::vector<std::string> args = {"run", "--dataset", (dir / "runs.jsonl").string(), "--"};
  for (auto& w : mpirun(kRanks, {(dir / "probe").string(), "3"})) args.push_back(w);
  auto r = perfcast_run(args, std::chrono::seconds(120));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.stderr_text.find("appended no record"), std::string::npos) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("perfcast cc --features"), std::string::npos) << r.stderr_text;
}

// Runs that finish together append whole records, one each, none torn.
TEST(Features, ConcurrentRunsAppendWholeRecords) {
  fs::path program = build_probe("-O1", true);
  fs::path dataset = scratch() / "concurrent.jsonl";
  constexpr int kRuns = 4;
  std::vector<ProcessResult> results(kRuns);
  std::vector<std::thread> runs;
  for (int i = 0; i < kRuns; ++i)
    runs.emplace_back([&, i] {
      results[i] = run_process(mpirun(kRanks, {program.string(), std::to_string(10 + i)}), std::chrono::seconds(120),
                               {{"PERFCAST_FEATURES_DATASET", dataset.string()}});
    });
  for (auto& t : runs) t.join();
  for (const auto& r : results) ASSERT_EQ(r.exit_code, 0) << r.stderr_text;

  learn::RecordFile file = learn::parse_feature_records(read_file(dataset), dataset.string());
  EXPECT_TRUE(file.warnings.empty()) << file.warnings.front();
  ASSERT_EQ(file.records.size(), static_cast<size_t>(kRuns));
  std::vector<int> seen;
  for (const auto& rec : file.records) seen.push_back(static_cast<int>(rec.features.at(site("steps") + ":steps").value));
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<int>{10, 11, 12, 13}));

  // The file is a dataset for `perfcast learn`.
  auto learned = perfcast_run({"learn", dataset.string(), "-o", (scratch() / "model.json").string(), "--folds", "0"});
  EXPECT_EQ(learned.exit_code, 0) << learned.stderr_text;
}

// A writer killed mid-record leaves a torn last line: readers skip it with a
// warning, and the next run's record starts on a line of its own.
TEST(Features, TornRecordIsSkippedAndTheNextRunIsWhole) {
  fs::path program = build_probe("-O1", true);
  fs::path dataset = scratch() / "torn.jsonl";
  run_recorded(dataset, program, 5);
  std::string whole = read_file(dataset);
  ASSERT_FALSE(whole.empty());
  {
    std::ofstream out(dataset, std::ios::app | std::ios::binary);
    out << whole.substr(0, whole.size() / 2);  // the torn half of a second record
  }
  learn::RecordFile torn = learn::parse_feature_records(read_file(dataset), dataset.string());
  EXPECT_EQ(torn.records.size(), 1u);
  ASSERT_EQ(torn.warnings.size(), 1u);
  EXPECT_NE(torn.warnings[0].find(":2: a torn or damaged record"), std::string::npos) << torn.warnings[0];

  nlohmann::json after = run_recorded(dataset, program, 6);
  EXPECT_EQ(value(after, site("steps") + ":steps"), 6);
  learn::RecordFile file = learn::parse_feature_records(read_file(dataset), dataset.string());
  ASSERT_EQ(file.records.size(), 2u);
  EXPECT_EQ(file.records[1].line, 3);
  EXPECT_EQ(file.warnings.size(), 1u);
  learn::Dataset d = learn::read_dataset(dataset.string());
  EXPECT_EQ(d.rows(), 2u);
  EXPECT_EQ(d.warnings.size(), 1u);
}

}  // namespace
}  // namespace perfcast
