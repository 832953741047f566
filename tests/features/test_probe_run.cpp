// `perfcast probe` end to end: probe_run.c analysed (its sweep loop's trips,
// its branch's side and its size are data), built with the feature probes,
// run on 2 ranks at a small input; the bound model must carry the program's
// known trips and taken fraction, fewer required parameters, the probe's
// origin, and predict the flops callgrind counts on the same input.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/mpirun_command.h"
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

// The line carrying `marker: NAME` in `source`.
int marker_line(const std::string& source, const std::string& name) {
  std::ifstream in(source);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number)
    if (line.find("marker: " + name + " ") != std::string::npos) return number;
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
fs::path build(const std::string& name, bool features, const std::string& source = PROBE_RUN_SOURCE) {
  fs::path dir = scratch() / "probe_run";
  fs::create_directories(dir);
  fs::path program = dir / name;
  EnvironmentOverrides env;
  env["OMPI_CC"] = features ? kBin + "/perfcast cc --features" : std::string(CLANG);
  ProcessResult r =
      run_process({MPICC, "-O2", "-g", source, "-o", program.string()}, std::chrono::seconds(120), env);
  EXPECT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  return program;
}

TEST(ProbeRun, BindsTheTripsAndBranchTheSourceCannotSay) {
  fs::path dir = scratch() / "probe_run";
  fs::create_directories(dir);
  const fs::path model = dir / "model.json", bound = dir / "bound.json";
  auto r = perfcast_run({"analyze", PROBE_RUN_SOURCE, "-o", model.string(), "--no-mca"}, std::chrono::seconds(180));
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
  fs::path dir = scratch() / "probe_run";
  fs::create_directories(dir);
  const fs::path model = dir / "sides.json", bound = dir / "sides.bound.json";
  auto r = perfcast_run({"analyze", source, "-o", model.string(), "--no-mca"}, std::chrono::seconds(180));
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

// A V-cycle recursing on the coarser level (tests/analyze/cases/recursive_vcycle.c):
// the run counts vcycle's entries and its calls of itself, so its invocations
// per call from main (5 at N = 1024: levels 1024 ... 64); its loops' trips and
// the branch to the coarser level are means over those invocations. The
// model's flops against callgrind's on the same input.
TEST(ProbeRun, BindsARecursionsInvocationsPerEntryFromOutside) {
  fs::path dir = scratch() / "probe_run";
  fs::create_directories(dir);
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
  fs::path dir = scratch() / "probe_run";
  fs::create_directories(dir);
  const fs::path model = dir / "indirect.json", bound = dir / "indirect.bound.json";
  auto r = perfcast_run({"analyze", source, "-o", model.string(), "--no-mca"}, std::chrono::seconds(180));
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
  // The sweeps' count, read after a call that may write it, is a loop's trips.
  std::string sweeps;
  for (const auto& l : before["coverage"]["unknown_loops"])
    if (l["site"] == at("sweeps")) sweeps = l["trip_count"];
  ASSERT_FALSE(sweeps.empty()) << before["coverage"].dump();
  const std::vector<std::string> sizes = {"n=" + std::to_string(kElements), sweeps + "=" + std::to_string(kSolverSweeps),
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

// No record to read: the error names the file and the option.
TEST(ProbeRun, AMissingRecordFileIsNamed) {
  fs::path dir = scratch() / "probe_missing";
  fs::create_directories(dir);
  const fs::path model = dir / "model.json", records = dir / "none.jsonl";
  auto r = perfcast_run({"analyze", PROBE_RUN_SOURCE, "-o", model.string(), "--no-mca"}, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  r = perfcast_run({"probe", model.string(), "-o", (dir / "bound.json").string(), "--record", records.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.stderr_text.find(records.string()), std::string::npos) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("--record"), std::string::npos) << r.stderr_text;
}

}  // namespace
}  // namespace perfcast
