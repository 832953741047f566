// Composition of symbolic costs: each test states the count worked out by hand.
#include <gtest/gtest.h>

#include "model/costs.h"
#include "model_text.h"
#include "support/error.h"

using namespace perfcast;
using namespace perfcast::model;
using perfcast::testing::model_from;

namespace {
RankCounts counts(const ProgramModel& m, std::map<std::string, expr::Value> params, int rank = 0, int size = 1) {
  return evaluate_rank(symbolic_costs(m), bind_rank(m, params, rank, size), rank);
}
}  // namespace

TEST(Costs, NestedAffineLoopsMultiply) {
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "loop", "var": "i", "trip_count": "n", "body": [
        {"kind": "loop", "var": "j", "trip_count": "m", "body": [
          {"kind": "compute", "flops_double": 3, "load_bytes": 16, "store_bytes": 8}]}]}]}})J",
                      R"J("parameters": {"n": {}, "m": {}})J");
  auto c = counts(m, {{"n", 100}, {"m", 7}});
  EXPECT_EQ(c.flops_double, 3 * 100 * 7);
  EXPECT_EQ(c.load_bytes, 16 * 700);
  EXPECT_EQ(c.store_bytes, 8 * 700);
  EXPECT_EQ(to_string(symbolic_costs(m).flops_double), "3 * m * n");
}

TEST(Costs, TriangularLoopIsSummedExactly) {
  // for i < n: for j < i: 2 flops  =>  2 * n(n-1)/2 = n(n-1)
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "loop", "var": "i", "trip_count": "n", "body": [
        {"kind": "loop", "var": "j", "trip_count": "i", "body": [
          {"kind": "compute", "flops_double": 2}]}]}]}})J",
                      R"J("parameters": {"n": {}})J");
  for (std::int64_t n : {0, 1, 2, 10, 1001, 3000000}) {
    auto c = counts(m, {{"n", n}});
    EXPECT_EQ(c.flops_double, static_cast<double>(n * (n - 1))) << n;
  }
  // Closed by simplify: no sum() left.
  EXPECT_EQ(to_string(symbolic_costs(m).flops_double).find("sum"), std::string::npos)
      << to_string(symbolic_costs(m).flops_double);
}

TEST(Costs, RankDependentBranchIsEvaluatedPerRank) {
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "branch", "condition": "rank == 0",
       "then": [{"kind": "compute", "flops_double": "1000"}],
       "else": [{"kind": "compute", "flops_double": "10"}]}]}})J");
  EXPECT_EQ(counts(m, {}, 0, 4).flops_double, 1000);
  EXPECT_EQ(counts(m, {}, 3, 4).flops_double, 10);
}

TEST(Costs, ProbabilityBranchWeighsBothSides) {
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "branch", "probability": 0.25,
       "then": [{"kind": "compute", "flops_double": "400"}],
       "else": [{"kind": "compute", "flops_double": "800"}]}]}})J");
  EXPECT_DOUBLE_EQ(counts(m, {}).flops_double, 0.25 * 400 + 0.75 * 800);
}

// The code after a loop's only exit, in the middle of its body: on all the
// loop's T iterations but the last, (T - 1) / T of them, also for a mean T.
TEST(Costs, AShareBranchWeighsItsSidesByItsValue) {
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "loop", "trip_count": "t", "body": [
        {"kind": "compute", "flops_double": "3"},
        {"kind": "branch", "share": "max(t - 1, 0) / max(t, 1)",
         "then": [{"kind": "compute", "flops_double": "10"}], "else": []}]}]}})J",
                      R"J("parameters": {"t": {}})J");
  EXPECT_DOUBLE_EQ(counts(m, {{"t", 4}}).flops_double, 4 * 3 + 3 * 10);
  EXPECT_DOUBLE_EQ(counts(m, {{"t", 1}}).flops_double, 3);
  EXPECT_DOUBLE_EQ(counts(m, {{"t", 2.5}}).flops_double, 2.5 * 3 + 1.5 * 10);
}

TEST(Costs, CallsSubstituteTheirArguments) {
  auto m = model_from(R"J({
      "main": {"body": [{"kind": "call", "function": "axpy", "args": {"len": "2 * n"}},
                        {"kind": "call", "function": "axpy", "args": {"len": "5"}}]},
      "axpy": {"parameters": ["len"], "body": [
        {"kind": "loop", "trip_count": "len", "body": [{"kind": "compute", "flops_double": 2, "load_bytes": 16}]}]}})J",
                      R"J("parameters": {"n": {"default": "10"}})J");
  auto c = counts(m, {});
  EXPECT_EQ(c.flops_double, 2 * (20 + 5));
  EXPECT_EQ(c.load_bytes, 16 * 25);
}

TEST(Costs, RecursionIsAClearError) {
  auto m = model_from(R"J({"main": {"body": [{"kind": "call", "function": "f"}]},
                          "f": {"body": [{"kind": "call", "function": "main"}]}})J");
  EXPECT_THROW(symbolic_costs(m), UserError);
}

TEST(Costs, MessagesToProcNullAreCallsButMoveNothing) {
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "loop", "trip_count": "steps", "body": [
        {"kind": "mpi", "op": "isend", "peer": "select(rank + 1 < size, rank + 1, -1)", "bytes": "8 * n"},
        {"kind": "mpi", "op": "irecv", "peer": "select(rank > 0, rank - 1, -1)", "bytes": "8 * n"},
        {"kind": "mpi", "op": "waitall"}]},
      {"kind": "mpi", "op": "allreduce", "bytes": 8}]}})J",
                      R"J("parameters": {"n": {}, "steps": {}})J");
  auto first = counts(m, {{"n", 1000}, {"steps", 10}}, 0, 3);
  auto last = counts(m, {{"n", 1000}, {"steps", 10}}, 2, 3);
  EXPECT_EQ(first.mpi_calls, 31);  // 10 x (isend + irecv + waitall) + allreduce
  EXPECT_EQ(last.mpi_calls, 31);
  EXPECT_EQ(first.messages, 11);   // 10 sends to rank 1 + the allreduce
  EXPECT_EQ(last.messages, 1);     // its sends go to MPI_PROC_NULL
  EXPECT_EQ(first.sent_bytes, 10 * 8000 + 8);
  EXPECT_EQ(last.sent_bytes, 8);
  EXPECT_EQ(first.received_bytes, 8);  // receives from MPI_PROC_NULL
  EXPECT_EQ(last.received_bytes, 10 * 8000 + 8);
}

TEST(Costs, LoopOverNeighboursKeepsEachPeer) {
  // for f < 2: send to rank +- 1 (a small constant trip count is unrolled).
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "loop", "var": "f", "trip_count": 2, "body": [
        {"kind": "mpi", "op": "send", "peer": "select(f == 0, rank - 1, rank + 1)", "bytes": "100 * (f + 1)"}]}]}})J");
  auto c = counts(m, {}, 1, 3);
  ASSERT_EQ(c.mpi.size(), 2u);
  EXPECT_EQ(*c.mpi[0].peer, 0);
  EXPECT_EQ(*c.mpi[1].peer, 2);
  EXPECT_EQ(c.sent_bytes, 300);
}

TEST(Costs, MathCallsAreCountedPerPrecision) {
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "loop", "trip_count": "n", "body": [{"kind": "compute", "math": {"sin": 3, "expf": 1}}]}]}})J",
                      R"J("parameters": {"n": {"default": "1000"}})J");
  auto c = counts(m, {});
  EXPECT_EQ(c.math_calls["sin"], 3000);
  EXPECT_EQ(c.math_calls["expf"], 1000);
}

TEST(Costs, ParametersNeedValues) {
  auto m = model_from(R"J({"main": {"body": [{"kind": "compute", "flops_double": "n"}]}})J",
                      R"J("parameters": {"n": {"description": "size"}})J");
  try {
    counts(m, {});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("'n'"), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find("--param n="), std::string::npos);
  }
  EXPECT_THROW(counts(m, {{"n", 1}, {"typo", 2}}), UserError);
}

TEST(Costs, DimsCreateIsBalancedAndNonIncreasing) {
  EXPECT_EQ(dims_create(1, 3), (std::vector<int>{1, 1, 1}));
  EXPECT_EQ(dims_create(2, 3), (std::vector<int>{2, 1, 1}));
  EXPECT_EQ(dims_create(4, 3), (std::vector<int>{2, 2, 1}));
  EXPECT_EQ(dims_create(8, 3), (std::vector<int>{2, 2, 2}));
  EXPECT_EQ(dims_create(12, 3), (std::vector<int>{3, 2, 2}));
  EXPECT_EQ(dims_create(6, 2), (std::vector<int>{3, 2}));
  EXPECT_EQ(dims_create(7, 2), (std::vector<int>{7, 1}));
  EXPECT_EQ(dims_create(4096, 3), (std::vector<int>{16, 16, 16}));
}
// A loop of levels (a recursion by levels, docs/program-model.md): its
// counts are summed over the levels as any loop's, but its traffic stays one
// memory segment a level at that level's own working set, where another
// loop's working set is its last iteration's. n = 1000 points halved over 4
// levels (1000, 500, 250, 125), 8 bytes read a point: 8 x 1875 bytes.
TEST(Costs, ALoopOfLevelsPricesEachLevelsBytesAtItsOwnWorkingSet) {
  const std::string body = R"J([
        {"kind": "loop", "var": "i", "trip_count": "floordiv(n, 2^k)", "footprint": {"bytes": "8 * floordiv(n, 2^k)",
         "load_bytes": "8 * floordiv(n, 2^k)", "store_bytes": "0"},
         "body": [{"kind": "compute", "flops_double": 1, "loads": 1, "load_bytes": 8}]}])J";
  auto m = model_from(R"J({"main": {"body": [{"kind": "loop", "var": "k", "levels": true, "trip_count": "4", "body": )J" +
                          body + "}]}}",
                      R"J("parameters": {"n": {}})J", "levels.json");
  auto c = counts(m, {{"n", 1000}});
  EXPECT_EQ(c.flops_double, 1875);
  std::vector<std::pair<double, double>> levels;  // working set, bytes
  for (const auto& site : c.sites)
    for (const auto& t : site.memory)
      if (t.traffic == Traffic::Footprint && t.load_bytes > 0) levels.emplace_back(*t.working_set_bytes, t.load_bytes);
  EXPECT_EQ(levels, (std::vector<std::pair<double, double>>{{8000, 8000}, {4000, 4000}, {2000, 2000}, {1000, 1000}}));

  // The same loop without `levels`: one segment at the last level's working set.
  auto plain = model_from(R"J({"main": {"body": [{"kind": "loop", "var": "k", "trip_count": "4", "body": )J" + body +
                              "}]}}",
                          R"J("parameters": {"n": {}})J", "plain_levels.json");
  std::vector<std::pair<double, double>> one;
  for (const auto& site : counts(plain, {{"n", 1000}}).sites)
    for (const auto& t : site.memory)
      if (t.traffic == Traffic::Footprint && t.load_bytes > 0) one.emplace_back(*t.working_set_bytes, t.load_bytes);
  EXPECT_EQ(one, (std::vector<std::pair<double, double>>{{1000, 15000}}));
}

struct BadModel {
  const char* name;
  const char* functions;
  const char* expected;  // substring of the error
};

class BadModels : public ::testing::TestWithParam<BadModel> {};

TEST_P(BadModels, GiveAnErrorNamingWhere) {
  const BadModel& b = GetParam();
  try {
    model_from(b.functions, "", std::string(b.name) + ".json");
    FAIL() << "accepted " << b.name;
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(b.expected), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(b.name), std::string::npos) << "no file name in: " << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Model, BadModels,
    ::testing::Values(
        BadModel{"unknown_kind", R"J({"main": {"body": [{"kind": "lop"}]}})J", "/functions/main/body/0/kind"},
        BadModel{"bad_expression", R"J({"main": {"body": [{"kind": "compute", "flops_double": "n +"}]}})J",
                 "/functions/main/body/0/flops_double"},
        BadModel{"missing_trip", R"J({"main": {"body": [{"kind": "loop", "body": []}]}})J", "trip_count"},
        BadModel{"no_entry", R"J({"solve": {"body": []}})J", "entry function 'main'"},
        BadModel{"unknown_op", R"J({"main": {"body": [{"kind": "mpi", "op": "MPI_Send"}]}})J", "unknown MPI operation"},
        BadModel{"unknown_op_names_its_field", R"J({"main": {"body": [{"kind": "mpi", "op": "allsum"}]}})J",
                 "/functions/main/body/0/op"},
        BadModel{"send_without_peer", R"J({"main": {"body": [{"kind": "mpi", "op": "send", "bytes": 8}]}})J",
                 "needs a \"peer\""},
        BadModel{"typo_key", R"J({"main": {"body": [{"kind": "compute", "flop_double": 3}]}})J", "unknown key"},
        BadModel{"bad_math", R"J({"main": {"body": [{"kind": "compute", "math": {"sinh": 1}}]}})J",
                 "unknown math function"},
        BadModel{"bad_probability", R"J({"main": {"body": [{"kind": "branch", "probability": 2}]}})J",
                 "between 0 and 1"},
        BadModel{"share_and_probability",
                 R"J({"main": {"body": [{"kind": "branch", "share": "0.5", "probability": 0.5}]}})J",
                 "not two"},
        BadModel{"footprint_not_object",
                 R"J({"main": {"body": [{"kind": "loop", "trip_count": "2", "footprint": "64", "body": []}]}})J",
                 "/functions/main/body/0/footprint"},
        BadModel{"footprint_missing_field",
                 R"J({"main": {"body": [{"kind": "loop", "trip_count": "2", "footprint": {"bytes": "64",
                     "load_bytes": "64"}, "body": []}]}})J",
                 "store_bytes"},
        BadModel{"ports_cycles_negative",
                 R"J({"main": {"body": [{"kind": "loop", "trip_count": "2", "cycles_per_iteration": "4",
                     "ports_cycles_per_iteration": -1.5, "body": []}]}})J",
                 "'/functions/main/body/0/ports_cycles_per_iteration': expected a number of cycles >= 0"},
        BadModel{"streams_zero",
                 R"J({"main": {"body": [{"kind": "loop", "trip_count": "2", "streams": 0, "body": []}]}})J",
                 "'/functions/main/body/0/streams': expected a whole number of address streams >= 1"},
        BadModel{"stream_offsets_one",
                 R"J({"main": {"body": [{"kind": "loop", "trip_count": "2", "streams": 3,
                     "stream_offsets": [["0"]], "body": []}]}})J",
                 "'/functions/main/body/0/stream_offsets/0': expected an array of at least 2 byte offsets"},
        BadModel{"levels_not_boolean",
                 R"J({"main": {"body": [{"kind": "loop", "var": "k", "levels": 1, "trip_count": "2", "body": []}]}})J",
                 "'/functions/main/body/0/levels': expected true or false"},
        BadModel{"levels_without_var",
                 R"J({"main": {"body": [{"kind": "loop", "levels": true, "trip_count": "2", "body": []}]}})J",
                 "a loop of levels needs a 'var'"},
        BadModel{"stream_offsets_without_streams",
                 R"J({"main": {"body": [{"kind": "loop", "trip_count": "2",
                     "stream_offsets": [["0", "8 * n"]], "body": []}]}})J",
                 "given without streams"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(Model, NotJsonIsAClearError) {
  auto path = perfcast::testing::write_temp("broken.json", "{\"format\": ");
  try {
    load_program_model(path);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos);
  }
}

// Sites: the outermost loop with a footprint claims its nest; an innermost loop
// priced in cycles is a site of its own; the rest of a function is its site
// (line 0); a callee's sites stay the callee's. The sites add up to the totals.
TEST(Costs, SitesFollowLoopNestsAndFunctions) {
  auto m = model_from(R"J({
      "main": {"body": [
        {"kind": "compute", "flops_double": "5", "line": 2},
        {"kind": "loop", "line": 10, "trip_count": "n",
         "footprint": {"bytes": "16 * n", "load_bytes": "8 * n", "store_bytes": "8 * n"}, "body": [
          {"kind": "loop", "line": 11, "trip_count": "4", "cycles_per_iteration": "3", "body": [
            {"kind": "compute", "flops_double": "2", "load_bytes": "8", "store_bytes": "8"}]}]},
        {"kind": "loop", "line": 20, "trip_count": "n", "cycles_per_iteration": "1.5", "body": [
          {"kind": "compute", "flops_double": "1", "load_bytes": "16"}]},
        {"kind": "loop", "line": 30, "trip_count": "2", "body": [{"kind": "call", "function": "f"}]}]},
      "f": {"body": [{"kind": "compute", "flops_single": "7", "load_bytes": "4"}]}})J",
                      R"J("parameters": {"n": {}})J");
  auto c = counts(m, {{"n", 100}});
  std::map<std::pair<std::string, int>, const SiteCounts*> by;
  for (const auto& s : c.sites) by[{s.function, s.line}] = &s;
  ASSERT_EQ(by.size(), 4u) << "main:10, main:20, main (rest), f (rest)";
  const SiteCounts& nest = *by.at({"main", 10});
  EXPECT_EQ(nest.flops_double, 2 * 4 * 100);
  EXPECT_EQ(nest.cycles, 3 * 4 * 100);  // the inner loop's cycles belong to the nest that claims it
  EXPECT_EQ(nest.cycle_flops_double, 2 * 4 * 100);
  EXPECT_EQ(nest.load_bytes, 8 * 4 * 100);  // every access still counted
  double distinct = 0;
  for (const auto& t : nest.memory)
    if (t.traffic == Traffic::Footprint) distinct += t.load_bytes + t.store_bytes;
  EXPECT_EQ(distinct, 16 * 100);
  const SiteCounts& priced = *by.at({"main", 20});
  EXPECT_EQ(priced.cycles, 1.5 * 100);
  EXPECT_EQ(priced.flops_double, 100);
  EXPECT_EQ(by.at({"main", 0})->flops_double, 5);
  EXPECT_EQ(by.at({"main", 0})->cycles, 0);
  EXPECT_EQ(by.at({"f", 0})->flops_single, 2 * 7);
  // The totals are the sums of the sites.
  EXPECT_EQ(c.flops_double, 5 + 800 + 100);
  EXPECT_EQ(c.flops_single, 14);
  EXPECT_EQ(c.cycles, 1200 + 150);
  EXPECT_EQ(c.load_bytes, 3200 + 1600 + 8);
}

// Every item's own count must be >= 0 where the item runs (docs/program-model.md),
// not only its site's total, which a negative item would shrink unseen.
namespace {
std::string count_error(const ProgramModel& m, std::map<std::string, expr::Value> params, int rank = 0,
                        int size = 1) {
  try {
    counts(m, std::move(params), rank, size);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Costs, ANegativeItemIsAnErrorNamingItWhereverItRuns) {
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "compute", "line": 4, "flops_double": "1000"},
      {"kind": "loop", "line": 5, "var": "i", "trip_count": "n", "body": [
        {"kind": "compute", "line": 6, "load_bytes": "8 * (4 - i)"}]},
      {"kind": "compute", "line": 7, "flops_double": "n - 4"}]}})J",
                      R"J("parameters": {"n": {}})J");
  EXPECT_EQ(count_error(m, {{"n", 5}}), "");
  // The loop body at its last iteration (i = 5): 8 * (4 - 5) = -8, though the
  // loop's total, 8 * (4 + 3 + 2 + 1 + 0 - 1) = 72, is positive.
  std::string e = count_error(m, {{"n", 6}});
  EXPECT_NE(e.find("loaded bytes of the compute item at line 6 of main evaluates to -8 on rank 0"), std::string::npos)
      << e;
  EXPECT_NE(e.find("n=6"), std::string::npos) << e;
  // 1000 and 3 - 4 flops: 999 in the site's total, -1 in the item.
  e = count_error(m, {{"n", 3}});
  EXPECT_NE(e.find("double-precision flops of the compute item at line 7 of main evaluates to -1"), std::string::npos)
      << e;
}

// A sum whose exact value is 0 that rounds a few ulps below it (shares that
// cancel) is 0, not an error; a count below zero by more is still refused.
TEST(Costs, ACountRoundedJustBelowZeroIsZero) {
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "compute", "line": 4, "flops_double": "x * 0.3 - x * 0.1 * 3"},
      {"kind": "compute", "line": 5, "flops_double": "x * 0.3 - x * 0.1 * 3 - y"}]}})J",
                      R"J("parameters": {"x": {}, "y": {}})J");
  ASSERT_LT(0.3 - 0.1 * 3, 0.0);  // the rounding this test is about
  EXPECT_EQ(count_error(m, {{"x", 1.0}, {"y", 0}}), "");
  EXPECT_NEAR(counts(m, {{"x", 1.0}, {"y", 0}}, 0, 1).flops_double, 0.0, 1e-12);
  std::string e = count_error(m, {{"x", 1.0}, {"y", 0.001}});
  EXPECT_NE(e.find("at line 5 of main evaluates to -0.001"), std::string::npos) << e;
}

TEST(Costs, ANegativeTripCountIsAnErrorAndOnlyItemsThatRunAreChecked) {
  auto m = model_from(R"J({"main": {"body": [
      {"kind": "compute", "line": 1, "flops_double": "1000"},
      {"kind": "loop", "line": 2, "trip_count": "t", "body": [{"kind": "compute", "line": 3, "flops_double": "10"}]},
      {"kind": "branch", "condition": "rank == 0", "then": [
        {"kind": "compute", "line": 9, "flops_double": "rank - 1"}]},
      {"kind": "loop", "line": 10, "trip_count": "t", "body": [
        {"kind": "compute", "line": 11, "flops_double": "t - 2"}]}]}})J",
                      R"J("parameters": {"t": {}})J");
  std::string e = count_error(m, {{"t", -3}}, 1, 2);
  EXPECT_NE(e.find("trip count of the loop at line 2 of main evaluates to -3"), std::string::npos) << e;
  // Rank 1 does not take the branch, and a loop of no iteration runs no body.
  EXPECT_EQ(count_error(m, {{"t", 0}}, 1, 2), "");
  e = count_error(m, {{"t", 0}}, 0, 2);
  EXPECT_NE(e.find("at line 9 of main evaluates to -1 on rank 0"), std::string::npos) << e;
  EXPECT_NE(count_error(m, {{"t", 1}}, 1, 2).find("at line 11 of main evaluates to -1"), std::string::npos);
}

TEST(Costs, ACalleesNegativeItemNamesTheCalleeWithTheCallersValues) {
  auto m = model_from(R"J({
      "main": {"body": [{"kind": "compute", "line": 1, "flops_double": "100"},
                        {"kind": "call", "function": "f", "args": {"len": "n - 4"}}]},
      "f": {"parameters": ["len"], "body": [{"kind": "compute", "line": 20, "flops_double": "10"},
                                            {"kind": "compute", "line": 21, "flops_double": "len"},
                                            {"kind": "mpi", "line": 22, "op": "bcast", "root": "0", "bytes": "len + 3"}]}})J",
                      R"J("parameters": {"n": {}})J");
  EXPECT_EQ(count_error(m, {{"n", 4}}), "");
  std::string e = count_error(m, {{"n", 2}});
  EXPECT_NE(e.find("double-precision flops of the compute item at line 21 of f evaluates to -2"), std::string::npos)
      << e;
  EXPECT_NE(e.find("n=2"), std::string::npos) << e;
  e = count_error(m, {{"n", 1}});
  EXPECT_NE(e.find("at line 21 of f evaluates to -3"), std::string::npos) << e;
}

// A parameter's default that does not evaluate at the bound values (a loop's
// footprint counted as if it ran where its guard skips it, read unsigned: past
// 64 bits, in a model the analyser wrote before such counts held at every
// size) is needed only where code that uses it runs: nothing where the guard
// skips it, and an error naming the parameter where it is used.
TEST(Costs, ADefaultThatDoesNotEvaluateCountsOnlyWhereItIsUsed) {
  const std::string guarded = R"J({"main": {"body": [
      {"kind": "branch", "condition": "n >= 2",
       "then": [{"kind": "loop", "var": "i", "trip_count": "floordiv(n, 2)",
                 "footprint": {"bytes": "range", "load_bytes": "range", "store_bytes": "0"},
                 "body": [{"kind": "compute", "flops_double": "2", "load_bytes": "16"}]},
                {"kind": "compute", "load_bytes": "range"}]}]}})J";
  const std::string parameters =
      R"J("parameters": {"n": {}, "range": {"default": "16 * floordiv(zext(2 * floordiv(n, 2) - 2, 64), 2) + 16"}})J";
  auto m = model_from(guarded, parameters);
  for (std::int64_t n : {0, 1, 2, 7}) {
    RankCounts c;
    ASSERT_NO_THROW(c = counts(m, {{"n", n}})) << "n = " << n;
    EXPECT_EQ(c.flops_double, 2 * (n / 2)) << "n = " << n;
    EXPECT_EQ(c.load_bytes, n >= 2 ? 16 * (n / 2) + 16 * (n / 2) : 0) << "n = " << n;
  }
  // Where the code that reads it runs, the missing value is named.
  std::string unguarded = guarded;
  unguarded.replace(unguarded.find("n >= 2"), 6, "n >= 0");
  auto runs = model_from(unguarded, parameters);
  try {
    counts(runs, {{"n", 1}});
    ADD_FAILURE() << "a default past 64 bits was priced";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("'range' has no value here"), std::string::npos) << e.what();
  }
}
