// A count that wraps 64 bits where its loop's guard skips the loop
// (cases/guarded_vector_counts.c): the vector body's unsigned trip count at
// sizes below the vector width. It prices 0 there, its trip count and
// footprint evaluate, and the model's flops are the hand count and
// callgrind's at the small size and a large one. A count a run really
// executes wrapped (cases/wrapped_count.c) is still refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "analyze/analyze.h"
#include "machine/machine_io.h"
#include "model/costs.h"
#include "model/predict.h"
#include "model/program_model.h"
#include "program_flops.h"
#include "scratch.h"
#include "support/error.h"
#include "support/expr.h"
#include "support/process.h"
#include "support/toolchain.h"

using namespace perfcast;
namespace fs = std::filesystem;

namespace {

const std::string kCases = std::string(PERFCAST_SOURCE_DIR) + "/tests/analyze/cases/";

model::ProgramModel analyse(const std::string& name) {
  analyze::AnalyzeOptions o;
  o.sources = {kCases + name};
  o.mca = false;
  return analyze::analyze_model(o);
}

model::RankCounts rank_counts(const model::ProgramModel& m, const std::string& function, expr::Bindings b) {
  b["rank"] = 0;
  b["size"] = 1;
  return model::evaluate_rank(model::symbolic_costs(m, function), b, 0);
}

// By hand: shift_axpy does n - 1 iterations of a multiply-add, tail_scale
// n - 4 of a multiply, none below 1 and 4.
double hand_flops(long n) { return 2.0 * std::max(n - 1, 0L) + std::max(n - 4, 0L); }

// A loop of the model with the branch conditions on its path (each with the
// side it sits on).
struct PlacedLoop {
  const model::LoopItem* loop;
  std::vector<std::pair<expr::Expr, bool>> path;
};

void place_loops(const model::Items& items, std::vector<std::pair<expr::Expr, bool>>& path,
                 std::vector<PlacedLoop>& out) {
  for (const model::Item& it : items) {
    if (const auto* l = std::get_if<model::LoopItem>(&it.body)) {
      out.push_back({l, path});
      place_loops(l->body, path, out);
    } else if (const auto* b = std::get_if<model::BranchItem>(&it.body)) {
      for (bool side : {true, false}) {
        if (b->condition) path.emplace_back(*b->condition, side);
        place_loops(side ? b->then_items : b->else_items, path, out);
        if (b->condition) path.pop_back();
      }
    }
  }
}

std::vector<PlacedLoop> loops_of(const model::ProgramModel& m, const std::string& function) {
  std::vector<PlacedLoop> out;
  std::vector<std::pair<expr::Expr, bool>> path;
  place_loops(m.functions.at(function).body, path, out);
  return out;
}

bool runs(const PlacedLoop& l, const expr::Bindings& b) {
  for (const auto& [condition, side] : l.path)
    if ((expr::evaluate(condition, b).real() != 0) != side) return false;
  return true;
}

}  // namespace

TEST(GuardedCounts, AVectorBodyItsGuardSkipsPricesZeroAndItsCountsEvaluate) {
  const model::ProgramModel m = analyse("guarded_vector_counts.c");
  const auto machine = machine::load_machine_file(machine::find_machine_file("generic-cluster"));
  for (long n : {0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 12L, 1000L}) {
    expr::Bindings b = {{"n", n}};
    EXPECT_EQ(rank_counts(m, "main", b).flops_double, hand_flops(n)) << "n = " << n;
    // Where a loop runs, its trip count and footprint are numbers of this
    // size; the vector body's trip count is one even where its guard skips
    // it (no 2^62 trips of a body that never runs).
    for (const std::string function : {"shift_axpy", "tail_scale"}) {
      const long a = function == "shift_axpy" ? n : static_cast<long>(static_cast<int>(n));
      const expr::Bindings own = {{"n", a}};
      for (const PlacedLoop& l : loops_of(m, function)) {
        std::vector<const expr::Expr*> counts = {&l.loop->trip_count};
        if (l.loop->footprint) counts.push_back(&l.loop->footprint->bytes);
        const bool vector_body = l.loop->body.size() == 1 && std::holds_alternative<model::ComputeItem>(
                                     l.loop->body.front().body) &&
                                 expr::to_string(std::get<model::ComputeItem>(l.loop->body.front().body).flops_double) ==
                                     (function == "shift_axpy" ? "8" : "4");
        if (!vector_body && !runs(l, own)) continue;
        for (const expr::Expr* count : counts) {
          double v = -1;
          ASSERT_NO_THROW(v = expr::evaluate(*count, own).real())
              << function << ": " << expr::to_string(*count) << ", n = " << n;
          EXPECT_GE(v, 0) << function << ": " << expr::to_string(*count) << ", n = " << n;
          EXPECT_LE(v, 64.0 * (n + 8)) << function << ": " << expr::to_string(*count) << ", n = " << n;
        }
      }
    }
    // The refinement by footprints is priced at every size, the smallest too.
    const auto p = model::predict(m, model::symbolic_costs(m), machine, 1, {{"n", n}});
    EXPECT_TRUE(p.footprint_available) << "n = " << n << ": " << p.footprint_note;
  }
}

// The program clang builds, counted by callgrind at n = 1 (both vector bodies
// skipped) and n = 1000: its own functions do the model's flops.
TEST(GuardedCounts, CallgrindCountsTheModelsFlopsAtTheSmallSizeAndALargeOne) {
  fs::path exe = perfcast::testing::scratch() / "guarded_vector_counts";
  ProcessResult build =
      run_process({"mpicc.openmpi", "-O2", "-g", kCases + "guarded_vector_counts.c", "-o", exe.string()},
                  std::chrono::seconds(120), {{"OMPI_CC", toolchain::kClang}});
  ASSERT_EQ(build.exit_code, 0) << build.stderr_text;
  const model::ProgramModel m = analyse("guarded_vector_counts.c");
  for (long n : {1L, 1000L}) {
    const double measured =
        perfcast::testing::callgrind_program_flops({exe.string(), std::to_string(n)}, "guarded_vector_counts");
    EXPECT_EQ(measured, hand_flops(n)) << "n = " << n;
    EXPECT_EQ(rank_counts(m, "main", {{"n", n}}).flops_double, measured) << "n = " << n;
  }
}

// (n - 4) / 2 in unsigned 64 bits runs about 2^63 times at n < 4: its guard
// (the count is not 0) does not keep it from running, so the wrapped count
// stays in the model and the evaluation refuses it, naming the count.
TEST(GuardedCounts, ACountARunReallyExecutesWrappedIsStillRefused) {
  const model::ProgramModel m = analyse("wrapped_count.c");
  for (long n : {4L, 5L, 6L, 12L, 1001L})
    EXPECT_EQ(rank_counts(m, "halves", {{"n", n}}).flops_double, static_cast<double>((n - 4) / 2)) << "n = " << n;
  for (long n : {0L, 1L, 3L}) {
    try {
      rank_counts(m, "halves", {{"n", n}});
      ADD_FAILURE() << "n = " << n << ": a count of about 2^63 iterations was priced";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("2^53"), std::string::npos) << e.what();
    }
  }
}

// Loops the optimiser made W iterations at a time, at sizes below W
// (cases/guard_below_width.c). fill_swaps' minimum-iterations check tests a
// value the model has no name for, so the model weighs it as a run-time check
// that passes: its vector body's trips must be 0 there by the vectoriser's own
// contract, not 2^61 (miniMD's Comm::setup). diag_scale at a local size of 0
// and 1 (hypre's DiagScale on coarse levels) and gather_scale, whose gather's
// distinct bytes are a parameter with the loop's count as its default, price
// their hand counts and no refusal, footprints included.
TEST(GuardedCounts, LoopsMadeWAtATimePriceTheirHandCountsBelowW) {
  const model::ProgramModel m = analyse("guard_below_width.c");
  const auto machine = machine::load_machine_file(machine::find_machine_file("generic-cluster"));
  for (long n : {0L, 1L, 2L, 3L, 5L, 6L, 7L, 8L, 9L, 17L, 1000L}) {
    // fill_swaps: 6 flops and 3 ints of need, its pointer, then m ints; m is
    // even and at least 2 (each need is at least 1 in the source).
    for (long swaps : {2 * n + 2, 2 * n + 6}) {
      model::RankCounts fill;
      ASSERT_NO_THROW(fill = rank_counts(m, "fill_swaps", {{"fill_swaps.m", swaps}})) << "m = " << swaps;
      EXPECT_EQ(fill.flops_double, 6) << "m = " << swaps;
      EXPECT_EQ(fill.store_bytes, 12 + 8 + 4.0 * swaps) << "m = " << swaps;
    }
    // diag_scale and gather_scale: a divide an element.
    const expr::Bindings sizes = {{"diag_scale.local_size", n}, {"v.size", n}};
    for (const std::string function : {"diag_scale", "gather_scale"}) {
      model::RankCounts scale;
      ASSERT_NO_THROW(scale = rank_counts(m, function, sizes)) << function << ", n = " << n;
      EXPECT_EQ(scale.flops_double, n) << function << ", n = " << n;
      EXPECT_EQ(scale.store_bytes, 8.0 * n) << function << ", n = " << n;
    }
    // The whole program, its parameters' defaults evaluated, with its footprints.
    const std::map<std::string, expr::Value> params = {
        {"fill_swaps.m", 2 * n + 2}, {"diag_scale.local_size", n}, {"v.size", n}};
    model::Prediction p;
    ASSERT_NO_THROW(p = model::predict(m, model::symbolic_costs(m), machine, 1, params)) << "n = " << n;
    EXPECT_TRUE(p.footprint_available) << "n = " << n << ": " << p.footprint_note;
  }
}
