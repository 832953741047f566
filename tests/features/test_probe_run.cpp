// `perfcast probe` end to end: probe_run.c analysed (its sweep loop's trips,
// its branch's side and its size are data), built with the feature probes,
// run on 2 ranks at a small input; the bound model must carry the program's
// known trips and taken fraction, fewer required parameters, the probe's
// origin, and predict the flops callgrind counts on the same input. Then the
// same of other shapes: inverted branches, recursion, several branches or
// loops at one line (C and Fortran), a loop tested at the bottom, loops whose
// condition is on a line of its own.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/mpirun_command.h"
#include "model/later_test.h"
#include "perfcast_cli.h"
#include "scratch.h"
#include "support/process.h"

namespace perfcast {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using testing::perfcast_run;
using testing::scratch;

const std::string kBin = std::string(PERFCAST_BINARY_DIR) + "/bin";
constexpr long kN = 64;           // elements per rank
constexpr int kSweeps = 10;       // 2^-10 < 1e-3 < 2^-9
constexpr double kTaken = 0.25;   // v[i] = 1 for every fourth i

std::vector<std::string> mpirun(int ranks, const std::vector<std::string>& program) {
  return testing::mpirun_command(ranks, program);
}

// The line carrying `marker: NAME` (then a space or the line's end) in `source`.
int marker_line(const std::string& source, const std::string& name) {
  std::ifstream in(source);
  std::string line;
  const std::string marker = "marker: " + name;
  for (int number = 1; std::getline(in, line); ++number)
    if (auto at = line.find(marker);
        at != std::string::npos && (at + marker.size() == line.size() || line[at + marker.size()] == ' '))
      return number;
  ADD_FAILURE() << "no marker " << name << " in " << source;
  return 0;
}

// "probe_run.c:LINE" of the line carrying `marker: NAME`.
std::string site(const std::string& name) {
  return "probe_run.c:" + std::to_string(marker_line(PROBE_RUN_SOURCE, name));
}

json read_json(const fs::path& path) {
  std::ifstream in(path);
  return in ? json::parse(in) : json();
}

int required(const json& model) {
  int n = 0;
  for (const auto& [name, p] : model["parameters"].items()) n += !p.contains("default");
  return n;
}

// `source` built at -O2 through Open MPI's wrapper: the compiler is
// `perfcast cc --features` for the probe run, clang for callgrind's count.
fs::path build(const std::string& name, bool features, const std::string& source = PROBE_RUN_SOURCE,
               const std::vector<std::string>& flags = {}) {
  fs::path dir = scratch() / "probe_run";
  fs::create_directories(dir);
  fs::path program = dir / name;
  EnvironmentOverrides env;
  const bool cxx = source.ends_with(".cpp");
  env[cxx ? "OMPI_CXX" : "OMPI_CC"] = features ? kBin + (cxx ? "/perfcast c++ --features" : "/perfcast cc --features")
                                               : std::string(cxx ? CLANGXX : CLANG);
  std::vector<std::string> command = {cxx ? MPICXX : MPICC, "-O2", "-g"};
  command.insert(command.end(), flags.begin(), flags.end());
  command.insert(command.end(), {source, "-o", program.string()});
  ProcessResult r = run_process(command, std::chrono::seconds(120), env);
  EXPECT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  return program;
}

// The folder these tests write their models and programs to.
fs::path probe_dir() {
  fs::path dir = scratch() / "probe_run";
  fs::create_directories(dir);
  return dir;
}

// `perfcast analyze SOURCE -o MODEL --no-mca [-- FLAGS...]`.
measure::ProcessResult analyse(const std::string& source, const fs::path& model,
                               const std::vector<std::string>& flags = {}) {
  std::vector<std::string> args = {"analyze", source, "-o", model.string(), "--no-mca"};
  if (!flags.empty()) args.push_back("--");
  args.insert(args.end(), flags.begin(), flags.end());
  return perfcast_run(args, std::chrono::seconds(180));
}

// `perfcast analyze SOURCES... -o MODEL --no-mca`: a program of several files.
measure::ProcessResult analyse_files(const std::vector<std::string>& sources, const fs::path& model) {
  std::vector<std::string> args = {"analyze"};
  args.insert(args.end(), sources.begin(), sources.end());
  args.insert(args.end(), {"-o", model.string(), "--no-mca"});
  return perfcast_run(args, std::chrono::seconds(180));
}

// `perfcast probe MODEL -o BOUND -- mpirun -n RANKS PROGRAM...`, each rank's
// OpenMP teams of `threads` threads where given (OMP_NUM_THREADS).
measure::ProcessResult probe(const fs::path& model, const fs::path& bound, int ranks,
                             const std::vector<std::string>& program, int threads = 0) {
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  std::vector<std::string> launch = mpirun(ranks, program);
  if (threads > 0) launch.insert(launch.begin() + 1, {"-x", "OMP_NUM_THREADS=" + std::to_string(threads)});
  args.insert(args.end(), launch.begin(), launch.end());
  return perfcast_run(args, std::chrono::seconds(180));
}

// `perfcast predict BOUND --np NP --json` with `extra` arguments on the
// bundled Power8 cluster: its result, rank 0's flops where it predicted.
measure::ProcessResult predict(const fs::path& bound, int np, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"predict", bound.string(), "--machine", "polus", "--np", std::to_string(np),
                                   "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return perfcast_run(args);
}
double rank0_flops(const measure::ProcessResult& predicted) {
  return json::parse(predicted.stdout_text)["ranks"][0]["flops_double"].get<double>();
}

TEST(ProbeRun, BindsTheTripsAndBranchTheSourceCannotSay) {
  fs::path dir = probe_dir();
  const fs::path model = dir / "model.json", bound = dir / "bound.json";
  auto r = analyse(PROBE_RUN_SOURCE, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);

  // What the analyser could not say: the sweeps' trips and the branch's side.
  std::string trips;
  for (const auto& l : before["coverage"]["unknown_loops"])
    if (l["site"] == site("sweeps")) trips = l["trip_count"];
  ASSERT_FALSE(trips.empty()) << before["coverage"].dump();
  ASSERT_FALSE(before["parameters"][trips].contains("default"));
  bool guessed = false;
  for (const auto& b : before["coverage"]["guessed_branches"]) guessed |= b["site"] == site("branch");
  ASSERT_TRUE(guessed) << before["coverage"].dump();

  fs::path program = build("probe_run_features", true);
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  for (auto& w : mpirun(2, {program.string(), std::to_string(kN), "1e-3"})) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  EXPECT_NE(r.stdout_text.find("may not hold at another"), std::string::npos) << r.stdout_text;
  const json after = read_json(bound);

  const json& p = after["parameters"][trips];
  ASSERT_TRUE(p.contains("default")) << p.dump();
  EXPECT_EQ(p["default"], std::to_string(kSweeps));
  const std::string origin = p.value("origin", "");
  EXPECT_NE(origin.find("probe run"), std::string::npos) << origin;
  EXPECT_NE(origin.find("1e-3` on 2 ranks"), std::string::npos) << origin;
  // The branch's taken fraction; the optimiser's guard of the sweep loop
  // (at the loop's line) is taken: the bound trips already average over arrivals.
  for (const auto& b : after["coverage"]["guessed_branches"]) {
    if (b["site"] == site("branch")) EXPECT_DOUBLE_EQ(b.value("probe_probability", -1.0), kTaken) << b.dump();
    if (b["site"] == site("sweeps")) EXPECT_DOUBLE_EQ(b.value("probe_probability", -1.0), 1.0) << b.dump();
    // `while (a && b)`: two branches at the line, the guard bound by the trips all the same.
    if (b["site"] == site("passes")) EXPECT_DOUBLE_EQ(b.value("probe_probability", -1.0), 1.0) << b.dump();
  }
  EXPECT_LT(required(after), required(before)) << after["parameters"].dump();
  // A loop on a path the run never took ran 0 times there: bound to 0, not asked of the user.
  std::string unreached;
  for (const auto& l : after["coverage"]["unknown_loops"])
    if (l["site"] == site("unreached")) {
      unreached = l["trip_count"];
      EXPECT_TRUE(l.value("probe_not_reached", false)) << l.dump();
    }
  ASSERT_FALSE(unreached.empty()) << after["coverage"].dump();
  EXPECT_EQ(after["parameters"][unreached].value("default", ""), "0") << after["parameters"][unreached].dump();
  EXPECT_NE(after["parameters"][unreached].value("origin", "").find("never reached"), std::string::npos);

  // `model show` says which values came from the probe, and at what input.
  r = perfcast_run({"model", "show", bound.string()});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_NE(r.stdout_text.find("probe run"), std::string::npos) << r.stdout_text;

  // The bound model predicts the flops callgrind counts on the same input.
  // The size and argc are the run's too: nothing else to bind.
  EXPECT_EQ(after["parameters"]["n"].value("default", ""), std::to_string(kN));
  EXPECT_EQ(after["parameters"]["argc"].value("default", ""), "3");
  r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json predicted = json::parse(r.stdout_text);
  bool warned = false;
  for (const auto& w : predicted["warnings"]) warned |= w.get<std::string>().find("probe run") != std::string::npos;
  EXPECT_TRUE(warned) << predicted["warnings"].dump();
  const double model_flops = predicted["ranks"][0]["flops_double"].get<double>();
  // The sum before the sweeps, 2 flops an element and a division per sweep,
  // 2 flops per pass, 16 flops per element whose branch is taken.
  EXPECT_DOUBLE_EQ(model_flops, kN + kSweeps * (2.0 * kN + 1) + 2.0 * (kN / 8) + kTaken * kN * 16);

  fs::path plain = build("probe_run_plain", false);
  r = perfcast_run({"counts", "-q", "-n", "2", "--json", "--", plain.string(), std::to_string(kN), "1e-3"},
                   std::chrono::seconds(300));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json counts = json::parse(r.stdout_text);
  double counted = 0;
  for (const auto& f : counts["per_rank"][0]["functions"])
    if (!f.value("inlined_only", false)) counted += f["flops_double"].get<double>();
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// `sources` built as their users build them (flang-19 -O2, Open MPI's Fortran
// link), without the probes, into dir/<stem>_plain: the program callgrind counts.
void build_plain_fortran(const std::vector<std::string>& sources, const fs::path& dir, const std::string& stem,
                         fs::path& plain) {
  ProcessResult link = run_process({MPIF90, "--showme:link"}, std::chrono::seconds(30));
  ASSERT_EQ(link.exit_code, 0) << link.stderr_text;
  plain = dir / (stem + "_plain");
  const fs::path modules = dir / (stem + ".mod.d");
  fs::create_directories(modules);
  std::vector<std::string> compile = {FLANG, "-O2", "-g", std::string("-I") + FORTRAN_MODULE_DIR, "-module-dir",
                                      modules.string()};
  compile.insert(compile.end(), sources.begin(), sources.end());
  compile.insert(compile.end(), {"-o", plain.string()});
  std::istringstream words(link.stdout_text);
  for (std::string w; words >> w;) compile.push_back(w);
  ProcessResult built = run_process(compile, std::chrono::seconds(180));
  ASSERT_EQ(built.exit_code, 0) << built.stdout_text << built.stderr_text;
}

void build_plain_fortran(const std::string& source, const fs::path& dir, const std::string& stem, fs::path& plain) {
  build_plain_fortran(std::vector<std::string>{source}, dir, stem, plain);
}

// `sources` built with the probes (perfcast-mpif90 -O2 -g, then `flags`) into
// dir/<stem>_features, their modules in dir/<stem>.mod.d: the probe run's program.
void build_fortran_features(const std::vector<std::string>& sources, const fs::path& dir, const std::string& stem,
                            fs::path& program, const std::vector<std::string>& flags = {}) {
  program = dir / (stem + "_features");
  const fs::path modules = dir / (stem + ".mod.d");
  fs::create_directories(modules);
  std::vector<std::string> command = {kBin + "/perfcast-mpif90", "-O2", "-g"};
  command.insert(command.end(), flags.begin(), flags.end());
  command.insert(command.end(), {"-module-dir", modules.string()});
  command.insert(command.end(), sources.begin(), sources.end());
  command.insert(command.end(), {"-o", program.string()});
  ProcessResult built = run_process(command, std::chrono::seconds(180));
  ASSERT_EQ(built.exit_code, 0) << built.stdout_text << built.stderr_text;
}

// The flops of rank 0 callgrind counts in `program args...` on 2 ranks.
double counted_flops(const std::vector<std::string>& program) {
  std::vector<std::string> args = {"counts", "-q", "-n", "2", "--json", "--"};
  args.insert(args.end(), program.begin(), program.end());
  auto r = perfcast_run(args, std::chrono::seconds(300));
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  if (r.exit_code != 0) return 0;
  const json counts = json::parse(r.stdout_text);
  double counted = 0;
  for (const auto& f : counts["per_rank"][0]["functions"])
    if (!f.value("inlined_only", false)) counted += f["flops_double"].get<double>();
  return counted;
}

// The parameter of `model` whose name ends with `ending` and whose description
// mentions `text` (a loop's or a memset's site); empty where none does.
std::string parameter_mentioning(const json& model, const std::string& ending, const std::string& text) {
  for (const auto& [name, p] : model["parameters"].items())
    if (name.ends_with(ending) && p.value("description", "").find(text) != std::string::npos) return name;
  return "";
}

// Rank 0's flops in the model `bound` predicts at `ranks`: the hand count
// `by_hand` (within 10 flops), and callgrind's count of `command` (within 1 %)
// with its program rebuilt from the C `source` without the probes as `plain`.
void expect_flops_of(const fs::path& bound, int ranks, double by_hand, std::vector<std::string> command,
                     const std::string& source, const std::string& plain,
                     const std::vector<std::string>& plain_flags = {}) {
  auto predicted = predict(bound, ranks);
  ASSERT_EQ(predicted.exit_code, 0) << predicted.stderr_text;
  const double model_flops = rank0_flops(predicted);
  EXPECT_NEAR(model_flops, by_hand, 10);
  command[0] = build(plain, false, source, plain_flags).string();
  const double counted = counted_flops(command);
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// The branch items at `line` among `items`, at any depth.
void branches_at(const json& items, int line, std::vector<json>& out) {
  for (const auto& item : items) {
    if (item["kind"] == "branch" && item.value("line", 0) == line) out.push_back(item);
    for (const char* inner : {"body", "then", "else"})
      if (item.contains(inner)) branches_at(item[inner], line, out);
  }
}

// A branch the optimiser inverts between the code the probes count (as
// written: `l->coarser != 0`, its heavy side taken 3 times in 4) and the code
// the analyser prices (-O2: `l->coarser == 0`, the light side first), beside
// one it keeps: each taken fraction must be priced on the side it was
// measured on. The levels' sizes are read from their structs (one parameter
// for every call), bound to their mean over the calls; the bound model's
// flops must be callgrind's.
TEST(ProbeRun, PricesTheTakenFractionOnTheSideItWasMeasured) {
  const std::string source = BRANCH_SIDES_SOURCE;
  fs::path dir = probe_dir();
  const fs::path model = dir / "sides.json", bound = dir / "sides.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);

  // The analysed code really is inverted at the first branch and not at the
  // second: its `then` starts at the light side's line there.
  struct Case {
    const char* function;
    std::string marker;
    bool inverted;
  };
  const Case cases[] = {{"smooth", "inverted", true}, {"weigh", "kept", false}};
  for (const Case& c : cases) {
    std::vector<json> found;
    branches_at(before["functions"][c.function]["body"], marker_line(source, c.marker), found);
    ASSERT_EQ(found.size(), 1u) << c.function << ": " << before["functions"][c.function].dump();
    const int heavy = marker_line(source, c.marker + "_heavy"), light = marker_line(source, c.marker + "_light");
    EXPECT_EQ(found[0].value("then_line", 0), c.inverted ? light : heavy) << found[0].dump();
    EXPECT_EQ(found[0].value("else_line", 0), c.inverted ? heavy : light) << found[0].dump();
  }

  fs::path program = build("branch_sides_features", true, source);
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  for (auto& w : mpirun(2, {program.string(), std::to_string(kN)})) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  EXPECT_NE(r.stdout_text.find("tests it inverted"), std::string::npos) << r.stdout_text;
  const json after = read_json(bound);
  // The model's `then` probability: the light side's 1/4 where inverted.
  for (const Case& c : cases) {
    std::vector<json> found;
    branches_at(after["functions"][c.function]["body"], marker_line(source, c.marker), found);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_DOUBLE_EQ(found[0].value("probability", -1.0), c.inverted ? 0.25 : 0.75) << found[0].dump();
  }

  // Each level's size, read from its struct: one parameter for the four calls,
  // bound to the mean trips of the loop it sizes over the calls that ran it.
  // The model's required parameters are main's n and that size.
  std::vector<std::string> sizes;
  for (const auto& [name, p] : before["parameters"].items())
    if (!p.contains("default") && name != "n") sizes.push_back(name);
  ASSERT_EQ(sizes.size(), 1u) << before["parameters"].dump();
  const std::string size = sizes.front();
  EXPECT_EQ(after["parameters"][size].value("default", ""), std::to_string((kN + 3 * kN / 4 + kN / 2) / 3));

  r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const double model_flops = json::parse(r.stdout_text)["ranks"][0]["flops_double"].get<double>();
  // smooth: 3 flops an element on the 3 levels with a coarser one (N, 3N/4,
  // N/2), 1 on the last; weigh: 16 flops an element where w > 0.5, 1
  // elsewhere; main: 5 sums.
  EXPECT_DOUBLE_EQ(model_flops, 3.0 * (kN + 3 * kN / 4 + kN / 2) + 1 + kN * (0.75 * 16 + 0.25 * 1) + 5);
  fs::path plain = build("branch_sides_plain", false, source);
  const double counted = counted_flops({plain.string(), std::to_string(kN)});
  EXPECT_NEAR(model_flops, counted, 0.02 * counted);
}

// A V-cycle recursing on the coarser level, its size written n - n / 2, no one
// division, so counted as a mean invocation (tests/analyze/cases/recursive_vcycle_mean.c):
// the run counts vcycle's entries and its calls of itself, so its invocations
// per call from main (5 at N = 1024: levels 1024 ... 64); its loops' trips and
// the branch to the coarser level are means over those invocations. The
// model's flops against callgrind's on the same input.
TEST(ProbeRun, BindsARecursionsInvocationsPerEntryFromOutside) {
  fs::path dir = probe_dir();
  const fs::path model = dir / "vcycle.json", bound = dir / "vcycle.bound.json";
  auto r = perfcast_run({"analyze", RECURSIVE_VCYCLE_SOURCE, "-o", model.string(), "--no-mca"},
                        std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  ASSERT_FALSE(read_json(model)["parameters"]["vcycle.calls_per_entry"].contains("default"));

  fs::path program = build("vcycle_features", true, RECURSIVE_VCYCLE_SOURCE);
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  for (auto& w : mpirun(2, {program.string(), "1024", "4"})) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  EXPECT_NE(r.stdout_text.find("recursion"), std::string::npos) << r.stdout_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"]["vcycle.calls_per_entry"].value("default", ""), "5") << after["parameters"].dump();
  bool listed = false;
  for (const auto& l : after["coverage"]["unknown_loops"])
    if (l.value("recursion", false)) {
      listed = true;
      EXPECT_EQ(l["trip_count"], "vcycle.calls_per_entry");
      EXPECT_DOUBLE_EQ(l.value("probe_trips", -1.0), 5.0) << l.dump();
    }
  EXPECT_TRUE(listed) << after["coverage"].dump();
  // The loops' trips, means over the 5 invocations: (1024 - 1 + ... + 64 - 1) / 5
  // and, for the correction run in 4 of them, 1920 / 4.
  EXPECT_DOUBLE_EQ(std::stod(after["parameters"]["vcycle.loop1.trips"].value("default", "0")), 1979.0 / 5);
  EXPECT_DOUBLE_EQ(std::stod(after["parameters"]["vcycle.loop2.trips"].value("default", "0")), 1920.0 / 4);

  r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const double model_flops = json::parse(r.stdout_text)["ranks"][0]["flops_double"].get<double>();
  fs::path plain = build("vcycle_plain", false, RECURSIVE_VCYCLE_SOURCE);
  r = perfcast_run({"counts", "-q", "-n", "2", "--json", "--", plain.string(), "1024", "4"},
                   std::chrono::seconds(300));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json counts = json::parse(r.stdout_text);
  double counted = 0;
  for (const auto& f : counts["per_rank"][0]["functions"])
    if (!f.value("inlined_only", false)) counted += f["flops_double"].get<double>();
  // 4 cycles of 2 flops an element over 1979 swept and 1920 corrected
  // (and the few of MPI's sum of one double per cycle, if counted).
  EXPECT_NEAR(counted, 4 * (2.0 * 1979 + 2.0 * 1920), 16);
  // Exact for these costs, linear in each level's n: the mean trips times
  // the invocations is the sum over the levels. The unrolled loops' shares
  // of the mean (floordiv(T, 4) + mod(T, 4)) add up to it; a cost not linear
  // in n would not.
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// A recursion whose cycle of calls crosses two source files
// (cross_unit_recursion.c's `setup` handing the next level to
// cross_unit_coarse.c's `coarse_solver`, which calls `setup` again: hypre's
// BoomerAMGSetup and its coarse solver), which no one file's probes see as a
// cycle: the pass counts the entries of a function whose calls reach another
// file's, and the calls at the site the analyser names as the call back, so
// setup's invocations per call from main are 4, its levels. Nothing is left to
// bind; the flops are the hand count and callgrind's. Without the count, the
// recursion was left required.
TEST(ProbeRun, BindsARecursionWhoseCycleCrossesSourceFiles) {
  constexpr int n = 1000, levels = 4, setups = 3;
  const std::string source = CROSS_UNIT_RECURSION_SOURCE, coarse = CROSS_UNIT_COARSE_SOURCE;
  fs::path dir = probe_dir();
  const fs::path model = dir / "cross_unit.json", bound = dir / "cross_unit.bound.json";
  auto r = analyse_files({source, coarse}, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  ASSERT_TRUE(before["parameters"].contains("setup.calls_per_entry")) << before["parameters"].dump(1);
  std::vector<std::string> command = {build("cross_unit_features", true, source, {coarse}).string(),
                                      std::to_string(n), std::to_string(levels), std::to_string(setups)};
  r = probe(model, bound, 2, command);
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"]["setup.calls_per_entry"].value("default", ""), std::to_string(levels))
      << r.stdout_text;
  EXPECT_EQ(required(after), 0) << r.stdout_text;
  // DWARF 4: valgrind 3.19 cannot read clang's DWARF 5 of a program of two files.
  expect_flops_of(bound, 2, setups * levels * (2.0 * n + 1), command, source, "cross_unit_plain",
                  {"-gdwarf-4", coarse});
}

// Locals given a first value, then written by a call in another file that is
// handed their addresses (range_written.c with range_of.c, hypre's
// `col_start = 0` and GetLocalRange): the analyser reads them after the call
// as the value that call assigned, the probes read them once it returns
// (`first@LINE`), and the probe binds each rank's own range, though their
// addresses escape. In main the source's first value, 0, was the default:
// rebound too, where it had priced one row of 1000 without a word. The flops
// are the hand count and callgrind's.
TEST(ProbeRun, BindsLocalsACallWroteByTheValuesItLeft) {
  constexpr int rows = 1000;
  const std::string source = RANGE_WRITTEN_SOURCE, range_of = RANGE_OF_SOURCE;
  fs::path dir = probe_dir();
  const fs::path model = dir / "range_written.json", bound = dir / "range_written.bound.json";
  auto r = analyse_files({source, range_of}, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  const std::map<std::string, int> call_lines = {{"first", marker_line(source, "range")},
                                                  {"last", marker_line(source, "range")},
                                                  {"scale_rows.lo", marker_line(source, "scaled")},
                                                  {"scale_rows.hi", marker_line(source, "scaled")}};
  for (const auto& [name, line] : call_lines)
    EXPECT_TRUE(before["parameters"][name].value("description", "").ends_with("; the value assigned at line " +
                                                                              std::to_string(line)))
        << name << ": " << before["parameters"][name].dump();
  EXPECT_EQ(before["parameters"]["first"].value("default", ""), "0");  // the source's, until a run says otherwise
  std::vector<std::string> command = {build("range_written_features", true, source, {range_of}).string(),
                                      std::to_string(rows)};
  r = probe(model, bound, 2, command);
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(required(after), 0) << r.stdout_text;
  EXPECT_NE(after["parameters"]["last"].value("default", "0"), "0") << r.stdout_text;
  // DWARF 4: valgrind 3.19 cannot read clang's DWARF 5 of a program of two files.
  expect_flops_of(bound, 2, 3.0 * rows + 1, command, source, "range_written_plain", {"-gdwarf-4", range_of});
}

// The probabilities of the branch items at `marker`'s line of `function`, in the order of the model.
std::vector<double> probabilities_at(const json& model, const char* function, const std::string& source,
                                     const std::string& marker) {
  std::vector<json> found;
  branches_at(model["functions"][function]["body"], marker_line(source, marker), found);
  std::vector<double> p;
  for (const auto& b : found) p.push_back(b.value("probability", -1.0));
  return p;
}

// Several branches or loops at one source line (same_line.c): `a && b` and
// `a || b` on data, which the front end tests twice and the optimised code
// also twice (the `then` of `a || b` reached from both tests), a range test
// the optimiser merges into one, and a double loop written on one line whose
// trips are data. Each branch gets what makes the line's exits the run's,
// each loop its own trips, and the bound model's flops are the hand count and
// callgrind's.
TEST(ProbeRun, BindsTheBranchesAndLoopsOfOneLine) {
  const std::string source = SAME_LINE_SOURCE;
  constexpr long n = 48;  // a multiple of 12
  fs::path dir = probe_dir();
  const fs::path model = dir / "same_line.json", bound = dir / "same_line.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  // The optimised code's shapes this test is about.
  const json before = read_json(model);
  EXPECT_EQ(probabilities_at(before, "both", source, "and").size(), 2u);
  EXPECT_EQ(probabilities_at(before, "either", source, "or").size(), 3u);
  EXPECT_EQ(probabilities_at(before, "range", source, "range").size(), 1u);

  fs::path program = build("same_line_features", true, source);
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  for (auto& w : mpirun(2, {program.string(), std::to_string(n)})) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  EXPECT_EQ(r.stdout_text.find("several"), std::string::npos) << r.stdout_text;
  const json after = read_json(bound);
  // a && b: a holds 3 times in 4, b then 1 time in 3.
  EXPECT_EQ(probabilities_at(after, "both", source, "and"), (std::vector<double>{0.75, 1.0 / 3}));
  // a || b: a holds 3 times in 4, b then 1 time in 3, and the `then` code is reached 5 times in 6.
  const std::vector<double> either = probabilities_at(after, "either", source, "or");
  ASSERT_EQ(either.size(), 3u);
  EXPECT_DOUBLE_EQ(either[0], 0.75);
  EXPECT_DOUBLE_EQ(either[1], 1.0 / 3);
  EXPECT_DOUBLE_EQ(either[2], 5.0 / 6);
  EXPECT_EQ(probabilities_at(after, "range", source, "range"), (std::vector<double>{0.5}));
  // N / 4 rows a rank, of 2 elements on the mean.
  EXPECT_EQ(after["parameters"]["rows.loop1.trips"].value("default", ""), std::to_string(n / 4));
  EXPECT_EQ(after["parameters"]["rows.loop1_2.trips"].value("default", ""), "2");

  r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const double model_flops = json::parse(r.stdout_text)["ranks"][0]["flops_double"].get<double>();
  // both: 16 flops where a && b; either: 8 where a || b, 1 elsewhere; range:
  // 16 where 0.5 < c < 2.5; rows: 2 an element; main: 3 sums.
  EXPECT_DOUBLE_EQ(model_flops, 16.0 * n / 4 + 8.0 * 5 * n / 6 + 1.0 * n / 6 + 16.0 * n / 2 + 2.0 * 2 * n / 4 + 3);
  fs::path plain = build("same_line_plain", false, source);
  const double counted = counted_flops({plain.string(), std::to_string(n)});
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// The same in Fortran (same_line.f90, flang-19): an array statement over
// rank-3 arrays whose extents the subroutine reads from their descriptors,
// three loops at one line bound outermost first, and IF (a .OR. b), which
// flang's front end tests as one value.
TEST(ProbeRun, BindsAFortranArrayStatementsLoopsAndAnOrTest) {
  const std::string source = SAME_LINE_FORTRAN_SOURCE;
  constexpr int n1 = 5, n2 = 3, n3 = 4, n = n1 * n2 * n3;  // n a multiple of 12
  const std::vector<std::string> extents = {std::to_string(n1), std::to_string(n2), std::to_string(n3)};
  fs::path dir = probe_dir();
  const fs::path model = dir / "same_line_f.json", bound = dir / "same_line_f.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;

  const fs::path program = dir / "same_line_f_features";
  ProcessResult built = run_process({kBin + "/perfcast-mpif90", "-O2", source, "-o", program.string()},
                                    std::chrono::seconds(180));
  ASSERT_EQ(built.exit_code, 0) << built.stdout_text << built.stderr_text;
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  std::vector<std::string> command = {program.string()};
  command.insert(command.end(), extents.begin(), extents.end());
  for (auto& w : mpirun(2, command)) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  // Column-major: the outermost loop runs over the last extent.
  EXPECT_EQ(after["parameters"]["update.loop1.trips"].value("default", ""), std::to_string(n3));
  EXPECT_EQ(after["parameters"]["update.loop1_2.trips"].value("default", ""), std::to_string(n2));
  EXPECT_EQ(after["parameters"]["update.loop1_3.trips"].value("default", ""), std::to_string(n1));
  bool or_bound = false;
  for (const auto& b : after["coverage"]["guessed_branches"])
    if (b["site"] == "same_line.f90:" + std::to_string(marker_line(source, "or"))) {
      or_bound = true;
      EXPECT_DOUBLE_EQ(b.value("probe_probability", -1.0), 5.0 / 6) << b.dump();
    }
  EXPECT_TRUE(or_bound) << after["coverage"].dump();

  // The extents main reads with READ, which the probes do not see (flang's
  // copy of the array statement's result is set-up the library table leaves out).
  r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "2", "--json", "--param",
                    "n1=" + extents[0], "--param", "n2=" + extents[1], "--param", "n3=" + extents[2]});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const double model_flops = json::parse(r.stdout_text)["ranks"][0]["flops_double"].get<double>();
  // update: 2 flops an element; either: 1 where a .or. b, 16 elsewhere; main: 1 sum.
  EXPECT_DOUBLE_EQ(model_flops, 2.0 * n + 5.0 * n / 6 + 16.0 * n / 6 + 1);

  fs::path plain;
  ASSERT_NO_FATAL_FAILURE(build_plain_fortran(source, dir, "same_line_f", plain));
  command[0] = plain.string();
  const double counted = counted_flops(command);
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// IF (l > 0 .OR. d >= 0) whose later test in the optimised code, l > 0, has
// 5 flops of its own (or_split.f90): the analyser prices them under a branch
// of their own, which the probe run binds from the outcomes of d >= 0, the
// test the optimised code makes first (d < 0 for 2 elements in 8); the bound
// model's flops are the hand count and callgrind's.
TEST(ProbeRun, BindsWhereTheFirstTestOfAnOrDoesNotDecide) {
  const std::string source = OR_SPLIT_SOURCE;
  constexpr int n = 96;  // a multiple of 8
  fs::path dir = probe_dir();
  const fs::path model = dir / "or_split.json", bound = dir / "or_split.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const std::string at = "or_split.f90:" + std::to_string(marker_line(source, "or"));
  auto later_test = [&](const json& m) {
    for (const auto& b : m["coverage"]["guessed_branches"])
      if (b["site"] == at && b["why"] == model::kLaterTestWhy) return b;
    return json();
  };
  ASSERT_FALSE(later_test(read_json(model)).is_null()) << read_json(model)["coverage"].dump();

  const fs::path program = dir / "or_split_features";
  ProcessResult built = run_process({kBin + "/perfcast-mpif90", "-O2", source, "-o", program.string()},
                                    std::chrono::seconds(180));
  ASSERT_EQ(built.exit_code, 0) << built.stdout_text << built.stderr_text;
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  std::vector<std::string> command = {program.string(), std::to_string(n)};
  for (auto& w : mpirun(1, command)) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_DOUBLE_EQ(later_test(after).value("probe_probability", -1.0), 2.0 / 8) << after["coverage"].dump();
  for (const auto& b : after["coverage"]["guessed_branches"])
    if (b["site"] == at && b["why"] != model::kLaterTestWhy) {
      EXPECT_DOUBLE_EQ(b.value("probe_probability", -1.0), 7.0 / 8) << b.dump();
    }

  // n, which main reads with READ (the probes do not see it).
  r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "1", "--json", "--param",
                    "n=" + std::to_string(n)});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const double model_flops = json::parse(r.stdout_text)["ranks"][0]["flops_double"].get<double>();
  // kern: d's 2 flops an element, l's 5 where d < 0, the else side's 9 (its
  // MAX one); main: 1 sum.
  EXPECT_DOUBLE_EQ(model_flops, 2.0 * n + 5.0 * n / 4 + 9.0 * n / 8 + 1);

  fs::path plain;
  ASSERT_NO_FATAL_FAILURE(build_plain_fortran(source, dir, "or_split", plain));
  command[0] = plain.string();
  const double counted = counted_flops(command);
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// A named DO loop without control, left by EXIT, whose body starts with an
// array statement over another dimension (exit_loop.f90, SNAP's fixup loop):
// the optimised code starts the loop at that statement's line, where the
// front end had only the array statement's loop; the probes name the DO loop
// there too, and count its passes, 2 a cell on the mean, not the angles. The
// statement after the EXIT runs on all passes but the last, and the data test
// before an array statement inside the loop is a branch the probe run binds,
// not a vectoriser's run-time check: the bound model's flops are the hand
// count and callgrind's.
TEST(ProbeRun, BindsThePassesOfADoLoopLeftByExit) {
  const std::string source = EXIT_LOOP_SOURCE;
  constexpr int ncell = 12, nang = 10;  // ncell a multiple of 3
  fs::path dir = probe_dir();
  const fs::path model = dir / "exit_loop.json", bound = dir / "exit_loop.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const std::string passes = "exit_loop.f90:" + std::to_string(marker_line(source, "statement"));
  const std::string guarded = "exit_loop.f90:" + std::to_string(marker_line(source, "guarded"));
  const json before = read_json(model);
  std::string trips;
  for (const auto& l : before["coverage"]["unknown_loops"])
    if (l["site"] == passes) trips = l["trip_count"];
  ASSERT_FALSE(trips.empty()) << before["coverage"].dump();
  bool guessed = false;
  for (const auto& b : before["coverage"]["guessed_branches"]) guessed |= b["site"] == guarded;
  EXPECT_TRUE(guessed) << before["coverage"].dump();

  const fs::path program = dir / "exit_loop_features";
  ProcessResult built = run_process({kBin + "/perfcast-mpif90", "-O2", source, "-o", program.string()},
                                    std::chrono::seconds(180));
  ASSERT_EQ(built.exit_code, 0) << built.stdout_text << built.stderr_text;
  std::vector<std::string> command = {program.string(), std::to_string(ncell), std::to_string(nang), "0.5"};
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  for (auto& w : mpirun(2, command)) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  EXPECT_EQ(read_json(bound)["parameters"][trips].value("default", ""), "2") << r.stdout_text;

  r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "2", "--json", "--param",
                    "ncell=" + std::to_string(ncell), "--param", "nang=" + std::to_string(nang)});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const double model_flops = json::parse(r.stdout_text)["ranks"][0]["flops_double"].get<double>();
  // 2 passes a cell: each 2 flops an angle for fx, 2 for w * e and 1 for x;
  // pc's 2 an angle on 1 pass; out's 1 an angle.
  EXPECT_DOUBLE_EQ(model_flops, ncell * (2.0 * (4.0 * nang + 1) + 2.0 * nang + nang));

  fs::path plain;
  ASSERT_NO_FATAL_FAILURE(build_plain_fortran(source, dir, "exit_loop", plain));
  command[0] = plain.string();
  const double counted = counted_flops(command);
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// Loops left by EXIT after their work (loop_exits.f90: outer iterations on a
// convergence test, inner ones on a limit), which never go back to their
// header on the iteration that leaves; a corner loop whose preheader and back
// edge carry lines of its body once optimised; a group loop left by EXIT
// before its work; MAXVAL's loops, which flang gives no line; a group skipped
// by CYCLE, whose side flang gives the line of the other. The bound trips
// are the hand count, MAXVAL's included, each line-less loop has a parameter
// of its own, and the flops of the sweeps and of the checks are the hand count.
TEST(ProbeRun, BindsTheTripsOfLoopsLeftByExitAndNamesLoopsWithoutALine) {
  const std::string source = LOOP_EXITS_SOURCE;
  constexpr int kCorners = 4, kOuters = 4, kInners = 5 + 4 + 3 + 2, kGroups = 2, kElements = 16;
  auto at = [&](const std::string& marker) { return "loop_exits.f90:" + std::to_string(marker_line(source, marker)); };
  fs::path dir = probe_dir();
  const fs::path model = dir / "loop_exits.json", bound = dir / "loop_exits.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const fs::path program = dir / "loop_exits_features";
  const fs::path modules = dir / "loop_exits.mod.d";
  fs::create_directories(modules);
  ProcessResult built = run_process({kBin + "/perfcast-mpif90", "-O2", "-g", "-module-dir", modules.string(), source,
                                     "-o", program.string()},
                                    std::chrono::seconds(180));
  ASSERT_EQ(built.exit_code, 0) << built.stdout_text << built.stderr_text;
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  for (auto& w : mpirun(2, {program.string(), std::to_string(kCorners), "0.1"})) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);

  // Each loop's parameter, by the line its site names; the loops of one line
  // at several depths must have one parameter each.
  std::map<std::string, std::set<std::string>> trips_at;
  std::map<std::string, std::set<std::string>> sites_of;
  for (const auto& l : after["coverage"]["unknown_loops"]) {
    trips_at[l["site"].get<std::string>()].insert(l["trip_count"].get<std::string>());
    sites_of[l["trip_count"].get<std::string>()].insert(l["site"].get<std::string>());
  }
  auto bound_trips = [&](const std::string& site) {
    if (trips_at[site].size() != 1) return std::string("loops at ") + site + ": " + after["coverage"].dump();
    return after["parameters"][*trips_at[site].begin()].value("default", std::string("unbound"));
  };
  EXPECT_EQ(bound_trips(at("outers")), std::to_string(kOuters));
  EXPECT_EQ(bound_trips(at("inners")), "3.5");  // 14 inners in 4 outers
  EXPECT_EQ(after["parameters"]["loop_exits_kernels.ncor"].value("default", ""), std::to_string(kCorners));
  for (const auto& [parameter, sites] : sites_of) EXPECT_EQ(sites.size(), 1u) << parameter;
  EXPECT_EQ(trips_at[at("reductions")].size(), 2u) << after["coverage"].dump();  // MAXVAL's two loops
  EXPECT_FALSE(trips_at.count("?:0")) << after["coverage"].dump();

  // MAXVAL's loops, in a helper flang writes without a line that the probes
  // see inlined at the statement's line: 7 columns of 5. MINVAL the runtime
  // computes, comparisons only: no flops, nothing to bind (flang's copy of
  // grp_act's constructor is set-up the library table leaves out).
  for (const auto& name : trips_at[at("reductions")])
    EXPECT_EQ(after["parameters"][name].value("default", std::string("unbound")),
              name.find('_') == std::string::npos ? "7" : "5")
        << name;
  args = {"predict", bound.string(), "--machine", "polus", "--np", "2", "--json"};
  r = perfcast_run(args);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json predicted = json::parse(r.stdout_text);
  double sweeps = 0;
  for (const auto& s : predicted["ranks"][0]["sites"])
    if (s.value("line", 0) == marker_line(source, "inners")) sweeps += s["flops"].get<double>();
  EXPECT_DOUBLE_EQ(sweeps, 2.0 * kElements * kGroups * kCorners * kInners) << predicted["ranks"][0]["sites"].dump();

  // The test CYCLE skips on: 2 groups in 3 run the check, on whichever side
  // of the optimised test its code (at the `df` line) is.
  const int cycle_line = marker_line(source, "checks") + 1, df_line = marker_line(source, "df");
  std::function<bool(const json&)> holds_df = [&](const json& items) {
    for (const auto& item : items) {
      if (item.value("line", 0) == df_line) return true;
      for (const char* side : {"body", "then", "else"})
        if (item.contains(side) && holds_df(item[side])) return true;
    }
    return false;
  };
  int checked = 0;
  std::function<void(const json&)> check = [&](const json& items) {
    for (const auto& item : items) {
      if (item.value("kind", "") == "branch" && item.value("line", 0) == cycle_line && item.contains("probability")) {
        const double then_p = item["probability"].get<double>();
        if (holds_df(item.value("then", json::array()))) {
          EXPECT_DOUBLE_EQ(then_p, 2.0 / 3) << item.dump();
          ++checked;
        }
        if (holds_df(item.value("else", json::array()))) {
          EXPECT_DOUBLE_EQ(1 - then_p, 2.0 / 3) << item.dump();
          ++checked;
        }
      }
      for (const char* side : {"body", "then", "else"})
        if (item.contains(side)) check(item[side]);
    }
  };
  for (const auto& [name, function] : after["functions"].items()) check(function["body"]);
  EXPECT_GT(checked, 0) << "no branch at line " << cycle_line;
}

// A count that shrinks as groups converge (shrinking_groups.f90, SNAP's
// `ng_per_thrd`): written by a call into the caller's own dummy, then passed on
// to the sweep, whose group loop it bounds (trips zext(ng_per_thrd, 32)). The
// analyser leaves the argument to the run; the sweep's loop, whose only caller
// passes it, measures its mean, 2.5 groups a call (4, 3, 2, 1), kept fractional
// through the cast: rounded, every call would sweep 3 groups (+20 %). The bound
// model's flops are the hand count and callgrind's.
TEST(ProbeRun, BindsACountThatShrinksBetweenCallsToItsMeanThroughTheCall) {
  const std::string source = SHRINKING_GROUPS_SOURCE;
  constexpr int ng = 4, nx = 64, ncor = 4;
  fs::path dir = probe_dir();
  const fs::path model = dir / "shrinking_groups.json", bound = dir / "shrinking_groups.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const std::string count = "inner.sweep1.ng_per_thrd";
  const json before = read_json(model);
  ASSERT_TRUE(before["parameters"].contains(count)) << before["parameters"].dump();
  EXPECT_FALSE(before["parameters"][count].contains("default"));

  const fs::path program = dir / "shrinking_groups_features";
  const fs::path modules = dir / "shrinking_groups.mod.d";
  fs::create_directories(modules);
  ProcessResult built = run_process({kBin + "/perfcast-mpif90", "-O2", "-g", "-module-dir", modules.string(), source,
                                     "-o", program.string()},
                                    std::chrono::seconds(180));
  ASSERT_EQ(built.exit_code, 0) << built.stdout_text << built.stderr_text;
  std::vector<std::string> command = {program.string(), std::to_string(ng), std::to_string(nx)};
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  for (auto& w : mpirun(2, command)) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"][count].value("default", ""), "2.5") << r.stdout_text;

  // ng and nx are read from the command line, which the probes do not see.
  r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "2", "--json", "--param",
                    "ng=" + std::to_string(ng), "--param", "nx=" + std::to_string(nx)});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const double model_flops = json::parse(r.stdout_text)["ranks"][0]["flops_double"].get<double>();
  EXPECT_DOUBLE_EQ(model_flops, 2.0 * nx * ncor * (ng * (ng + 1) / 2));

  fs::path plain;
  ASSERT_NO_FATAL_FAILURE(build_plain_fortran(source, dir, "shrinking_groups", plain));
  command[0] = plain.string();
  const double counted = counted_flops(command);
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// A DO without control left by `IF (ALL(done)) EXIT` before its work
// (done_loop.f90, SNAP's simultaneous sweeps): the optimised code tests after
// ALL's own loop, and the model prices the sweep after the exit on all passes
// but the last. Its trips are the passes through the test, one more than the
// sweeps: 5 calls of 4 corners x 3 chunks and one call that exits at once,
// (60 + 6) / 6 = 11 a call, not the sweeps' 10. The bound model's flops are the
// hand count and callgrind's.
TEST(ProbeRun, BindsThePassesOfALoopWhoseWorkFollowsItsExit) {
  const std::string source = DONE_LOOP_SOURCE;
  constexpr int ncor = 4, nchunk = 3, nx = 64, ncall = 5;
  fs::path dir = probe_dir();
  const fs::path model = dir / "done_loop.json", bound = dir / "done_loop.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  // Named, as the probes name it, at its body's first line, the exit's test.
  const std::string passes = "done_loop.f90:" + std::to_string(marker_line(source, "passes"));
  const json before = read_json(model);
  std::string trips;
  for (const auto& l : before["coverage"]["unknown_loops"])
    if (l["site"] == passes) trips = l["trip_count"];
  ASSERT_FALSE(trips.empty()) << passes << ": " << before["coverage"].dump();

  const fs::path program = dir / "done_loop_features";
  const fs::path modules = dir / "done_loop.mod.d";
  fs::create_directories(modules);
  ProcessResult built = run_process({kBin + "/perfcast-mpif90", "-O2", "-g", "-module-dir", modules.string(), source,
                                     "-o", program.string()},
                                    std::chrono::seconds(180));
  ASSERT_EQ(built.exit_code, 0) << built.stdout_text << built.stderr_text;
  std::vector<std::string> command = {program.string(), std::to_string(ncor), std::to_string(nchunk),
                                      std::to_string(nx), std::to_string(ncall)};
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  for (auto& w : mpirun(2, command)) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  EXPECT_EQ(read_json(bound)["parameters"][trips].value("default", ""), "11") << r.stdout_text;

  // The command line's values, which the probes do not see.
  r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "2", "--json", "--param",
                    "done_loop_kernels.ncor=" + std::to_string(ncor), "--param", "nx=" + std::to_string(nx),
                    "--param", "ncall=" + std::to_string(ncall)});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const double model_flops = json::parse(r.stdout_text)["ranks"][0]["flops_double"].get<double>();
  EXPECT_DOUBLE_EQ(model_flops, 2.0 * nx * ncor * nchunk * ncall);

  fs::path plain;
  ASSERT_NO_FATAL_FAILURE(build_plain_fortran(source, dir, "done_loop", plain));
  command[0] = plain.string();
  const double counted = counted_flops(command);
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// A `do ... while` loop whose trips are data (bottom_tested.c): its header is
// its body, run once per iteration and not once more to leave, so the trips
// per arrival are headers / entries (9 halvings in 4 on the mean), not one
// fewer; the bound model's flops are the hand count and callgrind's.
TEST(ProbeRun, BindsTheTripsOfALoopTestedAtTheBottom) {
  const std::string source = BOTTOM_TESTED_SOURCE;
  constexpr long n = 48;  // a multiple of 4
  fs::path dir = probe_dir();
  const fs::path model = dir / "bottom_tested.json", bound = dir / "bottom_tested.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  fs::path program = build("bottom_tested_features", true, source);
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  for (auto& w : mpirun(2, {program.string(), std::to_string(n)})) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  std::string trips;
  for (const auto& l : after["coverage"]["unknown_loops"])
    if (l["site"] == "bottom_tested.c:" + std::to_string(marker_line(source, "halve"))) trips = l["trip_count"];
  ASSERT_FALSE(trips.empty()) << after["coverage"].dump();
  EXPECT_EQ(after["parameters"][trips].value("default", ""), "2.25");

  r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const double model_flops = json::parse(r.stdout_text)["ranks"][0]["flops_double"].get<double>();
  // main: 2 flops an element to set x; halvings: 1 a halving, 1 an element to sum.
  EXPECT_DOUBLE_EQ(model_flops, 2.0 * n + 2.25 * n + n);
  fs::path plain = build("bottom_tested_plain", false, source);
  const double counted = counted_flops({plain.string(), std::to_string(n)});
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// Loops whose condition is on a line of its own (two_line_condition.c): a
// `while` whose compound condition spans two lines, a `for` whose test is on
// the line after it. Each exit is the statement's own test, after the
// condition's operands' blocks and before the body, so each of the 13
// arrivals tests once more than it iterates: the trips bound are the
// iterations a call (1 cycle, 3 sweeps), not every header run, and the bound
// model's flops are the hand count and callgrind's.
TEST(ProbeRun, BindsTheTripsOfLoopsWhoseConditionIsOnALineOfItsOwn) {
  const std::string source = TWO_LINE_CONDITION_SOURCE;
  constexpr int calls = 13, max_iter = 1, sweeps = 3;
  fs::path dir = probe_dir();
  const fs::path model = dir / "two_line_condition.json", bound = dir / "two_line_condition.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  auto trips_at = [&](const std::string& marker) {
    const std::string at = "two_line_condition.c:" + std::to_string(marker_line(source, marker));
    std::string trips;
    for (const auto& l : before["coverage"]["unknown_loops"])
      if (l["site"] == at) trips = l["trip_count"];
    return trips;
  };
  const std::string cycles = trips_at("cycles"), sweeps_trips = trips_at("sweeps");
  ASSERT_FALSE(cycles.empty() || sweeps_trips.empty()) << before["coverage"].dump();

  fs::path program = build("two_line_condition_features", true, source);
  const std::vector<std::string> run = {program.string(), std::to_string(calls), std::to_string(max_iter),
                                        std::to_string(sweeps)};
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  for (auto& w : mpirun(2, run)) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"][cycles].value("default", ""), std::to_string(max_iter)) << after["parameters"].dump();
  EXPECT_EQ(after["parameters"][sweeps_trips].value("default", ""), std::to_string(sweeps))
      << after["parameters"].dump();

  r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const double model_flops = json::parse(r.stdout_text)["ranks"][0]["flops_double"].get<double>();
  // 3 flops a cycle (2 in work, 1 for the residual), 2 a sweep.
  EXPECT_DOUBLE_EQ(model_flops, 3.0 * calls * max_iter + 2.0 * calls * sweeps);
  fs::path plain = build("two_line_condition_plain", false, source);
  const double counted = counted_flops({plain.string(), std::to_string(calls), std::to_string(max_iter),
                                        std::to_string(sweeps)});
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// memset and memcpy lengths read from a table (memory_calls.c): the analyser
// names their bytes parameters; the probe run binds each to its mean bytes
// per call and an unreached one to 0, and the bound model's bytes are the
// hand count.
TEST(ProbeRun, BindsTheMeanBytesOfMemsetAndMemcpyCalls) {
  const std::string source = MEMORY_CALLS_SOURCE;
  constexpr long n = 40;
  fs::path dir = probe_dir();
  const fs::path model = dir / "memory_calls.json", bound = dir / "memory_calls.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  // The parameter described at the marker's line.
  auto bytes_at = [&](const json& m, const std::string& marker) {
    const std::string at = "memory_calls_c:" + std::to_string(marker_line(source, marker));
    std::string found;
    for (const auto& [name, p] : m["parameters"].items())
      if (name.ends_with(".bytes") && p.value("description", "").ends_with(at)) found = name;
    return found;
  };
  const std::string set = bytes_at(before, "memset"), copy = bytes_at(before, "memcpy"),
                    unreached = bytes_at(before, "unreached");
  ASSERT_FALSE(set.empty() || copy.empty() || unreached.empty()) << before["parameters"].dump(1);
  EXPECT_FALSE(before["parameters"][set].contains("default"));
  EXPECT_FALSE(before["parameters"][copy].contains("default"));

  fs::path program = build("memory_calls_features", true, source);
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  for (auto& w : mpirun(2, {program.string(), std::to_string(n)})) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  // Rows of N, 2N, 3N bytes by turns: 2N a memset, half that a memcpy.
  EXPECT_EQ(after["parameters"][set].value("default", ""), std::to_string(2 * n));
  EXPECT_EQ(after["parameters"][copy].value("default", ""), std::to_string(n));
  EXPECT_EQ(after["parameters"][unreached].value("default", ""), "0");
  EXPECT_NE(after["parameters"][set].value("origin", "").find("probe run"), std::string::npos);

  // The calls' bytes in the prediction: the bound model less the same with
  // the two parameters 0 is 6 rows' memsets (stored) and memcpys (loaded and stored).
  auto bytes = [&](const std::vector<std::string>& params) {
    std::vector<std::string> a = {"predict", bound.string(), "--machine", "polus", "--np", "2", "--json"};
    for (const auto& p : params) a.insert(a.end(), {"--param", p});
    auto p = perfcast_run(a);
    EXPECT_EQ(p.exit_code, 0) << p.stderr_text;
    const json rank = json::parse(p.stdout_text)["ranks"][0];
    return std::pair(rank["load_bytes"].get<double>(), rank["store_bytes"].get<double>());
  };
  const auto [loads, stores] = bytes({});
  const auto [loads0, stores0] = bytes({set + "=0", copy + "=0"});
  EXPECT_DOUBLE_EQ(stores - stores0, 6.0 * 2 * n + 6.0 * n);
  EXPECT_DOUBLE_EQ(loads - loads0, 6.0 * n);
}

// Sizes a function reads and passes on (passed_sizes.cpp: HPCG's `nrow =
// A.localNumberOfRows` in CG, sizing another function's loop; 3 calls on a
// grid of N rows, 3 on one of N / 2) and a module variable set at set-up
// (module_sizes.f90, SNAP's shape): required before the probe run, bound to
// the mean of the values assigned after it, and the bound model's flops are
// the hand count and callgrind's.
TEST(ProbeRun, BindsTheSizesAFunctionReadsAndPassesOn) {
  constexpr long n = 40;
  fs::path dir = probe_dir();
  const fs::path model = dir / "passed_sizes.json", bound = dir / "passed_sizes.bound.json";
  auto r = perfcast_run({"analyze", PASSED_SIZES_SOURCE, "-o", model.string(), "--no-mca"}, std::chrono::seconds(300));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  ASSERT_TRUE(before["parameters"].contains("smooth.nrow")) << before["parameters"].dump(1);
  EXPECT_FALSE(before["parameters"]["smooth.nrow"].contains("default"));

  fs::path program = build("passed_sizes_features", true, PASSED_SIZES_SOURCE);
  const fs::path record = dir / "passed_sizes.jsonl";
  fs::remove(record);
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--record", record.string(), "--"};
  for (auto& w : mpirun(2, {program.string(), std::to_string(n)})) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(required(after), required(before) - 1);
  // The field stored through a reference: 2 stores a rank, the two grids' rows.
  std::ifstream lines(record);
  std::string line;
  while (std::getline(lines, line) && line.empty()) {
  }
  ASSERT_FALSE(line.empty()) << record;
  const json measures = json::parse(line)["record"]["measures"];
  const std::string rows = "passed_sizes.cpp:" + std::to_string(marker_line(PASSED_SIZES_SOURCE, "rows")) + ":Grid.rows";
  EXPECT_EQ(measures.value(rows + ".assignments", -1.0), 4) << measures.dump();
  EXPECT_EQ(measures.value(rows + ".sum", -1.0), 2.0 * (n + n / 2)) << measures.dump();
  const json& nrow = after["parameters"]["smooth.nrow"];
  EXPECT_EQ(nrow.value("default", ""), std::to_string((n + n / 2) / 2)) << nrow.dump();
  EXPECT_NE(nrow.value("origin", "").find("probe run"), std::string::npos) << nrow.dump();
  EXPECT_NE(nrow.value("origin", "").find("varied"), std::string::npos) << nrow.dump();

  r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const double model_flops = json::parse(r.stdout_text)["ranks"][0]["flops_double"].get<double>();
  // scale: 1 flop an element, 3 calls of N rows and 3 of N / 2; main: 1 add.
  EXPECT_DOUBLE_EQ(model_flops, 3.0 * n + 3.0 * (n / 2) + 1);
  fs::path plain = build("passed_sizes_plain", false, PASSED_SIZES_SOURCE);
  const double counted = counted_flops({plain.string(), std::to_string(n)});
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);

  // The module variable: named after its module, found by its symbol.
  constexpr int cells = 21;
  const fs::path fmodel = dir / "module_sizes.json", fbound = dir / "module_sizes.bound.json";
  r = analyse(MODULE_SIZES_SOURCE, fmodel);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json fbefore = read_json(fmodel);
  ASSERT_TRUE(fbefore["parameters"].contains("sizes.nx")) << fbefore["parameters"].dump(1);
  EXPECT_FALSE(fbefore["parameters"]["sizes.nx"].contains("default"));
  const fs::path fprogram = dir / "module_sizes_features";
  ProcessResult built = run_process({kBin + "/perfcast-mpif90", "-O2", "-g", "-module-dir", dir.string(),
                                     MODULE_SIZES_SOURCE, "-o", fprogram.string()},
                                    std::chrono::seconds(180));
  ASSERT_EQ(built.exit_code, 0) << built.stdout_text << built.stderr_text;
  args = {"probe", fmodel.string(), "-o", fbound.string(), "--"};
  for (auto& w : mpirun(2, {fprogram.string(), std::to_string(cells)})) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json fafter = read_json(fbound);
  EXPECT_EQ(fafter["parameters"]["sizes.nx"].value("default", ""), std::to_string(2 * cells))
      << fafter["parameters"].dump(1);
  EXPECT_EQ(fafter["parameters"]["sizes.nx"].value("origin", "").find("varied"), std::string::npos);
  // The local a READ statement sets, read once the runtime's call returns.
  EXPECT_EQ(fafter["parameters"]["cells"].value("default", ""), std::to_string(cells));
  EXPECT_EQ(required(fafter), 0);
}

// A size a loop from 2 and a loop from 1 both run over (from_two_loops.f90,
// SNAP's setup_angle): the recurrence's n - 1 trips, unrolled by 4, are the
// size less one, which agrees with the loop from 1's n: one value for all
// its uses (the array statement's extent too), no loop bound apart; the
// bound model's flops are the hand count.
TEST(ProbeRun, BindsASizeBesideALoopFromTwo) {
  constexpr int n = 10, calls = 3;
  const std::string source = FROM_TWO_LOOPS_SOURCE;
  fs::path dir = probe_dir();
  const fs::path model = dir / "from_two_loops.json", bound = dir / "from_two_loops.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  ASSERT_TRUE(before["parameters"].contains("from_two_angles.nang")) << before["parameters"].dump(1);
  const fs::path program = dir / "from_two_loops_features";
  ProcessResult built = run_process(
      {kBin + "/perfcast-mpif90", "-O2", "-g", "-module-dir", dir.string(), source, "-o", program.string()},
      std::chrono::seconds(180));
  ASSERT_EQ(built.exit_code, 0) << built.stdout_text << built.stderr_text;
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  for (auto& w : mpirun(2, {program.string(), std::to_string(n), std::to_string(calls)})) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  const json& nang = after["parameters"]["from_two_angles.nang"];
  EXPECT_EQ(nang.value("default", ""), std::to_string(n)) << after["parameters"].dump(1);
  EXPECT_NE(nang.value("origin", "").find("probe run"), std::string::npos) << nang.dump();
  for (const auto& [name, p] : after["parameters"].items())
    EXPECT_EQ(name.find(".loop_at"), std::string::npos) << name << ": " << p.dump();

  // `calls` is read into a variable whose address escapes: given here.
  r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "2", "--json", "--param",
                    "calls=" + std::to_string(calls)});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const double model_flops = json::parse(r.stdout_text)["ranks"][0]["flops_double"].get<double>();
  // A call: n - 1 adds of the recurrence, n multiplies of the scaling and
  // main's 1 / c; then the sum's n adds.
  EXPECT_DOUBLE_EQ(model_flops, calls * ((n - 1) + n + 1.0) + n);
}

// CloverLeaf's tiles: a kernel (C by value, Fortran by reference, each in
// the shape of tile_arguments.c, tile_arguments.f90 and tile_kernel.f90) is
// given its loop bounds from fields of one of several structs the analyser
// cannot follow, so each argument is a parameter of the call site. The probes
// record the values the calls pass; the x bounds vary between the calls,
// bound to their means, which the kernel uses only as sizes; the y bounds
// between the ranks (constant on each), bound to each rank's own. The models
// need no other binding and their flops are the hand count and callgrind's.
TEST(ProbeRun, BindsTheArgumentsAKernelIsCalledWith) {
  constexpr long n = 16;
  constexpr int tiles = 2;  // (t + 1) n columns each: n and 2n, 3n a step
  // 2 flops a cell, 3 steps, n rows of 3n columns.
  constexpr double hand_count = 2.0 * 3 * n * (3 * n);
  fs::path dir = probe_dir();
  auto check = [&](const json& before, const json& after, const std::string& call, const std::string& x_min,
                   const std::string& x_max, const std::string& y_min, const std::string& y_max) {
    for (const std::string& name : {x_min, x_max, y_min, y_max}) {
      const std::string p = call + "." + name;
      ASSERT_TRUE(before["parameters"].contains(p)) << before["parameters"].dump(1);
      EXPECT_FALSE(before["parameters"][p].contains("default")) << p;
      // The x bounds varied between the calls; the y bounds are each rank's own.
      const bool x = name == x_min || name == x_max;
      EXPECT_NE(after["parameters"][p].value("origin", "").find(x ? "varied" : "each rank its own value"),
                std::string::npos)
          << after["parameters"][p].dump();
    }
    EXPECT_EQ(after["parameters"][call + "." + x_min].value("default", ""), std::to_string((1 + n + 1) / 2));
    EXPECT_EQ(after["parameters"][call + "." + x_max].value("default", ""), std::to_string((n + 3 * n) / 2));
    EXPECT_EQ(after["parameters"][call + "." + y_min].value("default", ""), fmt::format("select(rank == 1, {}, 1)", n + 1));
    EXPECT_EQ(after["parameters"][call + "." + y_max].value("default", ""),
              fmt::format("select(rank == 1, {}, {})", 2 * n, n));
    EXPECT_EQ(required(after), 0) << after["parameters"].dump(1);
  };
  auto predicted_flops = [&](const fs::path& bound) {
    auto r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "2", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
    return r.exit_code == 0 ? json::parse(r.stdout_text)["ranks"][0]["flops_double"].get<double>() : 0.0;
  };

  // C: the arguments by value.
  const fs::path model = dir / "tile_arguments_c.json", bound = dir / "tile_arguments_c.bound.json";
  auto r = analyse(TILE_ARGUMENTS_SOURCE, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  fs::path program = build("tile_arguments_features", true, TILE_ARGUMENTS_SOURCE);
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  for (auto& w : mpirun(2, {program.string(), std::to_string(n), std::to_string(tiles)})) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  check(read_json(model), read_json(bound), "main.smooth_kernel1", "xmin", "xmax", "ymin", "ymax");
  double model_flops = predicted_flops(bound);
  EXPECT_DOUBLE_EQ(model_flops, hand_count);
  fs::path plain = build("tile_arguments_plain", false, TILE_ARGUMENTS_SOURCE);
  double counted = counted_flops({plain.string(), std::to_string(n), std::to_string(tiles)});
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);

  // Fortran: derived-type components by reference, the kernel a unit of its own.
  const fs::path fmodel = dir / "tile_arguments_f.json", fbound = dir / "tile_arguments_f.bound.json";
  r = perfcast_run({"analyze", TILE_KERNEL_FORTRAN_SOURCE, TILE_ARGUMENTS_FORTRAN_SOURCE, "-o", fmodel.string(),
                    "--no-mca"},
                   std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const fs::path fprogram = dir / "tile_arguments_f_features", modules = dir / "tile_arguments_f.mod.d";
  fs::create_directories(modules);
  ProcessResult built = run_process({kBin + "/perfcast-mpif90", "-O2", "-g", "-module-dir", modules.string(),
                                     TILE_KERNEL_FORTRAN_SOURCE, TILE_ARGUMENTS_FORTRAN_SOURCE, "-o", fprogram.string()},
                                    std::chrono::seconds(180));
  ASSERT_EQ(built.exit_code, 0) << built.stdout_text << built.stderr_text;
  args = {"probe", fmodel.string(), "-o", fbound.string(), "--"};
  for (auto& w : mpirun(2, {fprogram.string(), std::to_string(n)})) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  check(read_json(fmodel), read_json(fbound), "main.smooth_kernel1", "x_min", "x_max", "y_min", "y_max");
  model_flops = predicted_flops(fbound);
  EXPECT_DOUBLE_EQ(model_flops, hand_count);
  ASSERT_NO_FATAL_FAILURE(
      build_plain_fortran(std::vector<std::string>{TILE_KERNEL_FORTRAN_SOURCE, TILE_ARGUMENTS_FORTRAN_SOURCE}, dir,
                          "tile_arguments_f", plain));
  counted = counted_flops({plain.string(), std::to_string(n)});
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// HPCG's process grid: a field zeroed by the input's reader, then written
// through an `int&` another function is given it as, divides the loop bound.
// The probes of its stores see only the zero (the field's address escapes),
// but those of its reads through `params`, which the model names it by, see
// the value main divides by: bound to it (the ranks), and the model's flops
// are the hand count and callgrind's without any value from the user.
TEST(ProbeRun, BindsAFieldWhoseAddressEscapesByItsReads) {
  constexpr long n = 64;
  fs::path dir = probe_dir();
  const fs::path model = dir / "escaped_sizes.json", bound = dir / "escaped_sizes.bound.json";
  const fs::path record = dir / "escaped_sizes.jsonl";
  auto r = perfcast_run({"analyze", ESCAPED_SIZES_SOURCE, "-o", model.string(), "--no-mca"}, std::chrono::seconds(300));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  ASSERT_TRUE(before["parameters"].contains("params.npx")) << before["parameters"].dump(1);
  ASSERT_TRUE(before["parameters"].contains("params.nx")) << before["parameters"].dump(1);

  fs::path program = build("escaped_sizes_features", true, ESCAPED_SIZES_SOURCE);
  fs::remove(record);
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--record", record.string(), "--"};
  for (auto& w : mpirun(2, {program.string(), std::to_string(n)})) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"]["params.npx"].value("default", ""), "2") << after["parameters"]["params.npx"].dump();
  EXPECT_EQ(after["parameters"]["params.nx"].value("default", ""), std::to_string(n));
  // The zero was the only store the probes saw: 1 a rank.
  std::ifstream lines(record);
  std::string line;
  while (std::getline(lines, line) && line.empty()) {
  }
  ASSERT_FALSE(line.empty()) << record;
  const json parsed = json::parse(line)["record"];
  const std::string npx = "escaped_sizes.cpp:" + std::to_string(marker_line(ESCAPED_SIZES_SOURCE, "npx")) + ":Params.npx";
  EXPECT_EQ(parsed["measures"].value(npx + ".assignments", -1.0), 2) << parsed["measures"].dump();
  EXPECT_EQ(parsed["measures"].value(npx + ".sum", -1.0), 0) << parsed["measures"].dump();

  // The reads through `params`: 1 a rank, the ranks.
  const std::string reads = "escaped_sizes.cpp:" + std::to_string(marker_line(ESCAPED_SIZES_SOURCE, "params")) +
                            ":params.npx.read";
  EXPECT_EQ(parsed["measures"].value(reads + ".sum", -1.0), 4) << parsed["measures"].dump();

  r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const double model_flops = json::parse(r.stdout_text)["ranks"][0]["flops_double"].get<double>();
  EXPECT_DOUBLE_EQ(model_flops, n / 2.0);  // 1 flop an element of the rank's share
  fs::path plain = build("escaped_sizes_plain", false, ESCAPED_SIZES_SOURCE);
  const double counted = counted_flops({plain.string(), std::to_string(n)});
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// A level's size read through the level a function is given
// (field_reads.c): the stores into the field differ level by level, so they
// say nothing of which level the model reads; the probes at the reads
// through `level` do: bound to their mean (3 fine reads and 1 coarse), the
// model's flops are every call's, the hand count and callgrind's.
TEST(ProbeRun, BindsAFieldByTheReadsThroughTheVariableTheModelNames) {
  constexpr long fine = 64;
  fs::path dir = probe_dir();
  const fs::path model = dir / "field_reads.json", bound = dir / "field_reads.bound.json";
  const fs::path record = dir / "field_reads.jsonl";
  auto r = perfcast_run({"analyze", FIELD_READS_SOURCE, "-o", model.string(), "--no-mca"}, std::chrono::seconds(300));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  ASSERT_TRUE(before["parameters"].contains("level.cells")) << before["parameters"].dump(1);

  fs::path program = build("field_reads_features", true, FIELD_READS_SOURCE);
  fs::remove(record);
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--record", record.string(), "--"};
  for (auto& w : mpirun(1, {program.string(), std::to_string(fine)})) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  ASSERT_TRUE(after["parameters"]["level.cells"].contains("default")) << after["parameters"]["level.cells"].dump();
  EXPECT_NE(r.stdout_text.find("4 reads"), std::string::npos) << r.stdout_text;

  r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "1", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const double model_flops = json::parse(r.stdout_text)["ranks"][0]["flops_double"].get<double>();
  EXPECT_DOUBLE_EQ(model_flops, 3.0 * fine + fine / 4 + 1);  // 1 flop a cell of every call, main's sum
  fs::path plain = build("field_reads_plain", false, FIELD_READS_SOURCE);
  const double counted = counted_flops({plain.string(), std::to_string(fine)});
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// Sizes an inline helper reads through the reference its caller hands it
// (helper_reads.cpp, HPCG's `ZeroVector(x)` in main): inlined, the model
// reads the caller's `fine.cells` and `coarse.cells`, whose stores are in a
// call and differ; the probes see the helper's one copy, shared by both grids.
// Its reads on entry, recorded at each call as the caller's, bind each grid's
// size: the flops are the hand count and callgrind's.
TEST(ProbeRun, BindsTheFieldsAnInlinedHelperReadsThroughItsCallersReference) {
  constexpr long n = 64, sweeps = 3;
  fs::path dir = probe_dir();
  const fs::path model = dir / "helper_reads.json", bound = dir / "helper_reads.bound.json";
  auto r = analyse(HELPER_READS_SOURCE, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  for (const char* name : {"fine.cells", "coarse.cells"}) {
    ASSERT_TRUE(before["parameters"].contains(name)) << before["parameters"].dump(1);
    EXPECT_FALSE(before["parameters"][name].contains("default")) << name;
  }
  const fs::path program = build("helper_reads_features", true, HELPER_READS_SOURCE);
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  for (auto& w : mpirun(1, {program.string(), std::to_string(n), std::to_string(sweeps)})) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"]["fine.cells"].value("default", ""), std::to_string(n)) << r.stdout_text;
  EXPECT_EQ(after["parameters"]["coarse.cells"].value("default", ""), std::to_string(n / 4)) << r.stdout_text;

  r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "1", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const double model_flops = json::parse(r.stdout_text)["ranks"][0]["flops_double"].get<double>();
  EXPECT_DOUBLE_EQ(model_flops, 2.0 * sweeps * (n + n / 4) + 1);  // a multiply and an add a cell, main's sum
  const fs::path plain = build("helper_reads_plain", false, HELPER_READS_SOURCE);
  const double counted = counted_flops({plain.string(), std::to_string(n), std::to_string(sweeps)});
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// A kernel family the input chose (kernel_family.c, CloverLeaf's
// `use_C_kernels`): the flag is bound by the run, the branch on it is written
// with its condition, and what only the family not chosen reads (a block size
// the input gives only for that family, never assigned in the run) is bound as
// on no path the run took (1, as it divides), not left for the user. Chosen, the same size
// is the run's value. Either way nothing is left required, and the predicted
// flops are the hand count and callgrind's.
TEST(ProbeRun, BindsWhatOnlyTheKernelFamilyTheInputSwitchedOffReads) {
  constexpr long rows = 64, steps = 5;
  fs::path dir = probe_dir();
  const fs::path model = dir / "kernel_family.json";
  auto r = analyse(KERNEL_FAMILY_SOURCE, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  for (const char* name : {"use_blocked", "cfg.block", "cfg.rows"}) {
    ASSERT_TRUE(before["parameters"].contains(name)) << before["parameters"].dump(1);
    EXPECT_FALSE(before["parameters"][name].contains("default")) << name;
  }
  const fs::path program = build("kernel_family_features", true, KERNEL_FAMILY_SOURCE);
  const fs::path plain = build("kernel_family_plain", false, KERNEL_FAMILY_SOURCE);
  struct Case {
    std::vector<std::string> args;
    const char* block;       // cfg.block's default after the probe run
    const char* block_from;  // in its origin
    double flops;            // rank 0's, by hand
  };
  const std::string n = std::to_string(rows);
  for (const Case& c : {Case{{n}, "1", "on no path the run took", 2.0 * rows * steps},
                        Case{{n, "8"}, "8", "probe run", 3.0 * rows * steps}}) {
    const fs::path bound = dir / ("kernel_family.bound" + std::to_string(c.args.size()) + ".json");
    std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"}, run = {program.string()};
    run.insert(run.end(), c.args.begin(), c.args.end());
    for (auto& w : mpirun(2, run)) args.push_back(w);
    r = perfcast_run(args, std::chrono::seconds(180));
    ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
    const json after = read_json(bound);
    EXPECT_EQ(after["parameters"]["use_blocked"].value("default", ""), c.args.size() > 1 ? "1" : "0");
    EXPECT_EQ(after["parameters"]["cfg.block"].value("default", ""), c.block) << after["parameters"].dump(1);
    EXPECT_NE(after["parameters"]["cfg.block"].value("origin", "").find(c.block_from), std::string::npos)
        << after["parameters"]["cfg.block"].dump();
    EXPECT_EQ(required(after), 0) << after["parameters"].dump(1);
    r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "2", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
    const double model_flops = json::parse(r.stdout_text)["ranks"][0]["flops_double"].get<double>();
    EXPECT_DOUBLE_EQ(model_flops, c.flops);
    std::vector<std::string> counted_run = {plain.string()};
    counted_run.insert(counted_run.end(), c.args.begin(), c.args.end());
    const double counted = counted_flops(counted_run);
    EXPECT_NEAR(model_flops, counted, 0.01 * counted);
  }
}

// No record to read: the error names the file and the option.
TEST(ProbeRun, AMissingRecordFileIsNamed) {
  fs::path dir = scratch() / "probe_missing";
  fs::create_directories(dir);
  const fs::path model = dir / "model.json", records = dir / "none.jsonl";
  auto r = analyse(PROBE_RUN_SOURCE, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  r = perfcast_run({"probe", model.string(), "-o", (dir / "bound.json").string(), "--record", records.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.stderr_text.find(records.string()), std::string::npos) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("--record"), std::string::npos) << r.stderr_text;
}

// A virtual call whose object's class the input picks
// (tests/analyze/cases/virtual_dispatch.cpp, style 1: Poly's apply, 4 flops
// an element): the pass counts each override's entries at its definition, so
// Poly's share of the call is 1 and Scale's 0, and the model's flops are the
// run's as callgrind counts them.
TEST(ProbeRun, BindsTheShareOfEachOverrideAVirtualCallRan) {
  fs::path dir = probe_dir();
  const fs::path model = dir / "virtual.json", bound = dir / "virtual.bound.json";
  auto r = perfcast_run({"analyze", VIRTUAL_DISPATCH_SOURCE, "-o", model.string(), "--no-mca"},
                        std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  ASSERT_FALSE(read_json(model)["parameters"]["main.virtual1.Poly_apply.share"].contains("default"));

  fs::path program = build("virtual_features", true, VIRTUAL_DISPATCH_SOURCE);
  const std::vector<std::string> input = {"2000", "1", "5"};  // n, style (Poly), steps
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  std::vector<std::string> command = {program.string()};
  command.insert(command.end(), input.begin(), input.end());
  for (auto& w : mpirun(2, command)) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"]["main.virtual1.Poly_apply.share"].value("default", ""), "1")
      << after["parameters"].dump();
  EXPECT_EQ(after["parameters"]["main.virtual1.Scale_apply.share"].value("default", ""), "0")
      << after["parameters"].dump();

  r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "2", "--param", "main.virtual1.n=2000",
                    "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const double model_flops = json::parse(r.stdout_text)["ranks"][0]["flops_double"].get<double>();
  fs::path plain = build("virtual_plain", false, VIRTUAL_DISPATCH_SOURCE);
  std::vector<std::string> counted_run = {"counts", "-q", "-n", "2", "--json", "--", plain.string()};
  counted_run.insert(counted_run.end(), input.begin(), input.end());
  r = perfcast_run(counted_run, std::chrono::seconds(300));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json counts = json::parse(r.stdout_text);
  double counted = 0;
  for (const auto& f : counts["per_rank"][0]["functions"])
    if (!f.value("inlined_only", false)) counted += f["flops_double"].get<double>();
  EXPECT_NEAR(counted, 5 * (4.0 * 2000 + 1), 16);  // the hand count
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// A function template's two instances share their loop's and branch's source
// line (tests/features/template_instances.cpp): the probes record which
// instance each `loop#k` and `branch#k` is, so each instance's trips (n and
// n / 2 at n = 4000) and cutoff fraction (3 in 4) are bound to the model's
// function of that instance.
TEST(ProbeRun, BindsEachTemplateInstancesOwnTripsAndBranch) {
  fs::path dir = probe_dir();
  const fs::path model = dir / "instances.json", bound = dir / "instances.bound.json";
  auto r = perfcast_run({"analyze", TEMPLATE_INSTANCES_SOURCE, "-o", model.string(), "--no-mca"},
                        std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  std::map<std::string, std::string> trips;  // function -> its loop's trips parameter
  const json before = read_json(model);
  for (const auto& l : before["coverage"]["unknown_loops"]) trips[l["function"]] = l["trip_count"];
  ASSERT_TRUE(trips.count("_Z5sweepILi1EEdPKdPdPKii") && trips.count("_Z5sweepILi2EEdPKdPdPKii")) << r.stderr_text;

  fs::path program = build("instances_features", true, TEMPLATE_INSTANCES_SOURCE);
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  for (auto& w : mpirun(2, {program.string(), "4000", "3"})) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"][trips["_Z5sweepILi1EEdPKdPdPKii"]].value("default", ""), "4000") << r.stdout_text;
  EXPECT_EQ(after["parameters"][trips["_Z5sweepILi2EEdPKdPdPKii"]].value("default", ""), "2000") << r.stdout_text;
  // The cutoff test's line: the line after the loop's (the loop's own guard is set by its trips).
  std::string site_of_cutoff;
  for (const auto& l : after["coverage"]["unknown_loops"]) {
    const std::string loop_site = l["site"];
    const auto colon = loop_site.rfind(':');
    site_of_cutoff = loop_site.substr(0, colon + 1) + std::to_string(std::stoi(loop_site.substr(colon + 1)) + 1);
  }
  int cutoffs = 0;
  for (const auto& b : after["coverage"]["guessed_branches"])
    if (std::string(b["function"]).starts_with("_Z5sweep") && b["site"] == site_of_cutoff) {
      ++cutoffs;
      EXPECT_DOUBLE_EQ(b.value("probe_probability", -1.0), 0.75) << b.dump();
    }
  EXPECT_EQ(cutoffs, 2) << after["coverage"].dump();
}

// A template's instances inlined each into a caller of its own
// (tests/features/inlined_instances.cpp): the optimised code has each
// instance's loop in its caller, the probes record it under the instance.
// The coverage names the instance (`instance`), by which each caller's loop
// is bound to its own instance's trips, n and n / 2 at n = 4000.
TEST(ProbeRun, BindsTheTripsOfATemplateInstanceInlinedIntoItsCaller) {
  fs::path dir = probe_dir();
  const fs::path model = dir / "inlined_instances.json", bound = dir / "inlined_instances.bound.json";
  auto r = perfcast_run({"analyze", INLINED_INSTANCES_SOURCE, "-o", model.string(), "--no-mca"},
                        std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  std::map<std::string, std::string> trips;  // caller -> its inlined loop's trips parameter
  const json before = read_json(model);
  for (const auto& l : before["coverage"]["unknown_loops"])
    if (l.contains("instance")) trips[l["function"]] = l["trip_count"];
  ASSERT_TRUE(trips.count("_Z8sum_rowsPKdPKi") && trips.count("_Z13sum_half_rowsPKdPKi"))
      << before["coverage"].dump();

  fs::path program = build("inlined_instances_features", true, INLINED_INSTANCES_SOURCE);
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  for (auto& w : mpirun(2, {program.string(), "4000", "3"})) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"][trips["_Z8sum_rowsPKdPKi"]].value("default", ""), "4000") << r.stdout_text;
  EXPECT_EQ(after["parameters"][trips["_Z13sum_half_rowsPKdPKi"]].value("default", ""), "2000") << r.stdout_text;
}

// Loops and memory calls of the C++ library's code
// (tests/features/library_loops.cpp and library_loops_ints.cpp: std::fill's
// loop in __fill_a1, std::copy's memmove in __copy_m, under /usr, inlined into
// the program's functions, the doubles' instances in one module and the ints'
// in the other): the probes count them in functions from system headers too,
// named by instance, so each instance's trips and bytes a call are its own:
// 3000 and 1000 trips a fill, 24000 and 4000 bytes a copy.
TEST(ProbeRun, BindsTheLoopsAndCopiesInTheLibrarysTemplatesPerInstance) {
  fs::path dir = probe_dir();
  const fs::path model = dir / "library_loops.json", bound = dir / "library_loops.bound.json";
  auto r = perfcast_run({"analyze", LIBRARY_LOOPS_SOURCE, LIBRARY_LOOPS_INTS_SOURCE, "-o", model.string(), "--no-mca"},
                        std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  std::map<std::string, std::string> of;  // "fill"/"copy" of "double"/"int" -> its parameter
  const json before = read_json(model);
  for (const auto& [name, p] : before["parameters"].items()) {
    const std::string type = name.find("_int") != std::string::npos ? "int" : "double";
    if (name.starts_with("__fill_a1") && name.ends_with(".trips")) of["fill " + type] = name;
    if (name.starts_with("__copy_m") && name.ends_with(".bytes")) of["copy " + type] = name;
  }
  ASSERT_EQ(of.size(), 4u) << before["parameters"].dump();

  const fs::path program = dir / "library_loops_features";
  EnvironmentOverrides env;
  env["OMPI_CXX"] = kBin + "/perfcast c++ --features";
  ProcessResult built = run_process(
      {MPICXX, "-O2", "-g", LIBRARY_LOOPS_SOURCE, LIBRARY_LOOPS_INTS_SOURCE, "-o", program.string()},
      std::chrono::seconds(120), env);
  ASSERT_EQ(built.exit_code, 0) << built.stdout_text << built.stderr_text;
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  for (auto& w : mpirun(2, {program.string(), "4000", "3"})) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"][of["fill double"]].value("default", ""), "3000") << r.stdout_text;
  EXPECT_EQ(after["parameters"][of["fill int"]].value("default", ""), "1000") << r.stdout_text;
  EXPECT_EQ(after["parameters"][of["copy double"]].value("default", ""), "24000") << r.stdout_text;
  EXPECT_EQ(after["parameters"][of["copy int"]].value("default", ""), "4000") << r.stdout_text;
}

// A loop whose body the optimiser ends in code inlined from the C++ library
// (write_rows.cpp: each row ended by `std::endl`, whose flush at <ostream>'s
// line the latch kept, the loop's ID lost; PENNANT's WriteXY) and whose exit
// depends on data (a count a call summed through its address): it is the
// `for`'s loop, named at its own test's line where the probes count it, not
// a loop of `flush` in a system header no probe names. The run binds its
// trips, the rows of both ranks.
TEST(ProbeRun, NamesALoopEndingInInlinedLibraryCodeAtItsOwnTest) {
  constexpr int n = 50;
  const std::string source = WRITE_ROWS_SOURCE;
  fs::path dir = probe_dir();
  const fs::path model = dir / "write_rows.json", bound = dir / "write_rows.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  const std::string at = "write_rows_cpp:" + std::to_string(marker_line(source, "rows"));
  const std::string trips = parameter_mentioning(before, ".trips", at);
  ASSERT_FALSE(trips.empty()) << "no loop named at " << at << ": " << before["parameters"].dump(1);
  std::vector<std::string> command = {build("write_rows_features", true, source).string(), std::to_string(n)};
  r = probe(model, bound, 2, command);
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"][trips].value("default", ""), std::to_string(2 * n)) << r.stdout_text;
  EXPECT_EQ(required(after), 0) << r.stdout_text;
}

// The memset the optimiser makes of `std::fill` of a small struct
// (struct_fill.cpp: `__fill_a1`'s loop calling struct_fill_vec.h's operator=,
// PENNANT's fill of double2 velocities) once it has inlined the assignment and
// the zeros: the memset is at the assignment's line, in the header, and no
// probe sees it; the pass, before any probe goes into the assignment, finds the
// loop calling it copies 16 bytes an iteration, its store at that line, so the
// memset's bytes a call are the loop's trips times 16. Flops are the hand count
// and callgrind's.
TEST(ProbeRun, BindsTheMemsetOfAFillLoopThatCallsAnAssignment) {
  constexpr int n = 4000;
  const std::string source = STRUCT_FILL_SOURCE;
  fs::path dir = probe_dir();
  const fs::path model = dir / "struct_fill.json", bound = dir / "struct_fill.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  const std::string at = "struct_fill_vec_h:" + std::to_string(marker_line(STRUCT_FILL_VEC_HEADER, "assign"));
  const std::string memset = parameter_mentioning(before, ".bytes", "memset at " + at);
  ASSERT_FALSE(memset.empty()) << "no memset at " << at << ": " << before["parameters"].dump(1);
  std::vector<std::string> command = {build("struct_fill_features", true, source).string(), std::to_string(n)};
  r = probe(model, bound, 2, command);
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"][memset].value("default", ""), std::to_string(16 * n)) << r.stdout_text;
  EXPECT_EQ(required(after), 0) << r.stdout_text;
  expect_flops_of(bound, 2, 3.0 * n + 3, command, source, "struct_fill_plain");
}

// A variable that steps with a loop's index (offset_index.c: `z0 = z -
// zfirst`, PENNANT's setVelDiff), which the optimiser reads outside the loop
// in the iteration it peels off the remainder: a moment of the loop, read from
// its definition (zfirst, zlast), never a parameter named z or z0, which no
// user could bind and the probes would measure as the loop's first value.
// Nothing is left to bind; the flops are the hand count and callgrind's.
TEST(ProbeRun, ReadsAVariableThatStepsWithTheLoopFromItsDefinition) {
  constexpr int n = 1000;
  const std::string source = OFFSET_INDEX_SOURCE;
  fs::path dir = probe_dir();
  const fs::path model = dir / "offset_index.json", bound = dir / "offset_index.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  for (const char* moment : {"scale.z", "scale.z0"})
    EXPECT_FALSE(before["parameters"].contains(moment)) << before["parameters"].dump(1);
  std::vector<std::string> command = {build("offset_index_features", true, source).string(), std::to_string(n)};
  r = probe(model, bound, 2, command);
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  EXPECT_EQ(required(read_json(bound)), 0) << r.stdout_text;
  expect_flops_of(bound, 2, 4 * (3.0 * n / 4 + 1), command, source, "offset_index_plain");
}

// The memsets the optimiser makes of `std::fill`'s loop once it has inlined a
// zero (tests/features/library_fill.cpp: `__fill_a1` for doubles and for ints,
// one line for both): the loop stores the value it was handed at the start of
// the pipeline, so the probes count its trips, each instance's apart; the
// memsets' bytes a call are those trips times each store's bytes, 8 x 4000
// and 4 x 2000. Flops are the hand count and callgrind's.
TEST(ProbeRun, BindsTheMemsetsOfTheLibrarysFillOfAValueInlinedLater) {
  constexpr int n = 4000, steps = 3;
  const std::string source = LIBRARY_FILL_SOURCE;
  fs::path dir = probe_dir();
  const fs::path model = dir / "library_fill.json", bound = dir / "library_fill.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  std::map<std::string, std::string> of;  // "double"/"int" -> its memset's bytes
  const json before = read_json(model);
  for (const auto& [name, p] : before["parameters"].items())
    if (name.starts_with("__fill_a1") && name.ends_with(".bytes"))
      of[name.find("_int") != std::string::npos ? "int" : "double"] = name;
  ASSERT_EQ(of.size(), 2u) << before["parameters"].dump(1);
  std::vector<std::string> command = {build("library_fill_features", true, source).string(), std::to_string(n),
                                      std::to_string(steps)};
  r = probe(model, bound, 2, command);
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"][of["double"]].value("default", ""), std::to_string(8 * n)) << r.stdout_text;
  EXPECT_EQ(after["parameters"][of["int"]].value("default", ""), std::to_string(4 * (n / 2))) << r.stdout_text;
  EXPECT_EQ(required(after), 0) << r.stdout_text;
  expect_flops_of(bound, 2, 2.0 * n * steps, command, source, "library_fill_plain");
}

// The work after early returns whose conditions join several tests
// (tests/features/early_returns.cpp: `if (step > 0 && step % every) return;`)
// is a join the analyser cannot place, reached on some paths. The probe run
// counts the arrivals at the line that starts it (the loop, 4 of report()'s
// 22 calls at 20 steps of 8) and at the lines around it (22), so it is bound
// at 4/22 and the model's flops are the hand count and callgrind's, where a
// guessed half priced 11 reports.
TEST(ProbeRun, BindsHowOftenTheCodeAfterEarlyReturnsIsReached) {
  fs::path dir = probe_dir();
  const fs::path model = dir / "early_returns.json", bound = dir / "early_returns.bound.json";
  auto r = perfcast_run({"analyze", EARLY_RETURNS_SOURCE, "-o", model.string(), "--no-mca"},
                        std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const std::string report = "_Z6reportiR5StatsPKdi";
  auto join_of = [&](const json& m) {
    for (const auto& b : m["coverage"]["guessed_branches"])
      if (b["function"] == report && b["why"] == "reached on some paths") return b;
    return json();
  };
  ASSERT_FALSE(join_of(read_json(model)).is_null()) << read_json(model)["coverage"].dump();

  fs::path program = build("early_returns_features", true, EARLY_RETURNS_SOURCE);
  const std::vector<std::string> input = {"1000", "20", "8"};  // n, steps, every
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  std::vector<std::string> command = {program.string()};
  command.insert(command.end(), input.begin(), input.end());
  for (auto& w : mpirun(2, command)) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json join = join_of(read_json(bound));
  EXPECT_NEAR(join.value("probe_probability", -1.0), 4.0 / 22, 1e-9) << join.dump() << r.stdout_text;

  std::vector<std::string> predict = {"predict", bound.string(), "--machine", "polus", "--np", "2", "--json"};
  for (const char* call : {"main.report1.n=1000", "main.report2.n=1000", "main.report3.n=1000"})
    predict.insert(predict.end(), {"--param", call});
  r = perfcast_run(predict);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const double model_flops = json::parse(r.stdout_text)["ranks"][0]["flops_double"].get<double>();
  fs::path plain = build("early_returns_plain", false, EARLY_RETURNS_SOURCE);
  std::vector<std::string> counted_run = {"counts", "-q", "-n", "2", "--json", "--", plain.string()};
  counted_run.insert(counted_run.end(), input.begin(), input.end());
  r = perfcast_run(counted_run, std::chrono::seconds(300));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json counts = json::parse(r.stdout_text);
  double counted = 0;
  for (const auto& f : counts["per_rank"][0]["functions"])
    if (!f.value("inlined_only", false)) counted += f["flops_double"].get<double>();
  EXPECT_NEAR(counted, 4 * (2.0 * 1000 + 1), 16);  // the hand count: 4 reports
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// The items of a model's function body, at any depth, of `kind`.
void items_of_kind(const json& items, const std::string& kind, std::vector<json>& out) {
  for (const auto& item : items) {
    if (item["kind"] == kind) out.push_back(item);
    for (const char* inner : {"body", "then", "else"})
      if (item.contains(inner)) items_of_kind(item[inner], kind, out);
  }
}

double warned_flops(const fs::path& model, const std::vector<std::string>& params, std::string& warnings) {
  std::vector<std::string> args = {"predict", model.string(), "--machine", "polus", "--np", "2", "--json"};
  for (const auto& p : params) args.insert(args.end(), {"--param", p});
  auto r = perfcast_run(args);
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  if (r.exit_code != 0) return -1;
  const json predicted = json::parse(r.stdout_text);
  warnings = predicted["warnings"].dump();
  return predicted["ranks"][0]["flops_double"].get<double>();
}

// A solver's `apply` pointer chosen from a table by an option, and a table of
// callbacks called per element, one of them in a unit the analysis does not
// see (indirect_calls.c, indirect_calls_kept.c). Unbound, the calls price
// nothing and are listed; the probe run names each call's targets and their
// shares, and the bound model's flops are the hand count and callgrind's.
TEST(ProbeRun, BindsTheTargetsOfCallsThroughPointers) {
  constexpr long kElements = 4096;  // per rank, a multiple of 4
  constexpr int kSolverSweeps = 6;
  const std::string source = INDIRECT_CALLS_SOURCE;
  auto at = [&](const std::string& marker) { return "indirect_calls.c:" + std::to_string(marker_line(source, marker)); };
  fs::path dir = probe_dir();
  const fs::path model = dir / "indirect.json", bound = dir / "indirect.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);

  // Unbound: both calls listed, as call items without a function; the
  // functions a pointer may hold are in the model.
  std::set<std::string> listed;
  for (const auto& u : before["coverage"]["unresolved_calls"])
    if (u["kind"] == "indirect") listed.insert(u["site"].get<std::string>());
  EXPECT_TRUE(listed.count(at("apply")) && listed.count(at("weights"))) << before["coverage"].dump();
  std::vector<json> calls;
  items_of_kind(before["functions"]["main"]["body"], "call", calls);
  int unbound = 0;
  for (const auto& c : calls)
    if (c.value("indirect", false) && !c.contains("function")) ++unbound;
  EXPECT_EQ(unbound, 2) << before["functions"]["main"].dump();
  for (const char* f : {"jacobi", "damped", "square", "cube"}) EXPECT_TRUE(before["functions"].contains(f)) << f;
  // The sweeps' count is the option `sweeps` (its default where argc leaves it out), no loop's trips.
  for (const auto& l : before["coverage"]["unknown_loops"]) EXPECT_NE(l["site"], at("sweeps")) << l.dump();
  ASSERT_TRUE(before["parameters"].contains("sweeps")) << before["parameters"].dump();
  const std::vector<std::string> sizes = {"n=" + std::to_string(kElements), "sweeps=" + std::to_string(kSolverSweeps),
                                          "argc=4"};
  std::string warnings;
  // Only the sum of the callbacks' results is outside them: 1 flop an element.
  EXPECT_DOUBLE_EQ(warned_flops(model, sizes, warnings), kElements);
  const size_t unresolved = before["coverage"]["unresolved_calls"].size();
  EXPECT_NE(warnings.find(std::to_string(unresolved) + " unresolved calls"), std::string::npos) << warnings;

  // Built with the probes, both units; run with the damped solver.
  const fs::path program = dir / "indirect_features";
  EnvironmentOverrides env;
  env["OMPI_CC"] = kBin + "/perfcast cc --features";
  ProcessResult built = run_process({MPICC, "-O2", "-g", source, INDIRECT_CALLS_KEPT_SOURCE, "-o", program.string()},
                                    std::chrono::seconds(120), env);
  ASSERT_EQ(built.exit_code, 0) << built.stdout_text << built.stderr_text;
  const std::vector<std::string> run_args = {std::to_string(kElements), std::to_string(kSolverSweeps), "1"};
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  std::vector<std::string> command = {program.string()};
  command.insert(command.end(), run_args.begin(), run_args.end());
  for (auto& w : mpirun(2, command)) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  // The target outside the model is named, with its share.
  EXPECT_NE(r.stdout_text.find("kept"), std::string::npos) << r.stdout_text;
  EXPECT_NE(r.stdout_text.find("not in the model"), std::string::npos) << r.stdout_text;
  const json after = read_json(bound);

  std::map<std::string, std::map<std::string, double>> targets;
  for (const auto& u : after["coverage"]["unresolved_calls"])
    if (u.contains("probe_targets"))
      for (const auto& [name, share] : u["probe_targets"].items()) targets[u["site"]][name] = share.get<double>();
  EXPECT_EQ(targets[at("apply")], (std::map<std::string, double>{{"damped", 1.0}})) << after["coverage"].dump();
  EXPECT_EQ(targets[at("weights")], (std::map<std::string, double>{{"cube", 0.25}, {"kept", 0.25}, {"square", 0.5}}))
      << after["coverage"].dump();
  // The solver's size is the caller's n, passed by position.
  calls.clear();
  items_of_kind(after["functions"]["main"]["body"], "call", calls);
  bool damped = false;
  for (const auto& c : calls)
    if (c.value("function", "") == "damped") {
      damped = true;
      const std::string len = c["args"].value("len", "");
      EXPECT_TRUE(len == "n" || len == "select(argc > 1, n, 1024)") << c.dump();
      EXPECT_NE(c.value("site", "").find(at("apply") + ":"), std::string::npos) << c.dump();
    }
  EXPECT_TRUE(damped) << after["functions"]["main"].dump();
  EXPECT_GT(after["coverage"]["instructions_priced"].get<double>(), before["coverage"]["instructions_priced"].get<double>());

  // damped: 4 flops an element per sweep; the callbacks: cube 2, square 1,
  // kept none, and the sum 1 an element.
  const double model_flops = warned_flops(bound, {}, warnings);
  EXPECT_DOUBLE_EQ(model_flops, 4.0 * kSolverSweeps * kElements + 2.0 * kElements);
  EXPECT_NE(warnings.find("targets of 2 indirect calls"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find(std::to_string(unresolved - 2) + " unresolved calls"), std::string::npos) << warnings;

  const fs::path plain = dir / "indirect_plain";
  env["OMPI_CC"] = CLANG;
  // DWARF 4: valgrind 3.19 cannot read all of clang's DWARF 5.
  built = run_process({MPICC, "-O2", "-gdwarf-4", source, INDIRECT_CALLS_KEPT_SOURCE, "-o", plain.string()},
                      std::chrono::seconds(120), env);
  ASSERT_EQ(built.exit_code, 0) << built.stderr_text;
  std::vector<std::string> counted_command = {plain.string()};
  counted_command.insert(counted_command.end(), run_args.begin(), run_args.end());
  const double counted = counted_flops(counted_command);
  EXPECT_NEAR(model_flops, counted, 0.02 * counted);
}

// A matvec reached through a pointer in a struct of operations, called each
// step on a fine matrix (y = A x) and a coarse one (y = A x + y), its row
// count a field of the matrix struct, one parameter for every call
// (kernel_sizes.c: AMG's hypre_CSRMatrixMatvecOutOfPlace under PCG). The two
// sides' row loops ran different means, and the field's stores varied: no one
// value is right. Each row loop reads its own mean; the bound model needs
// no other binding, and its flops are the hand count and callgrind's.
TEST(ProbeRun, BindsEachLoopOfAKernelCalledOnSeveralSizes) {
  constexpr long kRows = 512;  // the fine matrix's; the coarse one has half
  constexpr int kSteps = 4;
  const std::string source = KERNEL_SIZES_SOURCE;
  auto line_of = [&](const std::string& marker) { return marker_line(source, marker); };
  fs::path dir = probe_dir();
  const fs::path model = dir / "kernel_sizes.json", bound = dir / "kernel_sizes.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  ASSERT_TRUE(before["parameters"].contains("a.rows")) << before["parameters"].dump(1);
  EXPECT_FALSE(before["parameters"]["a.rows"].contains("default"));

  fs::path program = build("kernel_sizes_features", true, source);
  const std::vector<std::string> run_args = {std::to_string(kRows), std::to_string(kSteps)};
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  std::vector<std::string> command = {program.string()};
  command.insert(command.end(), run_args.begin(), run_args.end());
  for (auto& w : mpirun(2, command)) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(required(after), 0) << after["parameters"].dump(1);
  const json& params = after["parameters"];
  const std::string fine = "csr_matvec.loop_at" + std::to_string(line_of("fine_rows")) + ".rows";
  const std::string coarse = "csr_matvec.loop_at" + std::to_string(line_of("coarse_rows")) + ".rows";
  ASSERT_TRUE(params.contains(fine) && params.contains(coarse)) << params.dump(1);
  EXPECT_EQ(params[fine].value("default", ""), std::to_string(kRows));
  EXPECT_EQ(params[coarse].value("default", ""), std::to_string(kRows / 2));
  EXPECT_NE(params[fine].value("origin", "").find("probe run"), std::string::npos) << params[fine].dump();
  // Each row loop reads its own parameter.
  std::vector<json> loops;
  items_of_kind(after["functions"]["csr_matvec"]["body"], "loop", loops);
  std::set<std::string> row_trips;
  for (const auto& l : loops)
    if (l["line"] == line_of("fine_rows") || l["line"] == line_of("coarse_rows"))
      row_trips.insert(l["trip_count"].get<std::string>());
  EXPECT_EQ(row_trips, (std::set<std::string>{fine, coarse}));

  r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const double model_flops = json::parse(r.stdout_text)["ranks"][0]["flops_double"].get<double>();
  // A step: the fine matrix's 3 R - 2 nonzeros at 2 flops and R rows at 1;
  // the coarse one's R / 2 nonzeros at 2 and R / 2 rows at 2; main's sum 1.
  EXPECT_DOUBLE_EQ(model_flops, kSteps * (2.0 * (3 * kRows - 2) + kRows + 2.0 * (kRows / 2) * 2 + 1));
  fs::path plain = build("kernel_sizes_plain", false, source);
  command = {plain.string()};
  command.insert(command.end(), run_args.begin(), run_args.end());
  const double counted = counted_flops(command);
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// A selector that cycles through 1..4 (selector_sides.c, and in Fortran
// selector_sides.f90 with its kernel in selector_kernel.f90: CloverLeaf's
// advec_mom_kernel), whose values the probes measured and saw vary: the
// model's tests of it, which the optimiser made a switch, are priced by how
// often the run entered each side, not evaluated at its mean (2.5 -> 3, every
// call on side 3). Over 5 steps sides 1 and 4 run 3 times, 2 and 3 twice; the
// bound model's flops are the hand count and callgrind's. The same selector
// in a C switch (`tally`) is priced by the runs of the switch's sides.
TEST(ProbeRun, PricesTheTestsOfASelectorThatVariedByTheSidesThatRan) {
  constexpr long n = 64;
  constexpr int steps = 5;
  // 1, 2, 4 and 5 flops an element on sides 1..4 (a multiply-add is 2).
  constexpr double hand = n * (3 * 1.0 + 2 * 2.0 + 2 * 4.0 + 3 * 5.0);
  struct Language {
    const char* name;
    std::vector<std::string> sources;
    const char* kernel_source;
  };
  const Language languages[] = {
      {"c", {SELECTOR_SIDES_SOURCE}, SELECTOR_SIDES_SOURCE},
      {"fortran", {SELECTOR_KERNEL_FORTRAN_SOURCE, SELECTOR_SIDES_FORTRAN_SOURCE}, SELECTOR_KERNEL_FORTRAN_SOURCE}};
  fs::path dir = probe_dir();
  for (const Language& language : languages) {
    SCOPED_TRACE(language.name);
    const std::string stem = std::string("selector_") + language.name;
    const fs::path model = dir / (stem + ".json"), bound = dir / (stem + ".bound.json");
    std::vector<std::string> args = {"analyze"};
    args.insert(args.end(), language.sources.begin(), language.sources.end());
    args.insert(args.end(), {"-o", model.string(), "--no-mca"});
    auto r = perfcast_run(args, std::chrono::seconds(300));
    ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
    const json before = read_json(model);
    ASSERT_TRUE(before["parameters"].contains("kernel.sel")) << before["parameters"].dump(1);
    // The analyser's tests of it, at the chain's first line: conditions on it.
    const int first = marker_line(language.kernel_source, "first");
    std::string kernel;
    for (const auto& [name, fn] : before["functions"].items())
      if (fn.dump().find("kernel.sel") != std::string::npos) kernel = name;
    ASSERT_FALSE(kernel.empty());
    std::vector<json> tests;
    branches_at(before["functions"][kernel]["body"], first, tests);
    ASSERT_GE(tests.size(), 3u) << before["functions"][kernel].dump();
    for (const json& t : tests) EXPECT_NE(t.value("condition", "").find("kernel.sel"), std::string::npos) << t.dump();

    fs::path program;
    if (language.sources.size() == 1) {
      program = build(stem + "_features", true, language.sources.front());
    } else {
      program = dir / (stem + "_features");
      std::vector<std::string> compile = {kBin + "/perfcast-mpif90", "-O2", "-g", "-module-dir", dir.string()};
      compile.insert(compile.end(), language.sources.begin(), language.sources.end());
      compile.insert(compile.end(), {"-o", program.string()});
      ProcessResult built = run_process(compile, std::chrono::seconds(180));
      ASSERT_EQ(built.exit_code, 0) << built.stdout_text << built.stderr_text;
    }
    args = {"probe", model.string(), "-o", bound.string(), "--"};
    for (auto& w : mpirun(2, {program.string(), std::to_string(n), std::to_string(steps)})) args.push_back(w);
    r = perfcast_run(args, std::chrono::seconds(180));
    ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
    const json after = read_json(bound);
    // Each test now a branch priced at the share of the calls its side ran:
    // 3 or 2 of 10, never the 0 or 1 of one value.
    tests.clear();
    branches_at(after["functions"][kernel]["body"], first, tests);
    ASSERT_GE(tests.size(), 3u);
    for (const json& t : tests) {
      EXPECT_FALSE(t.contains("condition")) << t.dump();
      const double p = t.value("probability", -1.0);
      EXPECT_TRUE(std::fabs(p - 0.3) < 1e-9 || std::fabs(p - 0.2) < 1e-9) << t.dump();
    }
    int priced = 0;
    for (const auto& b : after["coverage"]["guessed_branches"])
      if (b["why"].get<std::string>().find("varied") != std::string::npos) {
        EXPECT_TRUE(b.contains("probe_probability")) << b.dump();
        priced += b["function"] == kernel;
      }
    EXPECT_EQ(priced, static_cast<int>(tests.size())) << after["coverage"].dump();
    if (std::string(language.name) == "c") {  // the switch, priced by the runs of its sides
      std::vector<json> cases;
      branches_at(after["functions"]["tally"]["body"], marker_line(language.kernel_source, "switch"), cases);
      EXPECT_GE(cases.size(), 3u) << after["functions"]["tally"].dump();
      for (const json& t : cases) {
        EXPECT_FALSE(t.contains("condition")) << t.dump();
        const double p = t.value("probability", -1.0);
        EXPECT_TRUE(std::fabs(p - 0.3) < 1e-9 || std::fabs(p - 0.2) < 1e-9) << t.dump();
      }
    }

    r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "2", "--json", "--param",
                      "n=" + std::to_string(n), "--param", "steps=" + std::to_string(steps)});
    ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
    const double model_flops = json::parse(r.stdout_text)["ranks"][0]["flops_double"].get<double>();
    EXPECT_DOUBLE_EQ(model_flops, hand);
    fs::path plain;
    if (language.sources.size() == 1)
      plain = build(stem + "_plain", false, language.sources.front());
    else
      ASSERT_NO_FATAL_FAILURE(build_plain_fortran(language.sources, dir, stem, plain));
    const double counted = counted_flops({plain.string(), std::to_string(n), std::to_string(steps)});
    EXPECT_NEAR(model_flops, counted, 0.01 * counted);
  }
}

// Loops that poll for a message (tests/analyze/cases/polling.c): the probe
// run measures their passes, timing of that run, and must not bind them as a
// count: the bound model still prices each at one pass, its MPI calls lower
// bounds, while the solver loops beside them get their measured trips.
TEST(ProbeRun, LeavesThePassesOfAPollingLoopUnbound) {
  const std::string source = std::string(PERFCAST_SOURCE_DIR) + "/tests/analyze/cases/polling.c";
  fs::path dir = probe_dir();
  const fs::path model = dir / "polling.model.json", bound = dir / "polling.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  fs::path program = build("polling_features", true, source);
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  for (auto& w : mpirun(2, {program.string(), "10"})) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  ASSERT_EQ(after["coverage"]["polling_loops"].size(), 4u) << after["coverage"].dump();
  // Every polling loop keeps its one pass; no parameter stands for its trips.
  int polling = 0;
  std::function<void(const json&)> walk = [&](const json& items) {
    for (const auto& i : items) {
      if (i.contains("polls")) {
        ++polling;
        EXPECT_EQ(i["trip_count"].dump(), "\"1\"") << i.dump();
      }
      for (const char* key : {"body", "then", "else"})
        if (i.contains(key)) walk(i[key]);
    }
  };
  for (const auto& [name, f] : after["functions"].items()) walk(f["body"]);
  EXPECT_EQ(polling, 4);
  for (const auto& l : after["coverage"]["unknown_loops"])  // the solver loops: measured
    EXPECT_TRUE(l.contains("probe_trips")) << l.dump();
  EXPECT_EQ(required(after), 0) << after["parameters"].dump(1);

  r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json predicted = json::parse(r.stdout_text);
  for (const auto& rank : predicted["ranks"]) {
    EXPECT_EQ(rank["mpi_calls_timing_dependent"].get<double>(), 5.0) << rank.dump(1);
    EXPECT_EQ(rank["mpi_calls_by_op"]["test"].value("timing_dependent_calls", 0.0), 2.0) << rank.dump(1);
    EXPECT_EQ(rank["mpi_calls_by_op"]["recv"].value("calls", 0.0), 1.0) << rank.dump(1);
  }
}

// hypre_DataExchangeList's shape (tests/analyze/cases/polling_exit.c): the
// exchange loops' exit flags are set under branches on what the tests wrote,
// so their passes, timing of the run, stay unbound: one pass each after the
// probe run, while the loop whose exit is set under its own arithmetic gets
// its measured trips and the calls outside the loops their counts.
TEST(ProbeRun, LeavesThePassesOfALoopWhoseExitIsSetUnderTestsUnbound) {
  const std::string source = std::string(PERFCAST_SOURCE_DIR) + "/tests/analyze/cases/polling_exit.c";
  fs::path dir = probe_dir();
  const fs::path model = dir / "polling_exit.model.json", bound = dir / "polling_exit.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  fs::path program = build("polling_exit_features", true, source);
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  for (auto& w : mpirun(2, {program.string(), "10"})) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  ASSERT_EQ(after["coverage"]["polling_loops"].size(), 3u) << after["coverage"].dump();
  int polling = 0;
  std::function<void(const json&)> walk = [&](const json& items) {
    for (const auto& i : items) {
      if (i.contains("polls")) {
        ++polling;
        EXPECT_EQ(i["trip_count"].dump(), "\"1\"") << i.dump();
      }
      for (const char* key : {"body", "then", "else"})
        if (i.contains(key)) walk(i[key]);
    }
  };
  for (const auto& [name, f] : after["functions"].items()) walk(f["body"]);
  EXPECT_EQ(polling, 3);
  ASSERT_EQ(after["coverage"]["unknown_loops"].size(), 1u) << after["coverage"].dump();
  EXPECT_TRUE(after["coverage"]["unknown_loops"][0].contains("probe_trips")) << after["coverage"].dump();
  // Nothing is left to the user, no loop's trips: the setting the branches
  // read, a global the program never stores to, is bound by its reads.
  std::set<std::string> left;
  for (const auto& [name, p] : after["parameters"].items())
    if (!p.contains("default")) left.insert(name);
  EXPECT_TRUE(left.empty()) << after["parameters"].dump(1);
  EXPECT_EQ(after["parameters"]["verbose"].value("default", ""), "0") << after["parameters"].dump(1);

  r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json predicted = json::parse(r.stdout_text);
  for (const auto& rank : predicted["ranks"]) {
    const json& by_op = rank["mpi_calls_by_op"];
    for (const char* op : {"iprobe", "recv", "testall"}) EXPECT_TRUE(by_op[op].value("timing_dependent", false)) << op;
    EXPECT_EQ(by_op["iprobe"].value("calls", 0.0), 3.0) << rank.dump(1);
    for (const auto& [op, calls] :
         std::map<std::string, double>{{"irecv", 4}, {"issend", 3}, {"wait", 4}, {"send", 1}, {"barrier", 1}}) {
      EXPECT_EQ(by_op[op].value("calls", 0.0), calls) << op;
      EXPECT_FALSE(by_op[op].value("timing_dependent", false)) << op;
    }
  }
}

// Memsets the optimiser made of loops filling memory with a constant
// (fill_memsets.f90: `a = 0` over a module's N x 3 allocatable array each of
// 4 steps, a column a memset; a CHARACTER(64) assigned a TRIMmed word of W
// characters, blank-padded by a memset; two arrays zeroed by two statements
// on one line): no probe at the start of the pipeline sees those calls, so
// their bytes were required after the probe run. The pass marks each such
// loop's store bytes; the run's mean trips per arrival times them bind the
// bytes per call, 8 N and 64 - W; the line of two, whose memsets the analyser
// names alike, their mean, (8 N + 16 N) / 2.
TEST(ProbeRun, BindsTheBytesOfMemsetsTheOptimiserMadeOfFillLoops) {
  const std::string source = FILL_MEMSETS_SOURCE;
  constexpr long n = 40;
  const std::string word = "abcdefg";
  fs::path dir = probe_dir();
  const fs::path model = dir / "fill_memsets.json", bound = dir / "fill_memsets.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  auto bytes_at = [&](const std::string& marker) {
    const std::string at = "fill_memsets_f90:" + std::to_string(marker_line(source, marker));
    std::string found;
    for (const auto& [name, p] : before["parameters"].items())
      if (name.ends_with(".bytes") && name.find(".memset") != std::string::npos &&
          p.value("description", "").ends_with(at))
        found = name;
    return found;
  };
  const std::string fill = bytes_at("fill"), pad = bytes_at("pad"), two = bytes_at("two");
  ASSERT_FALSE(fill.empty() || pad.empty() || two.empty()) << before["parameters"].dump(1);
  EXPECT_FALSE(before["parameters"][fill].contains("default"));
  EXPECT_FALSE(before["parameters"][pad].contains("default"));

  const fs::path program = dir / "fill_memsets_features", modules = dir / "fill_memsets.mod.d";
  fs::create_directories(modules);
  ProcessResult built = run_process(
      {kBin + "/perfcast-mpif90", "-O2", "-g", "-module-dir", modules.string(), source, "-o", program.string()},
      std::chrono::seconds(180));
  ASSERT_EQ(built.exit_code, 0) << built.stdout_text << built.stderr_text;
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  for (auto& w : mpirun(2, {program.string(), std::to_string(n), word})) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"][fill].value("default", ""), std::to_string(8 * n)) << r.stdout_text;
  EXPECT_EQ(after["parameters"][pad].value("default", ""), std::to_string(64 - word.size())) << r.stdout_text;
  EXPECT_EQ(after["parameters"][two].value("default", ""), std::to_string(12 * n)) << r.stdout_text;
  EXPECT_NE(after["parameters"][fill].value("origin", "").find("probe run"), std::string::npos);
  EXPECT_NE(after["parameters"][pad].value("origin", "").find("probe run"), std::string::npos);
}

// The same in C++ (zero_vectors.cpp, HPCG's ZeroVector inlined into a solve
// loop that passes the vector on by reference): at the start of the pipeline
// the fill loop keeps its index in its stack slot, a second store the fill
// loop's test took for work; the slot's stores aside, the loop is marked and
// the memset's bytes per call bound to the run's 8 N, nothing left required.
TEST(ProbeRun, BindsTheBytesOfAMemsetMadeOfACxxFillLoopWithItsIndexInMemory) {
  constexpr long n = 100, solves = 4;
  fs::path dir = probe_dir();
  const fs::path model = dir / "zero_vectors.json", bound = dir / "zero_vectors.bound.json";
  auto r = analyse(ZERO_VECTORS_SOURCE, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  std::string bytes;
  for (const auto& [name, p] : before["parameters"].items())
    if (name.ends_with(".bytes") && name.find(".memset") != std::string::npos) bytes = name;
  ASSERT_FALSE(bytes.empty()) << before["parameters"].dump(1);
  EXPECT_FALSE(before["parameters"][bytes].contains("default"));
  const fs::path program = build("zero_vectors_features", true, ZERO_VECTORS_SOURCE);
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  for (auto& w : mpirun(1, {program.string(), std::to_string(n), std::to_string(solves)})) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"][bytes].value("default", ""), std::to_string(8 * n)) << r.stdout_text;
  EXPECT_NE(after["parameters"][bytes].value("origin", "").find("probe run"), std::string::npos);
  for (const auto& [name, p] : after["parameters"].items()) EXPECT_TRUE(p.contains("default")) << name;
}

// A module's sizes a namelist READ set (namelist_sizes.f90, SNAP's deck): the
// runtime writes them through the namelist's addresses, so no probe of a store
// sees them and `sizes_module.nx` stayed required after the probe run. The
// pass probes each read outside loops of an integer global
// (`file:line:nx.read`, told by its symbol); where the stores tell nothing,
// the reads bind it: the deck's nx on every rank, and the flops are the hand
// count, 3 nx nsteps.
TEST(ProbeRun, BindsAModulesSizesANamelistReadSetByTheirReads) {
  constexpr long nx = 50, nsteps = 3;
  fs::path dir = probe_dir();
  const fs::path model = dir / "namelist_sizes.json", bound = dir / "namelist_sizes.bound.json";
  const fs::path deck = dir / "namelist_sizes.deck";
  std::ofstream(deck) << "&input nx=" << nx << ", nsteps=" << nsteps << " /\n";
  auto r = analyse(NAMELIST_SIZES_SOURCE, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  ASSERT_TRUE(before["parameters"].contains("sizes_module.nx")) << before["parameters"].dump(1);
  EXPECT_FALSE(before["parameters"]["sizes_module.nx"].contains("default"));
  const fs::path program = dir / "namelist_sizes_features", modules = dir / "namelist_sizes.mod.d";
  fs::create_directories(modules);
  ProcessResult built = run_process(
      {kBin + "/perfcast-mpif90", "-O2", "-g", "-module-dir", modules.string(), NAMELIST_SIZES_SOURCE, "-o",
       program.string()},
      std::chrono::seconds(180));
  ASSERT_EQ(built.exit_code, 0) << built.stdout_text << built.stderr_text;
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  for (auto& w : mpirun(2, {program.string(), deck.string()})) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"]["sizes_module.nx"].value("default", ""), std::to_string(nx)) << r.stdout_text;
  EXPECT_NE(after["parameters"]["sizes_module.nx"].value("origin", "").find("probe run"), std::string::npos);
  EXPECT_NE(r.stdout_text.find("reads"), std::string::npos) << r.stdout_text;
  r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  for (const auto& rank : json::parse(r.stdout_text)["ranks"])
    EXPECT_DOUBLE_EQ(rank["flops_double"].get<double>(), 3.0 * nx * nsteps) << rank.dump(1);
}

// A wrapper's test of its own arguments, whose values varied between calls
// and ranks (argument_tests.f90 with argument_tests_comm.f90: SNAP's
// `isend_d_3d` returning early where its peer is its rank, the peer a
// direction read from a table, the rank one in a communicator split from
// MPI_COMM_WORLD): no value of the direction or the rank a user could give
// decides it for every call (the direction 1 and rank 0 made no send at all);
// the run's counts of the test price it, and the model makes the run's STEPS
// sends a rank whatever the parameters still required are bound to.
TEST(ProbeRun, PricesAFunctionsTestOfArgumentsThatVariedByTheRunsCounts) {
  constexpr long steps = 5;
  fs::path dir = probe_dir();
  const fs::path model = dir / "argument_tests.json", bound = dir / "argument_tests.bound.json";
  auto r = perfcast_run({"analyze", ARGUMENT_TESTS_COMM_SOURCE, ARGUMENT_TESTS_SOURCE, "-o", model.string(), "--no-mca"},
                        std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const fs::path program = dir / "argument_tests_features", modules = dir / "argument_tests.mod.d";
  fs::create_directories(modules);
  ProcessResult built = run_process({kBin + "/perfcast-mpif90", "-O2", "-g", "-module-dir", modules.string(),
                                     ARGUMENT_TESTS_COMM_SOURCE, ARGUMENT_TESTS_SOURCE, "-o", program.string()},
                                    std::chrono::seconds(180));
  ASSERT_EQ(built.exit_code, 0) << built.stdout_text << built.stderr_text;
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  for (auto& w : mpirun(2, {program.string(), std::to_string(steps)})) args.push_back(w);
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  const std::string guard = "argument_tests_comm.f90:" + std::to_string(marker_line(ARGUMENT_TESTS_COMM_SOURCE, "guard"));
  bool priced = false;
  for (const auto& b : after["coverage"]["guessed_branches"])
    priced = priced || (b.value("site", "") == guard && b.contains("probe_probability"));
  EXPECT_TRUE(priced) << after["coverage"]["guessed_branches"].dump(1) << r.stdout_text;
  for (int value : {0, 1}) {
    std::vector<std::string> a = {"predict", bound.string(), "--machine", "polus", "--np", "2", "--json"};
    for (const auto& [name, p] : after["parameters"].items())
      if (!p.contains("default"))  // the command line's STEPS, which a user gives, and the rest
        a.insert(a.end(), {"--param", name + "=" + std::to_string(name == "steps" ? steps : value)});
    auto p = perfcast_run(a);
    ASSERT_EQ(p.exit_code, 0) << p.stderr_text;
    for (const auto& rank : json::parse(p.stdout_text)["ranks"])
      EXPECT_DOUBLE_EQ(rank["mpi_calls_by_op"].value("isend", json::object()).value("calls", 0.0), steps)
          << "the parameters still required bound to " << value << ": " << rank.dump(1);
  }
}

// A boundary routine's one-line tests of a direction that varied between its
// calls (sweep_sides.f90 with sweep_sides_comm.f90, SNAP's `sweep_recv_bdry`:
// `IF (incomingy) CALL precv`, `IF (outgoingy) CALL waitall`), after another
// one-line test whose untaken side lands on their line, in a function with
// no other guess to name its file by: each test is found in the routine's
// own file and priced by its own side, not by every arrival at its line (the
// earlier test's side too: every call waited, at 1 rank too). No side has a
// neighbour at 1 rank, one side a direction has at 2.
TEST(ProbeRun, PricesAOneLineTestOfAVariedDirectionByItsOwnSide) {
  constexpr long steps = 5;
  fs::path dir = probe_dir();
  const fs::path model = dir / "sweep_sides.json";
  const std::vector<std::string> sources = {SWEEP_SIDES_COMM_SOURCE, SWEEP_SIDES_SOURCE};
  auto r = analyse_files(sources, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  fs::path program;
  ASSERT_NO_FATAL_FAILURE(build_fortran_features(sources, dir, "sweep_sides", program));
  for (int ranks : {1, 2}) {
    SCOPED_TRACE(ranks);
    const fs::path bound = dir / fmt::format("sweep_sides.bound{}.json", ranks);
    r = probe(model, bound, ranks, {program.string(), std::to_string(steps)});
    ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
    const json after = read_json(bound);
    for (const char* marker : {"incoming", "outgoing"}) {
      const std::string site =
          "sweep_sides_comm.f90:" + std::to_string(marker_line(SWEEP_SIDES_COMM_SOURCE, marker));
      bool priced = false;
      for (const auto& b : after["coverage"]["guessed_branches"])
        priced = priced || (b.value("site", "") == site && b.contains("probe_probability"));
      EXPECT_TRUE(priced) << site << ": " << after["coverage"]["guessed_branches"].dump(1) << r.stdout_text;
    }
    auto p = predict(bound, ranks, {"--param", fmt::format("steps={}", steps)});
    ASSERT_EQ(p.exit_code, 0) << p.stderr_text;
    for (const auto& rank : json::parse(p.stdout_text)["ranks"])
      EXPECT_DOUBLE_EQ(rank["mpi_calls_by_op"].value("waitall", json::object()).value("calls", -1.0),
                       ranks == 1 ? 0.0 : 2.0 * steps)
          << rank.dump(1);
  }
}

// A rank that only MPI_COMM_RANK writes, through the address of a module's
// variable, and that the program only hands on by reference (rank_by_reference.f90
// with rank_by_reference_comm.f90, SNAP's `sproc` and output_send's
// `CALL psend(root, sproc, ...)`): the probes read it once that call returns,
// so the run binds it (it was required, and none of the probes saw a value of
// it); the send wrapper's test of its peer against it is priced each rank by
// its own counts (the root sends nothing, each other rank every step), not at
// their mean over the ranks (half a send each step on every rank). The root's
// receives from a table of ranks (a peer the analyser cannot compute, whose
// default assumes a real neighbour: every one of them a receive, itself too)
// are priced by the run's counts of the receive wrapper's test: one fewer
// than the ranks each step.
TEST(ProbeRun, BindsARankWrittenThroughItsAddressAndPricesEachRanksTestOfIt) {
  constexpr long steps = 5;
  fs::path dir = probe_dir();
  const fs::path model = dir / "rank_by_reference.json";
  const std::vector<std::string> sources = {RANK_BY_REFERENCE_COMM_SOURCE, RANK_BY_REFERENCE_SOURCE};
  auto r = analyse_files(sources, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  ASSERT_TRUE(read_json(model)["parameters"].contains("rank_by_reference_comm.sproc"));
  fs::path program;
  ASSERT_NO_FATAL_FAILURE(build_fortran_features(sources, dir, "rank_by_reference", program));
  for (int ranks : {1, 2}) {
    SCOPED_TRACE(ranks);
    const fs::path bound = dir / fmt::format("rank_by_reference.bound{}.json", ranks);
    r = probe(model, bound, ranks, {program.string(), std::to_string(steps)});
    ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
    const json after = read_json(bound);
    EXPECT_EQ(required(after), 0) << r.stdout_text;
    EXPECT_TRUE(after["parameters"]["rank_by_reference_comm.sproc"].contains("default")) << r.stdout_text;
    auto p = predict(bound, ranks);
    ASSERT_EQ(p.exit_code, 0) << p.stderr_text;
    const json predicted = json::parse(p.stdout_text);
    for (const auto& rank : predicted["ranks"]) {
      const int k = rank["rank"].get<int>();
      const auto& by_op = rank["mpi_calls_by_op"];
      EXPECT_DOUBLE_EQ(by_op.value("send", json::object()).value("calls", 0.0), k == 0 ? 0.0 : steps) << rank.dump(1);
      EXPECT_DOUBLE_EQ(by_op.value("recv", json::object()).value("calls", 0.0), k == 0 ? (ranks - 1.0) * steps : 0.0)
          << rank.dump(1);
    }
  }
}

// A guard whose taken side is a bare RETURN, the send after it, the send's
// side starting in the optimised code where the optimiser sank code into it
// (an explicit-shape dummy's extents at its declaration, a pointer computed
// before the guard), not where the probes' side starts: the guard is matched
// by its one side that does nothing, and priced by the run's counts, 1 send
// in 4 calls, not at its guess of one half (SNAP's plib `isend_d_3d`).
TEST(ProbeRun, PricesAGuardWhoseTakenSideIsABareReturnByTheRunsCounts) {
  constexpr long steps = 5;
  struct Language {
    const char* name;
    std::vector<std::string> sources;
    const char* guard_source;
  };
  const Language languages[] = {
      {"c", {RETURN_GUARD_SOURCE}, RETURN_GUARD_SOURCE},
      {"fortran", {RETURN_GUARD_COMM_SOURCE, RETURN_GUARD_FORTRAN_SOURCE}, RETURN_GUARD_COMM_SOURCE}};
  fs::path dir = probe_dir();
  for (const Language& language : languages) {
    SCOPED_TRACE(language.name);
    const std::string stem = std::string("return_guard_") + language.name;
    const fs::path model = dir / (stem + ".json"), bound = dir / (stem + ".bound.json");
    std::vector<std::string> args = {"analyze"};
    args.insert(args.end(), language.sources.begin(), language.sources.end());
    args.insert(args.end(), {"-o", model.string(), "--no-mca"});
    auto r = perfcast_run(args, std::chrono::seconds(180));
    ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
    fs::path program;
    if (language.sources.size() == 1) {
      program = build(stem + "_features", true, language.sources.front());
    } else {
      program = dir / (stem + "_features");
      const fs::path modules = dir / (stem + ".mod.d");
      fs::create_directories(modules);
      std::vector<std::string> compile = {kBin + "/perfcast-mpif90", "-O2", "-g", "-module-dir", modules.string()};
      compile.insert(compile.end(), language.sources.begin(), language.sources.end());
      compile.insert(compile.end(), {"-o", program.string()});
      ProcessResult built = run_process(compile, std::chrono::seconds(180));
      ASSERT_EQ(built.exit_code, 0) << built.stdout_text << built.stderr_text;
    }
    args = {"probe", model.string(), "-o", bound.string(), "--"};
    for (auto& w : mpirun(2, {program.string(), std::to_string(steps)})) args.push_back(w);
    r = perfcast_run(args, std::chrono::seconds(180));
    ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
    const json after = read_json(bound);
    const std::string guard = fs::path(language.guard_source).filename().string() + ":" +
                              std::to_string(marker_line(language.guard_source, "guard"));
    std::optional<double> priced;
    for (const auto& b : after["coverage"]["guessed_branches"])
      if (b.value("site", "") == guard && b.contains("probe_probability")) priced = b["probe_probability"];
    ASSERT_TRUE(priced) << after["coverage"]["guessed_branches"].dump(1) << r.stdout_text;
    // Its return taken on 3 calls in 4, whichever side of the model's branch it is, and said how it was matched.
    EXPECT_TRUE(std::abs(*priced - 0.75) < 1e-9 || std::abs(*priced - 0.25) < 1e-9) << *priced;
    EXPECT_NE(r.stdout_text.find("its empty side"), std::string::npos) << r.stdout_text;
    for (int value : {0, 1}) {
      std::vector<std::string> a = {"predict", bound.string(), "--machine", "polus", "--np", "2", "--json"};
      for (const auto& [name, p] : after["parameters"].items())
        if (!p.contains("default"))  // the command line's STEPS, which a user gives, and the rest
          a.insert(a.end(), {"--param", name + "=" + std::to_string(name == "steps" ? steps : value)});
      auto p = perfcast_run(a);
      ASSERT_EQ(p.exit_code, 0) << p.stderr_text;
      for (const auto& rank : json::parse(p.stdout_text)["ranks"])
        EXPECT_DOUBLE_EQ(rank["mpi_calls_by_op"].value("isend", json::object()).value("calls", 0.0), steps)
            << "the parameters still required bound to " << value << ": " << rank.dump(1);
    }
  }
}

}  // namespace
// A chain of tests on a value read from data, made one switch by the
// optimiser (dispatch_chain.c, a multigrid cycle's choice of smoother): each
// case is priced by the arrivals into the line its code starts at, which the
// probes count as the sides of the chain's tests, over the arrivals at the
// switch; and a two-test condition in one case whose `else` starts, in the
// optimised code, past a test of a constant the optimiser folded, by where
// the probes' test there goes on to. Two inputs that take the condition's
// two sides: flops the hand count each time.
TEST(ProbeRun, PricesTheCasesOfASwitchMadeOfAChainOfTestsByTheArrivalsIntoEach) {
  constexpr long levels = 7, n = 1000;
  const std::string source = DISPATCH_CHAIN_SOURCE;
  fs::path dir = probe_dir();
  const fs::path model = dir / "dispatch_chain.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const std::string chain = "dispatch_chain.c:" + std::to_string(marker_line(source, "chain"));
  const std::string two_tests = "dispatch_chain.c:" + std::to_string(marker_line(source, "two_tests"));
  bool a_case_guessed = false;
  const json before = read_json(model);
  for (const auto& b : before["coverage"]["guessed_branches"])
    a_case_guessed |= b.value("site", "") == chain && b.value("why", "").find("switch cases") != std::string::npos;
  ASSERT_TRUE(a_case_guessed) << "the optimiser kept the chain as tests: the shape this test needs is gone";
  const fs::path program = build("dispatch_chain_features", true, source);
  // Levels 0..6 run kinds 3, 18, 18, 3, 18, 18, 9: smooth_a twice (2 flops
  // an element), the kind-18 side four times, the coarse solve once (3), and
  // one add a call. The kind-18 side: smooth_b (3) with order 0; with order 1
  // and cycle 1, smooth_points twice (2 each, and two adds a level).
  for (const auto& [order, per_18] : {std::pair{0, 3L}, std::pair{1, 4L}}) {
    const long adds = levels + (order == 1 ? 4 : 0);
    SCOPED_TRACE(order);
    const fs::path bound = dir / ("dispatch_chain.bound" + std::to_string(order) + ".json");
    std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
    for (auto& w : mpirun(1, {program.string(), std::to_string(levels), std::to_string(n), std::to_string(order), "1"}))
      args.push_back(w);
    r = perfcast_run(args, std::chrono::seconds(180));
    ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
    const json after = read_json(bound);
    for (const auto& b : after["coverage"]["guessed_branches"]) {
      const std::string site = b.value("site", "");
      if (site == chain || site == two_tests) EXPECT_TRUE(b.contains("probe_probability")) << b.dump() << r.stdout_text;
    }
    r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "1", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
    const double flops = json::parse(r.stdout_text)["ranks"][0]["flops_double"].get<double>();
    EXPECT_DOUBLE_EQ(flops, double(2 * 2 * n + 4 * per_18 * n + 3 * n + adds)) << r.stdout_text;
  }
}

// One callee called on both sides of a data-dependent test with different
// constant flags (merged_calls.c), merged by the optimiser into one call
// without a line: its flag is bound from the probes of every call of that
// callee in the file where they all passed one value, left to the user where
// they did not. Flops the hand count at the two modes.
TEST(ProbeRun, BindsTheArgumentOfACallTheOptimiserMergedByEveryCallOfItsCallee) {
  constexpr long n = 100;
  const std::string source = MERGED_CALLS_SOURCE;
  fs::path dir = probe_dir();
  const fs::path model = dir / "merged_calls.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  const std::string flag = "coarsen.init_measures1.seq";
  ASSERT_TRUE(before["parameters"].contains(flag)) << "the optimiser kept the two calls: the shape this test needs is gone"
                                                    << before["parameters"].dump(1);
  ASSERT_NE(before["parameters"][flag].value("description", "").find("merged_calls_c:0"), std::string::npos);
  const fs::path program = build("merged_calls_features", true, source);
  // Four coarsenings: n adds each, and 3n more where the flag is set (modes 2
  // and 4); one add a coarsening in main.
  for (const auto& [mode, seeded] : {std::pair{0, 0L}, std::pair{4, 1L}}) {
    SCOPED_TRACE(mode);
    const fs::path bound = dir / ("merged_calls.bound" + std::to_string(mode) + ".json");
    std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
    for (auto& w : mpirun(1, {program.string(), std::to_string(n), std::to_string(mode)})) args.push_back(w);
    r = perfcast_run(args, std::chrono::seconds(180));
    ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
    const json after = read_json(bound);
    EXPECT_EQ(after["parameters"][flag].value("default", ""), std::to_string(seeded)) << r.stdout_text;
    r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "1", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
    const double flops = json::parse(r.stdout_text)["ranks"][0]["flops_double"].get<double>();
    EXPECT_DOUBLE_EQ(flops, double(4 * (n + seeded * 3 * n) + 4)) << r.stdout_text;
  }
}

// Locals a call writes through their addresses (range_by_call.c:
// `find_range(marks, n, &first, &last)`), no store in the caller assigning
// them: the probes read them once the call returns, which binds them, and
// the flops (two a point of the range) and the message's bytes are the hand
// count's, n/4 to n - n/8.
TEST(ProbeRun, BindsTheLocalsACallWritesThroughTheirAddresses) {
  constexpr long n = 800, first = n / 4, last = n - n / 8;
  const std::string source = RANGE_BY_CALL_SOURCE;
  const fs::path model = probe_dir() / "range_by_call.json", bound = probe_dir() / "range_by_call.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  for (const char* name : {"first", "last"}) {
    ASSERT_TRUE(before["parameters"].contains(name)) << before["parameters"].dump(1);
    ASSERT_NE(before["parameters"][name].value("description", "").find("after a call wrote it"), std::string::npos)
        << before["parameters"][name].dump();
  }
  const fs::path program = build("range_by_call_features", true, source);
  r = probe(model, bound, 1, {program.string(), std::to_string(n)});
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"]["first"].value("default", ""), std::to_string(first)) << r.stdout_text;
  EXPECT_EQ(after["parameters"]["last"].value("default", ""), std::to_string(last)) << r.stdout_text;
  r = predict(bound, 1);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_DOUBLE_EQ(rank0_flops(r), 2.0 * (last - first)) << r.stdout_text;
}

// Work only a run of several processes does (size_paths.c: `if (size > 1)
// exchange(...)`, whose halo width is read inside): a probe run on 1 process
// binds the width for 1 process only (0: no path it took reads it), so a
// prediction at 1 rank needs nothing from the user and one at 2 ranks from
// that model is refused unless the user binds it; a probe run on 2 processes
// measures it. Flops the hand count: n a rank, 2 more a point of the halo.
TEST(ProbeRun, BindsWhatOnlyAnotherProcessCountReadsForTheRunsCountOnly) {
  constexpr long n = 1000, halo = 10;
  const std::string source = SIZE_PATHS_SOURCE;
  const fs::path model = probe_dir() / "size_paths.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  std::string width;
  for (const auto& [name, p] : before["parameters"].items())
    if (name.find("halo") != std::string::npos && !p.contains("default")) width = name;
  ASSERT_FALSE(width.empty()) << before["parameters"].dump(1);
  const fs::path program = build("size_paths_features", true, source);
  auto probed = [&](int ranks) {
    const fs::path bound = probe_dir() / ("size_paths.bound" + std::to_string(ranks) + ".json");
    auto run = probe(model, bound, ranks, {program.string(), std::to_string(n), std::to_string(halo)});
    EXPECT_EQ(run.exit_code, 0) << run.stdout_text << run.stderr_text;
    return bound;
  };
  auto flops = [&](const fs::path& bound, int np, std::vector<std::string> extra = {}) -> std::optional<double> {
    auto run = predict(bound, np, extra);
    if (run.exit_code != 0) {
      EXPECT_NE(run.stderr_text.find(width), std::string::npos) << run.stderr_text;
      EXPECT_NE(run.stderr_text.find("probe at 2 ranks"), std::string::npos) << run.stderr_text;
      return std::nullopt;
    }
    return rank0_flops(run);
  };
  const fs::path one = probed(1);
  const json bound1 = read_json(one)["parameters"];
  EXPECT_EQ(bound1[width].value("default", ""), "0") << bound1[width].dump();
  EXPECT_EQ(flops(one, 1), double(n));
  EXPECT_EQ(flops(one, 2), std::nullopt) << "a prediction at 2 ranks priced a width no run measured";
  const fs::path two = probed(2);
  const json bound2 = read_json(two)["parameters"];
  EXPECT_EQ(bound2[width].value("default", ""), std::to_string(halo));
  EXPECT_EQ(flops(two, 2), double(n + 2 * halo));
  // The width, and the exchange's loop, which the 1-process run never
  // entered: bound by the user (to what the run on 2 measured), the 1-process
  // model predicts at 2 ranks, the loop's guard, which no run of it reached,
  // at its guessed probability.
  std::vector<std::string> given;
  for (const auto& [name, p] : bound1.items())
    if (p.value("origin", "").find("process count 1") != std::string::npos)
      given.insert(given.end(), {"--param", name + "=" + bound2[name].value("default", "?")});
  EXPECT_NE(std::find(given.begin(), given.end(), width + "=" + std::to_string(halo)), given.end()) << bound1.dump(1);
  const auto given_flops = flops(one, 2, given);
  ASSERT_TRUE(given_flops.has_value());
  EXPECT_GT(*given_flops, double(n));
  EXPECT_LE(*given_flops, double(n + 2 * halo));
}

// A variable assigned at two places with values that varied, then tested
// (two_definitions.c: `lo` from one of two bounds, `if (lo > n / 2)` runs the
// work): no one value of it is the one tested, so the probe leaves it, and
// prices the test by how often the run took it instead (1 of 3 passes). Then
// nothing the prediction prices reads it. Flops the hand count (2 a point of
// the one pass that works) and callgrind's.
TEST(ProbeRun, PricesATestOfAValueItCouldNotBindByHowOftenTheRunTookIt) {
  constexpr long n = 1000;
  const std::string source = TWO_DEFINITIONS_SOURCE;
  const fs::path model = probe_dir() / "two_definitions.json", bound = probe_dir() / "two_definitions.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  ASSERT_TRUE(before["parameters"].contains("pass.lo")) << before["parameters"].dump(1);
  const fs::path program = build("two_definitions_features", true, source);
  r = probe(model, bound, 1, {program.string(), std::to_string(n)});
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  EXPECT_NE(r.stdout_text.find("assigned at 2 places"), std::string::npos) << r.stdout_text;
  const json after = read_json(bound);
  EXPECT_EQ(required(after), 0) << after["parameters"].dump(1);
  bool priced = false;
  for (const auto& b : after["coverage"]["guessed_branches"])
    priced |= b.value("why", "").find("could not bind") != std::string::npos && b.contains("probe_probability") &&
              std::abs(b["probe_probability"].get<double>() - 1.0 / 3) < 1e-9;
  EXPECT_TRUE(priced) << after["coverage"]["guessed_branches"].dump(1);
  r = predict(bound, 1);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const double model_flops = rank0_flops(r);
  EXPECT_DOUBLE_EQ(model_flops, 2.0 * n);
  fs::path plain = build("two_definitions_plain", false, source);
  const double counted = counted_flops({plain.string(), std::to_string(n)});
  EXPECT_NEAR(model_flops, counted, 0.02 * counted);
}

// Locals assigned at two places and read after they merge (merged_value.c:
// `next = reach / 3; if (next * 3 < reach) next++;`, which the optimiser
// makes the first value plus the test's outcome, and `start = -next; if (half)
// { start = 0; ... }`, a test of data kept as a phi the analyser cannot
// follow; then `for (k = start; k <= next; ++k)`): the pooled stores of each
// are no value the loop reads. The analyser says the model reads them where
// their assignments merge; the probes measure the reads both assignments
// reach, whose means the probe binds: the bound model's flops are callgrind's.
// Their stores' values alone left both required.
TEST(ProbeRun, BindsALocalReadWhereItsTwoAssignmentsMerge) {
  const std::string source = MERGED_VALUE_SOURCE;
  const std::vector<std::string> args = {"100", "3"};
  const fs::path model = probe_dir() / "merged_value.json", bound = probe_dir() / "merged_value.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  for (const char* name : {"stencil.next", "stencil.start"}) {
    ASSERT_TRUE(before["parameters"].contains(name)) << before["parameters"].dump(1);
    EXPECT_TRUE(before["parameters"][name]["description"].get<std::string>().ends_with(
        "; read where its assignments merge"))
        << before["parameters"][name].dump();
  }
  std::vector<std::string> command = {build("merged_value_features", true, source).string()};
  command.insert(command.end(), args.begin(), args.end());
  r = probe(model, bound, 1, command);
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  EXPECT_NE(r.stdout_text.find("reads after its assignments merge"), std::string::npos) << r.stdout_text;
  const json after = read_json(bound);
  EXPECT_EQ(required(after), 0) << r.stdout_text;
  // Turns of reach 3, 4, 5, 6, 3, 4, 5, 6, 3, 4: next = 1, 2, 2, 2, 1, 2, 2, 2, 1, 2; the odd
  // turns start from 0, the others from -next: (-1 - 2 - 1 - 2 - 1) / 10.
  EXPECT_DOUBLE_EQ(std::stod(after["parameters"]["stencil.next"]["default"].get<std::string>()), 1.7);
  EXPECT_DOUBLE_EQ(std::stod(after["parameters"]["stencil.start"]["default"].get<std::string>()), -0.7);
  r = predict(bound, 1);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const double model_flops = rank0_flops(r);
  std::vector<std::string> plain = {build("merged_value_plain", false, source).string()};
  plain.insert(plain.end(), args.begin(), args.end());
  const double counted = counted_flops(plain);
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// A merge the optimiser split (split_merge.c: a count a loop increments under
// a test of an argument, read after the test): the model's value is the
// loop's count, a merge of two of the three assignments, while the reads
// after the test in the source see 0 too. The analyser makes no merge note,
// so the probe leaves it to the user rather than binding the reads' mean
// (half the count here); bound by hand to the count, the model's flops are
// callgrind's.
TEST(ProbeRun, LeavesALocalWhoseMergeTheOptimiserSplitToTheUser) {
  const std::string source = SPLIT_MERGE_SOURCE;
  const fs::path model = probe_dir() / "split_merge.json", bound = probe_dir() / "split_merge.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  ASSERT_TRUE(before["parameters"].contains("gather.found")) << before["parameters"].dump(1);
  EXPECT_EQ(before["parameters"]["gather.found"]["description"].get<std::string>().find("; read where"), std::string::npos)
      << before["parameters"]["gather.found"].dump();
  r = probe(model, bound, 1, {build("split_merge_features", true, source).string(), "300"});
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_FALSE(after["parameters"]["gather.found"].contains("default")) << after["parameters"]["gather.found"].dump();
  // 300 columns of i / 7: 43 distinct values, the first and 42 increases.
  r = predict(bound, 1, {"--param", "gather.found=43"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const double counted = counted_flops({build("split_merge_plain", false, source).string(), "300"});
  EXPECT_NEAR(rank0_flops(r), counted, 0.01 * counted);
}

// A DO without control left by EXIT on what the fetch at its start returned
// (read_loop.f90, an input parser's record loop, the fetch a unit of its own):
// the optimiser rotates the loop to start at the EXIT test, where the
// analyser names it, while the probes name it at the fetch. The probe's loop
// is found by the line of its one exit test: the loop's passes are bound, and
// the bound model's flops are callgrind's.
TEST(ProbeRun, BindsTheRecordsOfALoopLeftByATestOfWhatItsFetchReturned) {
  const std::string source = READ_LOOP_SOURCE, input = READ_LOOP_INPUT_SOURCE;
  constexpr int nrec = 5, nfield = 8;
  const std::string limit = std::to_string(1 << nrec);
  fs::path dir = probe_dir();
  const fs::path model = dir / "read_loop.json", bound = dir / "read_loop.bound.json";
  auto r = perfcast_run({"analyze", input, source, "-o", model.string(), "--no-mca"}, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const std::string test_site = "read_loop.f90:" + std::to_string(marker_line(source, "test"));
  const json before = read_json(model);
  std::string trips;
  for (const auto& l : before["coverage"]["unknown_loops"])
    if (l["site"] == test_site) trips = l["trip_count"].get<std::string>();
  ASSERT_FALSE(trips.empty()) << "no unknown loop at " << test_site << ": " << before["coverage"].dump();

  fs::path program;
  ASSERT_NO_FATAL_FAILURE(build_fortran_features({input, source}, dir, "read_loop", program));
  r = probe(model, bound, 2, {program.string(), limit, std::to_string(nfield)});
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_TRUE(after["parameters"][trips].contains("default")) << trips << " unbound: " << r.stdout_text;
  EXPECT_EQ(required(after), 0) << r.stdout_text;

  auto predicted = predict(bound, 2);
  ASSERT_EQ(predicted.exit_code, 0) << predicted.stderr_text;
  const double model_flops = rank0_flops(predicted);
  fs::path plain;
  ASSERT_NO_FATAL_FAILURE(build_plain_fortran(std::vector<std::string>{input, source}, dir, "read_loop", plain));
  const double counted = counted_flops({plain.string(), limit, std::to_string(nfield)});
  EXPECT_DOUBLE_EQ(model_flops, 2.0 * nfield * nrec + nrec + 1);
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// A count a Fortran procedure receives by reference and passes on
// (passed_on.f90: `inner`'s dummy `nper`, set by a call in another unit, then
// handed to the kernel whose loop it sizes): the analyser reads it from
// memory after a call that may write it; the probe reads the caller's own
// scalar dummy at the call, as it does a variable, and binds the argument to
// the value its calls passed. The bound model's flops are the hand count and
// callgrind's; the dummy unread left it required.
TEST(ProbeRun, BindsACountADummyArgumentPassesOnByTheValueItsCallsPassed) {
  const std::string source = PASSED_ON_SOURCE, set = PASSED_ON_SET_SOURCE;
  constexpr int ng = 50, niter = 7;
  fs::path dir = probe_dir();
  const fs::path model = dir / "passed_on.json", bound = dir / "passed_on.bound.json";
  auto r = analyse_files({set, source}, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const std::string nper = "inner.kernel1.nper";
  const json before = read_json(model);
  ASSERT_TRUE(before["parameters"].contains(nper)) << before["parameters"].dump(1);
  ASSERT_FALSE(before["parameters"][nper].contains("default"));
  fs::path program;
  ASSERT_NO_FATAL_FAILURE(build_fortran_features({set, source}, dir, "passed_on", program));
  const std::vector<std::string> args = {std::to_string(ng), std::to_string(niter)};
  std::vector<std::string> command = {program.string()};
  command.insert(command.end(), args.begin(), args.end());
  r = probe(model, bound, 2, command);
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"][nper].value("default", ""), std::to_string(ng)) << r.stdout_text;
  EXPECT_EQ(required(after), 0) << r.stdout_text;
  auto predicted = predict(bound, 2);
  ASSERT_EQ(predicted.exit_code, 0) << predicted.stderr_text;
  const double model_flops = rank0_flops(predicted);
  EXPECT_DOUBLE_EQ(model_flops, 3.0 * ng * niter + ng);
  fs::path plain;
  ASSERT_NO_FATAL_FAILURE(build_plain_fortran(std::vector<std::string>{set, source}, dir, "passed_on", plain));
  command[0] = plain.string();
  const double counted = counted_flops(command);
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// A recursion whose last call is a tail call (tail_recursion.c, a library's
// quicksort): the optimiser would make that call a loop around the body whose
// iterations are invocations, a loop no probe sees; the analyser keeps the
// recursion, whose invocations the probes count. Nothing is left to bind, and
// the bound model's flops are callgrind's.
TEST(ProbeRun, BindsARecursionWhoseLastCallIsATailCallByItsInvocations) {
  const std::string source = TAIL_RECURSION_SOURCE;
  fs::path dir = probe_dir();
  const fs::path model = dir / "tail_recursion.json", bound = dir / "tail_recursion.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const fs::path program = build("tail_recursion_features", true, source);
  r = probe(model, bound, 2, {program.string(), "2000"});
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  EXPECT_EQ(required(read_json(bound)), 0) << r.stdout_text;
  auto predicted = predict(bound, 2);
  ASSERT_EQ(predicted.exit_code, 0) << predicted.stderr_text;
  const double model_flops = rank0_flops(predicted);
  const fs::path plain = build("tail_recursion_plain", false, source);
  const double counted = counted_flops({plain.string(), "2000"});
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// Array statements in OpenMP parallel regions (omp_nests.f90): the regions'
// functions share a line, so the probes tell their loops apart by function,
// and a statement's nest by depth where the model's loops at that line are
// the probes' (the master's group loop): each bound to its extent. Where the
// model names the shared group loop at the statement's line too, a depth
// would pick the wrong loop: those stay to bind, in a unit of several regions
// (their loops told by function) as in a unit of one (omp_one_region.f90, by
// depth alone). The team's thread count is the run's, never a loop's at the
// region's line.
TEST(ProbeRun, TellsAnArrayStatementsLoopsInAParallelRegionApartByDepthWhereTheNestsAgree) {
  const std::string source = OMP_NESTS_SOURCE;
  constexpr int nx = 6, ng = 4;
  auto at = [&](const std::string& marker) { return "omp_nests.f90:" + std::to_string(marker_line(source, marker)); };
  fs::path dir = probe_dir();
  const fs::path model = dir / "omp_nests.json", bound = dir / "omp_nests.bound.json";
  auto r = perfcast_run({"analyze", source, "-o", model.string(), "--no-mca", "--", "-fopenmp"},
                        std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  fs::path program;
  ASSERT_NO_FATAL_FAILURE(build_fortran_features({source}, dir, "omp_nests", program, {"-fopenmp"}));
  std::vector<std::string> args = {"probe", model.string(), "-o", bound.string(), "--"};
  std::vector<std::string> launch = mpirun(1, {program.string(), std::to_string(nx), std::to_string(ng)});
  launch.insert(launch.begin() + 1, {"-x", "OMP_NUM_THREADS=1"});
  args.insert(args.end(), launch.begin(), launch.end());
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  int nest = 0, first = 0;
  for (const auto& l : after["coverage"]["unknown_loops"]) {
    const json& p = after["parameters"][l["trip_count"].get<std::string>()];
    if (l["site"] == at("nest")) {
      ++nest;
      EXPECT_EQ(p.value("default", std::string("unbound")), std::to_string(nx)) << l.dump() << r.stdout_text;
    } else if (l["site"] == at("first")) {
      ++first;
      EXPECT_FALSE(p.contains("default")) << l.dump() << r.stdout_text;
    }
  }
  EXPECT_EQ(nest, 2) << after["coverage"].dump();  // the columns and the rows
  EXPECT_GE(first, 2) << after["coverage"].dump();
  // The run's one thread (OMP_NUM_THREADS=1), not the extent of a nest at a region's line.
  EXPECT_EQ(after["parameters"]["omp.threads"].value("default", std::string("unbound")), "1") << r.stdout_text;

  // The shared group loop alone in its unit (omp_one_region.f90): no function
  // facts, only depths, and the model's one loop more at the line; none bound.
  const std::string one = OMP_ONE_REGION_SOURCE;
  const fs::path one_model = dir / "omp_one_region.json", one_bound = dir / "omp_one_region.bound.json";
  r = perfcast_run({"analyze", one, "-o", one_model.string(), "--no-mca", "--", "-fopenmp"}, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  fs::path one_program;
  ASSERT_NO_FATAL_FAILURE(build_fortran_features({one}, dir, "omp_one_region", one_program, {"-fopenmp"}));
  args = {"probe", one_model.string(), "-o", one_bound.string(), "--"};
  launch = mpirun(1, {one_program.string(), std::to_string(nx), std::to_string(ng)});
  launch.insert(launch.begin() + 1, {"-x", "OMP_NUM_THREADS=1"});
  args.insert(args.end(), launch.begin(), launch.end());
  r = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json one_after = read_json(one_bound);
  int nested = 0;
  for (const auto& l : one_after["coverage"]["unknown_loops"])
    if (l["site"] == "omp_one_region.f90:" + std::to_string(marker_line(one, "first"))) {
      ++nested;
      EXPECT_FALSE(one_after["parameters"][l["trip_count"].get<std::string>()].contains("default"))
          << l.dump() << r.stdout_text;
    }
  EXPECT_GE(nested, 2) << one_after["coverage"].dump();
}

// A variable set by one of several tests of its kind (kind_offsets.f90, a
// halo packer's row offset per kind of data), read once after them by a loop
// on the line of a loop of another unit: its values varied and it is
// assigned at four places, but each call assigned it once and arrived at the
// loop once, so the mean of its assignments is the mean the loop reads (and
// the same of a row loop inside a loop over the halo's depth, counted at the
// depth loop). Bound to it, the model's flops are the hand count and callgrind's.
TEST(ProbeRun, BindsAVariableSetByOneOfSeveralTestsToItsMeanWhereEachArrivalAtItsLoopFollowsOneAssignment) {
  const std::string source = KIND_OFFSETS_SOURCE;
  constexpr int n = 40, depth = 2, ncall = 3;
  // The two units' loops on one line: the row loop's probe is found by its variable's file.
  ASSERT_EQ(marker_line(KIND_OFFSETS_PACK_SOURCE, "rows"), marker_line(source, "rounds"));
  fs::path dir = probe_dir();
  const fs::path model = dir / "kind_offsets.json", bound = dir / "kind_offsets.bound.json";
  auto r = perfcast_run({"analyze", KIND_OFFSETS_PACK_SOURCE, source, "-o", model.string(), "--no-mca"},
                        std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  fs::path program;
  ASSERT_NO_FATAL_FAILURE(build_fortran_features({KIND_OFFSETS_PACK_SOURCE, source}, dir, "kind_offsets", program));
  const std::vector<std::string> args = {std::to_string(n), std::to_string(depth), std::to_string(ncall)};
  std::vector<std::string> command = {program.string()};
  command.insert(command.end(), args.begin(), args.end());
  r = probe(model, bound, 2, command);
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"]["pack_left.y_inc"].value("default", std::string("unbound")), "0.5") << r.stdout_text;
  // Read by a row loop inside the loop over the depth: one value per arrival there.
  EXPECT_EQ(after["parameters"]["pack_bottom.x_inc"].value("default", std::string("unbound")), "0.5") << r.stdout_text;
  EXPECT_EQ(required(after), 0) << r.stdout_text;

  auto predicted = predict(bound, 2);
  ASSERT_EQ(predicted.exit_code, 0) << predicted.stderr_text;
  const double model_flops = rank0_flops(predicted);
  // A product per row on the left, per element of the depth's rows at the bottom.
  EXPECT_DOUBLE_EQ(model_flops, (1.0 + depth) * ncall * (4.0 * (n + 2 * depth) + 2));
  fs::path plain;
  ASSERT_NO_FATAL_FAILURE(
      build_plain_fortran(std::vector<std::string>{KIND_OFFSETS_PACK_SOURCE, source}, dir, "kind_offsets", plain));
  command[0] = plain.string();
  const double counted = counted_flops(command);
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// A loop filling memory with a constant whose body is on the line after its
// `for` (fill_body.c, an interpolation's markers cleared over a count an
// earlier loop found): the optimiser makes it a memset at the body's line,
// while the probes name the loop at its `for`; the line of the loop's store
// (`.fill_line`) finds it. The memset's bytes are the count's 4-byte markers.
TEST(ProbeRun, BindsTheBytesOfAMemsetMadeOfAFillLoopWhoseBodyIsOnTheNextLine) {
  const std::string source = FILL_BODY_SOURCE;
  constexpr int n = 100, npass = 3;
  fs::path dir = probe_dir();
  const fs::path model = dir / "fill_body.json", bound = dir / "fill_body.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const std::string described = "bytes of the memset at fill_body_c:" + std::to_string(marker_line(source, "fill"));
  const json before = read_json(model);
  std::string bytes;
  for (const auto& [name, p] : before["parameters"].items())
    if (p.value("description", "") == described) bytes = name;
  ASSERT_FALSE(bytes.empty()) << "no parameter described '" << described << "'";
  const fs::path program = build("fill_body_features", true, source);
  r = probe(model, bound, 2, {program.string(), std::to_string(n), std::to_string(npass)});
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"][bytes].value("default", std::string("unbound")), std::to_string(4 * (n / 2)))
      << r.stdout_text;
  EXPECT_EQ(required(after), 0) << r.stdout_text;
}

// A size its loops run a line of (stencil_reach.c, a bin stencil's reach set
// at two places): rows and columns of 2 * next + 1 trips, a ring walk of
// next - 1, unrolled. The probes' trips give the reach (3 at a cutoff of 2.8
// over bins of 1.3), where its two assignments' values told nothing; the
// flops are the hand count and callgrind's.
TEST(ProbeRun, BindsASizeFromTheTripsOfLoopsThatRunALineOfIt) {
  const std::string source = STENCIL_REACH_SOURCE;
  constexpr int reach = 3, calls = 2;
  fs::path dir = probe_dir();
  const fs::path model = dir / "stencil_reach.json", bound = dir / "stencil_reach.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  ASSERT_TRUE(read_json(model)["parameters"].contains("stencil.next"));
  const fs::path program = build("stencil_reach_features", true, source);
  const std::vector<std::string> args = {"2.8", "1.3", std::to_string(calls)};
  std::vector<std::string> command = {program.string()};
  command.insert(command.end(), args.begin(), args.end());
  r = probe(model, bound, 2, command);
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"]["stencil.next"].value("default", std::string("unbound")), std::to_string(reach))
      << r.stdout_text;
  EXPECT_EQ(required(after), 0) << r.stdout_text;

  auto predicted = predict(bound, 2);
  ASSERT_EQ(predicted.exit_code, 0) << predicted.stderr_text;
  const double model_flops = rank0_flops(predicted);
  // A call: the cells' product and sum, the walk's, the reach's quotient and
  // product; main's cutoff for the call and its sum (a product, two sums).
  const int cells = (2 * reach + 1) * (2 * reach + 1);
  EXPECT_DOUBLE_EQ(model_flops, calls * (2.0 * cells + 2 * (reach - 1) + 2 + 3));
  command[0] = build("stencil_reach_plain", false, source).string();
  const double counted = counted_flops(command);
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// Loops over a field of a class (class_field_loop.cpp, `#pragma omp for` over
// `nlocal` in a method and in a function given the object by reference): each
// bound is the field, named as a struct's is, never the variable clang
// captures it in (`.capture_expr.`, which no user knows): through `this` by
// its class, `Atoms.nlocal` (`this` has no line: described at the method's),
// through the reference by the variable, `atoms.nlocal`; the probes' records
// of their reads bind them. The flops are the hand count: an add and a
// multiply a coordinate a step, the team's two threads a half each.
TEST(ProbeRun, BindsAClassFieldThatBoundsAWorksharingLoop) {
  const std::string source = CLASS_FIELD_LOOP_SOURCE;
  constexpr int n = 600;
  fs::path dir = probe_dir();
  const fs::path model = dir / "class_field_loop.json", bound = dir / "class_field_loop.bound.json";
  auto r = analyse(source, model, {"-fopenmp"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  for (const auto& [name, p] : before["parameters"].items())
    EXPECT_EQ(name.find("capture_expr"), std::string::npos) << name << ": " << p.dump();
  const std::string method = "field Atoms.nlocal of wrap (class_field_loop_cpp:" +
                             std::to_string(marker_line(source, "wrap") - 2) + ")";
  ASSERT_TRUE(before["parameters"].contains("Atoms.nlocal")) << before["parameters"].dump(1);
  EXPECT_TRUE(before["parameters"]["Atoms.nlocal"].value("description", "").starts_with(method))
      << before["parameters"]["Atoms.nlocal"].dump();
  ASSERT_TRUE(before["parameters"].contains("atoms.nlocal")) << before["parameters"].dump(1);
  const fs::path program = build("class_field_loop_features", true, source, {"-fopenmp"});
  r = probe(model, bound, 2, {program.string(), std::to_string(n)}, 2);
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  for (const char* field : {"Atoms.nlocal", "atoms.nlocal"})
    EXPECT_EQ(after["parameters"][field].value("default", std::string("unbound")), std::to_string(n))
        << field << "\n" << r.stdout_text;
  EXPECT_EQ(required(after), 0) << r.stdout_text;
  auto predicted = predict(bound, 2);
  ASSERT_EQ(predicted.exit_code, 0) << predicted.stderr_text;
  EXPECT_NEAR(rank0_flops(predicted), 3.0 * 2 * n, 1e-6);
}

// The same loop over a class's field in a unit that does not hold the class's
// key function (keyed_class_main.cpp; the virtual methods in
// keyed_class_atoms.cpp: miniMD's Thermo and Atom), where clang describes the
// class only as a declaration by default: the analysis and the probes compile
// every unit with the classes in full, and the analyser's units share one
// description of each, so the bound is `atoms.nlocal`, never `.capture_expr.`,
// and the probes' records of its reads bind it. The flops are the hand count:
// a multiply a coordinate a step, the team's two threads a half each.
TEST(ProbeRun, BindsAFieldOfAClassDescribedInAnotherUnit) {
  const std::string source = KEYED_CLASS_MAIN_SOURCE, atoms = KEYED_CLASS_ATOMS_SOURCE;
  constexpr int n = 600;
  fs::path dir = probe_dir();
  const fs::path model = dir / "keyed_class.json", bound = dir / "keyed_class.bound.json";
  auto r = perfcast_run({"analyze", source, atoms, "-o", model.string(), "--no-mca", "--", "-fopenmp"},
                        std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  for (const auto& [name, p] : before["parameters"].items())
    EXPECT_EQ(name.find("capture_expr"), std::string::npos) << name << ": " << p.dump();
  ASSERT_TRUE(before["parameters"].contains("atoms.nlocal")) << before["parameters"].dump(1);
  const fs::path program = build("keyed_class_features", true, source, {"-fopenmp", atoms});
  r = probe(model, bound, 2, {program.string(), std::to_string(n)}, 2);
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"]["atoms.nlocal"].value("default", std::string("unbound")), std::to_string(n))
      << r.stdout_text;
  EXPECT_EQ(required(after), 0) << r.stdout_text;
  auto predicted = predict(bound, 2);
  ASSERT_EQ(predicted.exit_code, 0) << predicted.stderr_text;
  EXPECT_NEAR(rank0_flops(predicted), 3.0 * n, 1e-6);
}

// A conditional update the vectoriser masks (masked_update.c): each lane's
// test is a branch around its store, the first lane's carrying the loop's
// line, the others' sides the update's or the loop's. Every lane is the
// update's test (named by the vector compare's line), priced on the side
// that does the work (the probes' side that does nothing is the model's empty
// one, whatever the lines): the flops are the hand count and callgrind's, where
// priced by the lines they were 3.5 times them.
TEST(ProbeRun, PricesEachLaneOfAMaskedUpdateByItsTest) {
  const std::string source = MASKED_UPDATE_SOURCE;
  constexpr int n = 600;
  fs::path dir = probe_dir();
  const fs::path model = dir / "masked_update.json", bound = dir / "masked_update.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const int update = marker_line(source, "update");
  for (const auto& b : read_json(model)["coverage"]["guessed_branches"])
    EXPECT_TRUE(b.value("site", "").ends_with("masked_update.c:" + std::to_string(update))) << b.dump();
  const fs::path program = build("masked_update_features", true, source);
  r = probe(model, bound, 1, {program.string(), std::to_string(n)});
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  EXPECT_EQ(required(read_json(bound)), 0) << r.stdout_text;
  auto predicted = predict(bound, 1);
  ASSERT_EQ(predicted.exit_code, 0) << predicted.stderr_text;
  const double model_flops = rank0_flops(predicted);
  EXPECT_NEAR(model_flops, n / 2.0, 1e-6);
  const double counted = counted_flops({build("masked_update_plain", false, source).string(), std::to_string(n)});
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// A program that reads the text file holding `text` (`PROGRAM FILE`):
// analysed, built with the probes and run on 2 ranks. The loop at the line of
// `marker` is bound to `trips` with nothing left to bind, and the bound
// model's flops are `hand` and callgrind's. Returns that loop's coverage entry.
json probe_text_reader(const std::string& source, const std::string& marker, const std::string& text,
                       const std::string& trips, double hand) {
  const std::string name = fs::path(source).stem().string(), file = fs::path(source).filename().string();
  fs::path dir = probe_dir();
  const fs::path model = dir / (name + ".json"), bound = dir / (name + ".bound.json"), input = dir / (name + ".txt");
  std::ofstream(input) << text;
  auto r = analyse(source, model);
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  json loop;
  for (const auto& l : before["coverage"]["unknown_loops"])
    if (l["site"] == file + ":" + std::to_string(marker_line(source, marker))) loop = l;
  if (!loop.contains("trip_count")) {
    ADD_FAILURE() << "no unknown loop at the line of " << marker << ": " << before["coverage"].dump();
    return loop;
  }
  const std::string parameter = loop["trip_count"];
  r = probe(model, bound, 2, {build(name + "_features", true, source).string(), input.string()});
  EXPECT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"][parameter].value("default", std::string("unbound")), trips) << r.stdout_text;
  EXPECT_EQ(required(after), 0) << r.stdout_text;
  auto predicted = predict(bound, 2);
  EXPECT_EQ(predicted.exit_code, 0) << predicted.stderr_text;
  if (predicted.exit_code != 0) return loop;
  const double model_flops = rank0_flops(predicted);
  EXPECT_DOUBLE_EQ(model_flops, hand);
  const double counted = counted_flops({build(name + "_plain", false, source).string(), input.string()});
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
  return loop;
}

// A `do ... while (!finished)` (skip_lines.cpp, a line skipped, inlined at two
// calls) whose flag the optimiser folds into a switch at the line computing
// it: the analyser names each copy at that line, which holds no probe loop,
// inside the body of the probes' loop, named at its `do` and left at its
// `while`. Its trips are that loop's, a line's characters and its end, 6 on
// the mean; the flops the hand count (one a character) and callgrind's.
TEST(ProbeRun, BindsALoopTheAnalyserNamesInsideTheBodyOfALoopTestedAtTheBottom) {
  probe_text_reader(SKIP_LINES_SOURCE, "finished", "aaaaaaa\nbbb\nccccc\n", "6", 8.0 + 4.0);
}

// A `while (true)` reading an input file's lines (read_keys.cpp, PENNANT's
// InputFile) whose `continue` the optimiser sends through the line's
// destructor to a latch without the loop's metadata: the branches of the
// loop's own blocks still carry it, so the analyser names the loop at its
// `while`, where the probes count it, not at its first code, getline's
// inlined library code. Its trips are the file's 4 lines; the flops the hand
// count (5000 steps of 2) and callgrind's. Named at getline's line in the
// library, no probe could bind it.
TEST(ProbeRun, NamesALoopWhoseLatchLostItsMetadataAtItsOwnLine) {
  probe_text_reader(READ_KEYS_SOURCE, "lines", "# keys\nn 5000\n\nw 3\n", "4", 2.0 * 5000);
}

// A callee's loop merged into its caller's (skip_to_end.cpp: skip_line's
// `do ... while`, inlined into `while (skip_line(f) != EOF)`): one loop in the
// optimised code, named at the caller's line, whose passes are the callee's
// iterations, a character each. The model says so (`merged_site`, a line of
// the callee's loop), and its trips are that loop's iterations over the
// caller's arrivals: 19, not the caller's 3 lines and its end; the caller's
// work in it runs on the passes that end a line, 3 of them, not on every
// pass (the only way out of the loop is through it, yet a pass may go round
// without it). The flops the hand count and callgrind's.
TEST(ProbeRun, BindsALoopMergedWithAnInlinedCalleesLoopByTheCalleesIterations) {
  constexpr double characters = 8 + 4 + 6 + 1, lines = 3;  // each line's, its end's, the file's end
  const json loop = probe_text_reader(SKIP_TO_END_SOURCE, "lines", "aaaaaaa\nbbb\nccccc\n", "19",
                                      characters + 2 * lines);
  EXPECT_TRUE(loop.value("merged_site", "").starts_with("skip_to_end.cpp:")) << loop.dump();
}

// A nest merged into one loop within a function (count_lines.c: `do { do {
// ch = fgetc(f); w += 0.5; } while (ch != '\n' && ch != EOF); w = w * 0.25 +
// 1; } while (ch != EOF)`): the model's loop, named at the outer `do`, names a
// line of the inner one's body, whose probe (the innermost loop tested at the
// bottom around that line) counts its passes: 19 characters. The outer
// loop's work runs on its 4 iterations of those passes. The flops the hand
// count and callgrind's.
TEST(ProbeRun, BindsANestMergedIntoOneLoopByItsInnerLoopsIterations) {
  constexpr double characters = 8 + 4 + 6 + 1, lines = 4;  // the file's end read by a pass of its own
  const json loop = probe_text_reader(COUNT_LINES_SOURCE, "lines", "aaaaaaa\nbbb\nccccc\n", "19",
                                      characters + 2 * lines);
  EXPECT_TRUE(loop.value("merged_site", "").starts_with("count_lines.c:")) << loop.dump();
}

// A loop whose guard reads a bound the run saw assigned at two places with
// values that varied (guard_reach.c, a lattice walk up to its box's top row,
// clamped to the grid, left early on the data): the loop's trips are the
// run's, and its guard (`khi < 0` in the optimised code, at the loop's line)
// is priced as that loop's guard, by whether the run iterated it there, never
// by the source's branches at the line (the loop's own test). Nothing else
// reads the bound: no parameter is left, and the flops are the hand count and
// callgrind's.
TEST(ProbeRun, PricesTheGuardOfALoopWhoseBoundItCouldNotBindByTheLoopsTrips) {
  const std::string source = GUARD_REACH_SOURCE;
  fs::path dir = probe_dir();
  const fs::path model = dir / "guard_reach.json", bound = dir / "guard_reach.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  ASSERT_TRUE(read_json(model)["parameters"].contains("rows.khi"));
  const std::vector<std::string> args = {"40", "50"};
  std::vector<std::string> command = {build("guard_reach_features", true, source).string()};
  command.insert(command.end(), args.begin(), args.end());
  r = probe(model, bound, 1, command);
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  EXPECT_NE(r.stdout_text.find("bound (the guard of the loop at that line)"), std::string::npos) << r.stdout_text;
  EXPECT_EQ(required(read_json(bound)), 0) << r.stdout_text;
  auto predicted = predict(bound, 1);
  ASSERT_EQ(predicted.exit_code, 0) << predicted.stderr_text;
  const double model_flops = rank0_flops(predicted);
  // Three calls at heights 50, 51, 52 over 0.8: top rows 63, 64, 66, so 8, 9
  // and 9 rows of 2 flops; each call's quotient and sum, and main's height.
  EXPECT_NEAR(model_flops, 2.0 * (8 + 9 + 9) + 3 * 3, 1e-6);
  command[0] = build("guard_reach_plain", false, source).string();
  const double counted = counted_flops(command);
  EXPECT_NEAR(model_flops, counted, 0.01 * counted);
}

// A flag a caller hands over in a local array its callee tests on entry
// (flags_array.c: `int flags[4]; flags[0] = periodic[s]; pack(n, x, buf,
// flags);` then `if (flags[0] == 0)`), a value the analyser reads from memory
// at the call: the probe reads element 0 of the caller's array at the call,
// an object there in any language, so the run's values of it varied and the
// callee's test is priced by how often the run took it. Nothing is left to
// bind; the flops are the hand count and callgrind's. Unread, the flag was
// left required.
TEST(ProbeRun, PricesACalleesTestOfAFlagItsCallerPassedInALocalArray) {
  constexpr int n = 1000, nswap = 6, mask = 9;  // swaps 0 and 3 periodic
  const std::string source = FLAGS_ARRAY_SOURCE;
  fs::path dir = probe_dir();
  const fs::path model = dir / "flags_array.json", bound = dir / "flags_array.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const std::string flag = "main.pack1.flags";
  ASSERT_TRUE(read_json(model)["parameters"].contains(flag)) << read_json(model)["parameters"].dump(1);
  std::vector<std::string> command = {build("flags_array_features", true, source).string(), std::to_string(n),
                                      std::to_string(nswap), std::to_string(mask)};
  r = probe(model, bound, 2, command);
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  EXPECT_NE(r.stdout_text.find("flags_array.c:" + std::to_string(marker_line(source, "pack")) + ":call.arg4"),
            std::string::npos)
      << r.stdout_text;
  EXPECT_EQ(required(read_json(bound)), 0) << r.stdout_text;
  expect_flops_of(bound, 2, 2.0 * 2 * n, command, source, "flags_array_plain");
}

// A test the optimiser copied when it peeled a loop's first iteration
// (peeled_test.c, PENNANT's initInvMap: `if (p == pp)` on the points of a
// pair and the next, the loop peeled for `i == 0`): the copy outside the
// loop compares the values the loop reads at its first iteration, which no
// probe measures. Each of the line's tests starts its `then` side at one
// line, copies of one source test: the copy is priced by the line's measure
// over all iterations, as the loop's own, in the one file of the function's
// (its code comes from two, a sort inlined from a header) with a branch probe there. Nothing is left to bind; the flops
// are the hand count and callgrind's. Two values were left required.
TEST(ProbeRun, PricesACopyOfATestInAPeeledIterationByItsLinesMeasure) {
  constexpr int n = 999, passes = 3;  // points of 3 corners: 2 links in 3 pairs
  const std::string source = PEELED_TEST_SOURCE;
  fs::path dir = probe_dir();
  const fs::path model = dir / "peeled_test.json", bound = dir / "peeled_test.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  ASSERT_TRUE(read_json(model)["parameters"].contains("link_corners.pp")) << read_json(model)["parameters"].dump(1);
  std::vector<std::string> command = {build("peeled_test_features", true, source).string(), std::to_string(n),
                                      std::to_string(passes)};
  r = probe(model, bound, 2, command);
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  EXPECT_EQ(required(read_json(bound)), 0) << r.stdout_text;
  const double links = 2.0 * (n / 3);  // 2 flops each, and main's sum of the n weights
  expect_flops_of(bound, 2, passes * 2.0 * links + n, command, source, "peeled_test_plain");
}

// A local assigned twice outside loops with values that varied (one_assignment.c:
// `size = v->size; size *= v->num_vectors;`), the model reading the second
// assignment's value: the analyser says which (the value assigned at that
// line), the probes measure each assignment's line apart (`size@LINE`), and the
// probe binds that line's value, never the pooled mean of both (1.5 times
// the vector's length here, which the probe refused). The flops are the
// hand count and callgrind's.
TEST(ProbeRun, BindsTheOneAssignmentOfSeveralThatTheModelReads) {
  constexpr int n = 1000;
  const std::string source = ONE_ASSIGNMENT_SOURCE;
  fs::path dir = probe_dir();
  const fs::path model = dir / "one_assignment.json", bound = dir / "one_assignment.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  ASSERT_TRUE(before["parameters"].contains("set_constant.size")) << before["parameters"].dump(1);
  const std::string scaled = std::to_string(marker_line(source, "scaled"));
  EXPECT_TRUE(before["parameters"]["set_constant.size"]["description"].get<std::string>().ends_with(
      "; the value assigned at line " + scaled))
      << before["parameters"]["set_constant.size"].dump();
  std::vector<std::string> command = {build("one_assignment_features", true, source).string(), std::to_string(n)};
  r = probe(model, bound, 2, command);
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"]["set_constant.size"].value("default", ""), std::to_string(2 * n)) << r.stdout_text;
  EXPECT_EQ(required(after), 0) << r.stdout_text;
  expect_flops_of(bound, 2, 5.0 * 2 * n * 2, command, source, "one_assignment_plain");
}

// A local assigned twice outside loops, each value sizing a loop of its own
// (two_reads.c: `end = a->starts[1]; for (...); end = b->starts[1]; for
// (...)`): one name for both values is bound to neither (the pooled stores
// varied, and the probe refused it). The model reads each by a name of its
// own, `end.1` and `end.2`, its assignment's line in the description, and the
// probes of each line bind each. The flops are the hand count and callgrind's.
TEST(ProbeRun, NamesEachAssignmentTheModelReadsApartAndBindsEach) {
  constexpr int n = 1000;
  const std::string source = TWO_READS_SOURCE;
  fs::path dir = probe_dir();
  const fs::path model = dir / "two_reads.json", bound = dir / "two_reads.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  ASSERT_TRUE(before["parameters"].contains("pack.end.2")) << before["parameters"].dump(1);
  EXPECT_FALSE(before["parameters"].contains("pack.end")) << before["parameters"].dump(1);
  for (const auto& [name, marker] : {std::pair{"pack.end.1", "first"}, std::pair{"pack.end.2", "second"}})
    EXPECT_TRUE(before["parameters"][name]["description"].get<std::string>().ends_with(
        "; the value assigned at line " + std::to_string(marker_line(source, marker))))
        << before["parameters"][name].dump();
  std::vector<std::string> command = {build("two_reads_features", true, source).string(), std::to_string(n)};
  r = probe(model, bound, 2, command);
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"]["pack.end.1"].value("default", ""), std::to_string(n)) << r.stdout_text;
  EXPECT_EQ(after["parameters"]["pack.end.2"].value("default", ""), std::to_string(3 * n)) << r.stdout_text;
  EXPECT_EQ(required(after), 0) << r.stdout_text;
  expect_flops_of(bound, 2, 5.0 * (n + 2 * 3 * n), command, source, "two_reads_plain");
}

// A size clipped to another's and then scaled (clipped_size.c: `if (size >
// size_y) size = size_y; size *= x->num_vectors;`), its loop vectorised: the
// model reads only the last assignment's value (the remainder's test, which
// the optimiser writes as the min times the count, reads it as that value
// taken away), so the variable keeps its own name, the line in its
// description, and the probe binds it. The flops are the hand count and
// callgrind's.
TEST(ProbeRun, KeepsTheNameOfAVariableReadAtOneOfItsAssignmentsOnly) {
  constexpr int n = 1000;
  const std::string source = CLIPPED_SIZE_SOURCE;
  fs::path dir = probe_dir();
  const fs::path model = dir / "clipped_size.json", bound = dir / "clipped_size.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  ASSERT_TRUE(before["parameters"].contains("scale.size")) << before["parameters"].dump(1);
  EXPECT_EQ(required(before), 1) << before["parameters"].dump(1);
  EXPECT_TRUE(before["parameters"]["scale.size"]["description"].get<std::string>().ends_with(
      "; the value assigned at line " + std::to_string(marker_line(source, "scaled"))))
      << before["parameters"]["scale.size"].dump();
  std::vector<std::string> command = {build("clipped_size_features", true, source).string(), std::to_string(n)};
  r = probe(model, bound, 2, command);
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  EXPECT_EQ(required(read_json(bound)), 0) << r.stdout_text;
  expect_flops_of(bound, 2, 5.0 * n, command, source, "clipped_size_plain");
}

namespace {

// A program of written_count.c's shape (`sources`, the first its main unit;
// run `program N`): the count `gather.full` is bound to 0 at one rank and
// 2 N at two, nothing is left required, and the flops are the hand count (5 N
// and 15 N) and, at 2 ranks, callgrind's.
void expect_written_count_bound(const std::string& stem, const std::vector<std::string>& sources) {
  constexpr int n = 1000;
  fs::path dir = probe_dir();
  const fs::path model = dir / (stem + ".json");
  auto r = analyse_files(sources, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const std::vector<std::string> others(sources.begin() + 1, sources.end());
  std::vector<std::string> command = {build(stem + "_features", true, sources.front(), others).string(),
                                      std::to_string(n)};
  for (int ranks : {1, 2}) {
    const fs::path bound = dir / (stem + ".bound" + std::to_string(ranks) + ".json");
    r = probe(model, bound, ranks, command);
    ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
    const json after = read_json(bound);
    EXPECT_EQ(required(after), 0) << r.stdout_text;
    EXPECT_EQ(after["parameters"]["gather.full"].value("default", ""), ranks == 1 ? "0" : std::to_string(2 * n))
        << r.stdout_text;
    if (ranks == 2) {
      std::vector<std::string> plain_flags = {"-gdwarf-4"};
      plain_flags.insert(plain_flags.end(), others.begin(), others.end());
      expect_flops_of(bound, ranks, 15.0 * n, command, sources.front(), stem + "_plain", plain_flags);
    } else {
      auto predicted = predict(bound, ranks);
      ASSERT_EQ(predicted.exit_code, 0) << predicted.stderr_text;
      EXPECT_NEAR(rank0_flops(predicted), 5.0 * n, 10);
    }
  }
}

}  // namespace

// A count set to 0 and written by a call on more than one process only
// (written_count.c: `full = 0; if (nprocs > 1) exchange(n, &full);`, hypre's
// `full_off_procNodes`), then handed to a kernel other calls give other sizes:
// one store and one call assign it, and the probes read it after the two merge
// (`full.read`), which the model reads. The old probes read no merge of a
// store and a call: the pooled values varied, and at 2 ranks the count was
// bound to 0, a third of the flops without a word.
TEST(ProbeRun, BindsACountACallWroteOnSomePathsByItsReadsAfterTheMerge) {
  expect_written_count_bound("written_count", {WRITTEN_COUNT_SOURCE});
}

// The same count kept in memory (written_memory.c: the writer in another
// unit, and a call of that unit between the writes and the read, so the
// optimised code reads it from memory after both). The read is where every
// write of it merges, and so is the phi of a later read and the 0 the
// optimised code knows it holds where a test of it failed; both are bound
// by the probes' reads after the merge. The old build bound
// it to 0 at 2 ranks as "does not change the prediction" (the kernel's own
// `n` was taken for main's, bound to N): 5 000 flops a rank for 15 000,
// without a word.
TEST(ProbeRun, BindsACountACallOfAnotherUnitWroteWhereItsWritesMergeInMemory) {
  const fs::path model = probe_dir() / "written_memory.described.json";
  auto r = analyse_files({WRITTEN_MEMORY_SOURCE, WRITTEN_MEMORY_EXCHANGE_SOURCE}, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_NE(read_json(model)["parameters"]["gather.full"].value("description", "").find("read where its assignments merge"),
            std::string::npos);
  expect_written_count_bound("written_memory", {WRITTEN_MEMORY_SOURCE, WRITTEN_MEMORY_EXCHANGE_SOURCE});
}

// A check of an argument that varied (checked_sizes.c: `if (global < 0)`
// before any work, the sizes read from a table the program fills, another
// each call): no one value decides the check for every call, and the
// analyser's parameter of the caller's value was left required ("the callee
// tests it"); the check is priced by the run's counts of it (never failed:
// 0), and the value, now only a size to nothing the model prices, is bound.
// The flops are the hand count and callgrind's.
TEST(ProbeRun, PricesACheckOfAnArgumentThatVariedByTheRunsCounts) {
  constexpr int n = 1000, levels = 4;
  const std::string source = CHECKED_SIZES_SOURCE;
  fs::path dir = probe_dir();
  const fs::path model = dir / "checked_sizes.json", bound = dir / "checked_sizes.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  ASSERT_TRUE(read_json(model)["parameters"].contains("main.create1.global")) << read_json(model)["parameters"].dump();
  std::vector<std::string> command = {build("checked_sizes_features", true, source).string(), std::to_string(n),
                                      std::to_string(levels)};
  r = probe(model, bound, 2, command);
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(required(after), 0) << r.stdout_text;
  bool priced = false;
  for (const auto& b : after["coverage"]["guessed_branches"])
    if (b["site"] == "checked_sizes.c:" + std::to_string(marker_line(source, "check")))
      priced = b.value("why", "").starts_with("compares with a bound a value that varied") &&
               b.contains("probe_probability") && b["probe_probability"] == 0.0;
  EXPECT_TRUE(priced) << after["coverage"]["guessed_branches"].dump();
  expect_flops_of(bound, 2, 2.0 * n * levels, command, source, "checked_sizes_plain");
}

// A count a call through a pointer passes that the analyser cannot express
// (pointer_sizes.c: the elements MPI_Get_count read, handed to the handler
// the message's tag picks): a parameter per target, `accumulate.count` and
// `squares.count`, which the probes of no call site read. The probes of the
// targets' entries do: each binds to the mean of its own calls' counts (the
// handlers get 1 N and 3 N, and 2 N and 1 N), not the site's; `squares`'s
// test of its count against the largest so far, taken on one call in two,
// is priced by the run's counts of it. The flops are the hand count and
// callgrind's. The old build left both required.
TEST(ProbeRun, BindsTheCountsACallThroughAPointerPassesByItsTargetsEntries) {
  constexpr int n = 3000;
  const std::string source = POINTER_SIZES_SOURCE;
  fs::path dir = probe_dir();
  const fs::path model = dir / "pointer_sizes.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  std::vector<std::string> command = {build("pointer_sizes_features", true, source).string(), std::to_string(n), "4"};
  for (int ranks : {1, 2}) {
    const fs::path bound = dir / ("pointer_sizes.bound" + std::to_string(ranks) + ".json");
    r = probe(model, bound, ranks, command);
    ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
    const json after = read_json(bound);
    EXPECT_EQ(required(after), 0) << r.stdout_text;
    for (const auto& [name, value] : {std::pair{"accumulate.count", 2 * n}, std::pair{"squares.count", 3 * n / 2}}) {
      ASSERT_TRUE(after["parameters"].contains(name)) << after["parameters"].dump();
      EXPECT_EQ(after["parameters"][name].value("default", ""), std::to_string(value)) << r.stdout_text;
    }
    bool widest_priced = false;
    for (const auto& b : after["coverage"]["guessed_branches"])
      if (b["site"] == "pointer_sizes.c:" + std::to_string(marker_line(source, "widest")))
        widest_priced = b.contains("probe_probability") && b["probe_probability"] == 0.5;
    EXPECT_TRUE(widest_priced) << after["coverage"]["guessed_branches"].dump();
    // 2 flops an element of 1 N + 2 N + 3 N + 1 N, and 2 more.
    if (ranks == 2) expect_flops_of(bound, ranks, 14.0 * n, command, source, "pointer_sizes_plain");
  }
}

// A call the run never made, on a side of a branch the line's probes cannot
// bind (unreached_call.c: `else if ((mult > -1 && mult < levels) || (add > -1
// && add < levels)) extra_levels(&s);`, three tests in the probes' code, one
// in the model's whose exits do not fit): the probes count each call of a
// program's function, so that side starts with code the run never reached,
// priced 0, and what the callee reads itself is on no path the run took.
// Nothing is left to bind, and the flops are the hand count and callgrind's;
// the branch at its guess left the callee's size required.
TEST(ProbeRun, PricesASideThatStartsWithACallTheRunNeverMadeAtZero) {
  constexpr int n = 1000;
  const std::string source = UNREACHED_CALL_SOURCE;
  fs::path dir = probe_dir();
  const fs::path model = dir / "unreached_call.json", bound = dir / "unreached_call.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  ASSERT_TRUE(read_json(model)["parameters"].contains("extra_levels.count")) << read_json(model)["parameters"].dump(1);
  const std::vector<std::string> args = {std::to_string(n), "-1"};
  std::vector<std::string> command = {build("unreached_call_features", true, source).string()};
  command.insert(command.end(), args.begin(), args.end());
  r = probe(model, bound, 2, command);
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(required(after), 0) << r.stdout_text;
  const std::string extra = "unreached_call.c:" + std::to_string(marker_line(source, "extra"));
  bool priced = false;
  for (const auto& b : after["coverage"]["guessed_branches"])
    priced |= b["site"] == extra && b.contains("probe_probability") && b["probe_probability"].get<double>() == 0.0;
  EXPECT_TRUE(priced) << r.stdout_text;
  EXPECT_NE(r.stdout_text.find("never reached"), std::string::npos) << r.stdout_text;
  expect_flops_of(bound, 2, n, command, source, "unreached_call_plain");
}

// An OpenMP program (omp_parallel_for.c): its parallel region runs once per
// thread of the team, `omp.threads` times, which the source cannot say but
// the run's OpenMP runtime does (OMP_NUM_THREADS, else the cores a rank may
// use): the probe run's record carries it, and the model binds it, never a
// loop's trips at the region's line.
TEST(ProbeRun, BindsTheThreadsOfAnOpenMPTeamToTheRunsRuntimes) {
  const std::string source = OMP_PARALLEL_FOR_SOURCE;
  constexpr int threads = 3;
  fs::path dir = probe_dir();
  const fs::path model = dir / "omp_parallel_for.json", bound = dir / "omp_parallel_for.bound.json";
  auto r = analyse(source, model, {"-fopenmp"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  ASSERT_TRUE(read_json(model)["parameters"].contains("omp.threads"));
  const fs::path program = build("omp_parallel_for_features", true, source, {"-fopenmp"});
  r = probe(model, bound, 2, {program.string(), "1000"}, threads);
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(after["parameters"]["omp.threads"].value("default", std::string("unbound")), std::to_string(threads))
      << r.stdout_text;
  EXPECT_EQ(required(after), 0) << r.stdout_text;
}

// An option parsed in a loop over the command line (options_loop.c: `int n =
// 10;`, then `-n 500` inside the loop): the source's first value is the
// parameter's default, and the probes do not watch the loop's assignment; the
// call `work(n)` passed the run's value, which rebinds it. Run without the
// option, the default stands. Flops the hand count (two a trip) both ways.
TEST(ProbeRun, RebindsAnOptionsSourceDefaultThatTheRunsCallsContradict) {
  const std::string source = OPTIONS_LOOP_SOURCE;
  fs::path dir = probe_dir();
  const fs::path model = dir / "options_loop.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json before = read_json(model);
  ASSERT_EQ(before["parameters"]["n"].value("default", ""), "10") << before["parameters"].dump(1);
  const fs::path program = build("options_loop_features", true, source);
  for (const auto& [args, n] : {std::pair{std::vector<std::string>{"-n", "500"}, 500L},
                                std::pair{std::vector<std::string>{}, 10L}}) {
    SCOPED_TRACE(n);
    const fs::path bound = dir / ("options_loop.bound" + std::to_string(n) + ".json");
    std::vector<std::string> command = {program.string()};
    command.insert(command.end(), args.begin(), args.end());
    std::vector<std::string> probe = {"probe", model.string(), "-o", bound.string(), "--"};
    for (auto& w : mpirun(1, command)) probe.push_back(w);
    r = perfcast_run(probe, std::chrono::seconds(180));
    ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
    EXPECT_EQ(read_json(bound)["parameters"]["n"].value("default", ""), std::to_string(n)) << r.stdout_text;
    r = perfcast_run({"predict", bound.string(), "--machine", "polus", "--np", "1", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
    EXPECT_DOUBLE_EQ(json::parse(r.stdout_text)["ranks"][0]["flops_double"].get<double>(), 2.0 * n) << r.stdout_text;
  }
}

// Values that differ between ranks and hold still on each (rank_values.c: a
// rank's neighbours and its rows of an uneven split, read from a table the
// analyser does not follow; a halo exchange one end rank never makes; a walk
// of the rank's rows to a sentinel; the rows damped in chunks of two, a
// rank's last chunk short, and each chunk halved by a kernel called for the
// halo too): the probe run on 4 ranks records each rank's, binds each rank
// its own value, its own fraction of the neighbour tests, its own trips of
// the walk, its own count of chunks and mean chunk bounds (rounded for the
// kernel of two callers), so that the prediction at
// 4 ranks gives each rank callgrind's flops and the ends half the middle's
// messages; at 2 ranks, where those values are no measure, predict refuses.
TEST(ProbeRun, BindsEachRanksOwnValueWhereTheRanksDiffer) {
  const std::string source = RANK_VALUES_SOURCE;
  constexpr int ranks = 4;
  const std::vector<std::string> args = {"10", "100"};  // 10 rows over 4 ranks: 3, 3, 2, 2
  fs::path dir = probe_dir();
  const fs::path model = dir / "rank_values.json", bound = dir / "rank_values.bound.json";
  auto r = analyse(source, model);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  std::vector<std::string> command = {build("rank_values_features", true, source).string()};
  command.insert(command.end(), args.begin(), args.end());
  r = probe(model, bound, ranks, command);
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const json after = read_json(bound);
  EXPECT_EQ(required(after), 0) << r.stdout_text;
  int per_rank = 0;
  for (const auto& [name, p] : after["parameters"].items())
    if (p.value("origin", "").find("each rank its own value") != std::string::npos) {
      ++per_rank;
      EXPECT_NE(p.value("default", "").find("rank"), std::string::npos) << name << ": " << p.dump();
    }
  EXPECT_EQ(per_rank, 4) << r.stdout_text;  // left, right, begin, end
  // The walk of the rank's rows: each rank its own trips at 4 ranks, the mean elsewhere.
  int walks = 0;
  for (const auto& l : after["coverage"]["unknown_loops"]) {
    const json& p = after["parameters"][l["trip_count"].get<std::string>()];
    if (p.value("default", "").starts_with("select(size == 4")) ++walks;
  }
  EXPECT_EQ(walks, 1) << after["coverage"]["unknown_loops"].dump() << r.stdout_text;

  auto predicted = predict(bound, ranks);
  ASSERT_EQ(predicted.exit_code, 0) << predicted.stderr_text;
  const json job = json::parse(predicted.stdout_text);
  const fs::path plain = build("rank_values_plain", false, source);
  std::vector<std::string> counts_args = {"counts", "-q", "-n", std::to_string(ranks), "--json", "--", plain.string()};
  counts_args.insert(counts_args.end(), args.begin(), args.end());
  auto counted = perfcast_run(counts_args, std::chrono::seconds(300));
  ASSERT_EQ(counted.exit_code, 0) << counted.stderr_text;
  const json counts = json::parse(counted.stdout_text);
  ASSERT_EQ(job["ranks"].size(), static_cast<std::size_t>(ranks));
  for (int k = 0; k < ranks; ++k) {
    double flops = 0;
    for (const auto& f : counts["per_rank"][k]["functions"])
      if (!f.value("inlined_only", false)) flops += f["flops_double"].get<double>();
    EXPECT_NEAR(job["ranks"][k]["flops_double"].get<double>(), flops, 0.01 * flops) << "rank " << k;
  }
  // One neighbour at each end, two in the middle.
  const double middle = job["ranks"][1]["sent_bytes"].get<double>();
  EXPECT_GT(middle, 0);
  EXPECT_DOUBLE_EQ(job["ranks"][0]["sent_bytes"].get<double>(), middle / 2);
  EXPECT_DOUBLE_EQ(job["ranks"][2]["sent_bytes"].get<double>(), middle);
  EXPECT_DOUBLE_EQ(job["ranks"][3]["sent_bytes"].get<double>(), middle / 2);

  auto elsewhere = predict(bound, 2);
  EXPECT_NE(elsewhere.exit_code, 0) << elsewhere.stdout_text;
  EXPECT_NE(elsewhere.stderr_text.find("each rank's own value"), std::string::npos) << elsewhere.stderr_text;
  EXPECT_NE(elsewhere.stderr_text.find("mine.left"), std::string::npos) << elsewhere.stderr_text;
}

}  // namespace perfcast
