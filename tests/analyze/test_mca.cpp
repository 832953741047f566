// The MCA refinement: innermost loop bodies priced in cycles per iteration by
// LLVM's machine-code analyser, and the predictor's in-core time from them.
// The assertions are relations the scheduling model must satisfy whatever CPU
// it describes, not its numbers.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <unistd.h>

#include "analyze/analyze.h"
#include "machine/machine_io.h"
#include "model/costs.h"
#include "model/predict.h"
#include "model/program_model.h"
#include "support/error.h"

using namespace perfcast;
namespace fs = std::filesystem;

namespace {

const std::string kCase = std::string(PERFCAST_SOURCE_DIR) + "/tests/analyze/cases/mca_loops.c";

nlohmann::ordered_json analyse_mca(const std::string& mcpu = "") {
  analyze::AnalyzeOptions o;
  o.sources = {kCase};
  o.mcpu = mcpu;
  return analyze::analyze(o);
}

// The cycles per iteration of the one innermost loop of `function`.
double cycles_of(const nlohmann::ordered_json& model, const std::string& function) {
  std::vector<double> found;
  std::function<void(const nlohmann::ordered_json&)> walk = [&](const nlohmann::ordered_json& items) {
    for (const auto& it : items) {
      if (it.contains("cycles_per_iteration")) found.push_back(it["cycles_per_iteration"].get<double>());
      for (const char* side : {"body", "then", "else"})
        if (it.contains(side)) walk(it[side]);
    }
  };
  walk(model["functions"][function]["body"]);
  EXPECT_EQ(found.size(), 1u) << function << ": " << model["functions"][function].dump();
  return found.empty() ? 0 : found.front();
}

model::ProgramModel load(const nlohmann::ordered_json& j) {
  fs::path file = fs::temp_directory_path() / ("perfcast-test-mca-" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << j.dump(2);
  return model::load_program_model(file);
}

}  // namespace

TEST(Mca, LatencyBoundChainsAreSlowerAndScaleWithTheirLength) {
  auto j = analyse_mca();
  ASSERT_TRUE(j.contains("mca")) << "the model records the scheduling model it used";
  EXPECT_FALSE(j["mca"]["cpu"].get<std::string>().empty());
  double daxpy = cycles_of(j, "daxpy"), reduce1 = cycles_of(j, "reduce1"), reduce2 = cycles_of(j, "reduce2");
  std::cout << "MCA (" << j["mca"]["cpu"].get<std::string>() << "): daxpy " << daxpy << ", reduce1 " << reduce1
            << ", reduce2 " << reduce2 << " cycles/iteration\n";
  EXPECT_GT(daxpy, 0);
  // One dependent FP add per iteration: at least an add's latency (3 cycles or
  // more on every x86 scheduling model), and slower than the independent daxpy.
  EXPECT_GE(reduce1, 3.0);
  EXPECT_GT(reduce1, daxpy);
  // Two dependent adds per iteration: twice the chain.
  EXPECT_NEAR(reduce2 / reduce1, 2.0, 0.2);
}

TEST(Mca, InnermostLoopsOfANestArePricedLikeTheSameLoopAlone) {
  auto j = analyse_mca();
  double reduce1 = cycles_of(j, "reduce1");
  // The optimiser unrolls the middle loop by two, so the nest has three
  // innermost copies of the chain (two in the unrolled body, one remainder):
  // every one must be priced, each like reduce1.
  std::vector<double> nested;
  std::function<bool(const nlohmann::ordered_json&)> holds_loop = [&](const nlohmann::ordered_json& items) {
    for (const auto& it : items) {
      if (it["kind"] == "loop") return true;
      for (const char* side : {"then", "else"})
        if (it.contains(side) && holds_loop(it[side])) return true;
    }
    return false;
  };
  std::function<void(const nlohmann::ordered_json&, bool)> walk = [&](const nlohmann::ordered_json& items, bool) {
    for (const auto& it : items) {
      bool innermost = it["kind"] == "loop" && !holds_loop(it["body"]);
      if (innermost) {
        EXPECT_TRUE(it.contains("cycles_per_iteration")) << "unpriced innermost loop at line " << it["line"];
        if (it.contains("cycles_per_iteration")) nested.push_back(it["cycles_per_iteration"].get<double>());
      }
      for (const char* side : {"body", "then", "else"})
        if (it.contains(side)) walk(it[side], false);
    }
  };
  walk(j["functions"]["nested"]["body"], false);
  ASSERT_FALSE(nested.empty());
  for (double c : nested) {
    std::cout << "MCA: innermost loop of a 3-deep nest " << c << ", the same chain alone " << reduce1
              << " cycles/iteration\n";
    EXPECT_NEAR(c, reduce1, 0.25 * reduce1);
  }
}

TEST(Mca, TheCpuCanBeChosenAndIsRecorded) {
  auto j = analyse_mca("skylake");
  EXPECT_EQ(j["mca"]["cpu"], "skylake");
  EXPECT_GT(cycles_of(j, "reduce1"), cycles_of(j, "daxpy"));
  EXPECT_THROW(analyse_mca("no-such-cpu"), UserError);
}

TEST(Mca, PredictPricesPricedLoopsInCyclesOverTheClock) {
  auto j = analyse_mca();
  double cpi = cycles_of(j, "reduce1");
  auto m = load(j);
  m.entry = "reduce1";
  m.parameters.push_back({"n", "elements", std::nullopt});
  const char* toml = R"(name = "t"
[node]
count = 1
cores = 1
flops_per_core = "1 Gflop/s"
clock = "2 GHz"
[memory]
L1   = { size = "64 KiB", bandwidth = "100 GB/s" }
DRAM = { bandwidth = "10 GB/s" }
[network]
latency = "1 us"
bandwidth = "1 GB/s"
)";
  auto machine = machine::load_machine_string(toml, "test");
  auto costs = model::symbolic_costs(m);
  const int n = 100000;
  auto p = model::predict(m, costs, machine, 1, {{"n", n}});
  ASSERT_TRUE(p.mca_available) << p.mca_note;
  EXPECT_EQ(p.mca_loops, 1);
  const auto& r = p.ranks.at(0);
  EXPECT_DOUBLE_EQ(r.mca_cycles, n * cpi);
  EXPECT_DOUBLE_EQ(r.mca_flops, r.counts.flops_double) << "every flop of reduce1 is in its loop";
  EXPECT_DOUBLE_EQ(r.in_core_s, n * cpi / 2e9);
  EXPECT_DOUBLE_EQ(r.mca_time_s, std::max(r.in_core_s, r.memory_s) + r.latency_s + r.transfer_s);
  // The plain formula is unchanged by the refinement.
  EXPECT_DOUBLE_EQ(r.compute_s, r.counts.flops_double / 1e9);

  // Without a clock there is no refinement, and the prediction says why.
  std::string without = toml;
  without.erase(without.find("clock = "), std::string("clock = \"2 GHz\"\n").size());
  auto q = model::predict(m, costs, machine::load_machine_string(without, "test"), 1, {{"n", n}});
  EXPECT_FALSE(q.mca_available);
  EXPECT_NE(q.mca_note.find("clock"), std::string::npos) << q.mca_note;
  EXPECT_EQ(q.mca_time_s, 0);
}

// The errno path of sqrt (a library call taken for negative arguments only)
// is left out of the loop body MCA prices: with errno the loop costs what it
// costs without (-fno-math-errno, no call at all), within 15 % over 1000
// elements. Priced with
// the call block the pair loop of apps/nbody cost ~1.5x its real time.
TEST(Mca, TheErrnoPathOfSqrtIsNotPricedAsEveryIteration) {
  // Cycles of norms(1000, x): the two builds unroll differently, so compare
  // whole calls, not iterations.
  auto cycles_with = [](std::vector<std::string> flags) {
    analyze::AnalyzeOptions o;
    o.sources = {std::string(PERFCAST_SOURCE_DIR) + "/tests/analyze/cases/mca_sqrt.c"};
    o.mcpu = "znver3";
    o.compile_flags = std::move(flags);
    auto m = load(analyze::analyze(o));
    auto costs = model::symbolic_costs(m, "norms");
    return model::evaluate_rank(costs, {{"n", 1000}, {"rank", 0}, {"size", 1}}, 0).cycles;
  };
  double with_errno = cycles_with({}), without = cycles_with({"-fno-math-errno"});
  std::cout << "sqrt loop, 1000 elements: " << with_errno << " cycles with errno, " << without << " without\n";
  EXPECT_GT(without, 0);
  EXPECT_NEAR(with_errno, without, 0.15 * without);
}
