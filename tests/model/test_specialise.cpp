// A model specialised to a job (model/specialise.h): the same counts on every
// rank as the model it came from, with the shared values folded in.
#include <gtest/gtest.h>

#include "deep_call_chain.h"
#include "model/costs.h"
#include "model/specialise.h"
#include "model_text.h"
#include "support/error.h"

using namespace perfcast;
using namespace perfcast::model;
using perfcast::testing::model_from;

namespace {

// Parameters every rank binds alike (n, and m's default of n), one that
// varies (off, from the rank) and one derived from it (shift); a callee whose
// parameter shares a global's name (n), a callee whose parameter the call
// leaves unpassed (k, bound by the job's k), a loop whose index shares a
// global's name (m), and an MPI call whose peer reads the rank.
ProgramModel shadowing_model() {
  return model_from(R"J({
      "main": {"body": [
        {"kind": "call", "function": "f", "args": {"n": "n * 2"}},
        {"kind": "call", "function": "g", "args": {}},
        {"kind": "loop", "var": "m", "trip_count": "n", "body": [
          {"kind": "compute", "flops_double": "m + shift", "load_bytes": "8 * m"}]},
        {"kind": "branch", "condition": "off > 2", "then": [
          {"kind": "compute", "flops_double": "m * 100"}]},
        {"kind": "mpi", "op": "send", "bytes": "8 * n", "peer": "mod(rank + 1, size)", "count": "m"}]},
      "f": {"parameters": ["n"], "body": [
        {"kind": "loop", "var": "i", "trip_count": "n", "body": [
          {"kind": "compute", "flops_double": "i + k", "store_bytes": "8"}]}]},
      "g": {"parameters": ["k"], "body": [
        {"kind": "compute", "flops_double": "k * n + off"}]}})J",
                    R"J("parameters": {"n": {}, "k": {}, "m": {"default": "n + 1"}, "off": {"default": "rank + 1"},
                       "shift": {"default": "off * 2"}})J");
}

}  // namespace

TEST(Specialise, OnlyWhatEveryRankBindsAlikeIsFixed) {
  const ProgramModel m = shadowing_model();
  const expr::Bindings fixed = rank_independent_bindings(m, {{"n", 10}, {"k", 3}}, 4);
  EXPECT_EQ(fixed.at("n"), expr::Value(10));
  EXPECT_EQ(fixed.at("k"), expr::Value(3));
  EXPECT_EQ(fixed.at("m"), expr::Value(11));
  EXPECT_EQ(fixed.at("size"), expr::Value(4));
  EXPECT_FALSE(fixed.count("rank"));
  EXPECT_FALSE(fixed.count("off"));
  EXPECT_FALSE(fixed.count("shift")) << "a default of a varying name varies";
}

TEST(Specialise, CountsAreTheModelsOnEveryRank) {
  const ProgramModel m = shadowing_model();
  const std::map<std::string, expr::Value> params{{"n", 10}, {"k", 3}};
  const int size = 4;
  const SymbolicCosts whole = symbolic_costs(m);
  const SymbolicCosts folded = symbolic_costs(specialised(m, rank_independent_bindings(m, params, size)));
  for (int rank = 0; rank < size; ++rank) {
    const expr::Bindings b = bind_rank(m, params, rank, size);
    const RankCounts want = evaluate_rank(whole, b, rank), got = evaluate_rank(folded, b, rank);
    EXPECT_EQ(got.flops_double, want.flops_double) << rank;
    EXPECT_EQ(got.load_bytes, want.load_bytes) << rank;
    EXPECT_EQ(got.store_bytes, want.store_bytes) << rank;
    EXPECT_EQ(got.mpi_calls, want.mpi_calls) << rank;
    EXPECT_EQ(got.sent_bytes, want.sent_bytes) << rank;
  }
  // By hand, rank 3 (off 4, shift 8): f runs 20 iterations of i + 3 flops
  // (190 + 60), g 3 * 10 + 4, the loop over m sums m + 8 for m < 10 (45 +
  // 80), the branch 11 * 100.
  EXPECT_EQ(evaluate_rank(folded, bind_rank(m, params, 3, size), 3).flops_double, 250 + 34 + 125 + 1100);
}

TEST(Specialise, ADeepChainOfCallsComposesToNumbers) {
  // Symbolically the counts grow with every level; with the size fixed they
  // are a number at each (deep_call_chain.h).
  const int depth = 30;
  const ProgramModel m = model_from(
      perfcast::testing::deep_call_chain(depth, R"J("main": {"body": [{"kind": "call", "function": "f0", "args": {"a": "n"}}]})J"),
      R"J("parameters": {"n": {}})J");
  const SymbolicCosts folded = symbolic_costs(specialised(m, rank_independent_bindings(m, {{"n", 5}}, 1)));
  ASSERT_TRUE(folded.flops_double.is_constant()) << expr::to_string(folded.flops_double).substr(0, 200);
  EXPECT_EQ(folded.flops_double.real_value(), perfcast::testing::deep_call_chain_flops(depth, 0, 5));
}

TEST(Specialise, ADefaultWithNoNumberStaysAName) {
  const ProgramModel m = model_from(R"J({"main": {"body": [
      {"kind": "branch", "condition": "n > 0", "then": [{"kind": "compute", "flops_double": "n"}],
       "else": [{"kind": "compute", "flops_double": "range"}]}]}})J",
                                    R"J("parameters": {"n": {}, "range": {"default": "floordiv(8, n)"}})J");
  const expr::Bindings fixed = rank_independent_bindings(m, {{"n", 0}}, 1);
  EXPECT_FALSE(fixed.count("range"));
  EXPECT_THROW(evaluate_rank(symbolic_costs(specialised(m, fixed)), bind_rank(m, {{"n", 0}}, 0, 1), 0), UserError)
      << "the side that runs needs the value the default does not have";
}
