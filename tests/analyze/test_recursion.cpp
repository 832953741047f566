// Recursion (docs/program-model.md, "Recursion"): a function called back
// while it runs is counted once per invocation, times its invocations per
// call from outside the recursion, a parameter the coverage lists and
// nothing defaults. cases/recursive_vcycle.c (a function calling itself)
// and cases/recursive_mutual.c (two calling each other).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "analyze/analyze.h"
#include "events/event.h"
#include "machine/machine_io.h"
#include "model/costs.h"
#include "model/model_events.h"
#include "model/program_model.h"
#include "modelsim/model_simulation.h"
#include "support/error.h"

using namespace perfcast;

namespace {

const std::string kCases = std::string(PERFCAST_SOURCE_DIR) + "/tests/analyze/cases/";

model::ProgramModel analyse(const std::string& name, std::map<std::string, double> branch_probabilities = {},
                            std::vector<std::string> flags = {}) {
  analyze::AnalyzeOptions o;
  o.sources = {kCases + name};
  o.compile_flags = std::move(flags);
  o.mca = false;
  o.branch_probabilities = std::move(branch_probabilities);
  return analyze::analyze_model(o);
}

const model::Coverage::Loop* recursion_of(const model::ProgramModel& m, const std::string& function) {
  for (const auto& l : m.coverage->unknown_loops)
    if (l.recursion && l.function == function) return &l;
  return nullptr;
}

const model::Parameter* parameter(const model::ProgramModel& m, const std::string& name) {
  for (const auto& p : m.parameters)
    if (p.name == name) return &p;
  return nullptr;
}

// Sets the guessed branches at `line` (those without a condition) to `p`, as
// a probe run sets a loop's guard once it has bound the loop's mean trips.
void set_guessed(model::Items& items, int line, double p) {
  for (model::Item& item : items) {
    if (auto* b = std::get_if<model::BranchItem>(&item.body)) {
      if (item.line == line && !b->condition) b->probability = p;
      set_guessed(b->then_items, line, p);
      set_guessed(b->else_items, line, p);
    } else if (auto* l = std::get_if<model::LoopItem>(&item.body)) {
      set_guessed(l->body, line, p);
    }
  }
}

double flops(const model::ProgramModel& m, std::map<std::string, expr::Value> values) {
  for (const auto& p : m.parameters)
    if (!values.count(p.name) && !p.default_value) values[p.name] = 1;
  return model::evaluate_rank(model::symbolic_costs(m), model::bind_rank(m, values, 0, 1), 0).flops_double;
}

}  // namespace

// vcycle(x, n) smooths n elements, calls itself on n - n / 2 (no one
// division of n) down to 64, then corrects n elements: at N = 1024 five
// invocations per call from main, the correction in four. Its loops' trips
// follow n, which the recursion changes, so they are unknown (means over the
// invocations, which a probe run measures), not main's n.
TEST(Recursion, AFunctionCallingItselfRunsItsBodyPerInvocationPerEntry) {
  model::ProgramModel m = analyse("recursive_vcycle_mean.c", {{"recursive_vcycle_mean.c:16", 0.8}});
  ASSERT_TRUE(m.coverage);
  ASSERT_TRUE(m.functions.count("vcycle"));
  set_guessed(m.functions.at("vcycle").body, 15, 1.0);  // the sweep's guard: its trips average over arrivals
  const model::Coverage::Loop* r = recursion_of(m, "vcycle");
  ASSERT_NE(r, nullptr) << "no recursion listed for vcycle";
  EXPECT_EQ(r->trip_count, "vcycle.calls_per_entry");
  EXPECT_EQ(r->site, "recursive_vcycle_mean.c:14");  // its definition, where the probes count its entries
  EXPECT_NE(r->why.find("recursive_vcycle_mean.c:17"), std::string::npos) << r->why;  // the call back
  for (const auto& c : m.coverage->unresolved_calls) EXPECT_NE(c.kind, "recursive") << c.site;

  const model::Parameter* per_entry = parameter(m, "vcycle.calls_per_entry");
  ASSERT_NE(per_entry, nullptr);
  EXPECT_FALSE(per_entry->default_value.has_value()) << "a recursion's count must not default (to 1)";
  ASSERT_NE(parameter(m, "vcycle.loop1.trips"), nullptr);
  ASSERT_NE(parameter(m, "vcycle.loop2.trips"), nullptr);
  EXPECT_EQ(parameter(m, "n"), nullptr) << "vcycle's n priced at main's";

  // Unbound, nothing is predicted: the error names the parameter.
  std::map<std::string, expr::Value> values;
  for (const auto& p : m.parameters)
    if (p.name != per_entry->name && !p.default_value) values[p.name] = 1;
  try {
    model::bind_rank(m, values, 0, 1);
    ADD_FAILURE() << "bound without vcycle.calls_per_entry";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("vcycle.calls_per_entry"), std::string::npos) << e.what();
  }

  // Bound to the source's run at N = 1024, 4 cycles: 5 invocations per
  // call, the sweep over (1024 - 1 + ... + 64 - 1) / 5 elements on average,
  // the correction
  // (in 4 of the 5, the branch's 0.8) over 1920 / 4; 2 flops an element in
  // both. The unrolled loops' shares of a fractional mean (floordiv(T, 4)
  // and mod(T, 4)) add up to it.
  const double expected = 4 * (2.0 * 1979 + 2.0 * 1920);
  double got = flops(m, {{"cycles", 4}, {"vcycle.calls_per_entry", 5},
                         {"vcycle.loop1.trips", 1979.0 / 5}, {"vcycle.loop2.trips", 1920.0 / 4}});
  EXPECT_NEAR(got, expected, 1e-9 * expected);
  // The count multiplies the whole body.
  double twice = flops(m, {{"cycles", 4}, {"vcycle.calls_per_entry", 10},
                           {"vcycle.loop1.trips", 1979.0 / 5}, {"vcycle.loop2.trips", 1920.0 / 4}});
  EXPECT_NEAR(twice, 2 * got, 1e-9 * got);
}

// The same V-cycle calling itself on n / 2 (recursive_vcycle.c): a recursion
// by levels, counted level by level at each level's n, its levels from the
// size test (n > 64), so nothing is left to bind. By hand: at N = 1024 the
// levels 1024 ... 64, the sweep over 1023 + ... + 63 = 1979 elements, the
// correction over 1024 + ... + 128 = 1920; at N = 1000 the levels 1000, 500,
// 250, 125, 62 (125 / 2 rounded down), 1932 swept and 1875 corrected. 2 flops
// an element in both, 4 cycles.
TEST(Recursion, AFunctionCallingItselfOnHalfItsSizeIsCountedLevelByLevel) {
  model::ProgramModel m = analyse("recursive_vcycle.c");
  ASSERT_TRUE(m.coverage);
  EXPECT_EQ(recursion_of(m, "vcycle"), nullptr) << "its invocations are counted, not a parameter";
  EXPECT_EQ(parameter(m, "vcycle.calls_per_entry"), nullptr);
  EXPECT_EQ(parameter(m, "vcycle.loop1.trips"), nullptr) << "the sweep's trips are each level's n - 1";
  ASSERT_NE(parameter(m, "n"), nullptr) << "main's n, the finest level's";
  const auto& body = m.functions.at("vcycle").body;
  ASSERT_EQ(body.size(), 1u);
  const auto* levels = std::get_if<model::LoopItem>(&body[0].body);
  ASSERT_NE(levels, nullptr);
  EXPECT_TRUE(levels->levels);
  EXPECT_EQ(levels->var, "vcycle.level");
  for (const auto& [n, swept, corrected] : {std::tuple{1024, 1979.0, 1920.0}, std::tuple{1000, 1932.0, 1875.0}}) {
    const double expected = 4 * (2.0 * swept + 2.0 * corrected);
    // argc 3: main's n and cycles are the command line's, not its defaults.
    EXPECT_NEAR(flops(m, {{"argc", 3}, {"n", n}, {"cycles", 4}}), expected, 1e-9 * expected) << "n = " << n;
  }
}

// A 1-d V-cycle of the same class with work on both sides of the call and its
// own arrays per level (recursive_levels.c; levels N, N / 2, ... down to the
// first of at most 4 points). Flops by hand: smoothing 3 (n_k - 2) on every
// level, restriction 4 n_k / 2 and prolongation n_k / 2 above the floor. At
// N = 1024 (levels 1024 ... 4): 3 x 2026 + 5 x 1020 = 11178; at N = 100
// (100, 50, 25, 12, 6, 3): 3 x 184 + 5 x 96 = 1032. Bytes: each level's
// smoothing reads u and r and writes u over its own n_k points, about 16 n_k
// distinct bytes, and each level's traffic is its own memory segment with that
// working set, which picks the memory level it is priced at: not the finest
// level's, not a mean.
TEST(Recursion, EachLevelsBytesAreTrafficAtItsOwnWorkingSet) {
  model::ProgramModel m = analyse("recursive_levels.c");
  EXPECT_EQ(parameter(m, "vcycle.calls_per_entry"), nullptr);
  EXPECT_NEAR(flops(m, {{"argc", 2}, {"n", 1024}}), 11178, 1e-9);
  EXPECT_NEAR(flops(m, {{"argc", 2}, {"n", 100}}), 1032, 1e-9);

  std::map<std::string, expr::Value> values = {{"argc", 2}, {"n", 1024}};
  for (const auto& p : m.parameters)
    if (!values.count(p.name) && !p.default_value) values[p.name] = 1;
  const auto counts = model::evaluate_rank(model::symbolic_costs(m), model::bind_rank(m, values, 0, 1), 0);
  const int smoothing_line = 15;
  const model::SiteCounts* smoothing = nullptr;
  for (const auto& s : counts.sites)
    if (s.function == "vcycle" && s.line == smoothing_line) smoothing = &s;
  ASSERT_NE(smoothing, nullptr);
  std::vector<const model::MemoryTraffic*> levels;
  for (const auto& t : smoothing->memory)
    if (t.traffic == model::Traffic::Footprint && t.load_bytes + t.store_bytes > 0) levels.push_back(&t);
  ASSERT_EQ(levels.size(), 9u) << "one footprint a level, 1024 ... 4";
  for (size_t k = 0; k < levels.size(); ++k) {
    const double n_k = 1024 >> k;
    ASSERT_TRUE(levels[k]->working_set_bytes);
    SCOPED_TRACE(::testing::Message() << "level " << k << ", " << n_k << " points");
    // u[0 .. n_k - 1] read, r[1 .. n_k - 2] read, u[1 .. n_k - 2] written.
    EXPECT_GE(*levels[k]->working_set_bytes, 16 * n_k - 32);
    EXPECT_LE(*levels[k]->working_set_bytes, 16 * n_k + 16);
    EXPECT_GE(levels[k]->load_bytes + levels[k]->store_bytes, 16 * n_k - 32);
  }
}

// The same V-cycle stopping also on a value of its data (-DSTOP_ON_DATA): the
// branch to the call back is a guess, so the number of levels is not known
// and is the parameter vcycle.calls_per_entry, listed in the coverage as a
// recursion; each level is still counted at its own n (no mean trips to bind).
TEST(Recursion, ALevelsCountTheModelCannotStateIsAParameter) {
  model::ProgramModel m = analyse("recursive_levels.c", {}, {"-DSTOP_ON_DATA=1"});
  const model::Coverage::Loop* r = recursion_of(m, "vcycle");
  ASSERT_NE(r, nullptr) << "the levels' count is left for a probe run or --param";
  EXPECT_EQ(r->trip_count, "vcycle.calls_per_entry");
  const model::Parameter* per_entry = parameter(m, "vcycle.calls_per_entry");
  ASSERT_NE(per_entry, nullptr);
  EXPECT_FALSE(per_entry->default_value.has_value());
  EXPECT_NE(per_entry->description.find("each level's n"), std::string::npos) << per_entry->description;
  EXPECT_EQ(parameter(m, "vcycle.loop1.trips"), nullptr) << "each level's loops run its own n";
  const auto* levels = std::get_if<model::LoopItem>(&m.functions.at("vcycle").body.at(0).body);
  ASSERT_NE(levels, nullptr);
  EXPECT_TRUE(levels->levels);
  // One level bound: level 0 alone, its smoothing (3 x 1022 flops) and, on the
  // guessed side of the stop, its restriction and prolongation (5 x 512).
  const double one = flops(m, {{"argc", 2}, {"n", 1024}, {"vcycle.calls_per_entry", 1}});
  EXPECT_GE(one, 3 * 1022);
  EXPECT_LE(one, 3 * 1022 + 5 * 512);
}

// sweep_down calls sweep_up calls sweep_down: the recursion is counted at
// the function the program enters it by, sweep_down, whose body holds the
// call of sweep_up (whose call back is left out); the count multiplies both.
TEST(Recursion, TwoFunctionsCallingEachOtherAreCountedWhereTheProgramEnters) {
  model::ProgramModel m = analyse("recursive_mutual.c");
  ASSERT_TRUE(m.coverage);
  const model::Coverage::Loop* r = recursion_of(m, "sweep_down");
  ASSERT_NE(r, nullptr) << "no recursion listed for sweep_down";
  EXPECT_EQ(r->trip_count, "sweep_down.calls_per_entry");
  EXPECT_NE(r->why.find("recursive_mutual.c:26"), std::string::npos) << r->why;  // sweep_up's call back
  EXPECT_EQ(recursion_of(m, "sweep_up"), nullptr);
  const model::Parameter* per_entry = parameter(m, "sweep_down.calls_per_entry");
  ASSERT_NE(per_entry, nullptr);
  EXPECT_FALSE(per_entry->default_value.has_value());
  ASSERT_TRUE(m.functions.count("sweep_up"));

  double once = flops(m, {{"sweep_down.calls_per_entry", 1}});
  double thrice = flops(m, {{"sweep_down.calls_per_entry", 3}});
  EXPECT_GT(once, 0);
  EXPECT_NEAR(thrice, 3 * once, 1e-9 * once);
  // sweep_up's work is in each invocation: more than sweep_down's loop alone.
  model::ProgramModel down_only = m;
  down_only.functions.at("sweep_up").body.clear();
  EXPECT_GT(once, flops(down_only, {{"sweep_down.calls_per_entry", 1}}));
  for (const auto& c : m.coverage->unresolved_calls) EXPECT_NE(c.kind, "recursive") << c.site;
}

// sweep_down inlined into main and into sweep_up: the code's cycle is
// sweep_up alone, and main holds one level of the recursion (sweep_down's
// work, then its call of sweep_up). The count per entry the probes measure
// is of the source's cycle, which that level is part of: main's call is
// listed as a recursion the count does not hold for, not priced silently.
TEST(Recursion, ALevelOfTheRecursionInlinedIntoItsCallerIsListed) {
  model::ProgramModel m = analyse("recursive_mutual.c", {}, {"-DSWEEP_DOWN_INLINED"});
  ASSERT_TRUE(m.coverage);
  ASSERT_NE(recursion_of(m, "sweep_up"), nullptr);
  bool listed = false;
  for (const auto& c : m.coverage->unresolved_calls)
    if (c.kind == "recursive") {
      listed = true;
      EXPECT_EQ(c.callee, "sweep_up");
      EXPECT_EQ(c.caller, "main");
      EXPECT_EQ(c.site, "recursive_mutual.c:20");  // sweep_down's call, inlined into main
    }
  EXPECT_TRUE(listed);
}

// A multigrid solver's shape (apps/mg): a recursive V-cycle whose every level
// exchanges a halo (MPI_Sendrecv) and whose coarsest sums over the ranks
// (MPI_Allreduce), run for a number of cycles read through a pointer (the loop's
// exit depends on data: its trips are a parameter) between MPI_Pcontrol marks,
// inside a loop of repeats. The optimiser tests the cycle count before the
// rotated loop; that test is the loop's guard (it runs when the trips are > 0),
// not a guessed branch, which the event walk takes wholly or not at all: the
// simulated run would lose every cycle (or keep them all) whatever the formula
// counts. The events must hold, at two cycle counts, the calls a hand count
// gives and the flops the formula gives.
TEST(Recursion, AVCycleWithMpiCallsIsSimulatedAtEveryCycleTheFormulaCounts) {
  // LEVELS = 4: three invocations recurse, the coarsest sums (the level test,
  // line 25, recurses with probability 3/4).
  model::ProgramModel m = analyse("recursive_vcycle_mpi.c", {{"recursive_vcycle_mpi.c:25", 0.75}});
  ASSERT_TRUE(m.coverage);
  for (const auto& b : m.coverage->guessed_branches)
    EXPECT_NE(b.site, "recursive_vcycle_mpi.c:52") << "the cycle loop's guard is priced as a guess: " << b.why;
  auto machine = machine::load_machine_string(R"(
name = "vcycle"
[node]
count = 2
cores = 1
flops_per_core = "1 Gflop/s"
[memory]
DRAM = { bandwidth = "1 TB/s" }
[network]
latency = "1 us"
bandwidth = "1 GB/s"
)",
                                              "vcycle.toml");
  // The solver's rank and size, read from its struct: per rank, as --param
  // s.rank=rank makes them.
  for (auto& p : m.parameters)
    if (p.name == "s.rank" || p.name == "s.size") p.default_value = expr::var(p.name == "s.rank" ? "rank" : "size");
  const int np = 2;
  double region_at_2 = 0;
  for (int cycles : {2, 5}) {
    // N = 1536: the sweep's mean over the 4 levels (1535 + 767 + 383 + 191) / 4,
    // the correction's over the 3 that recurse (1536 + 768 + 384) / 3 (whole means:
    // an unrolled loop's shares of a fractional one count within an iteration).
    std::map<std::string, expr::Value> params = {{"argc", 5},
                                                 {"repeats", 1},
                                                 {"main.loop2.trips", cycles},
                                                 {"vcycle.calls_per_entry", 4},
                                                 {"vcycle.loop1.trips", 2876 / 4},
                                                 {"vcycle.loop2.trips", 2688 / 3}};
    for (const auto& p : m.parameters)
      ASSERT_TRUE(params.count(p.name) || p.default_value) << p.name << " unbound";
    const auto streams = model::model_events(m, np, params);
    ASSERT_EQ(streams.size(), static_cast<std::size_t>(np));
    for (const auto& r : streams) {
      std::map<std::string, int> calls;
      double flops = 0;
      for (const auto& e : r.events) {
        if (e.kind == events::Kind::Compute) flops += e.flops;
        else ++calls[std::string(events::kind_name(e.kind))];
      }
      SCOPED_TRACE(::testing::Message() << cycles << " cycles, rank " << r.rank);
      EXPECT_EQ(calls["sendrecv"], 4 * cycles);   // one halo per level
      EXPECT_EQ(calls["allreduce"], cycles + 1);  // the coarsest's sum, then the repeat's time
      EXPECT_EQ(calls["pcontrol"], 2);
      // 2 flops an element in the sweep (4 levels) and in the correction (3); the
      // repeat's clock difference, 1.
      const double by_hand = cycles * (2.0 * 2876 + 2.0 * 2688) + 1;
      const double formula = model::evaluate_rank(model::symbolic_costs(m), model::bind_rank(m, params, r.rank, np),
                                                  r.rank)
                                 .flops_double;
      EXPECT_NEAR(formula, by_hand, 1e-9 * by_hand);
      EXPECT_NEAR(flops, formula, 1e-9 * formula);
    }
    // On the simulator: the timed region between the marks holds the cycles.
    const auto simulated = modelsim::simulate_model(m, machine, np, params);
    ASSERT_TRUE(simulated.timed_region.has_value());
    ASSERT_TRUE(simulated.timed_region->problem.empty()) << simulated.timed_region->problem;
    // Each cycle: 11128 flops at 1 Gflop/s, then 4 halos of 64 bytes and 1 sum.
    const double per_cycle = 11128e-9;
    std::cout << cycles << " cycles: timed region " << simulated.timed_region->time_s << " s (compute alone "
              << cycles * per_cycle << " s)\n";
    EXPECT_GE(simulated.timed_region->time_s, cycles * per_cycle);
    EXPECT_LE(simulated.timed_region->time_s, cycles * per_cycle * 2);
    if (cycles == 2) region_at_2 = simulated.timed_region->time_s;
    else EXPECT_NEAR(simulated.timed_region->time_s / region_at_2, 2.5, 0.1);
  }
}
