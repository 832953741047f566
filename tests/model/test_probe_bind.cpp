// A probe run's branch fractions bound onto a model: the fraction measured on
// the condition's true side as written goes to the model's side that starts
// at the same source line, `then` or, where the optimiser inverted the test,
// `else`; when the lines do not say, or were not recorded, to `then`, and the
// status says so.
#include <gtest/gtest.h>

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
