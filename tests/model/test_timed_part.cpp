// predict_timed_part: the run minus a baseline, subtracted as counts and then
// priced, checked against the machine's figures by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "machine/machine_io.h"
#include "model/costs.h"
#include "model/predict.h"
#include "model_text.h"
#include "support/error.h"

using namespace perfcast;
using namespace perfcast::model;
using perfcast::testing::model_from;

namespace {

// One node, one core: a rank alone gets every figure whole.
const char* kOneCore = R"(
name = "one-core"
[node]
count = 1
cores = 1
flops_per_core = "1 Gflop/s"
clock = "1 GHz"
[memory]
L1 = { size = "32 KiB", bandwidth = "100 GB/s" }
DRAM = { bandwidth = "10 GB/s", node_bandwidth = "10 GB/s" }
[network]
latency = "10 us"
bandwidth = "1 GB/s"
)";

// A set-up that streams 1e10 bytes (memory-bound), then a time loop whose
// step computes 1e8 flops in 2e8 cycles (MCA) over 1e8 bytes (compute-bound).
ProgramModel set_up_then_loop() {
  return model_from(R"J({"main": {"body": [
      {"kind": "compute", "load_bytes": "10000000000"},
      {"kind": "loop", "line": 10, "trip_count": "steps", "cycles_per_iteration": "200000000", "body": [
        {"kind": "compute", "flops_double": "100000000", "load_bytes": "100000000"}]}]}})J",
                    R"J("parameters": {"steps": {}})J", "timed.json");
}

double estimate_of(const Prediction& p, const std::string& name) {
  if (name == "formula") return p.predicted_time_s;
  if (name == "mca") return p.mca_time_s;
  return p.refined_time_s;
}

}  // namespace

// The whole-rank max of the plain formula and of MCA does not subtract: the
// set-up's memory time hides the loop's compute in the run's total, so the
// difference of the two totals is the loop's bytes alone. The timed part
// prices the loop's own counts.
TEST(TimedPart, PricesTheDifferenceOfCountsNotTheDifferenceOfTotals) {
  const auto m = set_up_then_loop();
  const auto costs = symbolic_costs(m);
  const auto machine = machine::load_machine_string(kOneCore, "one-core.toml", ".");
  const std::map<std::string, expr::Value> run{{"steps", 10}}, baseline{{"steps", 0}};
  const Prediction timed = predict_timed_part(m, m, costs, machine, 1, run, baseline);
  const Prediction whole = predict(m, costs, machine, 1, run);
  const Prediction set_up = predict(m, costs, machine, 1, baseline);
  ASSERT_TRUE(timed.mca_available);

  // The loop's 10 steps by hand from the machine's figures.
  const machine::NodeGroup& g = machine.groups.front();
  const double flops = 10 * 1e8, bytes = 10 * 1e8, cycles = 10 * 2e8;
  const double compute_s = flops / g.flops_per_core;
  const double memory_s = bytes / g.memory.back().bandwidth_Bps;
  const double in_core_s = cycles / *g.clock_Hz;
  EXPECT_DOUBLE_EQ(timed.ranks[0].counts.flops_double, flops);
  EXPECT_DOUBLE_EQ(timed.ranks[0].counts.load_bytes, bytes);
  EXPECT_DOUBLE_EQ(timed.predicted_time_s, std::max(compute_s, memory_s));  // 1 s
  EXPECT_DOUBLE_EQ(timed.mca_time_s, std::max(in_core_s, memory_s));        // 2 s
  // The refined prediction adds up over sites (the loop is one), so there the two ways agree.
  EXPECT_DOUBLE_EQ(timed.refined_time_s, std::max(in_core_s, memory_s));
  EXPECT_NEAR(timed.refined_time_s, whole.refined_time_s - set_up.refined_time_s, 1e-12);

  // The differences of the totals are another figure: the set-up's 1 s of
  // memory time let into the max.
  for (const std::string name : {"formula", "mca"}) {
    const double of_totals = estimate_of(whole, name) - estimate_of(set_up, name);
    EXPECT_GT(std::abs(of_totals - estimate_of(timed, name)), 0.5) << name << ": " << of_totals;
  }
}

TEST(TimedPart, ABaselineDoingMoreThanTheRunIsRefusedNamingWhatDiffers) {
  const auto m = set_up_then_loop();
  const auto machine = machine::load_machine_string(kOneCore, "one-core.toml", ".");
  try {
    predict_timed_part(m, m, symbolic_costs(m), machine, 1, {{"steps", 10}}, {{"steps", 20}});
    FAIL() << "a baseline of 20 steps against a run of 10 was priced";
  } catch (const UserError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("is negative"), std::string::npos) << what;
    EXPECT_NE(what.find("main (line 10) on rank 0"), std::string::npos) << what;
    EXPECT_NE(what.find("steps = 10 in the run, 20 in the baseline"), std::string::npos) << what;
    EXPECT_NE(e.hint().find("--baseline-param"), std::string::npos) << e.hint();
  }
}

// A message whose size changes with the parameter that differs leaves no one
// message to price the difference at.
TEST(TimedPart, AMessageOfAnotherSizeInTheBaselineIsRefused) {
  const auto m = model_from(R"J({"main": {"body": [
      {"kind": "loop", "line": 3, "trip_count": "steps", "body": [
        {"kind": "mpi", "op": "send", "line": 4, "peer": "select(rank == 0, 1, -1)", "bytes": "8 * steps"}]}]}})J",
                            R"J("parameters": {"steps": {}})J", "sized.json");
  const auto machine = machine::load_machine_string(kOneCore, "one-core.toml", ".", {"node.cores=2"});
  try {
    predict_timed_part(m, m, symbolic_costs(m), machine, 2, {{"steps", 4}}, {{"steps", 2}});
    FAIL() << "a send of 32 bytes less one of 16 was priced";
  } catch (const UserError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("send in main (line 4) moves 32 bytes a call with rank 1 in the run, 16"), std::string::npos)
        << what;
    EXPECT_NE(what.find("no one call to price"), std::string::npos) << what;
  }
}

// Without a difference in any parameter, the timed part is empty, priced at zero.
TEST(TimedPart, TheSameParametersLeaveNothing) {
  const auto m = set_up_then_loop();
  const auto machine = machine::load_machine_string(kOneCore, "one-core.toml", ".");
  const Prediction p = predict_timed_part(m, m, symbolic_costs(m), machine, 1, {{"steps", 3}}, {{"steps", 3}});
  EXPECT_EQ(p.predicted_time_s, 0.0);
  EXPECT_EQ(p.mca_time_s, 0.0);
  EXPECT_EQ(p.refined_time_s, 0.0);
}

// A footprint whose bound does not evaluate where the baseline never runs its
// loop (a count divided by the steps, at 0 steps) leaves the run's footprint:
// the baseline has nothing in that nest to subtract.
TEST(TimedPart, AFootprintTheBaselineCannotEvaluateStaysTheRuns) {
  const auto m = model_from(R"J({"main": {"body": [
      {"kind": "compute", "load_bytes": "10000000000"},
      {"kind": "loop", "line": 5, "trip_count": "steps",
       "footprint": {"bytes": "8000", "load_bytes": "80000 / steps", "store_bytes": "0"},
       "body": [{"kind": "compute", "flops_double": "100000", "load_bytes": "64000"}]}]}})J",
                            R"J("parameters": {"steps": {}})J", "footprint.json");
  const auto machine = machine::load_machine_string(kOneCore, "one-core.toml", ".");
  const auto costs = symbolic_costs(m);
  ASSERT_FALSE(predict(m, costs, machine, 1, {{"steps", 0}}).footprint_available);
  const Prediction timed = predict_timed_part(m, m, costs, machine, 1, {{"steps", 10}}, {{"steps", 0}});
  ASSERT_TRUE(timed.footprint_available) << timed.footprint_note;
  // The nest's 8000 distinct bytes fit L1, and its every access passes through it; the set-up's stream is gone.
  const double l1_Bps = machine.groups.front().memory.front().bandwidth_Bps;
  EXPECT_DOUBLE_EQ(timed.ranks[0].traffic_s, 8000 / l1_Bps);
  EXPECT_DOUBLE_EQ(timed.ranks[0].l1_access_s, 10 * 64000 / l1_Bps);
  EXPECT_DOUBLE_EQ(timed.footprint_time_s, 10 * 1e5 / machine.groups.front().flops_per_core);
}

namespace {

// A kernel called at two depths (CloverLeaf's update_halo_kernel shape): the
// set-up's call at depth 2, each step's at depth 1, where the nest's
// footprint wraps (an unrolled count a guard skips); its working set depends
// on the depth, so each call keeps a footprint segment of its own. The run's footprint of
// the nest does not evaluate, a 0-step baseline's does (the steps' calls are
// scaled by 0): the nest is priced by its accesses on both sides, and the
// timed part is the steps' accesses.
ProgramModel kernel_at_two_depths() {
  return model_from(R"J({
      "kernel": {"parameters": ["depth"], "body": [
        {"kind": "loop", "line": 5, "trip_count": "100",
         "footprint": {"bytes": "4000 * depth", "load_bytes": "8 * zext(depth - 2, 64) + 8000", "store_bytes": "0"},
         "body": [{"kind": "compute", "load_bytes": "64"}]}]},
      "main": {"body": [
        {"kind": "call", "function": "kernel", "args": {"depth": "2"}},
        {"kind": "loop", "line": 10, "trip_count": "steps", "body": [
          {"kind": "call", "function": "kernel", "args": {"depth": "1"}}]}]}})J",
                    R"J("parameters": {"steps": {}})J", "two_depths.json");
}

const SiteCounts& site_at(const RankCounts& counts, int line) {
  auto it = std::find_if(counts.sites.begin(), counts.sites.end(), [&](const SiteCounts& s) { return s.line == line; });
  if (it == counts.sites.end()) throw std::runtime_error("no site at line " + std::to_string(line));
  return *it;
}

double segment_bytes(const SiteCounts& s) {
  double bytes = 0;
  for (const auto& t : s.memory) bytes += t.load_bytes + t.store_bytes;
  return bytes;
}

}  // namespace

// Where one of a nest's footprints does not evaluate, none is kept: its
// covered accesses hold every caller's bytes, so a footprint that did
// evaluate (the set-up's) would count some of them twice.
TEST(TimedPart, AFootprintThatDoesNotEvaluateDropsTheNestsOtherFootprints) {
  const auto m = kernel_at_two_depths();
  const auto costs = symbolic_costs(m);
  const RankCounts run = evaluate_rank(costs, bind_rank(m, {{"steps", 10}}, 0, 1), 0);
  ASSERT_NE(run.footprint_error.find("line 5"), std::string::npos) << run.footprint_error;
  const SiteCounts& nest = site_at(run, 5);
  for (const auto& t : nest.memory) EXPECT_EQ(t.traffic, Traffic::Access);
  EXPECT_DOUBLE_EQ(segment_bytes(nest), 11 * 100 * 64.0);
  EXPECT_DOUBLE_EQ(segment_bytes(nest), nest.load_bytes + nest.store_bytes);
  // At 0 steps the footprint evaluates: the set-up's 8000 distinct bytes.
  const RankCounts set_up = evaluate_rank(costs, bind_rank(m, {{"steps", 0}}, 0, 1), 0);
  EXPECT_TRUE(set_up.footprint_error.empty()) << set_up.footprint_error;
  double footprint_bytes = 0;
  for (const auto& t : site_at(set_up, 5).memory)
    if (t.traffic == Traffic::Footprint) footprint_bytes += t.load_bytes;
  EXPECT_DOUBLE_EQ(footprint_bytes, 8000);
}

// The 0-step baseline has the nest's footprints, the run has none: both are
// priced by their accesses, and the timed part is the steps' accesses (it was
// refused: "2 memory segments in the run, 1 in the baseline").
TEST(TimedPart, ABaselineWhoseFootprintEvaluatesWhereTheRunsDoesNotIsPricedByAccesses) {
  const auto m = kernel_at_two_depths();
  const auto costs = symbolic_costs(m);
  const auto machine = machine::load_machine_string(kOneCore, "one-core.toml", ".");
  const Prediction timed = predict_timed_part(m, m, costs, machine, 1, {{"steps", 10}}, {{"steps", 0}});
  const RankCounts run = evaluate_rank(costs, bind_rank(m, {{"steps", 10}}, 0, 1), 0);
  const RankCounts set_up = evaluate_rank(costs, bind_rank(m, {{"steps", 0}}, 0, 1), 0);
  const RankCounts& d = timed.ranks[0].counts;
  EXPECT_DOUBLE_EQ(d.load_bytes, 10 * 100 * 64.0);
  EXPECT_DOUBLE_EQ(d.load_bytes, run.load_bytes - set_up.load_bytes);
  EXPECT_DOUBLE_EQ(segment_bytes(site_at(d, 5)), 10 * 100 * 64.0);
  for (const auto& t : site_at(d, 5).memory) EXPECT_EQ(t.traffic, Traffic::Access);
  // The refinement the nest lacks is said, not priced.
  EXPECT_FALSE(timed.footprint_available);
  EXPECT_NE(timed.footprint_note.find("line 5"), std::string::npos) << timed.footprint_note;
  // The nest's 64000 bytes are streamed from DRAM (no working set): the
  // refined time is that traffic.
  EXPECT_DOUBLE_EQ(timed.refined_time_s, 10 * 100 * 64.0 / machine.groups.front().memory.back().bandwidth_Bps);
}

// Segments that are not the same on both sides once the footprints are set
// aside cannot come from one model's costs: refused, naming the site, each
// side's segments and the parameters that differ.
TEST(TimedPart, SegmentsOfAnotherShapeAreRefusedNamingTheSiteAndBoth) {
  auto counts_with_segment = [](int segment_line, double bytes) {
    RankCounts c;
    SiteCounts s;
    s.function = "kernel";
    s.line = 5;
    s.load_bytes = bytes;
    s.memory.push_back(MemoryTraffic{std::nullopt, bytes, 0, segment_line, Traffic::Access});
    add_site_to_rank(c, s);
    return c;
  };
  const expr::Bindings run_bindings{{"steps", expr::Value(10)}}, baseline_bindings{{"steps", expr::Value(0)}};
  try {
    counts_difference(counts_with_segment(6, 800), counts_with_segment(7, 80), run_bindings, baseline_bindings);
    FAIL() << "segments at lines 6 and 7 were subtracted";
  } catch (const UserError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("kernel (line 5) has other memory segments in the run than in the baseline"), std::string::npos)
        << what;
    EXPECT_NE(what.find("run: accesses at line 6 (800 B loaded"), std::string::npos) << what;
    EXPECT_NE(what.find("baseline: accesses at line 7 (80 B loaded"), std::string::npos) << what;
    EXPECT_NE(what.find("steps = 10 in the run, 0 in the baseline"), std::string::npos) << what;
  }
}
