// Counts a C caller passes by pointer (cases/by_reference.c): the value the
// caller stored last before the call is the call's argument, so the model
// needs no parameter for it, unless the address escapes to a function that
// keeps it and a later call may write through the copy.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "analyze/analyze.h"
#include "model/costs.h"
#include "model/program_model.h"
#include "program_flops.h"
#include "scratch.h"
#include "support/expr.h"
#include "support/process.h"
#include "support/toolchain.h"

using namespace perfcast;
namespace fs = std::filesystem;

namespace {

const std::string kCase = std::string(PERFCAST_SOURCE_DIR) + "/tests/analyze/cases/by_reference.c";

double model_flops(const model::ProgramModel& m, expr::Bindings b) {
  b["rank"] = 0;
  b["size"] = 1;
  return model::evaluate_rank(model::symbolic_costs(m, "main"), b, 0).flops_double;
}

// By hand, per step s: work 2 (nx + 2 s), relax 2 (nx + s), and work again
// 2 (nx + 2 s + 1), the size bump() leaves through the kept address.
double hand_flops(double nx, double steps) {
  double total = 0;
  for (int s = 0; s < steps; ++s) total += 2 * (nx + 2 * s) + 2 * (nx + s) + 2 * (nx + 2 * s + 1);
  return total;
}

}  // namespace

// &n of a local and a pointer to a struct field: the caller's stores (of
// expressions of nx and the step) are the callees' trip counts; the escaped
// size stays a parameter of its call, bound here to what bump() leaves.
TEST(ByReference, APointerToTheCallersLastStoreIsItsValue) {
  analyze::AnalyzeOptions o;
  o.sources = {kCase};
  o.mca = false;
  model::ProgramModel m = analyze::analyze_model(o);
  std::vector<std::string> required;
  for (const auto& p : m.parameters) {
    if (!p.default_value) required.push_back(p.name);
    if (p.name == "main.work2.n") EXPECT_NE(p.description.find("address is kept"), std::string::npos) << p.description;
  }
  std::sort(required.begin(), required.end());
  EXPECT_EQ(required, (std::vector<std::string>{"main.work2.n", "nx", "steps"}));
  for (auto [nx, steps] : {std::pair{10, 1}, {1000, 7}}) {
    // The escaped size is bound to its mean over the steps, nx + steps: its
    // calls' flops are linear in it.
    EXPECT_EQ(model_flops(m, {{"nx", nx}, {"steps", steps}, {"main.work2.n", nx + steps}}), hand_flops(nx, steps))
        << "nx = " << nx << ", steps = " << steps;
  }
}

// The program clang builds, counted by callgrind: its own functions do the
// flops the model gives.
TEST(ByReference, CallgrindCountsWhatTheModelGives) {
  const int nx = 1000, steps = 7;
  fs::path exe = perfcast::testing::scratch() / "by_reference";
  ProcessResult build = run_process({"mpicc.openmpi", "-O2", "-g", kCase, "-o", exe.string()},
                                    std::chrono::seconds(120), {{"OMPI_CC", toolchain::kClang}});
  ASSERT_EQ(build.exit_code, 0) << build.stderr_text;
  const double measured = perfcast::testing::callgrind_program_flops(
      {exe.string(), std::to_string(nx), std::to_string(steps)}, "by_reference");
  EXPECT_EQ(measured, hand_flops(nx, steps));
  analyze::AnalyzeOptions o;
  o.sources = {kCase};
  o.mca = false;
  model::ProgramModel m = analyze::analyze_model(o);
  EXPECT_NEAR(model_flops(m, {{"nx", nx}, {"steps", steps}, {"main.work2.n", nx + steps}}), measured, 0.02 * measured);
}
