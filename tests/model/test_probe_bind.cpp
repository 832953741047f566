// A probe run's branch fractions bound onto a model: the fraction measured on
// the condition's true side as written goes to the model's side that starts
// at the same source line, `then` or, where the optimiser inverted the test,
// `else`; when the lines do not say, or were not recorded, to `then`, and the
// status says so.
#include <gtest/gtest.h>

#include <algorithm>

#include "model/costs.h"
#include "model/model_write.h"
#include "model/probe_bind.h"
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

}  // namespace

namespace {

// A function `spmv` whose loops at `lines` run `trips` iterations, the size a
// parameter read from memory.
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
  // 1557.33, to the nearest whole number: the program holds the size in an
  // integer, and the model's casts of it need one.
  EXPECT_EQ(expr::to_string(*m.parameters[0].default_value), "1557");
  EXPECT_TRUE(m.parameters[0].integer);
  EXPECT_EQ(m.parameters[0].origin, "probe run: `./app` on 1 rank");

  // Two loops it sizes that ran different means: left to the user, saying why.
  run.features["spmv.c:86:loop.headers"] = 100 + 1;
  run.features["spmv.c:86:loop.entries"] = 1;
  ProgramModel two = sized_model({61, 86}, "spmv.nrow");
  two.coverage->unknown_loops.push_back({"spmv", "src/spmv.c:67", "spmv.loop2.trips", "read from memory"});
  found = bind_probe_run(two, run);
  EXPECT_FALSE(two.parameters[0].default_value);
  bool said = false;
  for (const auto& f : found) said |= f.status.find("different mean trips") != std::string::npos;
  EXPECT_TRUE(said);
}

}  // namespace

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
    Function f{name, 1, {"len"}, {}, {"len"}};
    if (std::string(name) == "damped") f.parameters = {"len", "width"}, f.arguments = {"len", "width"};
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
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].name, "jacobi");
  EXPECT_DOUBLE_EQ(*found[0].value, 0.6);
  EXPECT_EQ(found[2].name, "libsolve");
  EXPECT_NE(found[2].status.find("not in the model"), std::string::npos) << found[2].status;
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
