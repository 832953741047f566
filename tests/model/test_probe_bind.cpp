// A probe run's branch fractions bound onto a model: the fraction measured on
// the condition's true side as written goes to the model's side that starts
// at the same source line, `then` or, where the optimiser inverted the test,
// `else`; when the lines do not say, or were not recorded, to `then`, and the
// status says so.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>

#include "model/costs.h"
#include "model/model_write.h"
#include "model/probe_arguments.h"
#include "model/probe_bind.h"
#include "model/probe_loop_trips.h"
#include "model/probe_paths.h"
#include "model/probe_per_rank.h"
#include "model/probe_selectors.h"
#include "model/probe_unpriced.h"
#include "model/program_model.h"
#include "support/expr.h"

using namespace perfcast;
using namespace perfcast::model;

namespace {

// A model of three functions, each one guessed branch at line `at` whose sides
// start at `then_line` and `else_line`.
struct Case {
  const char* function;
  int at, then_line, else_line;
};

ProgramModel model_of(const std::vector<Case>& cases) {
  ProgramModel m;
  m.entry = cases.front().function;
  m.coverage = Coverage{};
  for (const Case& c : cases) {
    BranchItem b;
    b.then_line = c.then_line;
    b.else_line = c.else_line;
    Function f;
    f.name = c.function;
    f.body.push_back(Item{c.at, "", b});
    m.functions[c.function] = f;
    m.coverage->guessed_branches.push_back({c.function, "dir/f.c:" + std::to_string(c.at), 0.5, "data-dependent condition"});
  }
  return m;
}

double probability(const ProgramModel& m, const char* function) {
  return std::get<BranchItem>(m.functions.at(function).body.front().body).probability;
}

TEST(ProbeBind, TheTakenFractionGoesToTheSideThatStartsWhereTheTakenSideDid) {
  // Taken 3 times in 4; the taken side starts at the line after the test, the other two lines on.
  ProbeRun run{"./app", 2, {}, {}};
  for (int at : {10, 20, 30, 40}) {
    run.features["f.c:" + std::to_string(at) + ":branch.taken"] = 3;
    run.features["f.c:" + std::to_string(at) + ":branch.not_taken"] = 1;
    run.code["f.c:" + std::to_string(at) + ":branch.taken_line"] = at + 1;
    run.code["f.c:" + std::to_string(at) + ":branch.not_taken_line"] = at + 3;
  }
  ProgramModel m = model_of(
      {{"as_written", 10, 11, 13}, {"inverted", 20, 23, 21}, {"untold", 30, 35, 37}, {"no_lines", 40, 0, 0}});
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  ASSERT_EQ(found.size(), 4u);
  EXPECT_DOUBLE_EQ(probability(m, "as_written"), 0.75);
  EXPECT_EQ(found[0].status, "bound");
  EXPECT_DOUBLE_EQ(probability(m, "inverted"), 0.25);
  EXPECT_NE(found[1].status.find("inverted"), std::string::npos) << found[1].status;
  EXPECT_DOUBLE_EQ(*m.coverage->guessed_branches[1].probe_probability, 0.25);
  EXPECT_DOUBLE_EQ(probability(m, "untold"), 0.75);
  EXPECT_NE(found[2].status.find("do not say"), std::string::npos) << found[2].status;
  // A model written before the analyser wrote the lines: as written, as before.
  EXPECT_DOUBLE_EQ(probability(m, "no_lines"), 0.75);
  EXPECT_NE(found[3].status.find("no lines"), std::string::npos) << found[3].status;
}

TEST(ProbeBind, SidesStartingOnOneLineAreNotToldApart) {
  ProbeRun run{"./app", 1, {{"f.c:10:branch.taken", 1}, {"f.c:10:branch.not_taken", 3}},
               {{"f.c:10:branch.taken_line", 11}, {"f.c:10:branch.not_taken_line", 11}}};
  ProgramModel m = model_of({{"one_line", 10, 11, 11}});
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  EXPECT_DOUBLE_EQ(probability(m, "one_line"), 0.25);
  EXPECT_NE(found[0].status.find("do not say"), std::string::npos) << found[0].status;
}

// `if (p == me) return; n = a * b; send(n)`: the optimised code's send side
// starts where the optimiser sank code into it (line 14), the probes' side at
// the length (17), and the return's side has no line in the model. Neither
// line tells; the model's empty `then` is the probes' side that does nothing,
// taken 3 times in 4 as written, and not taken 3 times in 4 where the probes'
// code tests it the other way.
TEST(ProbeBind, AnEmptySideIsTheProbesSideThatDoesNothingWhereTheLinesDoNotTell) {
  ProbeRun run{"./app", 2, {}, {}};
  const std::map<int, std::pair<double, const char*>> probes = {
      {10, {30, "taken_empty"}}, {20, {10, "not_taken_empty"}}, {30, {10, nullptr}}};
  for (const auto& [at, probe] : probes) {
    const std::string base = "f.c:" + std::to_string(at) + ":branch";
    run.features[base + ".taken"] = probe.first;
    run.features[base + ".not_taken"] = 40 - probe.first;
    run.code[base + ".taken_line"] = at + 9;
    run.code[base + ".not_taken_line"] = at + 7;
    if (probe.second) run.code[base + "." + probe.second] = 1;
  }
  ProgramModel m = model_of({{"as_written", 10, 0, 14}, {"inverted", 20, 0, 24}, {"no_fact", 30, 0, 34}});
  for (auto& [name, f] : m.functions)
    std::get<BranchItem>(f.body.front().body).else_items.push_back(Item{f.body.front().line + 4, "", ComputeItem{}});
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  ASSERT_EQ(found.size(), 3u);
  // Said so: a different test at the line could share an empty side.
  EXPECT_DOUBLE_EQ(probability(m, "as_written"), 0.75);
  EXPECT_NE(found[0].status.find("empty side"), std::string::npos) << found[0].status;
  EXPECT_EQ(found[0].status.find("else side"), std::string::npos) << found[0].status;
  EXPECT_DOUBLE_EQ(probability(m, "inverted"), 0.75);
  EXPECT_NE(found[1].status.find("empty side"), std::string::npos) << found[1].status;
  EXPECT_NE(found[1].status.find("else side"), std::string::npos) << found[1].status;
  // No side marked: not told, priced as written.
  EXPECT_DOUBLE_EQ(probability(m, "no_fact"), 0.25);
  EXPECT_NE(found[2].status.find("do not say"), std::string::npos) << found[2].status;
}

// Two guessed items at one line: the branch `if (failures) print(...)` and
// the analyser's "reached on some paths" for the code after it (a join it
// could not place). The taken fraction is the branch's only: the join keeps
// its guess, and the finding says why.
TEST(ProbeBind, AJoinReachedOnSomePathsIsNotTheBranchAtItsLine) {
  ProbeRun run{"./app", 2, {{"f.c:30:branch.taken", 0}, {"f.c:30:branch.not_taken", 4}},
               {{"f.c:30:branch.taken_line", 31}, {"f.c:30:branch.not_taken_line", 33}}};
  ProgramModel m = model_of({{"driver", 30, 31, 33}});
  BranchItem join;
  join.then_items.push_back(Item{40, "", LoopItem{}});
  m.functions["driver"].body.push_back(Item{30, "inlined from print; reached on some paths", join});
  m.coverage->guessed_branches.push_back({"driver", "dir/f.c:30", 0.5, "reached on some paths"});
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_DOUBLE_EQ(probability(m, "driver"), 0.0);
  EXPECT_DOUBLE_EQ(std::get<BranchItem>(m.functions.at("driver").body.back().body).probability, 0.5);
  EXPECT_FALSE(m.coverage->guessed_branches[1].probe_probability);
  EXPECT_NE(found[1].status.find("join"), std::string::npos) << found[1].status;
}

// The code after `if (step > 0 && step % every) return;` is a join the
// analyser could not place. The run arrived 22 times at the early return's
// line and 4 times at the loop the join holds: the join is reached 4 times in
// 22. Without a counted line in it, it keeps its guess and says why.
TEST(ProbeBind, AJoinIsReachedAsOftenAsTheFirstCountedLineItHolds) {
  auto model_with_join = [] {
    ProgramModel m = model_of({{"report", 19, 19, 21}});
    m.functions["report"].body.front().body = BranchItem{expr::parse("step > 0"), std::nullopt, 0.5, {}, {}, 0, 0};
    BranchItem join;
    join.then_items.push_back(Item{21, "", ComputeItem{}});
    join.then_items.push_back(Item{22, "", LoopItem{}});
    m.functions["report"].body.push_back(Item{19, "reached on some paths", join});
    m.coverage->guessed_branches.front().why = "reached on some paths";
    return m;
  };
  ProbeRun run{"./app", 2,
               {{"f.c:19:branch.taken", 20}, {"f.c:19:branch.not_taken", 2}, {"f.c:22:loop.entries", 4},
                {"f.c:22:loop.headers", 4004}, {"f.c:22:branch.taken", 4000}, {"f.c:22:branch.not_taken", 4}},
               {}};
  ProgramModel m = model_with_join();
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_DOUBLE_EQ(std::get<BranchItem>(m.functions.at("report").body.back().body).probability, 4.0 / 22);
  EXPECT_DOUBLE_EQ(m.coverage->guessed_branches[0].probe_probability.value_or(-1), 4.0 / 22);
  EXPECT_NE(m.functions.at("report").body.back().note.find("probe run"), std::string::npos);

  run.features.erase("f.c:22:loop.entries");
  run.features.erase("f.c:22:loop.headers");
  run.features.erase("f.c:22:branch.taken");
  run.features.erase("f.c:22:branch.not_taken");
  m = model_with_join();
  found = bind_probe_run(m, run);
  EXPECT_DOUBLE_EQ(std::get<BranchItem>(m.functions.at("report").body.back().body).probability, 0.5);
  EXPECT_NE(found[0].status.find("left at its guess"), std::string::npos) << found[0].status;
}

// SNAP's simultaneous sweeps: `IF (grp(1) == 0) done = .TRUE.` at line 203,
// then `DO; IF (ALL(done)) EXIT; ...` at 212, reached on some paths (the
// optimiser jumps past the loop where every flag was set), the loop behind its
// guard `ncor < 1` (no corners: ALL is true), a test the model computes, with
// no line. The guard sends all of a rank's arrivals one way, so the loop's
// entries are the join's arrivals where it passes: 14 in 14 arrivals at the
// flags' loop (line 192) around it.
TEST(ProbeBind, AJoinIsReachedAsOftenAsTheCountedLineBehindAGuardTheModelComputes) {
  auto model_with_guarded_join = [] {
    ProgramModel m;
    m.entry = "sweep";
    m.coverage = Coverage{};
    Function f;
    f.name = "sweep";
    BranchItem clear{expr::parse("ncor < 1"), std::nullopt, 0.5, {}, {}, 0, 0};
    LoopItem flags, passes;
    flags.trip_count = expr::parse("ncor");
    passes.trip_count = expr::parse("passes");
    clear.else_items.push_back(Item{192, "", flags});
    f.body.push_back(Item{191, "", clear});
    BranchItem guard{expr::parse("ncor < 1"), std::nullopt, 0.5, {}, {}, 0, 0};
    guard.else_items.push_back(Item{212, "", passes});
    BranchItem join;
    join.then_items.push_back(Item{0, "", guard});
    f.body.push_back(Item{203, "reached on some paths", join});
    m.functions["sweep"] = f;
    m.coverage->guessed_branches.push_back({"sweep", "src/sweep.f90:203", 0.5, "reached on some paths"});
    return m;
  };
  ProbeRun run{"./snap", 2,
               {{"sweep.f90:192:loop.entries", 14}, {"sweep.f90:192:loop.headers", 70},
                {"sweep.f90:212:loop.entries", 14}, {"sweep.f90:212:loop.headers", 1070}},
               {}};
  ProgramModel m = model_with_guarded_join();
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_DOUBLE_EQ(std::get<BranchItem>(m.functions.at("sweep").body.back().body).probability, 1.0) << found[0].status;
  // Reached on 7 of the 14 arrivals: a half.
  run.features["sweep.f90:212:loop.entries"] = 7;
  m = model_with_guarded_join();
  found = bind_probe_run(m, run);
  EXPECT_DOUBLE_EQ(std::get<BranchItem>(m.functions.at("sweep").body.back().body).probability, 0.5) << found[0].status;
}

}  // namespace

namespace {

// A function `spmv` whose loops at `lines` run `trips` iterations of 2 flops,
// the size a parameter read from memory.
ProgramModel sized_model(const std::vector<int>& lines, const std::string& trips) {
  ProgramModel m;
  m.entry = "spmv";
  m.coverage = Coverage{};
  m.parameters.push_back({"spmv.nrow", "source variable nrow of spmv", std::nullopt, true, ""});
  Function f;
  f.name = "spmv";
  for (int line : lines) {
    LoopItem l;
    l.trip_count = perfcast::expr::parse(trips);
    ComputeItem row;
    row.flops_double = 2;
    l.body.push_back(Item{line, "", row});
    f.body.push_back(Item{line, "", l});
  }
  m.functions["spmv"] = f;
  return m;
}

TEST(ProbeBind, ASizeReadFromMemoryIsTheMeanTripsOfTheLoopsItSizes) {
  // Called on 4096, 512 and 64 rows once each: 4672 iterations over 3 arrivals.
  ProbeRun run{"./app", 1, {{"spmv.c:61:loop.headers", 4672 + 3}, {"spmv.c:61:loop.entries", 3},
                            {"other.c:61:loop.headers", 10}, {"other.c:61:loop.entries", 1}},
               {}};
  ProgramModel m = sized_model({61}, "zext(spmv.nrow, 32)");
  m.coverage->unknown_loops.push_back({"spmv", "src/spmv.c:67", "spmv.loop2.trips", "read from memory"});
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  ASSERT_TRUE(m.parameters[0].default_value);
  // 1557.33: the program holds the size in an integer, but the model uses it
  // only as a size, whose totals are linear in it, and the mean passes its
  // cast; an integer is no longer claimed.
  EXPECT_EQ(expr::to_string(*m.parameters[0].default_value), "1557.333333");
  EXPECT_FALSE(m.parameters[0].integer);
  // Tested otherwise (`nrow > 2000` decides a side for every call): the nearest.
  ProgramModel tested = sized_model({61}, "zext(spmv.nrow, 32)");
  BranchItem big;
  big.condition = expr::parse("spmv.nrow > 2000");
  tested.functions["spmv"].body.push_back(Item{70, "", big});
  tested.coverage->unknown_loops.push_back({"spmv", "src/spmv.c:67", "spmv.loop2.trips", "read from memory"});
  found = bind_probe_run(tested, run);
  ASSERT_TRUE(tested.parameters[0].default_value);
  EXPECT_EQ(expr::to_string(*tested.parameters[0].default_value), "1557");
  EXPECT_TRUE(tested.parameters[0].integer);
  EXPECT_EQ(m.parameters[0].origin, "probe run: `./app` on 1 rank");

  // Two loops it sizes that ran different means: each loop reads its own
  // mean (ProbeBind.LoopsOfOneSizeThatRanDifferentMeansEachReadTheirOwn).
  run.features["spmv.c:86:loop.headers"] = 100 + 1;
  run.features["spmv.c:86:loop.entries"] = 1;
  ProgramModel two = sized_model({61, 86}, "spmv.nrow");
  two.coverage->unknown_loops.push_back({"spmv", "src/spmv.c:67", "spmv.loop2.trips", "read from memory"});
  found = bind_probe_run(two, run);
  EXPECT_EQ(expr::to_string(std::get<LoopItem>(two.functions["spmv"].body[0].body).trip_count), "spmv.loop_at61.nrow");
  EXPECT_EQ(expr::to_string(std::get<LoopItem>(two.functions["spmv"].body[1].body).trip_count), "spmv.loop_at86.nrow");
}

// A kernel's row count (`spmv.nrow`, one parameter for every call) sizes a
// loop on each side of a branch, the fine matrix's and the coarse one's
// (AMG's matvec, y = A x and y = A x + y), and a third loop the run never
// reached, and a fourth no probe counted. No one value is right for all: each
// measured loop, and its guard at its line, reads a parameter of its own, that
// loop's mean; the size keeps its other uses (a test elsewhere, the loop
// without a probe), bound to the mean over every arrival at the measured ones.
TEST(ProbeBind, LoopsOfOneSizeThatRanDifferentMeansEachReadTheirOwn) {
  ProgramModel m;
  m.entry = "spmv";
  m.coverage = Coverage{};
  m.parameters.push_back({"A.nrow", "field A.nrow of spmv (spmv_c:40), read from memory", std::nullopt, true, ""});
  Function f;
  f.name = "spmv";
  // if (A.nrow > 0) for (i < A.nrow) { flops 2 } at each loop's line.
  auto guarded_loop = [](int line) {
    LoopItem l;
    l.trip_count = expr::parse("A.nrow");
    l.body.push_back(
        Item{line + 1, "", ComputeItem{expr::parse("2"), Expr(0), Expr(0), Expr(0), Expr(0), Expr(0), {}}});
    BranchItem guard{expr::parse("A.nrow > 0"), std::nullopt, 0.5, {}, {}, 0, 0};
    guard.then_items.push_back(Item{line, "", l});
    return Item{line, "", guard};
  };
  BranchItem side{std::nullopt, std::nullopt, 0.25, {}, {}, 0, 0};
  side.then_items.push_back(guarded_loop(50));
  side.else_items.push_back(guarded_loop(60));
  f.body.push_back(Item{48, "", side});
  f.body.push_back(guarded_loop(70));
  // A loop no probe counted (a unit built without them): it keeps the size.
  f.body.push_back(guarded_loop(90));
  // A test of the size at another line, which no loop's mean decides.
  BranchItem big{expr::parse("A.nrow > 1000"), std::nullopt, 0.5, {}, {}, 0, 0};
  f.body.push_back(Item{80, "", big});
  m.functions["spmv"] = f;
  // The fine matrix, 1000 rows, once; the coarse ones, 125 then 25 rows.
  ProbeRun run{"./app",
               1,
               {{"spmv.c:50:loop.headers", 1000 + 1},
                {"spmv.c:50:loop.entries", 1},
                {"spmv.c:60:loop.headers", 150 + 2},
                {"spmv.c:60:loop.entries", 2},
                {"spmv.c:70:loop.headers", 0},
                {"spmv.c:70:loop.entries", 0}},
               {}};
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  auto value = [&](const std::string& name) -> std::string {
    for (const Parameter& p : m.parameters)
      if (p.name == name) return p.default_value ? expr::to_string(*p.default_value) : "required";
    return "absent";
  };
  EXPECT_EQ(value("spmv.loop_at50.nrow"), "1000");
  EXPECT_EQ(value("spmv.loop_at60.nrow"), "75");
  EXPECT_EQ(value("spmv.loop_at70.nrow"), "0");
  // 1150 rows over 3 arrivals, to the nearest whole number (an integer).
  EXPECT_EQ(value("A.nrow"), "383");
  const Items& body = m.functions["spmv"].body;
  const auto& fine_guard = std::get<BranchItem>(std::get<BranchItem>(body[0].body).then_items[0].body);
  EXPECT_EQ(expr::to_string(*fine_guard.condition), "spmv.loop_at50.nrow > 0");
  EXPECT_EQ(expr::to_string(std::get<LoopItem>(fine_guard.then_items[0].body).trip_count), "spmv.loop_at50.nrow");
  EXPECT_EQ(expr::to_string(std::get<LoopItem>(std::get<BranchItem>(body[2].body).then_items[0].body).trip_count),
            "A.nrow");
  EXPECT_EQ(expr::to_string(*std::get<BranchItem>(body[3].body).condition), "A.nrow > 1000");
  // The flops: 2 a row of each loop's own rows, each side by its share.
  expr::Bindings bound;
  for (const Parameter& p : m.parameters)
    if (p.default_value) bound[p.name] = expr::evaluate(*p.default_value, {}).real();
  EXPECT_DOUBLE_EQ(expr::evaluate(symbolic_costs(m).flops_double, bound).real(),
                   0.25 * 2 * 1000 + 0.75 * 2 * 75 + 2 * 383);
  int per_loop = 0;
  for (const ProbeFinding& f : found) per_loop += f.name.find(".loop_at") != std::string::npos;
  EXPECT_EQ(per_loop, 3);
}

// A size read from memory whose loop the optimiser unrolled by 2 (HPCG's
// restriction, `for (i = 0; i < nc; ++i)`): the model's loop runs nc / 2
// iterations, its remainder one more when nc is odd; the probe at the line
// counted the source loop's nc per arrival, the size's mean over the calls.
TEST(ProbeBind, ASizeOfALoopUnrolledByTwoIsTheMeanTripsOfTheSourceLoop) {
  const std::string unrolled = "floordiv(zext(2 * trunc(floordiv(zext(spmv.nrow, 32), 2), 30) - 2, 64), 2) + 1";
  auto with_remainder = [&](const std::string& remainder) {
    ProgramModel m = sized_model({51}, unrolled);
    BranchItem odd;
    odd.condition = expr::parse(remainder);
    m.functions["spmv"].body.push_back(Item{51, "", odd});
    m.coverage->unknown_loops.push_back({"spmv", "src/spmv.c:67", "spmv.loop2.trips", "read from memory"});
    return m;
  };
  // Called on 512, 64 and 8 coarse rows: 584 iterations over 3 arrivals.
  ProbeRun run{"./app", 1, {{"spmv.c:51:loop.headers", 584 + 3}, {"spmv.c:51:loop.entries", 3}}, {}};
  ProgramModel m = with_remainder("trunc(spmv.nrow, 1) == 0");
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  ASSERT_TRUE(m.parameters[0].default_value);
  // 194.67, to the nearest whole number: the remainder's test needs one.
  EXPECT_EQ(expr::to_string(*m.parameters[0].default_value), "195");

  // The same trips with no remainder are a source loop of nrow / 2
  // iterations: the probe's mean is not nrow's, which is left to the user.
  ProgramModel halved = with_remainder("spmv.nrow > 100");
  bind_probe_run(halved, run);
  EXPECT_FALSE(halved.parameters[0].default_value);
}

// A size whose loop the optimiser unrolled by 4 with its remainder a loop of
// its low bits (HPCG's halo packing, `for (i = 0; i < totalToBeSent; i++)`:
// the pairs' trips a form the unrolled-loop rule does not read, the rest
// `trunc(n, 2)` trips behind a test of them). A mean of the values has no low
// bits to take (117.75 is no n mod 4): the size is the nearest whole number,
// and the model evaluates.
TEST(ProbeBind, ASizeWhoseLowBitsTheModelReadsIsBoundWhole) {
  const std::string pairs = "floordiv(max(4 * trunc(floordiv(zext(spmv.nrow, 32), 4), 29) - 4, 0), 4) + 1";
  ProgramModel m = sized_model({82}, pairs);
  LoopItem rest;
  rest.trip_count = expr::parse("trunc(spmv.nrow, 2)");
  ComputeItem element;
  element.flops_double = 2;
  rest.body.push_back(Item{82, "", element});
  BranchItem none_left;
  none_left.condition = expr::parse("trunc(spmv.nrow, 2) == 0");
  none_left.else_items.push_back(Item{82, "", rest});
  m.functions["spmv"].body.push_back(Item{82, "", none_left});
  m.coverage->unknown_loops.push_back({"spmv", "src/spmv.c:67", "spmv.loop2.trips", "read from memory"});
  EXPECT_TRUE(reads_low_bits(m, "spmv.nrow"));
  EXPECT_FALSE(reads_low_bits(sized_model({82}, "zext(spmv.nrow, 32)"), "spmv.nrow"));  // a cast, not low bits
  {  // A caller's value passed as the size (PENNANT's chunk bounds, doCycle.calcForce_11.slast) reads them too.
    ProgramModel calls = m;
    CallItem call;
    call.function = "spmv";
    call.args.push_back({"spmv.nrow", expr::parse("main.n + 1")});
    Function caller;
    caller.name = "main";
    caller.body.push_back(Item{5, "", call});
    calls.functions["main"] = caller;
    EXPECT_TRUE(reads_low_bits(calls, "main.n"));
    EXPECT_FALSE(reads_low_bits(calls, "main.other"));
  }

  // Four calls of 117, 118, 118 and 118 elements: 471 over 4 arrivals.
  ProbeRun run{"./app", 1, {{"spmv.c:82:loop.headers", 471 + 4}, {"spmv.c:82:loop.entries", 4}}, {}};
  bind_probe_run(m, run);
  ASSERT_TRUE(m.parameters[0].default_value);
  EXPECT_EQ(expr::to_string(*m.parameters[0].default_value), "118");
  expr::Bindings bound{{"spmv.nrow", expr::evaluate(*m.parameters[0].default_value, {})}};
  // 118 = 29 pairs' loop trips (2 flops a trip in this model) and 2 left over (2 flops each).
  EXPECT_DOUBLE_EQ(expr::evaluate(symbolic_costs(m).flops_double, bound).real(), 2 * 29 + 2 * 2);
}

// `DO m = 2, n` beside `DO i = 1, n` (SNAP's setup_angle): flang's loop of
// n - 1 trips, unrolled by 4, runs (n - 1) / 4 and its remainder tests the
// low bits of n - 1: n / 4 give or take one, n - 1 in all. Its probe's mean
// is n's less one, which agrees with the other loop's n.
TEST(ProbeBind, ALoopFromTwoToTheSizeUnrolledRunsTheSizeLessOne) {
  const std::string from_two = "floordiv(max(4 * floordiv(max(zext(spmv.nrow, 32) - 1, 0), 4) - 4, 0), 4) + 1";
  const std::string its_remainder = "zext(trunc(spmv.nrow, 2) - 1, 2)";
  ProgramModel m = sized_model({60}, "zext(spmv.nrow, 32)");
  auto loop = [](int line, const std::string& trips, double flops) {
    LoopItem l;
    l.trip_count = expr::parse(trips);
    ComputeItem body;
    body.flops_double = flops;
    l.body.push_back(Item{line, "", body});
    return Item{line, "", l};
  };
  // The remainder, on the side of its test where it runs.
  auto remainder = [&](const std::string& test, const std::string& trips) {
    BranchItem b;
    b.condition = expr::parse(test);
    b.else_items.push_back(loop(51, trips, 2));
    return Item{51, "", b};
  };
  Items& body = m.functions["spmv"].body;
  body.push_back(loop(51, from_two, 4 * 2));  // four iterations of 2 flops a trip
  body.push_back(remainder(its_remainder + " == 0", its_remainder));
  m.coverage->unknown_loops.push_back({"spmv", "src/spmv.c:67", "spmv.loop2.trips", "read from memory"});
  const SizedTrips less_one = trips_are(std::get<LoopItem>(body[1].body), "spmv.nrow", body, 51);
  EXPECT_EQ(less_one.kind, Trips::Unrolled);
  EXPECT_EQ(less_one.scale, 1);
  EXPECT_EQ(less_one.offset, -1);
  EXPECT_EQ(less_one.size_of(9), 10);
  // Without its remainder the unrolled loop runs no line of n: no size.
  Items alone{body[1]};
  EXPECT_EQ(trips_are(std::get<LoopItem>(alone[0].body), "spmv.nrow", alone, 51).kind, Trips::Other);
  // The same loop from 1 (trips n / 4, remainder n mod 4) is one of n.
  Items from_one{loop(51, "floordiv(zext(spmv.nrow, 32), 4)", 8),
                 remainder("trunc(spmv.nrow, 2) == 0", "zext(trunc(spmv.nrow, 2), 2)")};
  const SizedTrips whole = trips_are(std::get<LoopItem>(from_one[0].body), "spmv.nrow", from_one, 51);
  EXPECT_EQ(whole.kind, Trips::Unrolled);
  EXPECT_EQ(whole.scale, 1);
  EXPECT_EQ(whole.offset, 0);

  // Two calls at n = 10: 9 trips an arrival at line 51, 10 at line 60.
  ProbeRun run{"./app", 1, {{"spmv.c:51:loop.headers", 18 + 2}, {"spmv.c:51:loop.entries", 2},
                            {"spmv.c:60:loop.headers", 20 + 2}, {"spmv.c:60:loop.entries", 2}}, {}};
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  ASSERT_TRUE(m.parameters[0].default_value);
  EXPECT_EQ(expr::to_string(*m.parameters[0].default_value), "10");
  for (const ProbeFinding& f : found) EXPECT_EQ(f.name.find(".loop_at"), std::string::npos) << f.name;
  // 2 flops a trip: 9 of the loop from 2 and 10 of the loop from 1.
  expr::Bindings bound{{"spmv.nrow", 10}};
  EXPECT_DOUBLE_EQ(expr::evaluate(symbolic_costs(m).flops_double, bound).real(), 2 * 9 + 2 * 10);

  // The loop from 2 alone binds the size: its 9 trips an arrival are n = 10.
  ProgramModel only_from_two = sized_model({60}, "zext(spmv.nrow, 32)");
  only_from_two.functions["spmv"].body = {loop(51, from_two, 4 * 2),
                                          remainder(its_remainder + " == 0", its_remainder)};
  bind_probe_run(only_from_two, run);
  ASSERT_TRUE(only_from_two.parameters[0].default_value);
  EXPECT_EQ(expr::to_string(*only_from_two.parameters[0].default_value), "10");
}

// A sum over a size by a dimension of 4 (SNAP's `SUM(hv)` of hv(nang, 4)):
// the optimiser unrolled the constant loop away, leaving the model one loop
// of the size at the line where the probes have two, the outer one of 4 trips.
// Depth cannot tell them: the size is the other loop's, not 4.
TEST(ProbeBind, ASizesLoopIsNotToldByDepthWhereTheProbesNestDeeperThanTheModel) {
  ProgramModel m = sized_model({51, 60}, "spmv.nrow");
  // Two calls: at line 51 the outer loop of 4 and the size's of 10 in each; at 60 the size's.
  ProbeRun run{"./app", 1,
               {{"spmv.c:51:loop.headers", 2 * 5}, {"spmv.c:51:loop.entries", 2},
                {"spmv.c:51:loop#2.headers", 8 * 11}, {"spmv.c:51:loop#2.entries", 8},
                {"spmv.c:60:loop.headers", 2 * 11}, {"spmv.c:60:loop.entries", 2}},
               {{"spmv.c:51:loop#2.depth", 2}}};
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  ASSERT_TRUE(m.parameters[0].default_value);
  EXPECT_EQ(expr::to_string(*m.parameters[0].default_value), "10");
  bool refused = false;
  for (const ProbeFinding& f : found) refused = refused || f.status.find("nested at that line") != std::string::npos;
  EXPECT_TRUE(refused);
}

// A stencil's loop `for (i = -n; i <= n; i++)` runs 2n + 1 trips (clang's
// `n + max(n, -n) + 1`), one `for (k = 1; k < n; k++)` n - 1: lines of the
// size, each read back from its probe's mean (5 trips: n = 2; 7: n = 8); a
// loop of n / 2 trips (floordiv) runs no line of it and is left alone.
TEST(ProbeBind, ASizeIsReadFromALoopWhoseTripsAreALineOfIt) {
  auto trips = [](const std::string& count) {
    LoopItem l;
    l.trip_count = expr::parse(count);
    return trips_are(l, "spmv.nrow", {}, 51);
  };
  const SizedTrips stencil = trips("spmv.nrow + max(spmv.nrow, -spmv.nrow) + 1");
  EXPECT_EQ(stencil.kind, Trips::Affine);
  EXPECT_EQ(stencil.scale, 2);
  EXPECT_EQ(stencil.offset, 1);
  EXPECT_EQ(trips("floordiv(spmv.nrow, 2)").kind, Trips::Other);
  EXPECT_EQ(trips("spmv.nrow - spmv.other").kind, Trips::Other);
  EXPECT_EQ(trips("7").kind, Trips::Other);

  ProgramModel m = sized_model({51}, "spmv.nrow + max(spmv.nrow, -spmv.nrow) + 1");
  ProbeRun run{"./app", 1, {{"spmv.c:51:loop.headers", 10 + 2}, {"spmv.c:51:loop.entries", 2}}, {}};
  bind_probe_run(m, run);
  ASSERT_TRUE(m.parameters[0].default_value);
  EXPECT_EQ(expr::to_string(*m.parameters[0].default_value), "2");

  ProgramModel from_one = sized_model({51}, "max(spmv.nrow - 1, 0)");
  ProbeRun seven{"./app", 1, {{"spmv.c:51:loop.headers", 7 + 1}, {"spmv.c:51:loop.entries", 1}}, {}};
  bind_probe_run(from_one, seven);
  ASSERT_TRUE(from_one.parameters[0].default_value);
  EXPECT_EQ(expr::to_string(*from_one.parameters[0].default_value), "8");
}

}  // namespace

namespace {

// A guessed branch at `line` whose sides start at `then_line` and `else_line`, holding `then_items`.
Item branch(int line, int then_line, int else_line, Items then_items = {}, Items else_items = {}) {
  BranchItem b;
  b.then_line = then_line;
  b.else_line = else_line;
  b.then_items = std::move(then_items);
  b.else_items = std::move(else_items);
  return Item{line, "", b};
}

// The probes' test k at `at` (line 10 of f.c): taken and not taken, and the lines each side starts at.
void test(ProbeRun& run, int k, double taken, int taken_line, double not_taken, int not_taken_line) {
  const std::string base = "f.c:10:branch" + (k == 1 ? std::string() : "#" + std::to_string(k));
  run.features[base + ".taken"] = taken;
  run.features[base + ".not_taken"] = not_taken;
  run.code[base + ".taken_line"] = taken_line;
  run.code[base + ".not_taken_line"] = not_taken_line;
}

ProgramModel with_body(Items body, int guessed) {
  ProgramModel m;
  m.entry = "f";
  m.coverage = Coverage{};
  Function f;
  f.name = "f";
  f.body = std::move(body);
  m.functions["f"] = f;
  for (int k = 0; k < guessed; ++k)
    m.coverage->guessed_branches.push_back({"f", "f.c:10", 0.5, "data-dependent condition"});
  return m;
}

const BranchItem& at(const Items& items, std::size_t k) { return std::get<BranchItem>(items.at(k).body); }

// `if (a && b)` at line 10 of a loop at line 9, its body at 11: a holds 3
// times in 4, b then 1 time in 3. The probes test it twice; the optimised
// code tests it twice (a's true side goes on on line 10) or once, merged.
TEST(ProbeBind, BranchesAtOneLineAreBoundByWhereTheyLeaveIt) {
  ProbeRun run{"./app", 1, {}, {}};
  test(run, 1, 72, 10, 24, 9);  // a: true goes on to b's test, false to the loop's next iteration
  test(run, 2, 24, 11, 48, 9);  // b
  ProgramModel two = with_body({branch(10, 10, 9, {branch(10, 11, 9)})}, 2);
  std::vector<ProbeFinding> found = bind_probe_run(two, run);
  const BranchItem& a = at(two.functions["f"].body, 0);
  EXPECT_DOUBLE_EQ(a.probability, 0.75);
  EXPECT_DOUBLE_EQ(at(a.then_items, 0).probability, 1.0 / 3);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].status.rfind("bound (2 tests at that line in the probes' code, 2 in the model's", 0), 0u)
      << found[0].status;
  EXPECT_EQ(found[1].status, found[0].status);
  EXPECT_EQ(two.functions["f"].body[0].note.find("probe run"), 0u) << two.functions["f"].body[0].note;
  EXPECT_EQ(two.functions["f"].body[0].note.find("probe run", 1), std::string::npos) << "noted once";

  // Merged into one test (`a & b`): its body is reached 1 time in 4.
  ProgramModel one = with_body({branch(10, 11, 9)}, 1);
  bind_probe_run(one, run);
  EXPECT_DOUBLE_EQ(at(one.functions["f"].body, 0).probability, 0.25);
}

// `if (a || b) then ... else ...` at line 10 (then at 11, else at 13), a
// holding 3 times in 4 and b then 1 time in 3. Flang's front end tests it once
// (Fortran's .OR. is one value); the optimised code may test it twice, the
// second behind a's false side, and mark the `then` code, reached from both,
// as reached on some paths. Each gets what makes the line's exits the run's.
TEST(ProbeBind, ALineTestedOnceBindsTheModelsTwoTestsByTheirExits) {
  ProbeRun run{"./app", 1, {}, {}};
  test(run, 1, 80, 11, 16, 13);
  ProgramModel m = with_body({branch(10, 11, 10, {}, {branch(10, 11, 13)}), branch(10, 11, 0)}, 3);
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  const Items& body = m.functions["f"].body;
  // Each test evaluated every time (the split between them is not measured):
  // a never decides, b's `else` is the line's 1 in 6.
  EXPECT_DOUBLE_EQ(at(body, 0).probability, 0.0);
  EXPECT_DOUBLE_EQ(at(at(body, 0).else_items, 0).probability, 80.0 / 96);
  EXPECT_DOUBLE_EQ(at(body, 1).probability, 80.0 / 96);
  EXPECT_NE(found[0].status.find("tests it otherwise"), std::string::npos) << found[0].status;
}

// Fortran's one-line `IF (a .AND. b) x = 1` at line 10: flang's front end
// tests one value, whose true side runs the statement on the line itself
// (1 time in 4); the optimised code tests a, then b, whose true side is that
// statement. What goes on on the line and reaches no later test leaves from
// the line: b's `then` gets it.
TEST(ProbeBind, AStatementOnItsTestsLineLeavesFromTheLineItself) {
  ProbeRun run{"./app", 1, {}, {}};
  test(run, 1, 24, 10, 72, 11);
  ProgramModel m = with_body({branch(10, 10, 11, {branch(10, 10, 11)})}, 2);
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  const BranchItem& a = at(m.functions["f"].body, 0);
  EXPECT_DOUBLE_EQ(a.probability, 1.0);
  EXPECT_DOUBLE_EQ(at(a.then_items, 0).probability, 0.25);
  EXPECT_NE(found[0].status.find("tests it otherwise"), std::string::npos) << found[0].status;
}

// One probe test whose sides leave to two lines, and two copies of it in the
// model, one whose sides both start on the test's line (the exits cannot
// tell it): that one gets the test's fraction as written, as a line of one
// test does, not its guess (HPCG's `if (tolerance_failures)`, never taken,
// whose guess put half the benchmark's calls back).
TEST(ProbeBind, ACopyTheExitsCannotTellTakesItsOneTestsFraction) {
  ProbeRun run{"./app", 1, {}, {}};
  test(run, 1, 0, 11, 10, 20);
  ProgramModel m = with_body({branch(10, 11, 20), branch(10, 10, 10)}, 2);
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  EXPECT_DOUBLE_EQ(at(m.functions["f"].body, 0).probability, 0.0);
  EXPECT_DOUBLE_EQ(at(m.functions["f"].body, 1).probability, 0.0);
  EXPECT_NE(found[0].status.find("1 copy priced as its one test"), std::string::npos) << found[0].status;
}

// `a && b && c` kept as three tests, whose first two both go on on the line
// and leave to the same line as the third's false side: the exits do not say
// how the flow splits between a and b, so the guesses stay, and probe says why.
TEST(ProbeBind, BranchesWhoseExitsDoNotTellThemApartKeepTheirGuess) {
  ProbeRun run{"./app", 1, {}, {}};
  test(run, 1, 8, 10, 4, 9);
  test(run, 2, 4, 10, 4, 9);
  test(run, 3, 1, 11, 3, 9);
  ProgramModel m = with_body({branch(10, 10, 9, {branch(10, 10, 9, {branch(10, 11, 9)})})}, 3);
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  EXPECT_DOUBLE_EQ(at(m.functions["f"].body, 0).probability, 0.5);
  EXPECT_FALSE(found[0].value);
  EXPECT_NE(found[0].status.find("do not tell"), std::string::npos) << found[0].status;
  EXPECT_FALSE(m.coverage->guessed_branches[0].probe_probability);
}

// A double loop on one line (a Fortran array statement's nest): each of the
// model's loops takes the probe's loop as deep in that line's loops as it is.
TEST(ProbeBind, LoopsAtOneLineAreMatchedByHowDeepTheyAre) {
  ProgramModel m;
  m.entry = "f";
  m.coverage = Coverage{};
  for (const char* name : {"f.loop1.trips", "f.loop1_2.trips"}) {
    m.parameters.push_back({name, "iterations", std::nullopt, true, ""});
    m.coverage->unknown_loops.push_back({"f", "src/f.c:7", name, "its exit depends on data"});
  }
  LoopItem inner, outer;
  inner.trip_count = expr::parse("f.loop1_2.trips");
  ComputeItem element;  // 1 flop an element
  element.flops_double = 1;
  inner.body.push_back(Item{7, "", element});
  outer.trip_count = expr::parse("f.loop1.trips");
  outer.body.push_back(Item{7, "", inner});
  Function f;
  f.name = "f";
  f.body.push_back(Item{7, "", outer});
  m.functions["f"] = f;
  // 12 rows a rank on 2 ranks, of 2 elements each on the mean.
  ProbeRun run{"./app", 2,
               {{"f.c:7:loop.headers", 26}, {"f.c:7:loop.entries", 2}, {"f.c:7:loop#2.headers", 72},
                {"f.c:7:loop#2.entries", 24}},
               {{"f.c:7:loop#2.depth", 2}}};
  ProgramModel bound = m;
  bind_probe_run(bound, run);
  EXPECT_EQ(expr::to_string(*bound.parameters[0].default_value), "12");
  EXPECT_EQ(expr::to_string(*bound.parameters[1].default_value), "2");

  // A record without the depths (from before them): two loops at depth 1, not told apart.
  run.code.clear();
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  EXPECT_FALSE(m.parameters[0].default_value);
  EXPECT_NE(found[0].status.find("cannot tell them apart"), std::string::npos) << found[0].status;
}

// A `do ... while` loop (the pass's fact `.tested_at_bottom`) runs its header
// once per iteration: 9 iterations over 4 arrivals are 2.25 trips, not 1.25.
TEST(ProbeBind, ALoopTestedAtTheBottomRunsItsHeaderOncePerIteration) {
  ProgramModel m;
  m.entry = "f";
  m.coverage = Coverage{};
  m.parameters.push_back({"f.loop2.trips", "iterations", std::nullopt, true, ""});
  m.coverage->unknown_loops.push_back({"f", "f.c:11", "f.loop2.trips", "its exit depends on data"});
  ProbeRun run{"./app", 1, {{"f.c:11:loop.headers", 9}, {"f.c:11:loop.entries", 4}}, {}};
  ProgramModel top = m;
  bind_probe_run(top, run);
  EXPECT_EQ(expr::to_string(*top.parameters[0].default_value), "1.25");
  run.code["f.c:11:loop.tested_at_bottom"] = 1;
  bind_probe_run(m, run);
  EXPECT_EQ(expr::to_string(*m.parameters[0].default_value), "2.25");
}

// A `do ... while (!done)` whose flag the optimiser folded into a branch at
// the line that computed it: the analyser names the loop at that line, inside
// the body the probes' loop (named at its `do`, left by its test two lines
// below) spans; the innermost of two that hold it, none where no loop does.
TEST(ProbeBind, ALoopNamedInsideTheBodyOfALoopTestedAtTheBottomIsThatLoop) {
  auto bind_at = [](int line) {
    ProgramModel m;
    m.entry = "f";
    m.coverage = Coverage{};
    m.parameters.push_back({"f.loop1.trips", "iterations", std::nullopt, true, ""});
    m.coverage->unknown_loops.push_back({"f", "f.cpp:" + std::to_string(line), "f.loop1.trips", "its exit depends on data"});
    ProbeRun run{"./app", 1,
                 {{"f.cpp:10:loop.headers", 12}, {"f.cpp:10:loop.entries", 2},
                  {"f.cpp:12:loop.headers", 30}, {"f.cpp:12:loop.entries", 12}},
                 {{"f.cpp:10:loop.tested_at_bottom", 1}, {"f.cpp:10:loop.exit_line", 20},
                  {"f.cpp:12:loop.tested_at_bottom", 1}, {"f.cpp:12:loop.exit_line", 15}}};
    bind_probe_run(m, run);
    return m.parameters[0].default_value ? expr::to_string(*m.parameters[0].default_value) : std::string("unbound");
  };
  EXPECT_EQ(bind_at(14), "2.5");   // the inner loop: 30 headers over 12 arrivals
  EXPECT_EQ(bind_at(17), "6");     // the outer loop alone holds it: 12 over 2
  EXPECT_EQ(bind_at(25), "unbound");
}

// A loop never left from its header (`DO` ... `EXIT`: the pass's fact
// `.left_from_body`) runs its header once per iteration it starts: 8 passes
// over 4 arrivals are 2 trips, not 1.
TEST(ProbeBind, ALoopLeftFromItsBodyRunsItsHeaderOncePerIteration) {
  ProgramModel m;
  m.entry = "f";
  m.coverage = Coverage{};
  m.parameters.push_back({"f.loop2.trips", "iterations", std::nullopt, true, ""});
  m.coverage->unknown_loops.push_back({"f", "f.f90:19", "f.loop2.trips", "its exit depends on data"});
  ProbeRun run{"./app", 1,
               {{"f.f90:19:loop.headers", 8}, {"f.f90:19:loop.entries", 4}},
               {{"f.f90:19:loop.left_from_body", 1}}};
  bind_probe_run(m, run);
  EXPECT_EQ(expr::to_string(*m.parameters[0].default_value), "2");
}

}  // namespace

// A guessed branch at a loop's line whose else side holds the loop (the
// optimised guard of an OpenMP worksharing loop, its sides swapped), where the
// source's own branch at that line (the runtime's test of its bounds) was
// taken every time: the loop's bound trips set the guard, 1 for the side that
// runs the loop, not the taken fraction priced on `then` as written.
TEST(ProbeBind, AGuardIsSetByItsLoopsTripsBeforeAnyTakenFractionAtItsLine) {
  ProgramModel m;
  m.entry = "build";
  m.coverage = Coverage{};
  m.parameters.push_back({"build.loop1.trips", "iterations of the loop at f.c:12", std::nullopt, false, ""});
  LoopItem loop;
  loop.trip_count = perfcast::expr::parse("build.loop1.trips");
  BranchItem guard;
  guard.else_items.push_back(Item{12, "", loop});
  Function f;
  f.name = "build";
  f.body.push_back(Item{12, "", guard});
  m.functions["build"] = f;
  m.coverage->guessed_branches.push_back({"build", "dir/f.c:12", 0.5, "data-dependent condition"});
  m.coverage->unknown_loops.push_back(
      {"build", "dir/f.c:12", "build.loop1.trips", "its count depends on values read from memory"});
  ProbeRun run{"./app", 2, {}, {}};
  run.features["f.c:12:loop.entries"] = 4;
  run.features["f.c:12:loop.headers"] = 4 + 4 * 100;
  run.features["f.c:12:branch.taken"] = 4;
  run.features["f.c:12:branch.not_taken"] = 0;
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  EXPECT_DOUBLE_EQ(probability(m, "build"), 0.0);  // `then`: the side without the loop
  bool guard_bound = false;
  for (const ProbeFinding& p : found)
    if (p.kind == ProbeFinding::Kind::Branch) guard_bound = p.status == "bound (the guard of the loop at that line)";
  EXPECT_TRUE(guard_bound);
}

namespace {

// main calls `solve(n)` through a pointer at f.c:12:7 (its argument n by
// position, then one the analysis could not express); jacobi and damped take
// their size as the parameter `len`, the first argument.
ProgramModel indirect_model() {
  ProgramModel m;
  m.entry = "main";
  m.parameters.push_back(Parameter{"n", "size", std::nullopt});
  m.coverage = Coverage{};
  CallItem call;
  call.indirect = true;
  call.site = "f.c:12:7";
  call.positional_args = {expr::parse("2 * n"), std::nullopt};
  Function main_fn{"main", 10, {}, {}};
  main_fn.body.push_back(Item{12, "", call});
  m.functions["main"] = main_fn;
  for (const auto& [name, flops] : {std::pair{"jacobi", "2 * len"}, std::pair{"damped", "4 * len + width"}}) {
    ComputeItem work;
    work.flops_double = expr::parse(flops);
    Function f{name, 1, {"len"}, {}, {"len"}, "f.c"};
    if (std::string(name) == "damped") f.line = 5, f.parameters = {"len", "width"}, f.arguments = {"len", "width"};
    f.body.push_back(Item{2, "", work});
    m.functions[name] = f;
  }
  m.coverage->unresolved_calls.push_back({"indirect", "", "main", "f.c:12"});
  m.coverage->candidate_instructions_priced = {{"jacobi", 5}, {"damped", 7}};
  m.coverage->instructions = 30;
  m.coverage->instructions_priced = 10;
  return m;
}

double main_flops(const ProgramModel& m, double n) {
  expr::Bindings b;
  b["n"] = n;
  for (const auto& p : m.parameters)
    if (p.name != "n") b[p.name] = 100.0;  // the arguments the analysis could not express
  return expr::evaluate(symbolic_costs(m).flops_double, b).real();
}

}  // namespace

// Unbound, the call prices nothing; bound, each target is taken its share of
// the site's executions, with the caller's expression of its argument, and a
// target outside the model is reported and priced as nothing.
TEST(ProbeBind, AnIndirectCallBecomesCallsOfItsTargetsByTheirShares) {
  ProgramModel m = indirect_model();
  EXPECT_DOUBLE_EQ(main_flops(m, 10), 0);
  ProbeRun run{"./app", 2, {}, {}, {{"f.c:12:7", {{"jacobi", 60}, {"damped", 20}, {"libsolve", 20}}}}};
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  ASSERT_EQ(found.size(), 4u);
  EXPECT_EQ(found[0].name, "jacobi");
  EXPECT_DOUBLE_EQ(*found[0].value, 0.6);
  EXPECT_EQ(found[2].name, "libsolve");
  EXPECT_NE(found[2].status.find("not in the model"), std::string::npos) << found[2].status;
  // The argument the analysis could not express: no probe of damped's entry in this run.
  EXPECT_EQ(found[3].name, "damped.width");
  EXPECT_NE(found[3].status.find("no probe of its function's entry"), std::string::npos) << found[3].status;
  // 0.6 * 2 * (2n) + 0.2 * (4 * (2n) + width), width a new parameter of its own.
  ASSERT_TRUE(std::any_of(m.parameters.begin(), m.parameters.end(),
                          [](const Parameter& p) { return p.name == "damped.width" && !p.default_value; }));
  EXPECT_DOUBLE_EQ(main_flops(m, 10), 0.6 * 2 * 20 + 0.2 * (4 * 20 + 100));
  const Coverage::Call& entry = m.coverage->unresolved_calls.front();
  ASSERT_EQ(entry.probe_targets.size(), 3u);
  EXPECT_EQ(entry.probe_targets[1].first, "damped");
  EXPECT_DOUBLE_EQ(entry.probe_targets[1].second, 0.2);
  // Both targets in the model are now reached: their instructions are priced.
  EXPECT_EQ(m.coverage->instructions_priced, 22);
  EXPECT_TRUE(m.coverage->candidate_instructions_priced.empty());
}

// The argument a call through a pointer passes that the analysis could not
// express (damped's `width`) is bound by the probes of the target's entry,
// their value where it did not vary; entries that are not the pointers'
// calls and the direct calls' probes leave it required, saying so; what the
// direct calls' probes read is taken away from the entries'.
TEST(ProbeBind, AnArgumentACallThroughAPointerPassesIsBoundByItsTargetsEntries) {
  auto width = [](const ProgramModel& m) {
    for (const Parameter& p : m.parameters)
      if (p.name == "damped.width") return p;
    return Parameter{};
  };
  ProbeRun run{"./app", 2, {}, {}, {{"f.c:12:7", {{"jacobi", 60}, {"damped", 20}}}}};
  run.measures = {{"f.c:5:entry.arg2.assignments", 20}, {"f.c:5:entry.arg2.sum", 20 * 7}, {"f.c:5:entry.arg2.changes", 0}};
  run.features["f.c:5:entry.arg2"] = 7;
  ProgramModel m = indirect_model();
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[2].site, "f.c:5:entry.arg2");
  EXPECT_EQ(found[2].status, "bound (the value its 20 calls through pointers passed)");
  ASSERT_TRUE(width(m).default_value);
  EXPECT_EQ(expr::to_string(*width(m).default_value), "7");

  // Ten entries more than the pointers' calls, from calls no probe read: not the pointers' values.
  run.measures["f.c:5:entry.arg2.assignments"] = 30;
  ProgramModel other = indirect_model();
  found = bind_probe_run(other, run);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_NE(found[2].status.find("entered 30 times, 20 through pointers"), std::string::npos) << found[2].status;
  EXPECT_FALSE(width(other).default_value);

  // Those ten from a direct call whose probe read them (5 each): what is left is the pointers' 7.
  run.code["f.c:30:call.callee"] = function_id("damped");
  run.measures["f.c:30:call.arg2.assignments"] = 10;
  run.measures["f.c:30:call.arg2.sum"] = 10 * 5;
  run.measures["f.c:30:call.arg2.changes"] = 0;
  run.measures["f.c:5:entry.arg2.sum"] = 20 * 7 + 10 * 5;
  run.measures["f.c:5:entry.arg2.changes"] = 2;
  ProgramModel mixed = indirect_model();
  found = bind_probe_run(mixed, run);
  const auto entry = std::find_if(found.begin(), found.end(), [](const ProbeFinding& f) { return f.name == "damped.width"; });
  ASSERT_NE(entry, found.end());
  ASSERT_TRUE(width(mixed).default_value) << entry->status;
  EXPECT_EQ(expr::to_string(*width(mixed).default_value), "7") << entry->status;
}

TEST(ProbeBind, AnIndirectCallTheRunNeverMadeStaysUnbound) {
  ProgramModel m = indirect_model();
  ProbeRun run{"./app", 1, {}, {}, {{"f.c:12:7", {}}}};
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].status.find("not reached"), std::string::npos) << found[0].status;
  EXPECT_TRUE(m.coverage->unresolved_calls.front().probe_not_reached);
  EXPECT_DOUBLE_EQ(main_flops(m, 10), 0);
  // A record without the site (a build without the probes there): said so.
  ProgramModel other = indirect_model();
  found = bind_probe_run(other, ProbeRun{"./app", 1, {}, {}, {}});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].status.find("no probe"), std::string::npos) << found[0].status;
}

namespace {

// A memcpy's bytes at one line are the mean over every probe of a copy there
// (each inlined copy, `#2`; a memmove the optimiser made a memcpy) in the
// file the description's tag names; a memset at that line, or a copy at that
// line of another file, is not it.
TEST(ProbeBind, AMemcpysBytesAreTheMeanPerCallOfTheCopiesAtItsLine) {
  ProgramModel m;
  m.entry = "main";
  m.coverage = Coverage{};
  m.parameters.push_back({"pack.memmove1.bytes", "bytes of the memcpy at halo_c:5", std::nullopt, true, ""});
  m.parameters.push_back({"pack.memset1.bytes", "bytes of the memset at halo_c:9", std::nullopt, true, ""});
  ProbeRun run{"./app", 2, {}, {}};
  run.features["halo.c:5:memcpy.calls"] = 3;
  run.features["halo.c:5:memcpy.bytes"] = 300;
  run.features["halo.c:5:memmove#2.calls"] = 1;
  run.features["halo.c:5:memmove#2.bytes"] = 500;
  run.features["halo.c:5:memset.calls"] = 7;
  run.features["halo.c:5:memset.bytes"] = 7000;
  run.features["other.c:5:memcpy.calls"] = 1;
  run.features["other.c:5:memcpy.bytes"] = 9000;
  run.features["halo.c:9:memset.calls"] = 0;
  run.features["halo.c:9:memset.bytes"] = 0;
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(m.parameters[0].default_value->str(), "200");  // (300 + 500) / 4
  EXPECT_EQ(m.parameters[0].origin, probe_origin(run));
  EXPECT_EQ(m.parameters[1].default_value->str(), "0");     // never reached
  EXPECT_NE(found[1].status.find("not reached"), std::string::npos);
}

// A copy's bytes in a template's instance (described "... (in <linkage
// name>)") are that instance's alone: a system header's probes carry the
// instance in their kind (`memmove@<id>`, the function id in hex), the
// program's own carry it as the code fact `.function` where several
// instances share the line; the other instances' copies at the line are not it.
TEST(ProbeBind, ACopysBytesInATemplateInstanceAreThatInstancesAlone) {
  ProgramModel m;
  m.entry = "main";
  m.coverage = Coverage{};
  m.parameters.push_back({"__copy_m_double_.memmove1.bytes", "bytes of the memcpy at stl_algobase_h:431 (in copy_d)",
                          std::nullopt, true, ""});
  m.parameters.push_back({"scatter_int_.memmove1.bytes", "bytes of the memcpy at mesh_cc:7 (in scatter_i)",
                          std::nullopt, true, ""});
  ProbeRun run{"./app", 2, {}, {}};
  const std::string copy_d = fmt::format("@{:X}", static_cast<std::uint64_t>(function_id("copy_d")));
  const std::string copy_i = fmt::format("@{:X}", static_cast<std::uint64_t>(function_id("copy_i")));
  run.features["stl_algobase.h:431:memmove" + copy_d + ".calls"] = 4;
  run.features["stl_algobase.h:431:memmove" + copy_d + ".bytes"] = 800;
  run.features["stl_algobase.h:431:memmove" + copy_i + ".calls"] = 1;
  run.features["stl_algobase.h:431:memmove" + copy_i + ".bytes"] = 9000;
  run.features["mesh.cc:7:memmove.calls"] = 2;
  run.features["mesh.cc:7:memmove.bytes"] = 40;
  run.code["mesh.cc:7:memmove.function"] = function_id("scatter_d");
  run.features["mesh.cc:7:memmove#2.calls"] = 3;
  run.features["mesh.cc:7:memmove#2.bytes"] = 30;
  run.code["mesh.cc:7:memmove#2.function"] = function_id("scatter_i");
  bind_probe_run(m, run);
  ASSERT_TRUE(m.parameters[0].default_value && m.parameters[1].default_value);
  EXPECT_EQ(m.parameters[0].default_value->str(), "200");  // 800 / 4, not (800 + 9000) / 5
  EXPECT_EQ(m.parameters[1].default_value->str(), "10");   // 30 / 3
}

// The measures of an integer variable's assignments, as the probes record
// them at its declaration (`file:line:name`, summed over the ranks), and its
// value feature (the maximum over the ranks of its last value).
void assigned(ProbeRun& run, const std::string& probe, double count, double sum, double changes, double last) {
  run.measures[probe + ".assignments"] = count;
  run.measures[probe + ".sum"] = sum;
  run.measures[probe + ".changes"] = changes;
  run.features[probe] = last;
}

// HPCG's `nrow = A.localNumberOfRows` in CG, passed on to the kernels: the
// parameter named after the variable is bound to the mean of the values
// assigned at its declaration (file and line, as the analyser describes it),
// rounded for an integer; a value that varied says so in its origin.
TEST(ProbeBind, ASourceVariableIsTheMeanOfTheValuesAssignedToIt) {
  ProgramModel m;
  m.entry = "main";
  m.coverage = Coverage{};
  m.parameters.push_back({"CG.nrow", "source variable nrow of CG (CG_cpp:72)", std::nullopt, true, ""});
  m.parameters.push_back({"TestCG.nrow", "source variable nrow of TestCG (TestCG_cpp:40)", std::nullopt, true, ""});
  m.parameters.push_back({"Setup.n", "source variable n of Setup (setup_c:9), read from memory", std::nullopt, true, ""});
  m.parameters.push_back({"Mesh.nx", "source variable nx of Mesh (mesh_c:3)", std::nullopt, true, ""});
  ProbeRun run{"./app", 2, {}, {}};
  assigned(run, "CG.cpp:72:nrow", 4, 4 * 4096, 0, 4096);         // the same on every call and rank
  assigned(run, "CG.cpp:80:nrow", 1, 7, 0, 7);                   // another line's nrow
  assigned(run, "TestCG.cpp:40:nrow", 3, 4096 + 512 + 65, 2, 4096);  // levels: 1557.67
  assigned(run, "setup.c:9:n", 4, 2 * 10 + 2 * 20, 0, 20);  // constant on each rank, 10 and 20
  assigned(run, "mesh.c:3:nx", 0, 0, 0, 0);                     // declared, never assigned in the run
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  ASSERT_TRUE(m.parameters[0].default_value);
  EXPECT_EQ(m.parameters[0].default_value->str(), "4096");
  EXPECT_EQ(m.parameters[0].origin, probe_origin(run));
  ASSERT_TRUE(m.parameters[1].default_value);
  EXPECT_EQ(m.parameters[1].default_value->str(), "1558");
  EXPECT_NE(m.parameters[1].origin.find("varied"), std::string::npos) << m.parameters[1].origin;
  ASSERT_TRUE(m.parameters[2].default_value);
  EXPECT_EQ(m.parameters[2].default_value->str(), "15");
  EXPECT_NE(m.parameters[2].origin.find("varied"), std::string::npos) << m.parameters[2].origin;
  EXPECT_FALSE(m.parameters[3].default_value);
  const auto mesh = std::find_if(found.begin(), found.end(), [](const ProbeFinding& f) { return f.name == "Mesh.nx"; });
  ASSERT_NE(mesh, found.end());
  EXPECT_NE(mesh->status.find("never assigned"), std::string::npos) << mesh->status;
}

// A value constant on each rank and different between ranks (a rank's part
// of the grid), where the run recorded each rank's measures: each rank its
// own value, for the run's count alone, whatever the places that assign it;
// one that changed on some rank is each rank's mean at the run's count
// (rounded: it sizes no loop) and the mean over the ranks at any other.
TEST(ProbeBind, AValueConstantOnEachRankIsEachRanksOwn) {
  ProgramModel m;
  m.entry = "main";
  m.coverage = Coverage{};
  m.parameters.push_back({"Setup.n", "source variable n of Setup (setup_c:9), read from memory", std::nullopt, true, ""});
  m.parameters.push_back({"Setup.lo", "source variable lo of Setup (setup_c:10)", std::nullopt, true, ""});
  m.parameters.push_back({"Setup.hi", "source variable hi of Setup (setup_c:11)", std::nullopt, true, ""});
  ProbeRun run{"./app", 3, {}, {}};
  run.per_rank_recorded = true;
  assigned(run, "setup.c:9:n", 6, 2 * 10 + 2 * 20 + 2 * 10, 0, 20);  // 10, 20, 10: two assignments each
  run.per_rank["setup.c:9:n.sum"] = {20, 40, 20};
  assigned(run, "setup.c:10:lo", 3, 0 + 4 + 8, 0, 8);  // 0, 4, 8: rank 0's value most ranks do not hold
  run.per_rank["setup.c:10:lo.sum"] = {0, 4, 8};
  assigned(run, "setup.c:11:hi", 6, 10 + 12 + 20 + 20 + 30 + 30, 1, 30);  // rank 0 held 10 then 12
  run.per_rank["setup.c:11:hi.sum"] = {22, 40, 60};
  run.per_rank["setup.c:11:hi.changes"] = {1, 0, 0};
  bind_probe_run(m, run);
  ASSERT_TRUE(m.parameters[0].default_value);
  EXPECT_EQ(m.parameters[0].default_value->str(), "select(rank == 1, 20, 10)");
  EXPECT_EQ(ranks_bound_each_rank(m.parameters[0]), 3) << m.parameters[0].origin;
  ASSERT_TRUE(m.parameters[1].default_value);
  EXPECT_EQ(m.parameters[1].default_value->str(), "select(rank == 1, 4, select(rank == 2, 8, 0))");
  ASSERT_TRUE(m.parameters[2].default_value);
  EXPECT_EQ(m.parameters[2].default_value->str(), "select(size == 3, select(rank == 1, 20, select(rank == 2, 30, 11)), 20)")
      << "rank 0's mean of 10 and 12, the others' own, the mean of 6 values elsewhere";
  EXPECT_EQ(ranks_bound_each_rank(m.parameters[2]), 0);
  // A run that recorded no rank's values cannot tell the ranks apart: the mean, as before.
  ProgramModel plain = m;
  for (Parameter& p : plain.parameters) p.default_value.reset();
  run.per_rank_recorded = false;
  bind_probe_run(plain, run);
  ASSERT_TRUE(plain.parameters[0].default_value);
  EXPECT_EQ(plain.parameters[0].default_value->str(), "13");
}

// A variable assigned at two places with different values (`n = 10; if (...)
// n = m;`): the mean is neither place's value, so it is left to the user; a
// global is found by its symbol, whatever the probes named it; an MPI call's
// elements per call are its mean bytes per call over the bytes of an element.
TEST(ProbeBind, GlobalsByTheirSymbolAndMessageCountsByTheirBytes) {
  ProgramModel m;
  m.entry = "main";
  m.coverage = Coverage{};
  m.parameters.push_back({"f.n", "source variable n of f (f_c:5)", std::nullopt, true, ""});
  m.parameters.push_back({"sizes.nx", "global variable sizes.nx (symbol _QMsizesEnx)", std::nullopt, true, ""});
  m.parameters.push_back(
      {"halo.MPI_Send1.count", "elements per call of MPI_Send at halo_c:20 (read from memory)", std::nullopt, true, ""});
  MpiItem send;
  send.op = mpi::Op::Send;
  send.bytes = expr::parse("halo.MPI_Send1.count * 8");
  Function halo;
  halo.name = "halo";
  halo.body.push_back(Item{20, "", send});
  m.functions["halo"] = halo;
  ProbeRun run{"./app", 2, {}, {}};
  assigned(run, "f.c:5:n", 4, 10 + 10 + 30 + 30, 2, 30);
  run.code["f.c:5:n.definitions"] = 2;
  assigned(run, "sizes.f90:3:nx", 2, 2 * 96, 0, 96);
  run.code["sizes.f90:3:nx.symbol"] = function_id("_QMsizesEnx");
  assigned(run, "other.f90:3:nx", 2, 2 * 5, 0, 5);
  run.code["other.f90:3:nx.symbol"] = function_id("_QMotherEnx");
  run.features["halo.c:20:MPI_Send.calls"] = 6;
  run.features["halo.c:20:MPI_Send.bytes"] = 6 * 8 * 256;
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  EXPECT_FALSE(m.parameters[0].default_value);
  const auto f = std::find_if(found.begin(), found.end(), [](const ProbeFinding& x) { return x.name == "f.n"; });
  ASSERT_NE(f, found.end());
  EXPECT_NE(f->status.find("2 places"), std::string::npos) << f->status;
  ASSERT_TRUE(m.parameters[1].default_value);
  EXPECT_EQ(m.parameters[1].default_value->str(), "96");
  ASSERT_TRUE(m.parameters[2].default_value);
  EXPECT_EQ(m.parameters[2].default_value->str(), "256");
}

// A field read from memory (HPCG's `params.npz`, `A.localNumberOfColumns`):
// its probes count the stores into every object of its struct, at the
// field's declaration (which the analyser's description gives). All the same
// value, it is that value; values that varied (a matrix per grid level) say
// nothing of which object the model's function reads, and it stays required.
TEST(ProbeBind, AFieldIsBoundWhenEveryStoreToItAgreed) {
  ProgramModel m;
  m.entry = "main";
  m.coverage = Coverage{};
  const char* tail = ", read from memory (a value the loops that read it leave alone); the field is declared at ";
  m.parameters.push_back({"params.npz", std::string("field params.npz of main (main_cpp:79)") + tail + "hpcg_hpp:45",
                          std::nullopt, true, ""});
  m.parameters.push_back({"A.ncol", std::string("field A.ncol of main (main_cpp:133)") + tail + "SparseMatrix_hpp:30",
                          std::nullopt, true, ""});
  ProbeRun run{"./app", 2, {}, {}};
  assigned(run, "hpcg.hpp:45:HPCG_Params.npz", 2, 4, 0, 2);
  assigned(run, "Geometry.hpp:45:Geometry.npz", 2, 40, 0, 20);  // another struct's field of that name
  assigned(run, "SparseMatrix.hpp:30:SparseMatrix.ncol", 8, 2 * (4352 + 576 + 80 + 12), 6, 4352);
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  ASSERT_TRUE(m.parameters[0].default_value);
  EXPECT_EQ(m.parameters[0].default_value->str(), "2");
  EXPECT_FALSE(m.parameters[1].default_value);
  const auto ncol = std::find_if(found.begin(), found.end(), [](const ProbeFinding& f) { return f.name == "A.ncol"; });
  ASSERT_NE(ncol, found.end());
  EXPECT_NE(ncol->status.find("varied"), std::string::npos) << ncol->status;
}

// The same field read through the variable the analyser names it by
// (`A->ncol` in spmv, whose A is one matrix of several): the probes count the
// reads there (`spmv.cpp:12:A.ncol.read`), which are what the model reads;
// bound to their value, or to their mean where the reads varied, whatever
// the stores into other matrices were. A read with no reads measured keeps
// the stores' verdict.
TEST(ProbeBind, AFieldIsBoundByItsReadsThroughTheVariableTheModelNames) {
  ProgramModel m;
  m.entry = "main";
  m.coverage = Coverage{};
  const char* tail = ", read from memory (a value the loops that read it leave alone); the field is declared at ";
  for (const char* name : {"A.ncol", "B.ncol", "C.ncol"})
    m.parameters.push_back({name,
                            std::string("field ") + name + " of spmv (spmv_cpp:" + (name[0] == 'A' ? "12" : name[0] == 'B' ? "40" : "60") +
                                ")" + tail + "SparseMatrix_hpp:30",
                            std::nullopt, true, ""});
  ProbeRun run{"./app", 1, {}, {}};
  assigned(run, "SparseMatrix.hpp:30:SparseMatrix.ncol", 8, 2 * (4352 + 576 + 80 + 12), 6, 4352);
  assigned(run, "spmv.cpp:12:A.ncol.read", 3, 3 * 4352, 0, 4352);
  assigned(run, "spmv.cpp:40:B.ncol.read", 4, 3 * 4352 + 576, 1, 576);
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  ASSERT_TRUE(m.parameters[0].default_value);
  EXPECT_EQ(m.parameters[0].default_value->str(), "4352");
  ASSERT_TRUE(m.parameters[1].default_value);
  EXPECT_DOUBLE_EQ(expr::evaluate(*m.parameters[1].default_value, {}).real(), (3 * 4352 + 576) / 4.0);
  EXPECT_FALSE(m.parameters[2].default_value);  // no reads measured: the stores varied
  const auto a = std::find_if(found.begin(), found.end(), [](const ProbeFinding& f) { return f.name == "A.ncol"; });
  ASSERT_NE(a, found.end());
  EXPECT_NE(a->status.find("3 reads"), std::string::npos) << a->status;
}

}  // namespace

namespace {

// A field or a global whose address some unit said escapes (the probes' fact
// `.address_escapes`, in a unit with no store of its own: the `#2` probe) is
// left required: its stores through that address were not measured. A
// variable of that name declared elsewhere is still bound.
TEST(ProbeBind, AVariableWhoseAddressEscapesIsLeftRequired) {
  ProgramModel m;
  m.entry = "main";
  m.coverage = Coverage{};
  const char* tail = ", read from memory (a value the loops that read it leave alone); the field is declared at ";
  m.parameters.push_back({"params.npx", std::string("field params.npx of main (main_cpp:79)") + tail + "hpcg_hpp:43",
                          std::nullopt, true, ""});
  m.parameters.push_back({"geom.npx", std::string("field geom.npx of main (main_cpp:90)") + tail + "Geometry_hpp:43",
                          std::nullopt, true, ""});
  m.parameters.push_back({"grid.n", "global variable grid.n (symbol _QMgridEn)", std::nullopt, true, ""});
  ProbeRun run{"./app", 2, {}, {}};
  assigned(run, "hpcg.hpp:43:HPCG_Params.npx", 2, 0, 0, 0);
  run.code["hpcg.hpp:43:HPCG_Params.npx#2.address_escapes"] = 1;
  assigned(run, "Geometry.hpp:43:Geometry.npx", 2, 4, 0, 2);
  assigned(run, "grid.f90:3:n", 2, 20, 0, 10);
  run.code["grid.f90:3:n.symbol"] = function_id("_QMgridEn");
  run.code["grid.f90:3:n.address_escapes"] = 1;
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  EXPECT_FALSE(m.parameters[0].default_value);
  ASSERT_TRUE(m.parameters[1].default_value);
  EXPECT_EQ(m.parameters[1].default_value->str(), "2");
  EXPECT_FALSE(m.parameters[2].default_value);
  const auto npx = std::find_if(found.begin(), found.end(), [](const ProbeFinding& f) { return f.name == "params.npx"; });
  ASSERT_NE(npx, found.end());
  EXPECT_NE(npx->status.find("address escapes"), std::string::npos) << npx->status;
}

Item compute_flops(int line, const char* flops) {
  ComputeItem c;
  c.flops_double = perfcast::expr::parse(flops);
  return Item{line, "", c};
}

}  // namespace

// A parameter read only where the run never went (a side never taken, a loop
// never entered, a function nothing calls) prices nothing at the run's input:
// bound to 0 like an unreached loop's trips. One the code the run took reads
// stays required, and so does one that a read parameter's default names.
TEST(ProbeBind, AParameterOnNoPathTheRunTookIsBoundToZero) {
  ProgramModel m;
  m.entry = "main";
  m.coverage = Coverage{};
  for (const char* name : {"main.k", "main.w", "main.m", "main.loop1.trips", "coarsen.rows", "unused.size"})
    m.parameters.push_back({name, "a value read from memory", std::nullopt, true, ""});
  m.parameters.push_back({"main.len", "4 words a row", perfcast::expr::parse("4 * main.w"), true, ""});
  Function main_fn;
  main_fn.name = "main";
  main_fn.body.push_back(compute_flops(10, "2 * main.k"));
  BranchItem coarse;  // if (levels > 1) coarsen(); else the rows' words
  CallItem call;
  call.function = "coarsen";
  coarse.then_items.push_back(Item{20, "", call});
  coarse.else_items.push_back(compute_flops(22, "main.len"));
  coarse.then_line = 21;
  coarse.else_line = 22;
  main_fn.body.push_back(Item{20, "", coarse});
  LoopItem loop;  // a loop the run never entered
  loop.trip_count = perfcast::expr::parse("main.loop1.trips");
  loop.body.push_back(compute_flops(31, "main.m"));
  main_fn.body.push_back(Item{30, "", loop});
  m.functions["main"] = main_fn;
  Function coarsen;
  coarsen.name = "coarsen";
  coarsen.body.push_back(compute_flops(40, "3 * coarsen.rows"));
  m.functions["coarsen"] = coarsen;
  Function unused;  // no call reaches it
  unused.name = "unused";
  unused.body.push_back(compute_flops(50, "unused.size"));
  m.functions["unused"] = unused;
  m.coverage->guessed_branches.push_back({"main", "dir/f.c:20", 0.5, "data-dependent condition"});
  m.coverage->unknown_loops.push_back({"main", "dir/f.c:30", "main.loop1.trips", "its exit depends on data"});

  ProbeRun run{"./app", 2, {}, {}};
  run.features["f.c:20:branch.taken"] = 0;
  run.features["f.c:20:branch.not_taken"] = 2;
  run.code["f.c:20:branch.taken_line"] = 21;
  run.code["f.c:20:branch.not_taken_line"] = 22;
  run.features["f.c:30:loop.entries"] = 0;
  run.features["f.c:30:loop.headers"] = 0;
  std::vector<ProbeFinding> found = bind_probe_run(m, run);

  std::map<std::string, const Parameter*> by_name;
  for (const Parameter& p : m.parameters) by_name[p.name] = &p;
  for (const char* name : {"main.m", "coarsen.rows", "unused.size"}) {
    ASSERT_TRUE(by_name[name]->default_value) << name;
    EXPECT_EQ(by_name[name]->default_value->str(), "0") << name;
    EXPECT_NE(by_name[name]->origin.find("on no path the run took"), std::string::npos) << by_name[name]->origin;
    bool said = false;
    for (const ProbeFinding& f : found)
      if (f.name == name) said = f.status.find("on no path the probe run took") != std::string::npos;
    EXPECT_TRUE(said) << name;
  }
  EXPECT_FALSE(by_name["main.k"]->default_value);  // the flops the run made read it
  EXPECT_FALSE(by_name["main.w"]->default_value);  // main.len's default names it
}

// A branch whose condition the bound values decide (a kernel family the input
// switched off: `if (use_c_kernels) kernel_c(...)`) is evaluated as predict
// evaluates it: the side it rules out prices nothing at the run's input, so
// what only that side reads is bound to 0, or to 1 where it divides (predict
// evaluates that side's counts too, times 0). A condition on the rank, or on
// a parameter still unbound, keeps both sides and what they read required.
TEST(ProbeBind, ASideTheBoundValuesRuleOutIsOnNoPathTheRunTook) {
  ProgramModel m;
  m.entry = "main";
  m.coverage = Coverage{};
  m.parameters.push_back({"main.use_c", "a flag the input sets", perfcast::expr::parse("0"), true, "probe run"});
  for (const char* name :
       {"kernel_c.n", "kernel_c.block", "main.k", "main.root_work", "main.mode", "main.fast_work", "main.slow_work"})
    m.parameters.push_back({name, "a value read from memory", std::nullopt, true, ""});
  Function main_fn;
  main_fn.name = "main";
  BranchItem family;  // if (use_c) kernel_c(); else the Fortran kernel's flops
  family.condition = perfcast::expr::parse("main.use_c != 0");
  CallItem call;
  call.function = "kernel_c";
  family.then_items.push_back(Item{11, "", call});
  family.else_items.push_back(compute_flops(12, "2 * main.k"));
  main_fn.body.push_back(Item{10, "", family});
  BranchItem root;  // if (rank == 0): decided per rank, not by the bound values
  root.condition = perfcast::expr::parse("rank == 0");
  root.then_items.push_back(compute_flops(21, "main.root_work"));
  main_fn.body.push_back(Item{20, "", root});
  BranchItem mode;  // if (mode > 1): its parameter is still unbound
  mode.condition = perfcast::expr::parse("main.mode > 1");
  mode.then_items.push_back(compute_flops(31, "main.fast_work"));
  mode.else_items.push_back(compute_flops(32, "main.slow_work"));
  main_fn.body.push_back(Item{30, "", mode});
  m.functions["main"] = main_fn;
  Function kernel_c;
  kernel_c.name = "kernel_c";
  kernel_c.body.push_back(compute_flops(40, "5 * kernel_c.n + floordiv(kernel_c.n, kernel_c.block)"));
  m.functions["kernel_c"] = kernel_c;

  ProbeRun run{"./app", 2, {}, {}};
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  std::map<std::string, const Parameter*> by_name;
  for (const Parameter& p : m.parameters) by_name[p.name] = &p;
  ASSERT_TRUE(by_name["kernel_c.n"]->default_value);
  EXPECT_EQ(by_name["kernel_c.n"]->default_value->str(), "0");
  EXPECT_NE(by_name["kernel_c.n"]->origin.find("on no path the run took"), std::string::npos);
  ASSERT_TRUE(by_name["kernel_c.block"]->default_value);
  EXPECT_EQ(by_name["kernel_c.block"]->default_value->str(), "1");
  const auto block = std::find_if(found.begin(), found.end(), [](const ProbeFinding& f) { return f.name == "kernel_c.block"; });
  ASSERT_NE(block, found.end());
  EXPECT_NE(block->status.find("as it divides"), std::string::npos) << block->status;
  for (const char* name : {"main.k", "main.root_work", "main.mode", "main.fast_work", "main.slow_work"})
    EXPECT_FALSE(by_name[name]->default_value) << name;

  // The same flag set: the other side is the one the run took.
  m.parameters[0].default_value = perfcast::expr::parse("1");
  for (Parameter& p : m.parameters)
    if (p.name != "main.use_c") p.default_value.reset();
  bind_probe_run(m, run);
  for (const Parameter& p : m.parameters) by_name[p.name] = &p;
  ASSERT_TRUE(by_name["main.k"]->default_value);
  EXPECT_EQ(by_name["main.k"]->default_value->str(), "0");
  EXPECT_FALSE(by_name["kernel_c.n"]->default_value);
}

// A parameter still required after a probe run that no count or time the
// model prices names once the others are in (HPCG's process grid tested only
// where neither side costs anything, a loop with nothing priced in its body)
// does not change the prediction: bound, its origin says so, to 1 where it
// divides. One a site's flops, or a loop's in-core cycles, name stays required.
// A callee's own parameter is what its calls pass, not the model's parameter
// of the same name: main's `n`, bound to 1000, is no value of `scale`'s `n`
// (passed `g.full`) nor of `pick`'s (a test `n > 1000` that main's value
// would rule out). Neither walk that binds what no path or no priced count
// reads may take one for the other: `g.full` sizes scale's loop and
// `g.side` prices pick's side that `g.full` may take, so both stay required.
TEST(ProbeBind, ACalleesParameterIsNotTheModelsParameterOfTheSameName) {
  ProgramModel m;
  m.entry = "main";
  m.coverage = Coverage{};
  m.parameters.push_back({"n", "source variable n of main", perfcast::expr::parse("1000"), true, ""});
  for (const char* name : {"g.full", "g.side"})
    m.parameters.push_back({name, "a value read from memory", std::nullopt, true, ""});
  Function main_fn;
  main_fn.name = "main";
  for (const char* passed : {"n", "g.full"}) {
    CallItem call;
    call.function = "scale";
    call.args = {{"n", perfcast::expr::parse(passed)}};
    main_fn.body.push_back(Item{10, "", call});
  }
  CallItem pick;
  pick.function = "pick";
  pick.args = {{"n", perfcast::expr::parse("g.full")}};
  main_fn.body.push_back(Item{11, "", pick});
  m.functions["main"] = main_fn;
  Function scale_fn{"scale", 20, {"n"}, {}, {"n"}};
  LoopItem loop;
  loop.trip_count = perfcast::expr::parse("n");
  loop.body.push_back(compute_flops(21, "1"));
  scale_fn.body.push_back(Item{21, "", loop});
  m.functions["scale"] = scale_fn;
  Function pick_fn{"pick", 30, {"n"}, {}, {"n"}};
  BranchItem side;
  side.condition = perfcast::expr::parse("n > 1000");
  side.then_items.push_back(compute_flops(31, "3 * g.side"));
  pick_fn.body.push_back(Item{31, "", side});
  m.functions["pick"] = pick_fn;

  std::vector<ProbeFinding> found = bind_probe_run(m, ProbeRun{"./app", 2, {}, {}});
  for (const Parameter& p : m.parameters)
    if (p.name != "n") EXPECT_FALSE(p.default_value) << p.name << " bound: " << p.origin;
}

TEST(ProbeBind, AParameterNoPricedCountNamesDoesNotChangeThePrediction) {
  ProgramModel m;
  m.entry = "main";
  m.coverage = Coverage{};
  for (const char* name : {"main.n", "main.px", "main.pos", "main.spin.trips", "main.wait.trips"})
    m.parameters.push_back({name, "a value read from memory", std::nullopt, true, ""});
  Function main_fn;
  main_fn.name = "main";
  main_fn.body.push_back(compute_flops(10, "3 * main.n"));
  BranchItem grid;  // if (pos > rank / px) noop(): no side prices anything
  grid.condition = perfcast::expr::parse("main.pos > floordiv(rank, main.px)");
  CallItem noop;
  noop.function = "noop";
  grid.then_items.push_back(Item{21, "", noop});
  main_fn.body.push_back(Item{20, "", grid});
  LoopItem spin;  // a loop whose body prices nothing
  spin.trip_count = perfcast::expr::parse("main.spin.trips");
  spin.body.push_back(compute_flops(31, "0"));
  main_fn.body.push_back(Item{30, "", spin});
  LoopItem wait;  // nothing counted, but its cycles are priced
  wait.trip_count = perfcast::expr::parse("main.wait.trips");
  wait.cycles_per_iteration = perfcast::expr::parse("4");
  main_fn.body.push_back(Item{40, "", wait});
  m.functions["main"] = main_fn;
  Function noop_fn;
  noop_fn.name = "noop";
  m.functions["noop"] = noop_fn;

  ProbeRun run{"./app", 2, {}, {}};
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  std::map<std::string, const Parameter*> by_name;
  for (const Parameter& p : m.parameters) by_name[p.name] = &p;
  for (const auto& [name, value] : std::map<std::string, std::string>{
           {"main.px", "1"}, {"main.pos", "0"}, {"main.spin.trips", "0"}}) {
    ASSERT_TRUE(by_name[name]->default_value) << name;
    EXPECT_EQ(by_name[name]->default_value->str(), value) << name;
    EXPECT_NE(by_name[name]->origin.find(kPricesNothing), std::string::npos) << by_name[name]->origin;
    EXPECT_TRUE(std::any_of(found.begin(), found.end(), [&](const ProbeFinding& f) {
      return f.name == name && f.status.find(kPricesNothing) != std::string::npos;
    })) << name;
  }
  EXPECT_FALSE(by_name["main.n"]->default_value);
  EXPECT_FALSE(by_name["main.wait.trips"]->default_value);
}

// A sweep's direction that varied between calls (SNAP's `jd`, handed from
// octsweep to dim3_sweep and mkba_sweep): it picks the first and last cell
// of a loop and its step, which runs over the same `ny` cells either way, and
// is tested on a side the run's values close (the block sweep never taken).
// Its equality tests do not change any priced count: bound, its origin says
// so. One whose test picks a count (`kd` doubling a loop's work) stays required.
TEST(ProbeBind, ADirectionOnlyChoosingAmongEqualCountsDoesNotChangeThePrediction) {
  ProgramModel m;
  m.entry = "main";
  m.coverage = Coverage{};
  for (const char* name : {"sweep.jd", "sweep.kd"})
    m.parameters.push_back({name, "an argument read from memory", std::nullopt, true, ""});
  m.parameters.push_back({"main.ny", "a size", perfcast::expr::parse("6"), true, ""});
  m.parameters.push_back({"main.blocks", "a flag", perfcast::expr::parse("0"), true, ""});
  Function main_fn;
  main_fn.name = "main";
  CallItem sweep;
  sweep.function = "dim3";
  sweep.args = {{"jd", perfcast::expr::parse("sweep.jd")}, {"kd", perfcast::expr::parse("sweep.kd")}};
  main_fn.body.push_back(Item{10, "", sweep});
  m.functions["main"] = main_fn;
  Function dim3;
  dim3.name = "dim3";
  dim3.parameters = {"jd", "kd"};
  LoopItem cells;  // DO j = jlo, jhi, jst: ny cells, down or up
  cells.trip_count = perfcast::expr::parse(
      "floordiv(select(jd == 1, -1, 1) + select(jd == 1, 1, main.ny) - select(jd == 1, main.ny, 1), "
      "select(jd == 1, -1, 1))");
  cells.body.push_back(compute_flops(21, "select(kd == 1, 2, 1)"));
  dim3.body.push_back(Item{20, "", cells});
  BranchItem blocks;  // the block sweep, which tests the direction, on a side the run never took
  blocks.condition = perfcast::expr::parse("main.blocks == 1");
  BranchItem first;
  first.condition = perfcast::expr::parse("jd == 1");
  first.then_items.push_back(compute_flops(32, "3"));
  blocks.then_items.push_back(Item{31, "", first});
  dim3.body.push_back(Item{30, "", blocks});
  m.functions["dim3"] = dim3;

  ProbeRun run{"./app", 1, {}, {}};
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  std::map<std::string, const Parameter*> by_name;
  for (const Parameter& p : m.parameters) by_name[p.name] = &p;
  ASSERT_TRUE(by_name["sweep.jd"]->default_value);
  EXPECT_NE(by_name["sweep.jd"]->origin.find(kPricesNothing), std::string::npos) << by_name["sweep.jd"]->origin;
  EXPECT_FALSE(by_name["sweep.kd"]->default_value);
}

// A receive wrapper that returns where its peer is its rank (SNAP's
// `precv_d_2d`: `IF (proc == myproc) RETURN`, then `dlen = d1 * d2` and the
// receive), called with a peer the analyser could not follow, whose default
// is the rank before: at 1 rank that is the rank itself, so no rank prices
// the receive's length: bound for that count only, and a prediction at 2
// ranks that reads it refused. Run on 2 ranks, each rank receives: required.
TEST(ProbeBind, ALengthNoRankOfTheRunsCountPricesIsBoundForThatCountOnly) {
  auto model = [] {
    ProgramModel m;
    m.entry = "main";
    m.coverage = Coverage{};
    m.parameters.push_back({"precv.dlen", "a length read from memory", std::nullopt, true, ""});
    m.parameters.push_back({"main.peer", "a peer read from memory", perfcast::expr::parse("mod(rank + size - 1, size)"),
                            true, ""});
    Function main_fn;
    main_fn.name = "main";
    CallItem recv;
    recv.function = "precv";
    recv.args = {{"proc", perfcast::expr::parse("main.peer")}, {"myproc", perfcast::expr::parse("rank")}};
    main_fn.body.push_back(Item{10, "", recv});
    m.functions["main"] = main_fn;
    Function precv;
    precv.name = "precv";
    precv.parameters = {"proc", "myproc"};
    BranchItem own;
    own.condition = perfcast::expr::parse("myproc == proc");
    MpiItem message;
    message.op = perfcast::mpi::Op::Recv;
    message.bytes = perfcast::expr::parse("8 * precv.dlen");
    message.peer = perfcast::expr::parse("proc");
    own.else_items.push_back(Item{22, "", message});
    precv.body.push_back(Item{20, "", own});
    m.functions["precv"] = precv;
    return m;
  };
  ProgramModel one = model();
  ProbeRun run{"./app", 1, {}, {}};
  bind_probe_run(one, run);
  const Parameter& dlen = one.parameters.front();
  ASSERT_TRUE(dlen.default_value) << dlen.origin;
  EXPECT_NE(dlen.origin.find(kPricesNothing), std::string::npos) << dlen.origin;
  EXPECT_EQ(ranks_left_unread(dlen), 1) << dlen.origin;
  EXPECT_TRUE(read_off_the_probed_paths(one, 1, {}).empty());
  EXPECT_EQ(read_off_the_probed_paths(one, 2, {}), std::vector<std::string>{"precv.dlen"});

  ProgramModel two = model();
  ProbeRun run2{"./app", 2, {}, {}};
  bind_probe_run(two, run2);
  EXPECT_FALSE(two.parameters.front().default_value) << two.parameters.front().origin;
}

// A call's argument the analyser could not follow (CloverLeaf's tiles'
// extents): bound to the values the call site's calls passed, recorded as
// `file:line:call.argN` with the callee's id. Where the values varied (between
// calls, or constant on each rank but different between ranks), only an
// argument the callee uses as a size (its loops' trips and their tests) takes
// the mean; the callee's test of one for equality is priced by the run's
// counts of it instead (a guessed branch: no one value decides it for every
// call), and one whose probe names another callee stays required.
TEST(ProbeBind, ACallsArgumentIsTheValueItsCallsPassed) {
  ProgramModel m;
  m.entry = "main";
  m.coverage = Coverage{};
  Function kernel;
  kernel.name = "kernel_";
  kernel.parameters = {"x_min", "x_max", "y_min", "mode"};
  kernel.arguments = {"x_min", "x_max", "y_min", "mode", ""};
  LoopItem loop;
  loop.trip_count = expr::parse("x_max - x_min + 1");
  loop.body.push_back(compute_flops(11, "2 * y_min"));
  BranchItem guard;  // the loop's guard, at its line
  guard.condition = expr::parse("x_max < x_min");
  guard.else_items.push_back(Item{10, "", loop});
  kernel.body.push_back(Item{10, "", guard});
  BranchItem test;  // a test of the argument's value, not of a loop
  test.condition = expr::parse("mode == 1");
  test.then_items.push_back(compute_flops(21, "100"));
  kernel.body.push_back(Item{20, "", test});
  m.functions["kernel_"] = kernel;
  Function other;
  other.name = "other";
  other.parameters = {"n"};
  other.arguments = {"n"};
  other.body.push_back(compute_flops(5, "n"));
  m.functions["other"] = other;
  Function main_fn;
  main_fn.name = "main";
  CallItem call;
  call.function = "kernel_";
  for (const char* a : {"x_min", "x_max", "y_min", "mode"}) call.args.emplace_back(a, expr::var(std::string("main.kernel_1.") + a));
  main_fn.body.push_back(Item{40, "", call});
  CallItem call_other;
  call_other.function = "other";
  call_other.args.emplace_back("n", expr::var("main.other1.n"));
  main_fn.body.push_back(Item{41, "", call_other});
  m.functions["main"] = main_fn;
  for (const char* a : {"x_min", "x_max", "y_min", "mode"})
    m.parameters.push_back({std::string("main.kernel_1.") + a,
                            fmt::format("argument {} of the call of kernel at drive_f90:40, read from memory: its "
                                        "address is computed",
                                        a),
                            std::nullopt, true, ""});
  m.parameters.push_back({"main.other1.n", "argument n of the call of other at drive_f90:41, read from memory: a value",
                          std::nullopt, true, ""});
  EXPECT_TRUE(used_only_as_size(m, "main.kernel_1.x_min"));
  EXPECT_FALSE(used_only_as_size(m, "main.kernel_1.mode"));
  const ProgramModel unbound = m;

  ProbeRun run{"./app", 2, {}, {}};
  run.code["drive.f90:40:call.callee"] = function_id("kernel_");
  assigned(run, "drive.f90:40:call.arg1", 6, 3 * 1 + 3 * 17, 4, 17);  // two tiles: 1 and 17, alternating
  assigned(run, "drive.f90:40:call.arg2", 6, 6 * 32, 0, 32);          // the same on every call and rank
  assigned(run, "drive.f90:40:call.arg3", 6, 3 * 1 + 3 * 33, 0, 33);  // constant on each rank: 1 and 33
  assigned(run, "drive.f90:40:call.arg4", 6, 3 * 1 + 3 * 2, 4, 2);    // a mode that varied
  run.code["drive.f90:41:call.callee"] = function_id("kernel_");      // not `other`'s probe
  assigned(run, "drive.f90:41:call.arg1", 2, 2 * 7, 0, 7);
  run.features["kernel.f90:20:branch.taken"] = 2;  // the mode's test: 2 of its 6 calls take it
  run.features["kernel.f90:20:branch.not_taken"] = 4;
  run.code["kernel.f90:20:branch.taken_line"] = 21;
  std::vector<ProbeFinding> found = bind_probe_run(m, run);
  std::map<std::string, const Parameter*> by_name;
  for (const Parameter& p : m.parameters) by_name[p.name] = &p;
  ASSERT_TRUE(by_name["main.kernel_1.x_min"]->default_value);
  EXPECT_EQ(by_name["main.kernel_1.x_min"]->default_value->str(), "9");
  EXPECT_NE(by_name["main.kernel_1.x_min"]->origin.find("varied"), std::string::npos);
  ASSERT_TRUE(by_name["main.kernel_1.x_max"]->default_value);
  EXPECT_EQ(by_name["main.kernel_1.x_max"]->default_value->str(), "32");
  EXPECT_EQ(by_name["main.kernel_1.x_max"]->origin, probe_origin(run));
  ASSERT_TRUE(by_name["main.kernel_1.y_min"]->default_value);
  EXPECT_EQ(by_name["main.kernel_1.y_min"]->default_value->str(), "17");
  EXPECT_NE(by_name["main.kernel_1.y_min"]->origin.find("varied"), std::string::npos);
  EXPECT_FALSE(by_name["main.other1.n"]->default_value);
  // The mode's test: a guessed branch the run's counts price, 2 of 6.
  const auto mode_test = std::find_if(m.coverage->guessed_branches.begin(), m.coverage->guessed_branches.end(),
                                      [](const Coverage::Branch& b) { return b.function == "kernel_"; });
  ASSERT_NE(mode_test, m.coverage->guessed_branches.end());
  EXPECT_EQ(mode_test->why.rfind(kEqualityTestWhy, 0), 0u) << mode_test->why;
  ASSERT_TRUE(mode_test->probe_probability);
  EXPECT_DOUBLE_EQ(*mode_test->probe_probability, 2.0 / 6);
  EXPECT_FALSE(std::get<BranchItem>(m.functions["kernel_"].body[1].body).condition);

  // With the ranks' values recorded, the one constant on each rank is each
  // rank's own; the one that varied on a rank is still the mean.
  ProgramModel ranked = unbound;
  run.per_rank_recorded = true;
  run.per_rank["drive.f90:40:call.arg3.sum"] = {3, 99};
  bind_probe_run(ranked, run);
  for (const Parameter& p : ranked.parameters) by_name[p.name] = &p;
  ASSERT_TRUE(by_name["main.kernel_1.y_min"]->default_value);
  EXPECT_EQ(by_name["main.kernel_1.y_min"]->default_value->str(), "select(rank == 1, 33, 1)");
  EXPECT_EQ(ranks_bound_each_rank(*by_name["main.kernel_1.y_min"]), 2);
  ASSERT_TRUE(by_name["main.kernel_1.x_min"]->default_value);
  EXPECT_EQ(by_name["main.kernel_1.x_min"]->default_value->str(), "9");
}

// A kernel testing its `dir` (`dir == 1`, 100 flops on that side, at
// kernel.f90:20) and a driver handing its own `dir` on to it, with no caller
// yet.
ProgramModel driver_and_kernel() {
  ProgramModel m;
  m.entry = "main";
  m.coverage = Coverage{};
  Function kernel;
  kernel.name = "kernel_";
  kernel.parameters = {"dir"};
  kernel.arguments = {"dir"};
  BranchItem test;
  test.condition = expr::parse("dir == 1");
  test.then_items.push_back(compute_flops(21, "100"));
  kernel.body.push_back(Item{20, "", test});
  m.functions["kernel_"] = kernel;
  Function driver;
  driver.name = "driver_";
  driver.parameters = {"dir"};
  driver.arguments = {"dir"};
  CallItem inner;
  inner.function = "kernel_";
  inner.args.emplace_back("dir", expr::var("dir"));
  driver.body.push_back(Item{30, "", inner});
  m.functions["driver_"] = driver;
  return m;
}

// The same through a driver (CloverLeaf's sweep direction: `advec_cell_driver`
// given `dir`, which it could not follow, passing it on to the kernel that
// tests it): the kernel's parameter stands for the required one through its
// every call, its values at the kernel's calls varied, and its test is priced
// by the run's counts of it.
TEST(ProbeBind, ATestOfAnArgumentPassedOnThroughADriverIsPricedByTheRunsCounts) {
  ProgramModel m = driver_and_kernel();
  Function main_fn;
  main_fn.name = "main";
  CallItem call;
  call.function = "driver_";
  call.args.emplace_back("dir", expr::var("main.driver_1.dir"));
  main_fn.body.push_back(Item{40, "", call});
  m.functions["main"] = main_fn;
  m.parameters.push_back({"main.driver_1.dir",
                          "argument dir of the call of driver at drive_f90:40, read from memory: written on more than "
                          "one path before the call",
                          std::nullopt, true, ""});
  ProbeRun run{"./app", 2, {}, {}};
  run.code["drive.f90:40:call.callee"] = function_id("driver_");
  assigned(run, "drive.f90:40:call.arg1", 4, 1 + 2 + 1 + 2, 4, 2);
  run.code["driver.f90:30:call.callee"] = function_id("kernel_");
  assigned(run, "driver.f90:30:call.arg1", 4, 1 + 2 + 1 + 2, 4, 2);
  run.features["kernel.f90:20:branch.taken"] = 2;
  run.features["kernel.f90:20:branch.not_taken"] = 2;
  run.code["kernel.f90:20:branch.taken_line"] = 21;
  bind_probe_run(m, run);
  EXPECT_FALSE(std::get<BranchItem>(m.functions["kernel_"].body[0].body).condition);
  const auto priced = std::find_if(m.coverage->guessed_branches.begin(), m.coverage->guessed_branches.end(),
                                   [](const Coverage::Branch& b) { return b.function == "kernel_"; });
  ASSERT_NE(priced, m.coverage->guessed_branches.end());
  ASSERT_TRUE(priced->probe_probability);
  EXPECT_DOUBLE_EQ(*priced->probe_probability, 0.5);
}

// The same where the driver's argument stands for no one parameter (CloverLeaf's
// `advec_cell_driver`, called for the first sweep with a direction the run
// bound and for the second with one it could not) and no probe read the
// kernel's calls (the argument passed on by reference as it came): the
// driver's values varied and it hands them on, so the kernel's test is
// priced by the run's counts where the run counted it; where it did not, the
// test keeps its condition, never made a guess.
TEST(ProbeBind, AnArgumentPassedOnFromOneThatVariedIsPricedByTheRunsCountsWhereItCounted) {
  auto bind = [](bool counted) {
    ProgramModel m = driver_and_kernel();
    Function main_fn;
    main_fn.name = "main";
    for (int k : {1, 2}) {
      CallItem call;
      call.function = "driver_";
      call.args.emplace_back("dir", expr::var(fmt::format("main.driver_{}.dir", k)));
      main_fn.body.push_back(Item{39 + k, "", call});
    }
    m.functions["main"] = main_fn;
    m.parameters.push_back({"main.driver_1.dir", "argument dir of the call of driver at drive_f90:40", std::nullopt, true, ""});
    m.parameters.back().default_value = expr::parse("1");
    m.parameters.push_back({"main.driver_2.dir",
                            "argument dir of the call of driver at drive_f90:41, read from memory: written on more "
                            "than one path before the call",
                            std::nullopt, true, ""});
    ProbeRun run{"./app", 2, {}, {}};
    run.code["drive.f90:41:call.callee"] = function_id("driver_");
    assigned(run, "drive.f90:41:call.arg1", 4, 1 + 2 + 1 + 2, 4, 2);
    if (counted) {
      run.features["kernel.f90:20:branch.taken"] = 2;
      run.features["kernel.f90:20:branch.not_taken"] = 2;
      run.code["kernel.f90:20:branch.taken_line"] = 21;
    }
    bind_probe_run(m, run);
    return m;
  };
  ProgramModel m = bind(true);
  EXPECT_FALSE(std::get<BranchItem>(m.functions["kernel_"].body[0].body).condition);
  const auto priced = std::find_if(m.coverage->guessed_branches.begin(), m.coverage->guessed_branches.end(),
                                   [](const Coverage::Branch& b) { return b.function == "kernel_"; });
  ASSERT_NE(priced, m.coverage->guessed_branches.end());
  ASSERT_TRUE(priced->probe_probability);
  EXPECT_DOUBLE_EQ(*priced->probe_probability, 0.5);
  ProgramModel uncounted = bind(false);
  EXPECT_TRUE(std::get<BranchItem>(uncounted.functions["kernel_"].body[0].body).condition);
}

// An ordered test of an argument whose values varied (a library's check,
// `if (global < 0) return`, that no call failed), the caller passing what the
// model cannot evaluate: priced by the run's counts of it, as a test for
// equality is, so the caller's value is left to size only and is bound; where
// the run did not count that test, or counted both its sides (a share that
// another input's sizes would not move), it keeps its condition and the
// caller's value stays required.
TEST(ProbeBind, AnOrderedTestOfAnArgumentThatVariedIsPricedByTheRunsCountsWhereItCounted) {
  auto bind = [](bool counted, double taken = 0) {
    ProgramModel m;
    m.entry = "main";
    m.coverage = Coverage{};
    Function create{"create", 10, {"global"}, {}, {"global"}, "lib.c"};
    BranchItem check;
    check.condition = expr::parse("global < 0");
    check.then_items.push_back(compute_flops(12, "1"));
    create.body.push_back(Item{11, "", check});
    create.body.push_back(compute_flops(15, "100"));
    m.functions["create"] = create;
    Function main_fn{"main", 30, {}, {}};
    CallItem call;
    call.function = "create";
    call.args.emplace_back("global", expr::var("main.create1.global"));
    main_fn.body.push_back(Item{34, "", call});
    m.functions["main"] = main_fn;
    m.parameters.push_back({"main.create1.global",
                            "argument global of the call of create at app_c:34, read from memory: a value the code "
                            "does not compute from the model's parameters",
                            std::nullopt, true, ""});
    ProbeRun run{"./app", 2, {}, {}};
    run.code["app.c:34:call.callee"] = function_id("create");
    assigned(run, "app.c:34:call.arg1", 8, 1000 + 500 + 250 + 125, 6, 1000);
    if (counted) {
      run.features["lib.c:11:branch.taken"] = taken;
      run.features["lib.c:11:branch.not_taken"] = 8 - taken;
      run.code["lib.c:11:branch.taken_line"] = 12;
      run.code["lib.c:11:branch.not_taken_line"] = 15;
    }
    bind_probe_run(m, run);
    return m;
  };
  ProgramModel m = bind(true);
  const Item& check = m.functions["create"].body[0];
  EXPECT_FALSE(std::get<BranchItem>(check.body).condition);
  EXPECT_NE(check.note.find(kOrderedTestWhy), std::string::npos) << check.note;
  const auto priced = std::find_if(m.coverage->guessed_branches.begin(), m.coverage->guessed_branches.end(),
                                   [](const Coverage::Branch& b) { return b.function == "create"; });
  ASSERT_NE(priced, m.coverage->guessed_branches.end());
  ASSERT_TRUE(priced->probe_probability);
  EXPECT_DOUBLE_EQ(*priced->probe_probability, 0.0);
  EXPECT_TRUE(m.parameters.front().default_value) << "the caller's value is no longer required";

  for (ProgramModel kept_model : {bind(false), bind(true, 2)}) {
    const Item& kept = kept_model.functions["create"].body[0];
    ASSERT_TRUE(std::get<BranchItem>(kept.body).condition);
    EXPECT_EQ(expr::to_string(*std::get<BranchItem>(kept.body).condition), "global < 0");
    EXPECT_EQ(kept.note.find(kOrderedTestWhy), std::string::npos) << kept.note;
    EXPECT_TRUE(std::none_of(kept_model.coverage->guessed_branches.begin(), kept_model.coverage->guessed_branches.end(),
                             [](const Coverage::Branch& b) { return b.function == "create"; }));
    EXPECT_FALSE(kept_model.parameters.front().default_value);
  }
}

// `new Grid(n)` calls the complete-object constructor (C1), which clang
// emits as an alias of the base-object one (C2), the function the analyser
// prices: the probe, compiled before the units are linked, names the callee
// C1, and its argument binds the model's call of C2. A probe of another
// callee at the same line does not.
TEST(ProbeBind, AConstructorsArgumentIsBoundByTheNameTheSourceCalled) {
  ProgramModel m;
  m.entry = "main";
  m.coverage = Coverage{};
  Function grid;
  grid.name = "_ZN4GridC2El";
  grid.parameters = {"n"};
  grid.arguments = {"", "n"};
  LoopItem loop;
  loop.trip_count = expr::parse("n");
  loop.body.push_back(compute_flops(9, "2"));
  grid.body.push_back(Item{9, "", loop});
  m.functions[grid.name] = grid;
  Function main_fn;
  main_fn.name = "main";
  for (int line : {20, 21}) {
    CallItem call;
    call.function = grid.name;
    call.args.emplace_back("n", expr::var(fmt::format("main.Grid{}.n", line - 19)));
    main_fn.body.push_back(Item{line, "", call});
    m.parameters.push_back({fmt::format("main.Grid{}.n", line - 19),
                            fmt::format("argument n of the call of Grid at setup_cpp:{}, read from memory: a value", line),
                            std::nullopt, true, ""});
  }
  m.functions["main"] = main_fn;
  ProbeRun run{"./app", 1, {}, {}};
  run.code["setup.cpp:20:call.callee"] = function_id("_ZN4GridC1El");
  assigned(run, "setup.cpp:20:call.arg2", 1, 1000, 0, 1000);
  run.code["setup.cpp:21:call.callee"] = function_id("_ZN4MeshC1El");  // another class's constructor
  assigned(run, "setup.cpp:21:call.arg2", 1, 7, 0, 7);
  bind_probe_run(m, run);
  std::map<std::string, const Parameter*> by_name;
  for (const Parameter& p : m.parameters) by_name[p.name] = &p;
  ASSERT_TRUE(by_name["main.Grid1.n"]->default_value);
  EXPECT_EQ(by_name["main.Grid1.n"]->default_value->str(), "1000");
  EXPECT_FALSE(by_name["main.Grid2.n"]->default_value);
}

// CloverLeaf's advec_mom_kernel: `sel` takes 1..4 (40 calls) and picks one of
// four sides, which the optimiser makes a switch, the model's branches on
// `sel == k` at the chain's first line. Its mean (2.55 -> 3) would send every
// call to side 3. Each equality test becomes a guessed branch priced by how
// often the run entered the line its side starts at (a side that starts where
// no branch probe's side does, or a switch the probes do not count, keeps its
// guess); an ordered test and a size keep the mean; a value that never varied
// is still folded into its tests.
TEST(ProbeBind, AValueThatVariedIsNotFoldedIntoItsEqualityTests) {
  ProgramModel m;
  m.entry = "kernel";
  m.coverage = Coverage{};
  m.parameters.push_back({"kernel.sel", "source variable sel of kernel (kernel_f90:5)", std::nullopt, true, ""});
  m.parameters.push_back({"pick.sel", "source variable sel of pick (pick_c:3)", std::nullopt, true, ""});
  m.parameters.push_back({"other.k", "source variable k of other (other_c:3)", std::nullopt, true, ""});
  auto branch = [](const char* condition, std::vector<Item> then_items, std::vector<Item> else_items) {
    BranchItem b;
    b.condition = perfcast::expr::parse(condition);
    b.then_items = std::move(then_items);
    b.else_items = std::move(else_items);
    return b;
  };
  Function kernel;
  kernel.name = "kernel";
  kernel.body.push_back(Item{7, "", branch("kernel.sel == 2", {compute_flops(12, "2")}, {})});
  kernel.body.push_back(Item{7, "", branch("zext(kernel.sel, 32) == 1", {compute_flops(8, "1")}, {})});
  kernel.body.push_back(Item{7, "", branch("kernel.sel != 3", {}, {compute_flops(16, "4")})});
  kernel.body.push_back(Item{30, "", branch("kernel.sel > 2", {compute_flops(31, "1")}, {})});
  LoopItem sized;  // a size: the mean is right for a cost linear in it
  sized.trip_count = perfcast::expr::parse("kernel.sel");
  sized.body.push_back(compute_flops(41, "1"));
  kernel.body.push_back(Item{40, "", sized});
  CallItem to_pick, to_other;
  to_pick.function = "pick";
  to_other.function = "other";
  kernel.body.push_back(Item{45, "", to_pick});
  kernel.body.push_back(Item{46, "", to_other});
  m.functions["kernel"] = kernel;
  Function pick;  // a C switch: no branch probe at its line
  pick.name = "pick";
  pick.body.push_back(Item{50, "", branch("pick.sel == 1", {compute_flops(51, "1")}, {compute_flops(53, "2")})});
  m.functions["pick"] = pick;
  Function other;
  other.name = "other";
  other.body.push_back(Item{60, "", branch("other.k == 2", {compute_flops(61, "1")}, {})});
  m.functions["other"] = other;

  ProbeRun run{"./app", 2, {}, {}};
  // Sides 1..4 run 10, 10, 8 and 12 times: the chain's tests at lines 7, 11, 15, 19.
  const int tests[] = {7, 11, 15, 19};
  const double reached[] = {40, 30, 20, 12}, side_runs[] = {10, 10, 8, 12};
  for (int k = 0; k < 4; ++k) {
    const std::string at = "kernel.f90:" + std::to_string(tests[k]) + ":branch";
    run.features[at + ".taken"] = side_runs[k];
    run.features[at + ".not_taken"] = reached[k] - side_runs[k];
    run.code[at + ".taken_line"] = tests[k] + 1;
    if (k < 3) run.code[at + ".not_taken_line"] = tests[k + 1];
  }
  assigned(run, "kernel.f90:5:sel", 40, 10 * 1 + 10 * 2 + 8 * 3 + 12 * 4, 39, 4);
  assigned(run, "pick.c:3:sel", 4, 6, 3, 2);
  assigned(run, "other.c:3:k", 2, 4, 0, 2);
  std::vector<ProbeFinding> found = bind_probe_run(m, run);

  const Items& body = m.functions.at("kernel").body;
  auto probability_at = [&](size_t k) {
    const auto& b = std::get<BranchItem>(body[k].body);
    EXPECT_FALSE(b.condition) << k;
    return b.probability;
  };
  EXPECT_DOUBLE_EQ(probability_at(0), 10.0 / 40);       // side 2, started at line 12
  EXPECT_DOUBLE_EQ(probability_at(1), 10.0 / 40);       // side 1, through a cast
  EXPECT_DOUBLE_EQ(probability_at(2), 1 - 8.0 / 40);    // `!= 3`: its else side, side 3, at line 16
  EXPECT_TRUE(std::get<BranchItem>(body[3].body).condition);  // `> 2`: ordered, kept
  // The size keeps the mean: (10 + 20 + 24 + 48) / 40, to the nearest whole number.
  ASSERT_TRUE(m.parameters[0].default_value);
  EXPECT_EQ(m.parameters[0].default_value->str(), "3");
  // The switch the probes do not count stays a guess, said so.
  const auto& switched = std::get<BranchItem>(m.functions.at("pick").body.front().body);
  EXPECT_FALSE(switched.condition);
  EXPECT_DOUBLE_EQ(switched.probability, 0.5);
  // A value that never varied is folded as before.
  EXPECT_TRUE(std::get<BranchItem>(m.functions.at("other").body.front().body).condition);
  ASSERT_TRUE(m.parameters[2].default_value);
  EXPECT_EQ(m.parameters[2].default_value->str(), "2");

  // Each test is a guessed branch of the coverage, with what the run measured.
  int kernel_tests = 0;
  for (const Coverage::Branch& b : m.coverage->guessed_branches) {
    ASSERT_EQ(b.why.rfind("tests for equality a value that varied", 0), 0u) << b.why;
    if (b.function == "kernel") {
      ++kernel_tests;
      EXPECT_EQ(b.site, "kernel.f90:7");
      EXPECT_TRUE(b.probe_probability) << b.why;
    } else {
      EXPECT_EQ(b.function, "pick");
      EXPECT_EQ(b.site, "pick.c:50");
      EXPECT_FALSE(b.probe_probability);
    }
  }
  EXPECT_EQ(kernel_tests, 3);
  EXPECT_EQ(m.coverage->guessed_branches.size(), 4u);
  const auto unpriced = std::find_if(found.begin(), found.end(), [](const ProbeFinding& f) {
    return f.kind == ProbeFinding::Kind::Branch && f.name == "pick";
  });
  ASSERT_NE(unpriced, found.end());
  EXPECT_NE(unpriced->status.find("no branch or switch probe"), std::string::npos) << unpriced->status;
}

// A field that varied (a matrix's off-diagonal columns: none on one level,
// some on another), tested in a function of its own file (`if (offd.ncols)
// matvec(offd)`): the test is named at that file's line, not at the header
// that declares the field (where the field's probes are), and priced by the
// run's sides there.
TEST(ProbeBind, AFieldThatVariedIsTestedWhereItIsReadNotWhereItIsDeclared) {
  ProgramModel m;
  m.entry = "matvec";
  m.coverage = Coverage{};
  m.coverage->guessed_branches.push_back({"matvec", "src/matvec.c:20", 0.5, "data-dependent condition"});
  const char* tail = ", read from memory (a value the loops that read it leave alone); the field is declared at ";
  m.parameters.push_back({"matvec.offd.ncols", std::string("field offd.ncols of matvec (matvec_c:32)") + tail + "mat_h:53",
                          std::nullopt, true, ""});
  BranchItem test;
  test.condition = expr::parse("matvec.offd.ncols == 0");
  test.else_items.push_back(Item{32, "", CallItem{"offd_product", {}}});
  Function matvec;
  matvec.name = "matvec";
  matvec.body.push_back(Item{32, "", test});
  m.functions["matvec"] = matvec;
  Function product;
  product.name = "offd_product";
  product.body.push_back(compute_flops(40, "10"));
  m.functions["offd_product"] = product;

  ProbeRun run{"./app", 1, {}, {}};
  assigned(run, "mat.h:53:Matrix.ncols", 4, 0 + 0 + 6 + 0, 2, 0);
  // Reached 20 times; its side into the call, on its own line, ran 5 times.
  run.features["matvec.c:32:branch.taken"] = 5;
  run.features["matvec.c:32:branch.not_taken"] = 15;
  run.code["matvec.c:32:branch.taken_line"] = 32;
  run.code["matvec.c:32:branch.not_taken_line"] = 33;
  run.features["mat.h:32:branch.taken"] = 1;  // a branch of the header at that line number
  run.features["mat.h:32:branch.not_taken"] = 1;
  bind_probe_run(m, run);

  const auto& priced = std::get<BranchItem>(m.functions.at("matvec").body.front().body);
  EXPECT_FALSE(priced.condition);
  EXPECT_DOUBLE_EQ(priced.probability, 1 - 5.0 / 20);
  const auto site = std::find_if(m.coverage->guessed_branches.begin(), m.coverage->guessed_branches.end(),
                                 [](const Coverage::Branch& b) { return b.why.find("varied") != std::string::npos; });
  ASSERT_NE(site, m.coverage->guessed_branches.end());
  EXPECT_EQ(site->site, "src/matvec.c:32");
  EXPECT_TRUE(site->probe_probability);
}

// A loop's guard (`n > e + 1` before a loop of n - e - 1 trips) that tests a
// value that varied: unfolded to the run's frequency, it no longer keeps the
// loop from a negative count where e is past n; the loop says it itself, its
// trips max(trips, 0). A loop whose trips the guard does not state is left.
TEST(ProbeBind, ALoopWhoseGuardIsUnfoldedNeverCountsBelowZero) {
  ProgramModel m;
  m.entry = "setup";
  m.coverage = Coverage{};
  m.parameters.push_back({"setup.e", "source variable e of setup (setup_c:5)", std::nullopt, true, ""});
  m.parameters.push_back({"setup.n", "source variable n of setup (setup_c:4)", std::nullopt, true, ""});
  const Expr last = expr::parse("select(setup.e == -1, 7, setup.e)");
  auto loop_of = [](const Expr& trips) {
    LoopItem l;
    l.trip_count = trips;
    l.body.push_back(compute_flops(21, "1"));
    return Item{20, "", l};
  };
  BranchItem guard, other;
  guard.condition = expr::simplify(expr::compare(expr::Comparison::Gt, expr::var("setup.n"), last + Expr(1)));
  guard.then_items.push_back(loop_of(expr::simplify(expr::var("setup.n") - last - Expr(1))));
  other.condition = expr::simplify(expr::compare(expr::Comparison::Ge, expr::var("setup.n"), last));
  other.then_items.push_back(loop_of(expr::simplify(expr::var("setup.n") - last - Expr(3))));
  Function setup;
  setup.name = "setup";
  setup.body.push_back(Item{19, "", guard});
  setup.body.push_back(Item{30, "", other});
  m.functions["setup"] = setup;

  ProbeRun run{"./app", 1, {}, {}};
  assigned(run, "setup.c:5:e", 2, -1 + 3, 1, 3);  // -1, then 3
  assigned(run, "setup.c:4:n", 1, 6, 0, 6);
  bind_probe_run(m, run);

  const auto& unfolded = std::get<BranchItem>(m.functions.at("setup").body[0].body);
  ASSERT_FALSE(unfolded.condition);
  const auto& loop = std::get<LoopItem>(unfolded.then_items.front().body);
  auto trips_at = [&](const Expr& trips, std::int64_t n, std::int64_t e) {
    return expr::evaluate(trips, {{"setup.n", expr::Value(n)}, {"setup.e", expr::Value(e)}}).real();
  };
  EXPECT_EQ(trips_at(loop.trip_count, 4, 8), 0);    // past the end: none, not -5
  EXPECT_EQ(trips_at(loop.trip_count, 20, 8), 11);  // where the guard held: as written
  EXPECT_EQ(trips_at(loop.trip_count, 20, -1), 12);
  const auto& unclamped = std::get<BranchItem>(m.functions.at("setup").body[1].body);
  ASSERT_FALSE(unclamped.condition);
  EXPECT_EQ(trips_at(std::get<LoopItem>(unclamped.then_items.front().body).trip_count, 4, 8), -7);
}

// A C switch on such a value: the probes count each of its sides (the
// default first) and the line it starts at; the runs of all of them are the
// arrivals at the switch.
TEST(ProbeBind, ASwitchOnAValueThatVariedIsPricedByTheRunsOfItsSides) {
  ProgramModel m;
  m.entry = "pick";
  m.coverage = Coverage{};
  m.parameters.push_back({"pick.sel", "source variable sel of pick (pick_c:3)", std::nullopt, true, ""});
  Function pick;
  pick.name = "pick";
  for (const auto& [test, side_line] : {std::pair{"pick.sel == 2", 12}, std::pair{"pick.sel == 1", 11}}) {
    BranchItem b;
    b.condition = perfcast::expr::parse(test);
    b.then_items.push_back(compute_flops(side_line, "1"));
    pick.body.push_back(Item{10, "", b});
  }
  m.functions["pick"] = pick;
  ProbeRun run{"./app", 1, {}, {}};
  const double runs[] = {5, 3, 2};  // the default, `case 1`, `case 2`
  const int lines[] = {13, 11, 12};
  for (int k = 0; k < 3; ++k) {
    const std::string side = "pick.c:10:switch" + (k ? "#" + std::to_string(k + 1) : std::string());
    run.features[side + ".runs"] = runs[k];
    run.code[side + ".side_line"] = lines[k];
  }
  assigned(run, "pick.c:3:sel", 10, 3 * 1 + 2 * 2 + 5 * 7, 9, 7);
  bind_probe_run(m, run);
  const Items& body = m.functions.at("pick").body;
  EXPECT_DOUBLE_EQ(std::get<BranchItem>(body[0].body).probability, 2.0 / 10);
  EXPECT_DOUBLE_EQ(std::get<BranchItem>(body[1].body).probability, 3.0 / 10);
  for (const Coverage::Branch& b : m.coverage->guessed_branches) EXPECT_TRUE(b.probe_probability) << b.why;
}

// A polling loop's passes are timing and stay one; whether the run entered
// it is not: one the probe run never entered (`hypre_DataExchangeList`'s at 1
// rank) runs no pass, so the value only it reads is on no path the run took
// and bound, while the one the run entered keeps its pass.
TEST(ProbeBind, APollingLoopTheRunNeverEnteredRunsNoPass) {
  ProgramModel m;
  m.entry = "main";
  m.coverage = Coverage{};
  m.parameters.push_back({"main.myid", "source variable myid of main", std::nullopt, true, ""});
  auto polling_loop = [](int line, const char* reads) {
    LoopItem l;
    l.trip_count = expr::parse("1");
    l.polls = "MPI_Testall";
    BranchItem b;
    b.condition = expr::parse(std::string(reads) + " == 0");
    l.body.push_back(Item{line + 1, "", b});
    return Item{line, "", l};
  };
  Function f;
  f.name = "main";
  f.body.push_back(polling_loop(12, "main.myid"));
  f.body.push_back(polling_loop(20, "1"));
  m.functions["main"] = f;
  m.coverage->polling_loops.push_back({"main", "dir/ex.c:12", "main.loop1", "MPI_Testall"});
  m.coverage->polling_loops.push_back({"main", "dir/ex.c:20", "main.loop2", "MPI_Testall"});
  ProbeRun run{"./app", 1, {}, {}};
  run.features["ex.c:12:loop.headers"] = 0;
  run.features["ex.c:12:loop.entries"] = 0;
  run.features["ex.c:20:loop.headers"] = 5000;
  run.features["ex.c:20:loop.entries"] = 2;
  bind_probe_run(m, run);
  const auto& body = m.functions.at("main").body;
  EXPECT_EQ(expr::to_string(std::get<LoopItem>(body[0].body).trip_count), "0");
  EXPECT_NE(body[0].note.find("never entered"), std::string::npos) << body[0].note;
  EXPECT_EQ(expr::to_string(std::get<LoopItem>(body[1].body).trip_count), "1") << "its passes are timing";
  ASSERT_TRUE(m.parameters[0].default_value.has_value()) << "read only in the loop never entered";
  EXPECT_NE(m.parameters[0].origin.find("on no path the run took"), std::string::npos) << m.parameters[0].origin;
}
