// perfcast analyze on Fortran MPI programs compiled by flang: each case is a
// small program of one shape; its model is priced by `perfcast predict` at
// two sizes or more and compared with hand counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "perfcast_cli.h"
#include "scratch.h"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const std::string kCases = std::string(PERFCAST_SOURCE_DIR) + "/tests/fortran/cases/";

perfcast::measure::ProcessResult perfcast_run(std::vector<std::string> args) {
  return perfcast::testing::perfcast_run(std::move(args), std::chrono::seconds(180));
}

// The program model of `sources` (in cases/), written by `perfcast analyze`.
json analyse(const std::vector<std::string>& sources, const std::string& name) {
  fs::path model = perfcast::testing::scratch() / (name + ".model.json");
  std::vector<std::string> args = {"analyze"};
  for (const auto& s : sources) args.push_back(kCases + s);
  args.insert(args.end(), {"-o", model.string(), "--no-mca"});
  auto r = perfcast_run(args);
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  std::ifstream in(model);
  return in ? json::parse(in) : json();
}

fs::path model_path(const std::string& name) { return perfcast::testing::scratch() / (name + ".model.json"); }

// `perfcast predict --json` of a model on `np` ranks with `params` bound.
json predict(const std::string& name, int np, const std::map<std::string, long>& params) {
  std::vector<std::string> args = {"predict", model_path(name).string(), "--machine", "polus", "--np",
                                   std::to_string(np), "--json"};
  for (const auto& [k, v] : params) args.insert(args.end(), {"--param", k + "=" + std::to_string(v)});
  auto r = perfcast_run(args);
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  return r.exit_code == 0 ? json::parse(r.stdout_text) : json();
}

// Every item of kind "mpi" in the model's functions, in order.
std::vector<json> mpi_items(const json& model) {
  std::vector<json> out;
  std::function<void(const json&)> walk = [&](const json& items) {
    for (const auto& i : items) {
      if (i.value("kind", "") == "mpi") out.push_back(i);
      for (const char* key : {"body", "then", "else"})
        if (i.contains(key)) walk(i[key]);
    }
  };
  for (const auto& [name, f] : model["functions"].items()) walk(f["body"]);
  return out;
}

std::vector<std::string> parameter_names(const json& model) {
  std::vector<std::string> names;
  for (const auto& [name, p] : model["parameters"].items()) names.push_back(name);
  return names;
}

// A count as the model writes it: a number, or an expression's text.
std::string text(const json& count) { return count.is_string() ? count.get<std::string>() : count.dump(); }

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// include 'mpif.h': n iterations of a multiply and an add, then an
// MPI_Allreduce of one double (MPI_DOUBLE_PRECISION, 8 bytes). By hand: 2n
// flops in the loop, 2 outside it (x = 0.5 + 1 / (rank + 2)).
TEST(Fortran, IncludeMpifLoopAndAllreduceOfOneDouble) {
  json model = analyse({"loop_allreduce.f90"}, "loop_allreduce");
  ASSERT_TRUE(model.contains("functions"));
  EXPECT_TRUE(has(parameter_names(model), "n")) << model["parameters"].dump();
  auto mpi = mpi_items(model);
  int allreduces = 0;
  for (const auto& i : mpi)
    if (i["op"] == "allreduce") {
      ++allreduces;
      EXPECT_EQ(text(i["bytes"]), "8") << i.dump();
    }
  EXPECT_EQ(allreduces, 1);
  for (long n : {10L, 1000L}) {
    json p = predict("loop_allreduce", 2, {{"n", n}});
    ASSERT_TRUE(p.contains("ranks"));
    for (const auto& rank : p["ranks"]) {
      EXPECT_EQ(rank["flops_double"].get<double>(), 2.0 * n + 2) << "n = " << n;
      EXPECT_EQ(rank["sent_bytes"].get<double>(), 8.0) << "n = " << n;
    }
  }
}

// use mpi: per sweep a column of m doubles to each neighbour (MPI_Sendrecv,
// MPI_PROC_NULL past the ends) and a 5-point average over the m x ncols
// interior of allocatable arrays passed assumed-shape (4 flops per point).
TEST(Fortran, UseMpiHaloExchangeAndStencilOverAllocatableArrays) {
  json model = analyse({"halo_stencil.f90"}, "halo_stencil");
  ASSERT_TRUE(model.contains("functions"));
  auto names = parameter_names(model);
  for (const char* p : {"m", "ncols", "nsweeps"}) EXPECT_TRUE(has(names, p)) << p << ": " << model["parameters"].dump();
  int sendrecvs = 0;
  for (const auto& i : mpi_items(model))
    if (i["op"] == "sendrecv") {
      ++sendrecvs;
      EXPECT_EQ(text(i["bytes"]), "8 * m") << i.dump();
    }
  EXPECT_EQ(sendrecvs, 2);
  for (auto [m, ncols, sweeps] : {std::tuple{16L, 8L, 3L}, {100L, 40L, 7L}}) {
    json p = predict("halo_stencil", 3, {{"m", m}, {"ncols", ncols}, {"nsweeps", sweeps}});
    ASSERT_TRUE(p.contains("ranks"));
    for (const auto& rank : p["ranks"]) {
      int r = rank["rank"];
      EXPECT_EQ(rank["flops_double"].get<double>(), 4.0 * m * ncols * sweeps) << "rank " << r << ", m = " << m;
      // The end ranks have one real neighbour, the middle one two.
      double peers = r == 1 ? 2 : 1;
      EXPECT_EQ(rank["sent_bytes"].get<double>(), peers * 8.0 * m * sweeps) << "rank " << r << ", m = " << m;
    }
  }
}

// Mixed C and Fortran: the Fortran main program calls a C kernel of 2 flops
// per element through bind(c), and one of 1 flop per element that takes its
// count by reference (`const int *n`, as C kernels called from Fortran do);
// both units link into one model.
TEST(Fortran, MixedCAndFortranLinkIntoOneModel) {
  json model = analyse({"mixed_main.f90", "mixed_kernel.c"}, "mixed");
  ASSERT_TRUE(model.contains("functions"));
  EXPECT_TRUE(model["functions"].contains("axpy")) << model["functions"].dump();
  EXPECT_EQ(model["functions"]["scale_c_"]["parameters"], json::array({"n"})) << model["functions"].dump();
  for (long n : {10L, 5000L}) {
    json p = predict("mixed", 1, {{"n", n}});
    ASSERT_TRUE(p.contains("ranks"));
    EXPECT_EQ(p["ranks"][0]["flops_double"].get<double>(), 3.0 * n) << "n = " << n;
  }
}

// Parameter names are the source's: module variables as <module>.<variable>
// (grid%ncells, a derived type's first component, as settings.grid: flang-19
// describes no derived type in its debug info), the main
// program's data loop as main.loop<k>.trips; never a mangled symbol (_QM...,
// _QQmain) or a line. Comment and blank lines added above and between the
// units rename nothing, and the names bind: per step relax does 3 flops per
// interior point (the scan's trips bound to 0: its guard, a data test, is
// priced at a guessed probability).
TEST(Fortran, ParameterNamesAreTheSourcesAndStayWhenLinesMove) {
  json model = analyse({"module_names.f90"}, "module_names");
  ASSERT_TRUE(model.contains("parameters"));
  auto names = parameter_names(model);
  for (const char* p : {"settings.nsteps", "settings.grid"}) EXPECT_TRUE(has(names, p)) << p << ": " << model["parameters"].dump();
  std::string trips;
  for (const auto& n : names) {
    EXPECT_EQ(n.find("_Q"), std::string::npos) << n << ": a mangled symbol in a name";
    EXPECT_EQ(n.find("f90"), std::string::npos) << n << ": a file in a name";
    if (n.rfind("main.loop", 0) == 0 && n.size() > 6 && n.substr(n.size() - 6) == ".trips") trips = n;
    else EXPECT_EQ(n.find_first_of("0123456789"), std::string::npos) << n << ": a number in a name (a line?)";
  }
  ASSERT_FALSE(trips.empty()) << "no main.loop<k>.trips among " << model["parameters"].dump();

  std::ifstream in(kCases + "module_names.f90");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string program = "program module_names";
  ASSERT_NE(text.find(program), std::string::npos);
  text.insert(text.find(program), "\n! the program\n\n\n");
  text.insert(0, "! a new first comment\n! of two lines\n\n");
  fs::path dir = perfcast::testing::scratch() / "edited";
  fs::create_directories(dir);
  std::ofstream(dir / "module_names.f90") << text;
  auto r = perfcast_run({"analyze", (dir / "module_names.f90").string(), "-o", (dir / "m.json").string(), "--no-mca"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  std::ifstream edited(dir / "m.json");
  EXPECT_EQ(parameter_names(json::parse(edited)), names);

  for (auto [steps, cells] : {std::tuple{4L, 50L}, {9L, 300L}}) {
    json p = predict("module_names", 1, {{"settings.nsteps", steps}, {"settings.grid", cells}, {trips, 0}});
    ASSERT_TRUE(p.contains("ranks"));
    EXPECT_EQ(p["ranks"][0]["flops_double"].get<double>(), steps * 3.0 * (cells - 2))
        << "nsteps = " << steps << ", ncells = " << cells;
  }
}

// A module variable a callee writes inside the loop around its read (a step
// counter) is no parameter: the summary's test mod(step, freq) == 0 is a
// guessed branch the coverage lists, not a condition on one bound value that
// would run the summary every step or never.
TEST(Fortran, AModuleCounterACalleeIncrementsIsNoParameter) {
  json model = analyse({"step_counter_control.f90", "step_counter.f90"}, "step_counter");
  ASSERT_TRUE(model.contains("parameters"));
  EXPECT_FALSE(has(parameter_names(model), "control.step")) << model["parameters"].dump();
  bool listed = false;
  for (const auto& b : model["coverage"]["guessed_branches"])
    listed = listed || b.value("site", "") == "step_counter.f90:18";
  EXPECT_TRUE(listed) << model["coverage"].dump();
}

// Flops of one rank of `program` (built in the build tree by flang-new-19
// -O2) by `perfcast counts` (callgrind): the functions named, each counted
// once (a function inlined into another is in that one's count).
double counted_flops(const std::string& program, const std::vector<std::string>& args,
                     const std::vector<std::string>& functions) {
  std::vector<std::string> cmd = {"counts", "-q", "-n", "1", "--json"};
  for (const auto& f : functions) cmd.insert(cmd.end(), {"--function", f});
  cmd.push_back("--");
  cmd.push_back(std::string(PERFCAST_BINARY_DIR) + "/tests/fortran/" + program);
  cmd.insert(cmd.end(), args.begin(), args.end());
  auto r = perfcast::testing::perfcast_run(cmd, std::chrono::seconds(300));
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  if (r.exit_code != 0) return -1;
  double flops = 0;
  int counted = 0;
  const json counts = json::parse(r.stdout_text);  // named: the loop must not outlive it
  for (const auto& f : counts["per_rank"][0]["functions"])
    if (!f.value("inlined_only", false)) flops += f["flops_double"].get<double>(), ++counted;
  EXPECT_GT(counted, 0) << r.stdout_text.substr(0, 2000) << r.stderr_text;
  return flops;
}

// The model's flops against callgrind's on the program flang builds: the
// static count is of the IR the analyser optimised, the ground truth of the
// machine code flang's own -O2 made.
TEST(Fortran, ModelFlopsAreCallgrindsOnTheFlangBuild) {
  analyse({"loop_allreduce.f90"}, "loop_allreduce");
  json p = predict("loop_allreduce", 1, {{"n", 1000}});
  ASSERT_TRUE(p.contains("ranks"));
  EXPECT_EQ(p["ranks"][0]["flops_double"].get<double>(), counted_flops("loop_allreduce", {"1000"}, {"_QQmain"}));

  analyse({"halo_stencil.f90"}, "halo_stencil");
  p = predict("halo_stencil", 1, {{"m", 100}, {"ncols", 40}, {"nsweeps", 7}});
  ASSERT_TRUE(p.contains("ranks"));
  EXPECT_EQ(p["ranks"][0]["flops_double"].get<double>(),
            counted_flops("halo_stencil", {"100", "40", "7"}, {"_QQmain", "_QMstencilPsweep"}));
}

// Counts that wrap 64 bits where a guard skips their loop (cases/guarded_counts.f90,
// SNAP's shapes): a row loop unrolled by 4 whose count is about 2^62 for the
// rows below 5, and a vector body of moments that never runs with one
// moment. The footprint refinement is priced at every size (it was refused
// at all of them: the row loop's footprint sums the unrolled loop's count
// over the rows), and the flops are the hand count and callgrind's.
TEST(Fortran, CountsThatWrapWhereTheirGuardsSkipTheLoopPriceZero) {
  analyse({"guarded_counts.f90"}, "guarded_counts");
  for (auto [ng, cmom] : std::vector<std::pair<long, long>>{{1, 1}, {4, 1}, {100, 1}, {100, 9}}) {
    const long nx = 50;
    json p = predict("guarded_counts", 1, {{"ng", ng}, {"nx", nx}, {"cmom", cmom}});
    ASSERT_TRUE(p.contains("ranks")) << "ng = " << ng << ", cmom = " << cmom;
    EXPECT_FALSE(p["footprint_time_s"].is_null()) << p.value("footprint_note", "");
    const double flops = p["ranks"][0]["flops_double"].get<double>();
    EXPECT_EQ(flops, 3.0 * (ng - 1) + 2.0 * (cmom - 1) * nx) << "ng = " << ng << ", cmom = " << cmom;
    if (ng == 1 || cmom == 9)
      EXPECT_EQ(flops, counted_flops("guarded_counts", {std::to_string(ng), std::to_string(nx), std::to_string(cmom)},
                                     {"_QQmain", "_QMguarded_kernelsPscatter_rows", "_QMguarded_kernelsPadd_moments"}))
          << "ng = " << ng << ", cmom = " << cmom;
  }
}

// A timed part whose baseline has another footprint (halo_depth.f90, its
// kernel in halo_depth_kernel.f90; CloverLeaf's update_halo_kernel shape): the
// kernel's nest is called at depth 2 in the set-up and depth 1 in each step,
// where the guard of its unrolled loop skips it. `--baseline-param steps=0` was
// refused ("2 memory segments in the run, 1 in the baseline"); it is the run
// less the 0-step run, site by site, and the kernel's share is the steps'
// copies by hand: n + 2 columns a step, one 8-byte load and store each.
TEST(Fortran, ATimedPartWhoseBaselineHasAnotherFootprintIsTheRunLessTheBaseline) {
  analyse({"halo_depth_kernel.f90", "halo_depth.f90"}, "halo_depth");
  for (auto [n, steps] : {std::pair{64L, 10L}, {30L, 3L}}) {
    json run = predict("halo_depth", 1, {{"n", n}, {"steps", steps}});
    json set_up = predict("halo_depth", 1, {{"n", n}, {"steps", 0}});
    auto r = perfcast_run({"predict", model_path("halo_depth").string(), "--machine", "polus", "--np", "1", "--json",
                           "--param", "n=" + std::to_string(n), "--param", "steps=" + std::to_string(steps),
                           "--baseline-param", "steps=0"});
    ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
    ASSERT_TRUE(run.contains("ranks") && set_up.contains("ranks"));
    const json timed = json::parse(r.stdout_text);
    const json &t = timed["ranks"][0], &w = run["ranks"][0], &b = set_up["ranks"][0];
    for (const char* count : {"load_bytes", "store_bytes", "loads", "stores"})
      EXPECT_DOUBLE_EQ(t[count].get<double>(), w[count].get<double>() - b[count].get<double>())
          << count << ", n = " << n;
    ASSERT_EQ(t["sites"].size(), w["sites"].size());
    double kernel_bytes = -1;
    for (size_t i = 0; i < t["sites"].size(); ++i) {
      const json& site = t["sites"][i];
      ASSERT_EQ(site["function"], w["sites"][i]["function"]);
      EXPECT_DOUBLE_EQ(site["bytes"].get<double>(),
                       w["sites"][i]["bytes"].get<double>() - b["sites"][i]["bytes"].get<double>())
          << site["function"] << " line " << site["line"] << ", n = " << n;
      if (site["function"] == "_QMhalo_depth_kernelPreflect" && site["line"] != 0) kernel_bytes = site["bytes"];
    }
    EXPECT_EQ(kernel_bytes, steps * (n + 2) * 2 * 8.0) << "n = " << n;
    // The nest's footprint is priced at both depths: its unrolled loop counts
    // depth / 2 trips, 0 at depth 1 where its guard skips it, not 2^63.
    EXPECT_FALSE(timed["footprint_time_s"].is_null()) << timed.value("footprint_note", "");
  }
}

// Values passed by reference that the caller knows (byref_main.f90, its
// kernels in a unit of their own): the DO index g and the size m = 2 nx + g
// stored to flang's temporaries before each call are the call's arguments, a
// module variable stored before a call is the value stored, and a
// communicator MPI_Comm_dup created is no required parameter. After a
// subroutine that changes the module variable it stays a parameter of the
// call. By hand: scale_rows does 2 m flops per call, sum over g = 1..ng of
// 2 (2 nx + g) = 4 nx ng + ng (ng + 1); add_rows 1 flop per element, nx and
// then nx + 1; reduce_max none.
TEST(Fortran, ValuesPassedByReferenceAreTheCallersStores) {
  json model = analyse({"byref_kernels.f90", "byref_main.f90"}, "byref");
  ASSERT_TRUE(model.contains("parameters"));
  std::vector<std::string> required;
  for (const auto& [name, p] : model["parameters"].items())
    if (!p.contains("default")) required.push_back(name);
  std::sort(required.begin(), required.end());
  EXPECT_EQ(required, (std::vector<std::string>{"main.add_rows2.m", "ng", "nx"})) << model["parameters"].dump(1);
  EXPECT_EQ(model["parameters"]["byref_kernels.comm_work"].value("default", ""), "0") << model["parameters"].dump(1);
  // The reason it stays: the subroutine called before may write it.
  EXPECT_NE(model["parameters"]["main.add_rows2.m"].value("description", "").find("(widen)"), std::string::npos)
      << model["parameters"].dump(1);
  for (auto [ng, nx] : {std::pair{3L, 10L}, {20L, 500L}}) {
    json p = predict("byref", 2, {{"ng", ng}, {"nx", nx}, {"main.add_rows2.m", nx + 1}});
    ASSERT_TRUE(p.contains("ranks"));
    for (const auto& rank : p["ranks"]) {
      EXPECT_EQ(rank["flops_double"].get<double>(), 4.0 * nx * ng + ng * (ng + 1) + 2 * nx + 1)
          << "ng = " << ng << ", nx = " << nx;
      EXPECT_EQ(rank["sent_bytes"].get<double>(), 8.0) << "the allreduce of reduce_max";
    }
  }
  // Against callgrind on the program flang builds.
  const long ng = 20, nx = 500;
  json p = predict("byref", 1, {{"ng", ng}, {"nx", nx}, {"main.add_rows2.m", nx + 1}});
  ASSERT_TRUE(p.contains("ranks"));
  double counted = counted_flops("byref_main", {std::to_string(ng), std::to_string(nx)},
                                 {"_QQmain", "_QMbyref_kernelsPscale_rows", "_QMbyref_kernelsPadd_rows"});
  EXPECT_NEAR(p["ranks"][0]["flops_double"].get<double>(), counted, 0.02 * counted);
}

// A Fortran unit flang cannot compile: the error names the file and flang's
// message names the line.
TEST(Fortran, ASourceFlangRefusesNamesTheFileAndLine) {
  fs::path dir = perfcast::testing::scratch() / "bad";
  fs::create_directories(dir);
  fs::path source = dir / "broken.f90";
  std::ofstream(source) << "program broken\n  implicit none\n  x = 1\nend program broken\n";
  auto r = perfcast_run({"analyze", source.string(), "-o", (dir / "m.json").string(), "--no-mca"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.stderr_text.find("broken.f90"), std::string::npos) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find(":3:"), std::string::npos) << r.stderr_text;
  EXPECT_EQ(r.stderr_text.find("BISECT"), std::string::npos) << r.stderr_text;
}

}  // namespace

// Loops that poll for a message (polling_main.f90, its wrappers of MPI_TEST
// and MPI_TESTSOME in polling_kernels.f90, as SNAP's plib keeps them): listed
// with the call each polls with and priced at one pass: their flops once,
// their MPI_TEST calls lower bounds, labelled in predict's JSON and text.
TEST(Fortran, PollingLoopsArePricedAtOnePassAndTheirCallsAreLowerBounds) {
  json model = analyse({"polling_kernels.f90", "polling_main.f90"}, "polling");
  std::map<std::string, std::string> polled;
  for (const auto& l : model["coverage"].value("polling_loops", json::array()))
    polled[l["site"].get<std::string>()] = l["call"].get<std::string>();
  std::map<std::string, std::string> expected = {{"polling_main.f90:31", "MPI_Test"},
                                                 {"polling_main.f90:40", "MPI_Test"},
                                                 {"polling_main.f90:47", "MPI_Testsome"}};
  EXPECT_EQ(polled, expected) << model["coverage"].dump(1);
  EXPECT_TRUE(model["coverage"]["unknown_loops"].empty()) << model["coverage"]["unknown_loops"].dump(1);
  for (const auto& name : parameter_names(model)) EXPECT_EQ(name.find(".trips"), std::string::npos) << name;

  std::map<std::string, long> params;
  for (const auto& [name, p] : model["parameters"].items())
    if (!p.contains("default")) params[name] = 10;
  json small = predict("polling", 2, params);
  for (auto& [name, v] : params) v = 30;
  json large = predict("polling", 2, params);
  ASSERT_TRUE(small.contains("ranks") && large.contains("ranks"));
  for (size_t r = 0; r < 2; ++r) {
    // The DO WHILE's one pass: its inner loop's n multiply-adds once.
    EXPECT_DOUBLE_EQ(large["ranks"][r]["instruction_flops"].get<double>() -
                         small["ranks"][r]["instruction_flops"].get<double>(),
                     2.0 * 20)
        << large["ranks"][r].dump(1);
    const json& test = small["ranks"][r]["mpi_calls_by_op"]["test"];
    EXPECT_TRUE(test.value("timing_dependent", false)) << small["ranks"][r].dump(1);
    EXPECT_EQ(test.value("timing_dependent_calls", 0.0), 2.0) << "the DO WHILE's MPI_TEST and the wrapper's";
    EXPECT_EQ(small["ranks"][r]["mpi_calls_timing_dependent"].get<double>(), 2.0);
    EXPECT_FALSE(small["ranks"][r]["mpi_calls_by_op"]["send"].value("timing_dependent", false));
  }
  bool warned = false;
  for (const auto& w : small["warnings"]) warned = warned || w.get<std::string>().find("poll") != std::string::npos;
  EXPECT_TRUE(warned) << small["warnings"].dump(1);

  std::vector<std::string> args = {"predict", model_path("polling").string(), "--machine", "polus", "--np", "2"};
  for (const auto& [k, v] : params) args.insert(args.end(), {"--param", k + "=" + std::to_string(v)});
  auto text = perfcast_run(args);
  EXPECT_EQ(text.exit_code, 0) << text.stderr_text;
  EXPECT_NE(text.stdout_text.find("≥"), std::string::npos) << text.stdout_text;
}

// flang's runtime functions that do no floating-point work (runtime_helpers.f90:
// TRIM, ADJUSTL, SCAN, INDEX, VERIFY, a comparison of strings, an allocatable
// string assigned, FLUSH, a pointer's bounds set, a section copied in and out
// for an explicit-shape dummy) are set-up the library table leaves out, as it
// does the C and C++ runtime's: no lib_*_flops parameter for the user to
// bind. Callgrind counts no flops in any of them on the program flang builds,
// and the model's flops, 2 n a kernel call, are its count of the kernel.
TEST(Fortran, RuntimeHelpersWithoutFloatingPointAreNoParameters) {
  json model = analyse({"runtime_helpers.f90"}, "runtime_helpers");
  ASSERT_TRUE(model.contains("parameters"));
  for (const auto& name : parameter_names(model)) EXPECT_NE(name.rfind("lib_", 0), 0u) << name;
  const std::vector<std::string> helpers = {
      "_FortranATrim",          "_FortranAAdjustl",       "_FortranAScan1",
      "_FortranAIndex1",        "_FortranAVerify1",       "_FortranACharacterCompareScalar1",
      "_FortranAAssign",        "_FortranACopyInAssign",  "_FortranACopyOutAssign",
      "_FortranAIsContiguous",  "_FortranAPointerSetBounds", "flush_"};
  EXPECT_EQ(counted_flops("runtime_helpers", {"50"}, helpers), 0.0);
  // LEN_TRIM's loop, inlined: the characters of '*clover' scanned from the end, no flops.
  json p = predict("runtime_helpers", 1, {{"n", 50}, {"main.loop1.trips", 57}});
  ASSERT_TRUE(p.contains("ranks"));
  EXPECT_EQ(p["ranks"][0]["flops_double"].get<double>(),
            counted_flops("runtime_helpers", {"50"},
                          {"_QQmain", "_QMruntime_helpers_kernelsPscale", "_QMruntime_helpers_kernelsPscale_section"}));
}

// MINVAL and MAXVAL of real arrays, which flang's runtime computes
// (extrema.f90: of doubles, of a masked array, of reals): comparisons only,
// so the library table prices them at no flops, no lib_*_flops parameter for
// the user to bind; callgrind counts none in them on the program flang
// builds, and the model's flops are its count of the program's own.
TEST(Fortran, TheRuntimesExtremaOfRealArraysDoNoFlops) {
  json model = analyse({"extrema.f90"}, "extrema");
  ASSERT_TRUE(model.contains("parameters"));
  for (const auto& name : parameter_names(model)) EXPECT_NE(name.rfind("lib_", 0), 0u) << name;
  EXPECT_EQ(counted_flops("extrema", {"1000", "3"},
                          {"_FortranAMinvalReal8", "_FortranAMaxvalReal8", "_FortranAMinvalReal4"}),
            0.0);
  // a_0: the extent the mask's temporary reads from the array's descriptor, n.
  json p = predict("extrema", 1, {{"n", 1000}, {"steps", 3}, {"a_0", 1000}});
  ASSERT_TRUE(p.contains("ranks"));
  EXPECT_EQ(p["ranks"][0]["flops_double"].get<double>(), counted_flops("extrema", {"1000", "3"}, {"_QQmain"}));
}

// A sweep whose direction the vectoriser checks at run time (reversed_sweep.f90,
// SNAP's `jd` picking a loop's first and last cell and its step): the scalar
// loop's start joins the whole count (the trip-count test or the check sent
// the program there) and the vector loop's remainder, decided by two branches
// in turn, which the analyser states as nested selects: no loop's trips are a
// parameter, and either direction prices callgrind's 2 n flops a step. (`jhi`,
// the merge of the direction's two assignments, is still a name of its own.)
TEST(Fortran, TheScalarLoopAfterARunTimeCheckRunsTheWholeCountWhereTheCheckFails) {
  json model = analyse({"reversed_sweep.f90"}, "reversed_sweep");
  for (const auto& name : parameter_names(model)) EXPECT_EQ(name.find(".trips"), std::string::npos) << name;
  constexpr long n = 1000, steps = 3;
  for (long jd : {1L, 2L}) {
    const long jhi = jd == 1 ? 1 : n;
    json p = predict("reversed_sweep", 1, {{"n", n}, {"steps", steps}, {"jd", jd}, {"jhi", jhi}, {"line_sweep.jhi", jhi}});
    ASSERT_TRUE(p.contains("ranks")) << "jd = " << jd;
    EXPECT_EQ(p["ranks"][0]["flops_double"].get<double>(), 2.0 * n * steps) << "jd = " << jd;
    EXPECT_EQ(counted_flops("reversed_sweep", {std::to_string(n), std::to_string(steps), std::to_string(jd)},
                            {"_QMreversed_sweep_kernelPline_sweep", "_QQmain"}),
              2.0 * n * steps)
        << "jd = " << jd;
  }
}
