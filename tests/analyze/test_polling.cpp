// Loops that poll for an MPI completion (cases/polling.c): recognised by the
// analyser, priced at the one pass that finds the completion, their MPI calls
// lower bounds, and no trips parameter left for a probe run to bind.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "analyze/analyze.h"
#include "model/costs.h"
#include "model/model_events.h"
#include "model/program_model.h"
#include "support/mpi_op.h"

using namespace perfcast;

namespace {

const std::string kCases = std::string(PERFCAST_SOURCE_DIR) + "/tests/analyze/cases/";

model::ProgramModel polling_model() {
  analyze::AnalyzeOptions o;
  o.sources = {kCases + "polling.c"};
  o.mca = false;
  return analyze::analyze_model(o);
}

// One rank's counts with every parameter that has no default bound to `value`.
model::RankCounts rank_counts(const model::ProgramModel& m, double value, int rank = 0, int size = 2) {
  std::map<std::string, expr::Value> params;
  for (const auto& p : m.parameters)
    if (!p.default_value) params[p.name] = value;
  return model::evaluate_rank(model::symbolic_costs(m), model::bind_rank(m, params, rank, size), rank);
}

}  // namespace

// The four polling shapes are listed with the call each polls with, the
// solver loop whose exit is its residual stays a loop of unknown trips.
TEST(Polling, LoopsWhoseExitIsACompletionAreListedAndNotUnknown) {
  model::ProgramModel m = polling_model();
  ASSERT_TRUE(m.coverage.has_value());
  std::map<std::string, std::string> polled;  // site -> call
  for (const auto& l : m.coverage->polling_loops) {
    EXPECT_EQ(l.function, "main");
    EXPECT_FALSE(l.loop.empty());
    polled[l.site] = l.call;
  }
  std::map<std::string, std::string> expected = {{"polling.c:37", "MPI_Test"},
                                                 {"polling.c:43", "MPI_Iprobe"},
                                                 {"polling.c:54", "MPI_Test"},
                                                 {"polling.c:58", "MPI_Testall"}};
  EXPECT_EQ(polled, expected);
  // The solver loops, whose exits read the residual (in a register; in the
  // field beside the request the wrapper tests), are loops of unknown trips.
  std::set<std::string> unknown, unknown_trips;
  for (const auto& l : m.coverage->unknown_loops) unknown.insert(l.site), unknown_trips.insert(l.trip_count);
  EXPECT_EQ(unknown, (std::set<std::string>{"polling.c:67", "polling.c:76"}));
  // No parameter stands for a polling loop's trips, so none is asked of the
  // user or bound by a probe run; only the solver loops' are.
  std::set<std::string> trips;
  for (const auto& p : m.parameters)
    if (p.name.size() > 6 && p.name.substr(p.name.size() - 6) == ".trips") trips.insert(p.name);
  EXPECT_EQ(trips, unknown_trips);
  // Nor is the flag a branch guesses at: the pass priced finds the completion.
  for (const auto& b : m.coverage->guessed_branches) EXPECT_NE(b.site, "polling.c:45") << b.why;
}

// One pass each: the tests and the probe once, as timing-dependent lower
// bounds, the receive behind `if (flag)` once (the pass that finds the
// message takes it); the solver's test as often as its bound trips, counted.
TEST(Polling, CallsInsideAPollingLoopAreOnePassAndTimingDependent) {
  model::ProgramModel m = polling_model();
  for (double trips : {3.0, 7.0}) {
    model::RankCounts c = rank_counts(m, trips);
    std::map<std::string, double> timing, counted;
    for (const auto& call : c.mpi)
      (call.timing_dependent ? timing : counted)[std::string(mpi::name(call.op))] += call.calls;
    EXPECT_EQ(timing["test"], 2) << "the do-while's MPI_Test and the wrapper's in the polling loop";
    EXPECT_EQ(timing["testall"], 1);
    EXPECT_EQ(timing["iprobe"], 1);
    EXPECT_EQ(timing["recv"], 1) << "the pass that finds the message receives it";
    EXPECT_EQ(counted["test"], 2 * trips) << "the solver loops' tests are their trips";
    EXPECT_EQ(counted.count("iprobe"), 0u);
    EXPECT_EQ(c.mpi_calls_timing_dependent, 5);
    EXPECT_EQ(counted["send"], 5);
    EXPECT_EQ(counted["irecv"], 5);
    EXPECT_EQ(counted["isend"], 1);
  }
}

// The event streams price the polling loop's wait where the request
// completes: its one test completes the receive as a wait would, so every
// request the model starts is completed and every message received.
TEST(Polling, ThePassThatFindsTheCompletionCompletesTheRequest) {
  model::ProgramModel m = polling_model();
  std::map<std::string, expr::Value> params;
  for (const auto& p : m.parameters)
    if (!p.default_value) params[p.name] = 3.0;
  for (const auto& rank : model::model_events(m, 2, params)) {
    int waits = 0, completed = 0;
    for (const auto& e : rank.events)
      if (e.kind == events::Kind::Wait || e.kind == events::Kind::Waitall) {
        ++waits;
        completed += static_cast<int>(e.requests.size());
      }
    // Irecv + test, Irecv + wrapper's test, Irecv/Isend + testall, two Irecv + wait.
    EXPECT_EQ(completed, 6) << "rank " << rank.rank;
    EXPECT_EQ(waits, 5) << "rank " << rank.rank;
  }
}

namespace {

model::ProgramModel polling_exit_model() {
  analyze::AnalyzeOptions o;
  o.sources = {kCases + "polling_exit.c"};
  o.mca = false;
  return analyze::analyze_model(o);
}

}  // namespace

// hypre_DataExchangeList's shape (cases/polling_exit.c): the exit flag set
// under branches on what the tests wrote, through wrappers that copy the
// flag out, or directly, nested under a branch on a setting; each loop is
// listed with one of the calls it polls with. The loop whose flag is set
// under a branch on its own arithmetic stays a loop of unknown trips.
TEST(Polling, ExitSetUnderBranchesOnTheTestsIsPolling) {
  model::ProgramModel m = polling_exit_model();
  ASSERT_TRUE(m.coverage.has_value());
  std::map<std::string, std::string> polled;  // site -> function
  for (const auto& l : m.coverage->polling_loops) {
    polled[l.site] = l.function;
    EXPECT_TRUE(l.call == "MPI_Iprobe" || l.call == "MPI_Testall" || l.call == "MPI_Test") << l.site << " " << l.call;
  }
  EXPECT_EQ(polled, (std::map<std::string, std::string>{{"polling_exit.c:62", "exchange_wrapped"},
                                                        {"polling_exit.c:84", "exchange_nested"},
                                                        {"polling_exit.c:110", "exchange_shown"}}));
  std::set<std::string> trips;
  for (const auto& p : m.parameters)
    if (p.name.size() > 6 && p.name.substr(p.name.size() - 6) == ".trips") trips.insert(p.name);
  EXPECT_EQ(trips, (std::set<std::string>{"settle.loop1.trips"})) << "no trips for a probe run to bind but settle's";
}

// An exit set under a branch on other data is not polling, though the loop
// tests a request and the flag's branch joins just before the data is stored.
TEST(Polling, ExitSetUnderABranchOnOtherDataIsNotPolling) {
  model::ProgramModel m = polling_exit_model();
  ASSERT_TRUE(m.coverage.has_value());
  for (const auto& l : m.coverage->polling_loops) EXPECT_NE(l.function, "settle") << l.site;
  std::set<std::string> unknown;
  for (const auto& l : m.coverage->unknown_loops) unknown.insert(l.site);
  EXPECT_EQ(unknown, (std::set<std::string>{"polling_exit.c:138"}));
}

// The exchange loops' calls are one pass each and timing-dependent: the
// probe, and the receive that answers what it found. The calls outside them
// are counted as the source makes them, and settle's test as its trips.
TEST(Polling, CallsOfALoopWhoseExitIsSetUnderTestsAreTimingTheOthersCounted) {
  model::ProgramModel m = polling_exit_model();
  std::map<double, double> settle_tests;
  for (double trips : {3.0, 7.0}) {
    model::RankCounts c = rank_counts(m, trips);
    std::map<std::string, double> timing, counted;
    for (const auto& call : c.mpi)
      (call.timing_dependent ? timing : counted)[std::string(mpi::name(call.op))] += call.calls;
    EXPECT_EQ(timing["iprobe"], 3) << "one pass of each exchange loop";
    EXPECT_EQ(timing["recv"], 3) << "the pass that finds a contact answers it";
    for (const char* op : {"iprobe", "recv", "testall", "isend"}) EXPECT_EQ(counted.count(op), 0u) << op;
    EXPECT_GT(timing["test"] + timing["testall"], 0);
    EXPECT_EQ(counted["irecv"], 4);
    EXPECT_EQ(counted["issend"], 3);
    EXPECT_EQ(counted["wait"], 4);
    EXPECT_EQ(counted["send"], 1);
    EXPECT_EQ(counted["barrier"], 1);
    settle_tests[trips] = counted["test"];
  }
  EXPECT_GT(settle_tests[3.0], 0);
  EXPECT_DOUBLE_EQ(settle_tests[7.0] / settle_tests[3.0], 7.0 / 3.0) << "settle's test, counted per trip";
}

// A branch on the state an earlier pass left (`if (!sent)`, read before the
// pass tests) chooses a phase of the loop: the pass priced is not the last
// phase's alone, so it is not taken as the completion at probability 0 or 1,
// which priced the phase that tells the next rank (its MPI_Isend) at none.
// The branches after the pass's own tests are (`if (sent)`, `if (flag)`).
TEST(Polling, ABranchOnTheStateAnEarlierPassLeftIsNotTheCompletion) {
  model::ProgramModel m = polling_exit_model();
  std::map<std::string, std::map<int, std::string>> notes;  // function -> line -> the branch's note
  std::function<void(const std::string&, const model::Items&)> walk = [&](const std::string& f,
                                                                          const model::Items& items) {
    for (const auto& i : items) {
      if (auto* b = std::get_if<model::BranchItem>(&i.body)) {
        notes[f][i.line] += i.note + ";";
        walk(f, b->then_items);
        walk(f, b->else_items);
      } else if (auto* l = std::get_if<model::LoopItem>(&i.body)) {
        walk(f, l->body);
      }
    }
  };
  for (const auto& [name, f] : m.functions) walk(name, f.body);
  const std::string completion = "tests the completion";
  for (const auto& [f, phase, after_test] :
       {std::tuple{"exchange_wrapped", 65, 64}, std::tuple{"exchange_nested", 87, 86},
        std::tuple{"exchange_shown", 113, 112}}) {
    ASSERT_TRUE(notes[f].count(phase)) << f;
    EXPECT_EQ(notes[f][phase].find(completion), std::string::npos) << f << ":" << phase << " " << notes[f][phase];
    EXPECT_NE(notes[f][after_test].find(completion), std::string::npos) << f << ":" << after_test;
  }
}
