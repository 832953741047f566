// Phase detection on block sequences with known repeats, for both
// algorithms, and a signature built from streams whose times are known.
#include <gtest/gtest.h>

#include <algorithm>

#include "signature/phases.h"
#include "signature/signature.h"
#include "signature/signature_run.h"
#include "streams.h"
#include "support/error.h"

namespace perfcast::signature {
namespace {

using namespace testing;

std::vector<int> repeat(const std::vector<int>& body, int times) {
  std::vector<int> out;
  for (int i = 0; i < times; ++i) out.insert(out.end(), body.begin(), body.end());
  return out;
}
std::vector<int> concat(std::vector<std::vector<int>> parts) {
  std::vector<int> out;
  for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}
const DetectedPhase* find(const PhaseDetection& d, const std::vector<int>& blocks) {
  for (const auto& p : d.phases)
    if (p.blocks == blocks) return &p;
  return nullptr;
}

// A loop of 10 iterations, each two phases (an exchange of 3 ticks, a
// reduction of 2), between a prologue and an epilogue: one phase of weight 10
// whose occurrence holds both, covering exactly the loop's ticks.
TEST(Phases, LoopOfTenWithTwoAlternatingPhases) {
  std::vector<int> a = {1, 2, 3}, b = {4, 5};
  std::vector<int> s = concat({{90, 91, 92}, repeat(concat({a, b}), 10), {93}});
  for (Algorithm alg : {Algorithm::Repeats, Algorithm::Loops}) {
    SCOPED_TRACE(algorithm_name(alg));
    PhaseDetection d = detect_phases(s, alg);
    ASSERT_EQ(d.phases.size(), 1u);
    EXPECT_EQ(d.phases[0].blocks, concat({a, b}));
    EXPECT_EQ(d.phases[0].weight, 10);
    EXPECT_EQ(d.phases[0].first_tick, 4);
    for (std::size_t t = 0; t < s.size(); ++t)
      EXPECT_EQ(d.phase_of_tick[t], t >= 3 && t < 53 ? 0 : -1) << "tick " << t + 1;
  }
}

// Three outer iterations of (inner loop of 4, then two blocks). Loops finds
// the nest: the inner body runs 12 times, the outer body's own blocks 3.
// Repeats finds the outer body as one phase of 3 (it covers most ticks).
TEST(Phases, NestedLoops) {
  std::vector<int> outer = concat({repeat({7}, 4), {8, 9}});
  std::vector<int> s = concat({{1}, repeat(outer, 3), {2}});

  PhaseDetection loops = detect_phases(s, Algorithm::Loops);
  ASSERT_EQ(loops.phases.size(), 2u);
  const DetectedPhase* inner = find(loops, {7});
  const DetectedPhase* body = find(loops, {8, 9});
  ASSERT_TRUE(inner && body);
  EXPECT_EQ(inner->weight, 12);
  EXPECT_EQ(body->weight, 3);
  ASSERT_EQ(body->inner.size(), 1u);
  EXPECT_EQ(&loops.phases[static_cast<std::size_t>(body->inner[0])], inner);
  EXPECT_EQ(std::count(loops.phase_of_tick.begin(), loops.phase_of_tick.end(), -1), 2);

  PhaseDetection repeats = detect_phases(s, Algorithm::Repeats);
  ASSERT_FALSE(repeats.phases.empty());
  EXPECT_EQ(repeats.phases[0].blocks, outer);
  EXPECT_EQ(repeats.phases[0].weight, 3);
}

// An irregular prologue before a loop of 6: both find the loop; repeats also
// takes the prologue's blocks that recur apart (5 twice, 6 twice), loops
// leaves blocks that are not adjacent repeats alone.
TEST(Phases, IrregularPrologue) {
  std::vector<int> s = concat({{5, 6, 5, 7, 6}, repeat({1, 2}, 6)});
  for (Algorithm alg : {Algorithm::Repeats, Algorithm::Loops}) {
    SCOPED_TRACE(algorithm_name(alg));
    PhaseDetection d = detect_phases(s, alg);
    const DetectedPhase* loop = find(d, {1, 2});
    ASSERT_TRUE(loop);
    EXPECT_EQ(loop->weight, 6);
    EXPECT_EQ(loop->first_tick, 6);
  }
  PhaseDetection loops = detect_phases(s, Algorithm::Loops);
  EXPECT_EQ(loops.phases.size(), 1u);
  EXPECT_EQ(std::count(loops.phase_of_tick.begin(), loops.phase_of_tick.end(), -1), 5);
  PhaseDetection repeats = detect_phases(s, Algorithm::Repeats);
  EXPECT_TRUE(find(repeats, {5}) && find(repeats, {6}));
  EXPECT_EQ(find(repeats, {5})->weight, 2);
}

TEST(Phases, NothingRepeatsNoPhase) {
  for (Algorithm alg : {Algorithm::Repeats, Algorithm::Loops}) {
    PhaseDetection d = detect_phases({1, 2, 3, 4}, alg);
    EXPECT_TRUE(d.phases.empty());
    EXPECT_EQ(d.phase_of_tick, (std::vector<int>{-1, -1, -1, -1}));
  }
}

// Two ranks: a 5 ms prologue on rank 0, a barrier, then 10 iterations of
// compute (1 ms on rank 0, 2 ms on rank 1), an exchange and an allreduce,
// then finalize. Every iteration takes 2 ms (rank 0 waits for rank 1), so
// the loop is 20 ms of the 25 ms run.
std::vector<std::vector<Event>> two_rank_loop(int iterations) {
  std::vector<std::vector<Event>> s(2);
  s[0] = {compute(0.005), collective(Kind::Barrier)};
  s[1] = {collective(Kind::Barrier)};
  for (int i = 0; i < iterations; ++i)
    for (int r = 0; r < 2; ++r) {
      auto& st = s[static_cast<std::size_t>(r)];
      st.push_back(compute(r == 0 ? 0.001 : 0.002));
      st.push_back(sendrecv(1 - r, 1 - r, 4096));
      st.push_back(collective(Kind::Allreduce, 8));
    }
  for (auto& st : s) {
    Event fin;
    fin.kind = Kind::Finalize;
    st.push_back(fin);
  }
  return s;
}

TEST(Signature, PhaseTimesAndPredictionFromStreams) {
  LogicalTrace trace = logical_clock(two_rank_loop(10));
  EXPECT_DOUBLE_EQ(trace.total_s, 0.025);
  for (Algorithm alg : {Algorithm::Repeats, Algorithm::Loops}) {
    SCOPED_TRACE(algorithm_name(alg));
    Signature s = build_signature(trace, {alg, 0.95});
    ASSERT_FALSE(s.phases.empty());
    const Phase& loop = s.phases[0];
    EXPECT_EQ(loop.weight, 10);
    ASSERT_EQ(loop.blocks.size(), 2u);
    EXPECT_EQ(loop.blocks[0][0].kind, Kind::Sendrecv);
    EXPECT_EQ(loop.blocks[0][0].peer_offset, 1);
    EXPECT_EQ(loop.blocks[0][1].peer_offset, -1);
    EXPECT_EQ(loop.blocks[1][0].kind, Kind::Allreduce);
    EXPECT_NEAR(loop.time_per_occurrence_s, 0.002, 1e-12);
    EXPECT_NEAR(loop.share, 0.8, 1e-9);
    EXPECT_TRUE(loop.relevant);
    EXPECT_NEAR(s.initialization_s, 0.005, 1e-12);
    EXPECT_NEAR(s.predicted_total_s, s.traced_total_s, 1e-12);
    EXPECT_NEAR(s.predicted_total_s, 0.025, 1e-12);
  }
}

// The first 10 of 40 steps compute 1 ms, the rest 10 ms (a solver before and
// after it converged): the mean is 7.75 ms, and the first window of three
// steps within 20 % of it starts at step 9 (1 + 10 + 10 ms: 7 ms). A
// signature run times from there, unless told a warm-up.
TEST(Signature, RepresentativeOccurrenceIsWhereThePhaseRunsAsOnAverage) {
  std::vector<std::vector<Event>> s(2);
  for (int i = 0; i < 40; ++i)
    for (auto& st : s) {
      st.push_back(compute(i < 10 ? 0.001 : 0.010));
      st.push_back(collective(Kind::Allreduce, 8));
    }
  for (auto& st : s) {
    Event fin;
    fin.kind = Kind::Finalize;
    st.push_back(fin);
  }
  LogicalTrace trace = logical_clock(s);
  for (Algorithm alg : {Algorithm::Repeats, Algorithm::Loops}) {
    SCOPED_TRACE(algorithm_name(alg));
    Signature sig = build_signature(trace, {alg, 0.95});
    ASSERT_FALSE(sig.phases.empty());
    const Phase& loop = sig.phases[0];
    ASSERT_EQ(loop.weight, 40);
    EXPECT_NEAR(loop.time_per_occurrence_s, 0.00775, 1e-12);
    EXPECT_EQ(loop.representative, 9);
    events::PhasePatterns chosen = phase_patterns(sig, std::nullopt, 3);
    ASSERT_EQ(chosen.by_rank.size(), 2u);
    EXPECT_EQ(chosen.by_rank[1][0].warmup, 9);
    EXPECT_EQ(chosen.by_rank[1][0].events.size(), 1u);
    EXPECT_EQ(phase_patterns(sig, 2, 3).by_rank[0][0].warmup, 2);
    EXPECT_THROW(phase_patterns(sig, -1, 3), UserError);
    EXPECT_THROW(phase_patterns(sig, 1, 0), UserError);
    // Without sizes (--any-size) the patterns carry none, and say so in their file.
    EXPECT_EQ(chosen.by_rank[1][0].events[0].bytes, 8u);
    events::PhasePatterns sizeless = phase_patterns(sig, std::nullopt, 3, false);
    EXPECT_EQ(sizeless.by_rank[1][0].events[0].bytes, 0u);
    EXPECT_FALSE(events::parse_patterns(events::patterns_json(sizeless), "p.json").match_bytes);
    EXPECT_TRUE(events::parse_patterns(events::patterns_json(chosen), "p.json").match_bytes);
  }
}

TEST(Signature, CoverageSelectsTheRelevantPhases) {
  LogicalTrace trace = logical_clock(two_rank_loop(10));
  // The loop covers 80 %: asked for 50 % it alone is relevant and enough.
  Signature half = build_signature(trace, {Algorithm::Loops, 0.5});
  EXPECT_NEAR(half.covered_share, 0.8, 1e-9);
  EXPECT_EQ(std::count_if(half.phases.begin(), half.phases.end(), [](auto& p) { return p.relevant; }), 1);
  EXPECT_THROW(build_signature(trace, {Algorithm::Loops, 0}), UserError);
  EXPECT_THROW(build_signature(trace, {Algorithm::Loops, 1.5}), UserError);
}

TEST(Signature, DescribesABlockByKindOffsetAndRanks) {
  LogicalTrace trace = logical_clock(two_rank_loop(3));
  Signature s = build_signature(trace, {Algorithm::Loops, 0.95});
  ASSERT_FALSE(s.phases.empty());
  EXPECT_EQ(describe(s.phases[0].blocks[0]),
            "sendrecv peer +1 source +1 4 KiB (rank 0); sendrecv peer -1 source -1 4 KiB (rank 1)");
}

}  // namespace
}  // namespace perfcast::signature
