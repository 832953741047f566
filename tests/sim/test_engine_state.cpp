// The engine's data structures alone (sim/engine_state.h): the ready queue's
// order, ties and reuse, the pools' stable indices, the per-rank wait sketch
// and the communicator maps a uniform communicator drops.
#include <gtest/gtest.h>

#include <algorithm>
#include <queue>
#include <random>
#include <tuple>
#include <vector>

#include "sim/engine_state.h"

namespace perfcast::sim::engine_state {
namespace {

std::tuple<double, int, unsigned> key(const HeapEntry& e) { return {e.t, e.rank, e.seq}; }

std::vector<HeapEntry> drain(ReadyQueue& q) {
  std::vector<HeapEntry> out;
  while (!q.empty()) {
    out.push_back(q.top());
    q.pop();
  }
  return out;
}

TEST(EngineReadyQueue, StartsEmpty) {
  ReadyQueue q;
  EXPECT_TRUE(q.empty());
  q.push({1.0, 0, 1});
  EXPECT_FALSE(q.empty());
  q.pop();
  EXPECT_TRUE(q.empty());
}

TEST(EngineReadyQueue, PopsEarliestTimeFirst) {
  ReadyQueue q;
  for (double t : {5.0, 1.0, 4.0, 2.0, 3.0, 0.5}) q.push({t, 0, 1});
  std::vector<double> times;
  for (const auto& e : drain(q)) times.push_back(e.t);
  EXPECT_EQ(times, (std::vector<double>{0.5, 1.0, 2.0, 3.0, 4.0, 5.0}));
}

TEST(EngineReadyQueue, TiesInTimeGoByRankThenBySequence) {
  // Ranks at the same simulated time act in rank order, and a rank pushed
  // twice at one time comes out in the order of its pushes (its seq): the
  // engine's processing order is deterministic whatever the push order.
  ReadyQueue q;
  q.push({2.0, 7, 1});
  q.push({2.0, 3, 2});
  q.push({2.0, 3, 1});
  q.push({1.0, 9, 4});
  q.push({2.0, 0, 5});
  std::vector<std::tuple<double, int, unsigned>> order;
  for (const auto& e : drain(q)) order.push_back(key(e));
  using K = std::tuple<double, int, unsigned>;
  EXPECT_EQ(order, (std::vector<K>{K{1.0, 9, 4}, K{2.0, 0, 5}, K{2.0, 3, 1}, K{2.0, 3, 2}, K{2.0, 7, 1}}));
}

TEST(EngineReadyQueue, EntryOrderIsStrictAndTotal) {
  HeapEntry a{1.0, 2, 3}, later_time{1.5, 0, 0}, higher_rank{1.0, 3, 0}, later_seq{1.0, 2, 4};
  EXPECT_FALSE(a < a);
  for (const HeapEntry& b : {later_time, higher_rank, later_seq}) {
    EXPECT_TRUE(a < b);
    EXPECT_FALSE(b < a);
  }
}

// Interleaved pushes and pops against std::priority_queue on the same order,
// with times drawn from a few values so that ties are common, across enough
// entries for several levels of the 4-ary heap.
TEST(EngineReadyQueue, MatchesAReferencePriorityQueueUnderInterleavedPushesAndPops) {
  auto later = [](const HeapEntry& x, const HeapEntry& y) { return y < x; };
  std::priority_queue<HeapEntry, std::vector<HeapEntry>, decltype(later)> reference(later);
  ReadyQueue q;
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> time_step(0, 7), rank(0, 63), action(0, 2);
  std::vector<unsigned> seq(64, 0);
  double now = 0;
  std::size_t popped = 0;
  for (int i = 0; i < 20000; ++i) {
    if (action(rng) > 0 || reference.empty()) {
      int r = rank(rng);
      HeapEntry e{now + 0.25 * time_step(rng), r, ++seq[static_cast<std::size_t>(r)]};
      q.push(e);
      reference.push(e);
    } else {
      ASSERT_FALSE(q.empty());
      ASSERT_EQ(key(q.top()), key(reference.top())) << "pop " << popped;
      now = q.top().t;  // as in the engine: time only moves forward
      q.pop();
      reference.pop();
      ++popped;
    }
  }
  while (!reference.empty()) {
    ASSERT_FALSE(q.empty());
    ASSERT_EQ(key(q.top()), key(reference.top()));
    q.pop();
    reference.pop();
  }
  EXPECT_TRUE(q.empty());
  EXPECT_GT(popped, 1000u);
}

TEST(EngineReadyQueue, ReleaseEmptiesItAndItCanBeUsedAgain) {
  ReadyQueue q;
  q.reserve(1000);
  EXPECT_GE(q.bytes(), 1000 * sizeof(HeapEntry));
  for (int r = 0; r < 1000; ++r) q.push({static_cast<double>(1000 - r), r, 1});
  q.release();
  EXPECT_TRUE(q.empty());
  EXPECT_LT(q.bytes(), 1000 * sizeof(HeapEntry));
  q.push({3.0, 1, 1});
  q.push({2.0, 2, 1});
  ASSERT_FALSE(q.empty());
  EXPECT_EQ(q.top().rank, 2);
}

// The engine replaces a rank's entry by pushing a new one with the next seq and
// skipping entries whose seq is no longer the rank's: the queue keeps both, and
// the stale one still comes out in its place.
TEST(EngineReadyQueue, KeepsSupersededEntriesForTheEngineToSkip) {
  ReadyQueue q;
  q.push({5.0, 1, 1});
  q.push({3.0, 1, 2});  // rank 1 rescheduled earlier
  q.push({4.0, 2, 1});
  std::vector<std::tuple<double, int, unsigned>> order;
  for (const auto& e : drain(q)) order.push_back(key(e));
  using K = std::tuple<double, int, unsigned>;
  EXPECT_EQ(order, (std::vector<K>{K{3.0, 1, 2}, K{4.0, 2, 1}, K{5.0, 1, 1}}));
}

TEST(EnginePool, IndicesAndElementsStayPutAcrossChunks) {
  // 2^18 elements a chunk: the second chunk must leave the first in place.
  Pool<Request> pool;
  constexpr std::uint32_t kCount = (1u << 18) + 10;
  Request* first = nullptr;
  for (std::uint32_t i = 0; i < kCount; ++i) {
    ASSERT_EQ(pool.add(), i);
    pool[i].id = i;
    if (i == 0) first = &pool[0];
  }
  EXPECT_EQ(pool.size(), kCount);
  EXPECT_EQ(&pool[0], first);
  EXPECT_EQ(pool[0].id, 0u);
  EXPECT_EQ(pool[kCount - 1].id, kCount - 1);
  EXPECT_GE(pool.bytes(), std::size_t{kCount} * sizeof(Request));
  pool.release();
  EXPECT_EQ(pool.size(), 0u);
}

TEST(EnginePool, AddedElementsStartAsDefaultValues) {
  Pool<Envelope> pool;
  std::uint32_t i = pool.add();
  pool[i].bytes = 42;
  pool.release();
  i = pool.add();  // a fresh chunk: the old value must not show through
  EXPECT_EQ(pool[i].bytes, 0);
  EXPECT_EQ(pool[i].next, kNone);
  EXPECT_EQ(pool[i].request, kNone);
}

TEST(EngineRankState, WaitSketchKeepsThePeersWaitedOnMost) {
  RankState s;
  s.add_wait(-1, 5.0);  // unknown peer: not counted
  s.add_wait(3, 0.0);   // no wait: not counted
  for (const auto& t : s.tally) EXPECT_EQ(t.peer, -1);
  s.add_wait(1, 4.0);
  s.add_wait(2, 1.0);
  s.add_wait(3, 2.0);
  s.add_wait(4, 3.0);
  s.add_wait(1, 1.0);  // accumulates: peer 1 has 5
  // A fifth peer takes the slot of the smallest (peer 2, 1 s) and adds to it,
  // so a peer waited on often enough always surfaces.
  s.add_wait(5, 0.5);
  auto seconds_of = [&](int peer) {
    for (const auto& t : s.tally)
      if (t.peer == peer) return static_cast<double>(t.seconds);
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(seconds_of(1), 5.0);
  EXPECT_DOUBLE_EQ(seconds_of(2), -1.0);
  EXPECT_DOUBLE_EQ(seconds_of(5), 1.5);
  EXPECT_DOUBLE_EQ(seconds_of(3), 2.0);
  EXPECT_DOUBLE_EQ(seconds_of(4), 3.0);
}

TEST(EngineComm, DropsTheMapsOfAWorldOrderedUniformCommunicator) {
  Comm c;
  c.size = 4;
  c.world = {0, 1, 2, 3};
  c.handles = {5, 5, 5, 5};
  c.drop_trivial_maps(4);
  EXPECT_TRUE(c.world.empty());
  EXPECT_TRUE(c.handles.empty());
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(c.world_of(r), r);
    EXPECT_EQ(c.handle_of(r), 5);
  }
}

TEST(EngineComm, KeepsTheMapsItNeeds) {
  Comm part;  // half the world: not the identity even in order
  part.size = 2;
  part.world = {0, 1};
  part.handles = {2, 3};
  part.drop_trivial_maps(4);
  EXPECT_EQ(part.world_of(1), 1);
  EXPECT_EQ(part.handle_of(0), 2);
  EXPECT_EQ(part.handle_of(1), 3);
  EXPECT_EQ(part.world.size(), 2u);

  Comm reordered;
  reordered.size = 3;
  reordered.world = {2, 0, 1};
  reordered.handles = {4, 4, 4};
  reordered.drop_trivial_maps(3);
  EXPECT_EQ(reordered.world_of(0), 2);
  EXPECT_EQ(reordered.world_of(2), 1);
  EXPECT_TRUE(reordered.handles.empty());
  EXPECT_EQ(reordered.handle_of(1), 4);
}

}  // namespace
}  // namespace perfcast::sim::engine_state
