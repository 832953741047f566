// OpenMP regions of hybrid MPI+OpenMP programs (cases/omp_*.c, compiled with
// -fopenmp): the region's outlined function runs once per thread of the team,
// each thread gets its block of a worksharing loop, and the rank's counts (all
// its threads) equal the hand count at every team size; a callgrind run with
// two threads counts the same.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "analyze/analyze.h"
#include "model/costs.h"
#include "model/program_model.h"
#include "support/expr.h"
#include "support/process.h"
#include "support/toolchain.h"
#include "program_flops.h"
#include "scratch.h"

using namespace perfcast;
namespace fs = std::filesystem;

namespace {

const std::string kCases = std::string(PERFCAST_SOURCE_DIR) + "/tests/analyze/cases/";

model::ProgramModel analyse_openmp(const std::string& name) {
  analyze::AnalyzeOptions o;
  o.sources = {kCases + name};
  o.compile_flags = {"-fopenmp"};
  o.mca = false;
  return analyze::analyze_model(o);
}

// Flops of one rank (all its threads) of `function` with n elements and a
// team of `threads`.
double flops(const model::ProgramModel& m, const std::string& function, expr::Bindings b) {
  b["rank"] = 0;
  b["size"] = 1;
  for (const auto& p : m.parameters)
    if (!b.count(p.name)) b[p.name] = p.default_value ? expr::evaluate(*p.default_value, b) : expr::Value(1);
  return model::evaluate_rank(model::symbolic_costs(m, function), b, 0).flops_double;
}

// The hand count of each case, per rank, for n elements and a team of p.
struct Case {
  std::string file;
  double (*hand)(double n, double p);
};

const Case kAll[] = {
    {"omp_parallel_for.c", [](double n, double) { return 3 * n; }},
    // (no combine at n = 0: clang skips the whole worksharing loop, reduction
    // included, when it has no iterations)
    {"omp_reduction.c", [](double n, double p) { return n > 0 ? 2 * n + p : 0; }},
    {"omp_region_single.c", [](double n, double) { return 3 * n + 2; }},
    {"omp_thread_number.c", [](double n, double) { return n; }},
    {"omp_orphaned.c", [](double n, double) { return 4 * n; }},
};

}  // namespace

// Every case: nothing of the region is left unresolved or guessed, the team
// size is a parameter the user must give, and the rank's flops are the hand
// count for 1, 2 and 4 threads and sizes that do and do not divide evenly.
TEST(OpenMP, RankCountsEqualTheHandCountForEveryTeamSize) {
  for (const Case& c : kAll) {
    SCOPED_TRACE(c.file);
    model::ProgramModel m = analyse_openmp(c.file);
    ASSERT_TRUE(m.coverage.has_value());
    for (const auto& call : m.coverage->unresolved_calls)
      ADD_FAILURE() << call.kind << " call of " << call.callee << " at " << call.site;
    for (const auto& loop : m.coverage->unknown_loops) ADD_FAILURE() << "unknown trips at " << loop.site;
    for (const auto& branch : m.coverage->guessed_branches) ADD_FAILURE() << "guessed branch at " << branch.site;
    auto threads = std::find_if(m.parameters.begin(), m.parameters.end(),
                                [](const model::Parameter& p) { return p.name == "omp.threads"; });
    ASSERT_NE(threads, m.parameters.end());
    EXPECT_FALSE(threads->default_value.has_value());
    for (int p : {1, 2, 4})
      for (int n : {0, 1, 3, 10, 101})
        EXPECT_EQ(flops(m, "main", {{"n", n}, {"omp.threads", p}}), c.hand(n, p)) << "n = " << n << ", threads = " << p;
  }
}

// A function with an orphaned `omp for` and `master`, called once by the
// initial thread and once by a team: the whole loop each time, and the MPI
// call of the master block once per call, not once per thread.
TEST(OpenMP, OrphanedConstructsCountOncePerTeam) {
  model::ProgramModel m = analyse_openmp("omp_orphaned.c");
  for (int p : {1, 2, 4}) {
    expr::Bindings b{{"n", 10}, {"omp.threads", p}, {"rank", 0}, {"size", 2}};
    for (const auto& param : m.parameters)
      if (!b.count(param.name))
        b[param.name] = param.default_value ? expr::evaluate(*param.default_value, b) : expr::Value(1);
    model::RankCounts c = model::evaluate_rank(model::symbolic_costs(m, "main"), b, 0);
    double allreduces = 0;
    for (const auto& call : c.mpi)
      if (call.op == mpi::Op::Allreduce) allreduces += call.calls;
    EXPECT_EQ(allreduces, 2) << "threads = " << p;
    EXPECT_EQ(c.flops_double, 40) << "threads = " << p;
  }
}

// The threads' blocks of a worksharing loop: libomp's static schedule gives
// each thread ceil(n / p) iterations in thread order, the last ones fewer or
// none; the blocks add up to the loop.
TEST(OpenMP, EachThreadCountsItsBlockOfAWorksharingLoop) {
  model::ProgramModel m = analyse_openmp("omp_parallel_for.c");
  std::string region;
  for (const auto& [name, f] : m.functions)
    if (name.find("omp_outlined") != std::string::npos) region = name;
  ASSERT_FALSE(region.empty()) << "no outlined region in the model";
  const int n = 10, p = 4;  // blocks of 3, 3, 3, 1
  const double expected[p] = {9, 9, 9, 3};
  double total = 0;
  for (int t = 0; t < p; ++t) {
    double f = flops(m, region, {{"n", n}, {"omp.team", p}, {"omp.thread", t}});
    EXPECT_EQ(f, expected[t]) << "thread " << t;
    total += f;
  }
  EXPECT_EQ(total, 3 * n);
}

// The same programs built with -fopenmp and run under callgrind with
// OMP_NUM_THREADS=2 (one rank): callgrind counts every thread's
// instructions, and the program's own functions (main and its outlined
// regions) do the flops the model gives for a team of 2.
TEST(OpenMP, CallgrindWithTwoThreadsCountsWhatTheModelGives) {
  const int n = 1000, p = 2;
  for (const Case& c : kAll) {
    SCOPED_TRACE(c.file);
    fs::path exe = perfcast::testing::scratch() / fs::path(c.file).stem();
    ProcessResult build = run_process({"mpicc.openmpi", "-O2", "-g", "-fopenmp", kCases + c.file, "-o", exe.string()},
                                      std::chrono::seconds(120), {{"OMPI_CC", toolchain::kClang}});
    ASSERT_EQ(build.exit_code, 0) << build.stderr_text;
    setenv("OMP_NUM_THREADS", std::to_string(p).c_str(), 1);
    const double measured =
        perfcast::testing::callgrind_program_flops({exe.string(), std::to_string(n)}, fs::path(c.file).stem().string());
    unsetenv("OMP_NUM_THREADS");
    model::ProgramModel m = analyse_openmp(c.file);
    EXPECT_EQ(measured, flops(m, "main", {{"n", n}, {"omp.threads", p}}));
    EXPECT_EQ(measured, c.hand(n, p));
  }
}

// A gather in an orphaned worksharing loop of a function a region calls
// (cases/omp_gather.c, miniMD's force kernels): its footprint per run of the
// loop is the thread's block, which names the thread and its team, implicit
// parameters of that function. No parameter's default may name them (a
// default is evaluated once, for no thread): the footprint keeps its accesses'
// bytes instead, and every default evaluates.
TEST(OpenMP, NoParameterDefaultNamesTheThread) {
  model::ProgramModel m = analyse_openmp("omp_gather.c");
  for (const auto& p : m.parameters) {
    if (!p.default_value) continue;
    std::set<std::string> names = expr::free_names(*p.default_value);
    EXPECT_FALSE(names.count("omp.thread") || names.count("omp.team"))
        << p.name << " = " << expr::to_string(*p.default_value);
  }
  for (int p : {1, 2})
    EXPECT_NO_THROW(flops(m, "main", {{"n", 100}, {"forces.loop2.trips", 8}, {"omp.threads", p}}));
}
