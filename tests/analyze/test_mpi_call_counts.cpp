// The MPI calls the model counts are the calls a run makes, per operation,
// for three shapes of C and C++ set-up code the analyser once miscounted:
// a constructor called through the alias clang emits for it
// (cases/constructor_alias*.cpp), a call under an `if` before MPI_Finalize in a
// function with a destructor (cases/optional_report.cpp), and an input
// reader whose normal path only communicates (cases/read_deck.c). Each is
// asserted by hand from the source, then against callgrind's calls of the
// same operations in the program clang builds (the corpus check's counting:
// MPI_X and PMPI_X once, the vocabulary's operations only).
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "analyze/analyze.h"
#include "counts/run.h"
#include "model/costs.h"
#include "model/program_model.h"
#include "scratch.h"
#include "support/expr.h"
#include "support/mpi_op.h"
#include "support/process.h"
#include "support/toolchain.h"

using namespace perfcast;
namespace fs = std::filesystem;

namespace {

const std::string kCases = std::string(PERFCAST_SOURCE_DIR) + "/tests/analyze/cases/";

using CallsByOp = std::map<std::string, double>;

model::ProgramModel analyse(const std::vector<std::string>& sources) {
  analyze::AnalyzeOptions o;
  for (const auto& s : sources) o.sources.push_back(kCases + s);
  o.mca = false;
  return analyze::analyze_model(o);
}

model::RankCounts rank_counts(const model::ProgramModel& m, const std::string& function, expr::Bindings b) {
  b["rank"] = 0;
  b["size"] = 1;
  for (const auto& p : m.parameters)
    if (!b.count(p.name) && p.default_value) b[p.name] = expr::evaluate(*p.default_value, b);
  return model::evaluate_rank(model::symbolic_costs(m, function), b, 0);
}

CallsByOp model_calls(const model::ProgramModel& m, const std::string& function, const expr::Bindings& b) {
  CallsByOp calls;
  for (const auto& call : rank_counts(m, function, b).mpi)
    if (call.calls != 0) calls[std::string(mpi::name(call.op))] += call.calls;
  return calls;
}

std::string show(const CallsByOp& calls) {
  std::string s;
  for (const auto& [op, n] : calls) s += fmt::format("{}{} {}", s.empty() ? "" : ", ", op, n);
  return "{" + s + "}";
}

// The program built as the MPI compiler wrapper builds it with the analyser's clang
// (without -g: valgrind cannot read all of clang's DWARF 5 for C++).
fs::path build(const std::vector<std::string>& sources, const std::string& name) {
  const bool cxx = sources.front().ends_with(".cpp");
  fs::path exe = perfcast::testing::scratch() / name;
  std::vector<std::string> command = {cxx ? "mpicxx.openmpi" : "mpicc.openmpi", "-O2"};
  for (const auto& s : sources) command.push_back(kCases + s);
  command.insert(command.end(), {"-o", exe.string()});
  ProcessResult built = run_process(command, std::chrono::seconds(120),
                                    {{"OMPI_CC", toolchain::kClang}, {"OMPI_CXX", toolchain::kClangxx}});
  EXPECT_EQ(built.exit_code, 0) << built.stderr_text;
  return exe;
}

// Callgrind's calls of the vocabulary's operations on one rank under mpirun,
// outside the program's own code: per C function the most calls of its entry
// points (MPI_Allreduce, PMPI_Allreduce: one call passes both where the
// library calls its profiling name), summed by operation.
CallsByOp callgrind_calls(std::vector<std::string> program, const std::string& label) {
  counts::CallgrindRunOptions run;
  run.program = std::move(program);
  run.ranks = 1;
  run.cache_sim = false;
  run.label = label;
  counts::CodeCache cache;
  auto ranks = counts::count_ranks(counts::run_callgrind(run), cache);
  EXPECT_EQ(ranks.size(), 1u);
  if (ranks.empty()) return {};
  std::map<std::string, std::int64_t> by_function;
  const std::regex entry("P?(MPI_[A-Za-z_]+)");
  for (const auto& f : ranks[0].functions) {
    std::smatch m;
    if (f.object == ranks[0].main_object || !std::regex_match(f.name, m, entry)) continue;
    std::int64_t& most = by_function[m[1].str()];
    most = std::max(most, f.calls);
  }
  CallsByOp calls;
  for (const auto& [function, n] : by_function)
    if (auto op = mpi::op_of_function(function); op && n != 0) calls[std::string(mpi::name(*op))] += n;
  return calls;
}

}  // namespace

// setup's `new Grid(n)` and `delete` call the aliases clang emits for the
// constructor and destructor defined in the other unit: they are calls of
// that code, not calls through a pointer, so nothing is unresolved and setup
// counts the constructor's 2n flops and its two allreduces.
TEST(MpiCallCounts, ACallOfAConstructorsAliasCountsTheConstructor) {
  const auto m = analyse({"constructor_alias.cpp", "constructor_alias_grid.cpp"});
  ASSERT_TRUE(m.coverage);
  EXPECT_TRUE(m.coverage->unresolved_calls.empty()) << m.coverage->unresolved_calls.size() << " unresolved";
  for (long n : {1L, 10L, 1000L}) {
    EXPECT_EQ(model_calls(m, "_Z5setupl", {{"n", n}}), (CallsByOp{{"allreduce", 2}})) << "n = " << n;
    EXPECT_EQ(rank_counts(m, "_Z5setupl", {{"n", n}}).flops_double, 2.0 * n) << "n = " << n;
  }
}

// The report's allreduces run when it is asked for and not otherwise; the
// log's destructor (1 flop) and the timer's barrier once each, on the
// normal way out, not again on the way a throw would take.
TEST(MpiCallCounts, ACallUnderAnIfBeforeFinalizeRunsOnlyWhenItsSideIsTaken) {
  const auto m = analyse({"optional_report.cpp"});
  for (int yaml : {0, 1}) {
    const expr::Bindings b = {{"n", 4}, {"yaml", yaml}};
    CallsByOp finish = {{"finalize", 1}}, phase = {{"barrier", 1}};
    if (yaml) finish["allreduce"] = phase["allreduce"] = 2;
    EXPECT_EQ(model_calls(m, "_Z6finishPKdii", b), finish) << "yaml = " << yaml;
    EXPECT_EQ(model_calls(m, "_Z5phasePKdii", b), phase) << "yaml = " << yaml;
    EXPECT_EQ(rank_counts(m, "_Z6finishPKdii", b).flops_double, 1 + yaml * 4) << "yaml = " << yaml;
  }
}

// read_deck's broadcast and barrier run whenever it gets past its checks: the
// check that stops the run (unknown units) is the error side, not the path
// that communicates and returns 0.
TEST(MpiCallCounts, AReadersPathThatOnlyCommunicatesIsCounted) {
  const auto m = analyse({"read_deck.c"});
  for (int nx : {1, 8, 64})
    EXPECT_EQ(model_calls(m, "read_deck", {{"nx", nx}}), (CallsByOp{{"barrier", 1}, {"bcast", 1}})) << "nx = " << nx;
  EXPECT_EQ(model_calls(m, "read_deck", {{"nx", 0}}), CallsByOp{});
}

// The whole programs, run once each under callgrind: the model's calls per
// operation of main are the calls the run made.
TEST(MpiCallCounts, TheModelsCallsAreTheCallsARunMakes) {
  struct Case {
    std::vector<std::string> sources;
    std::vector<std::string> args;
    expr::Bindings bindings;
  };
  const std::vector<Case> cases = {
      {{"constructor_alias.cpp", "constructor_alias_grid.cpp"}, {}, {{"argc", 1}}},
      {{"optional_report.cpp"}, {}, {{"argc", 1}}},
      {{"optional_report.cpp"}, {"yaml", "out.yaml"}, {{"argc", 3}}},
      {{"read_deck.c"}, {"lj"}, {{"argc", 2}, {"in.nx", 16}}},
  };
  for (const Case& c : cases) {
    const std::string name = fs::path(c.sources.front()).stem().string();
    const auto m = analyse(c.sources);
    std::vector<std::string> program = {build(c.sources, name).string()};
    program.insert(program.end(), c.args.begin(), c.args.end());
    const CallsByOp measured = callgrind_calls(program, name);
    EXPECT_EQ(model_calls(m, "main", c.bindings), measured)
        << name << " " << fmt::format("{}", fmt::join(c.args, " ")) << ": model "
        << show(model_calls(m, "main", c.bindings)) << ", callgrind " << show(measured);
  }
}
