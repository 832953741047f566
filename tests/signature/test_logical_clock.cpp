// The logical clock on hand-written streams whose ticks and times are worked
// out by hand in each test.
#include <gtest/gtest.h>

#include "signature/logical_clock.h"
#include "streams.h"
#include "support/error.h"

namespace perfcast::signature {
namespace {

using namespace testing;

std::vector<std::int64_t> ticks(const LogicalTrace& t, int rank) {
  std::vector<std::int64_t> out;
  for (const auto& e : t.by_rank[static_cast<std::size_t>(rank)]) out.push_back(e.tick);
  return out;
}

TEST(LogicalClock, MessageChainAcrossThreeRanks) {
  // 0 -> 1 -> 2: each receive one tick after its send, each send one tick
  // after the rank's previous event.
  std::vector<std::vector<Event>> streams = {
      {compute(0.010), p2p(Kind::Send, 1)},
      {compute(0.001), p2p(Kind::Recv, 0), compute(0.002), p2p(Kind::Send, 2)},
      {p2p(Kind::Recv, 1)},
  };
  LogicalTrace t = logical_clock(streams);
  EXPECT_EQ(ticks(t, 0), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(ticks(t, 1), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(ticks(t, 2), (std::vector<std::int64_t>{4}));
  EXPECT_EQ(t.ticks, 4);
  // Physical: rank 1's receive waits for the send at 10 ms, then 2 ms of
  // compute; rank 2 receives at 12 ms.
  EXPECT_DOUBLE_EQ(t.by_rank[1][0].end_s, 0.010);
  EXPECT_DOUBLE_EQ(t.by_rank[1][1].end_s, 0.012);
  EXPECT_DOUBLE_EQ(t.by_rank[2][0].end_s, 0.012);
  EXPECT_DOUBLE_EQ(t.total_s, 0.012);
  EXPECT_DOUBLE_EQ(t.by_rank[1][1].compute_before_s, 0.002);
}

TEST(LogicalClock, ReceiveAtSendPlusOneNotLaterWhenTheReceiverIsAhead) {
  // Rank 1 has three earlier events: its receive is at its own next tick (4),
  // not at the send's tick + 1 (2).
  std::vector<std::vector<Event>> streams = {
      {p2p(Kind::Send, 1)},
      {collective(Kind::Barrier), p2p(Kind::Probe, 0), p2p(Kind::Probe, 0), p2p(Kind::Recv, 0)},
  };
  streams[0].insert(streams[0].begin(), collective(Kind::Barrier));
  LogicalTrace t = logical_clock(streams);
  EXPECT_EQ(ticks(t, 0), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(ticks(t, 1), (std::vector<std::int64_t>{1, 2, 3, 4}));
}

// Rank 2 receives from ranks 0 and 1 in either order; the clock is the same.
LogicalTrace gather_to_two(bool zero_first, bool nonblocking) {
  std::vector<std::vector<Event>> streams = {
      {compute(0.003), p2p(Kind::Send, 2)},
      {compute(0.001), p2p(Kind::Send, 2)},
      {},
  };
  int first = zero_first ? 0 : 1, second = zero_first ? 1 : 0;
  if (nonblocking)
    streams[2] = {irecv(first, 1), irecv(second, 2), waitall({1, 2})};
  else
    streams[2] = {p2p(Kind::Recv, first), p2p(Kind::Recv, second)};
  return logical_clock(streams);
}

TEST(LogicalClock, ReceiveOrderPermutationGivesTheSameClock) {
  for (bool nonblocking : {false, true}) {
    SCOPED_TRACE(nonblocking ? "irecv + waitall" : "recv");
    LogicalTrace a = gather_to_two(true, nonblocking), b = gather_to_two(false, nonblocking);
    EXPECT_EQ(ticks(a, 2), ticks(b, 2));
    EXPECT_EQ(a.ticks, b.ticks);
    EXPECT_DOUBLE_EQ(a.total_s, b.total_s);
    EXPECT_DOUBLE_EQ(a.total_s, 0.003);
  }
  EXPECT_EQ(ticks(gather_to_two(true, false), 2), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(ticks(gather_to_two(true, true), 2), (std::vector<std::int64_t>{1, 2, 3}));
}

TEST(LogicalClock, CollectiveSynchronisesItsMembers) {
  std::vector<std::vector<Event>> streams = {
      {p2p(Kind::Probe, 1), p2p(Kind::Probe, 1), compute(0.004), collective(Kind::Allreduce)},
      {compute(0.001), collective(Kind::Allreduce), p2p(Kind::Probe, 0)},
  };
  LogicalTrace t = logical_clock(streams);
  EXPECT_EQ(ticks(t, 0), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(ticks(t, 1), (std::vector<std::int64_t>{3, 4}));
  EXPECT_DOUBLE_EQ(t.by_rank[1][0].end_s, 0.004);
}

TEST(LogicalClock, SymmetricSendrecvSharesATickAndEmptyTicksAreDropped) {
  // Both exchanges start at tick 1 and receive at 1 + 1; tick 1 then holds no
  // event and the ticks close up: 1, 2 for the two exchanges.
  std::vector<std::vector<Event>> streams = {{sendrecv(1, 1), sendrecv(1, 1)}, {sendrecv(0, 0), sendrecv(0, 0)}};
  LogicalTrace t = logical_clock(streams);
  EXPECT_EQ(ticks(t, 0), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(ticks(t, 1), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(t.ticks, 2);
}

TEST(LogicalClock, SplitCommunicatorTranslatesPeers) {
  // Ranks 0..3 split by parity (key = world rank); in the odd communicator,
  // rank 0 is world 1 and rank 1 is world 3: world 3 receives from world 1.
  auto split = [](int color) {
    Event e;
    e.kind = Kind::CommSplit;
    e.color = color;
    e.key = 0;
    e.new_comm = 2;
    return e;
  };
  auto on_split = [](Event e) {
    e.comm = 2;
    return e;
  };
  std::vector<std::vector<Event>> streams = {
      {split(0)},
      {split(1), compute(0.005), on_split(p2p(Kind::Send, 1))},
      {split(0)},
      {split(1), on_split(p2p(Kind::Recv, 0))},
  };
  LogicalTrace t = logical_clock(streams);
  EXPECT_EQ(ticks(t, 3), (std::vector<std::int64_t>{1, 3}));
  EXPECT_DOUBLE_EQ(t.by_rank[3][1].end_s, 0.005);
  EXPECT_EQ(t.by_rank[3][1].comm_rank, 1);
}

TEST(LogicalClock, StreamsThatCannotRunNameTheRankAndEvent) {
  std::vector<std::vector<Event>> streams = {{p2p(Kind::Recv, 1)}, {p2p(Kind::Recv, 0)}};
  try {
    logical_clock(streams);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("rank 0 event 0 (recv)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("rank 1 event 0 (recv)"), std::string::npos) << e.what();
  }
  std::vector<std::vector<Event>> bad_comm = {{[] {
    Event e = collective(Kind::Barrier);
    e.comm = 7;
    return e;
  }()}};
  EXPECT_THROW(logical_clock(bad_comm), UserError);
}

Event timed(Event e, double duration_s) {
  e.duration_s = duration_s;
  return e;
}
Event marked(Kind kind, double duration_s) {
  Event e;
  e.kind = kind;
  e.duration_s = duration_s;
  return e;
}

// With every call's duration recorded, a call ends at its start + its
// duration (the wait is in it); MPI_Init and MPI_Finalize stay out.
TEST(LogicalClock, RecordedCallDurationsAreCounted) {
  std::vector<std::vector<Event>> streams = {
      {marked(Kind::Init, 0.5), compute(0.010), timed(p2p(Kind::Send, 1), 0.001), compute(0.002),
       timed(collective(Kind::Barrier), 0.004), marked(Kind::Finalize, 0.3)},
      {marked(Kind::Init, 0.4), compute(0.001), timed(p2p(Kind::Recv, 0), 0.012),
       timed(collective(Kind::Barrier), 0.001), marked(Kind::Finalize, 0.2)},
  };
  LogicalTrace t = logical_clock(streams);
  EXPECT_TRUE(t.calls_timed);
  EXPECT_EQ(t.untimed_calls, 0u);
  // Rank 0: send 10-11 ms, compute to 13, barrier to 17. Rank 1: receive
  // 1-13 ms (it waited for the send), barrier 13-14.
  EXPECT_DOUBLE_EQ(t.by_rank[0][0].end_s, 0);  // MPI_Init: before the traced region
  EXPECT_DOUBLE_EQ(t.by_rank[0][1].end_s, 0.011);
  EXPECT_DOUBLE_EQ(t.by_rank[0][1].call_s, 0.001);
  EXPECT_DOUBLE_EQ(t.by_rank[0][2].end_s, 0.017);
  EXPECT_DOUBLE_EQ(t.by_rank[1][1].end_s, 0.013);
  EXPECT_DOUBLE_EQ(t.by_rank[1][2].end_s, 0.014);
  EXPECT_DOUBLE_EQ(t.by_rank[0][3].end_s, 0.017);  // MPI_Finalize adds nothing
  EXPECT_DOUBLE_EQ(t.total_s, 0.017);

  // A recorded duration is trusted over the other rank's clock: a receive
  // recorded as 2 ms ends at 3 ms, though its send started at 10 ms on rank
  // 0's (each rank's time counts from its own MPI_Init return).
  streams[1][2].duration_s = 0.002;
  EXPECT_DOUBLE_EQ(logical_clock(streams).by_rank[1][1].end_s, 0.003);

  // One call without a duration: none count (the compute critical path).
  streams[1][2].duration_s = -1;
  LogicalTrace partial = logical_clock(streams);
  EXPECT_FALSE(partial.calls_timed);
  EXPECT_EQ(partial.untimed_calls, 1u);
  EXPECT_DOUBLE_EQ(partial.by_rank[1][1].end_s, 0.010);
  EXPECT_DOUBLE_EQ(partial.total_s, 0.012);
}

}  // namespace
}  // namespace perfcast::signature
