// Point to point: each test states the hand-computed time beside the simulated one.
// Flat machine (sim_test_util.h): L = 1 us, B = 1 GB/s, eager up to 1 KiB, o = 0.
#include <gtest/gtest.h>

#include "sim/sim_test_util.h"
#include "support/error.h"

namespace perfcast::sim::test {
namespace {

constexpr double us = 1e-6;

TEST(SimP2P, EagerPingPong) {
  // 100 B each way: L + n/B = 1 us + 0.1 us = 1.1 us per trip.
  auto r = run({{send(1, 100), recv(1, 100)}, {recv(0, 100), send(0, 100)}}, flat_machine());
  EXPECT_NEAR(r.ranks[0].end_s, 2.2 * us, 1e-15) << "expected 2 x 1.1 us";
  EXPECT_NEAR(r.ranks[1].end_s, 1.1 * us, 1e-15) << "expected 1.1 us (eager send costs o = 0)";
  EXPECT_NEAR(r.predicted_time_s, 2.2 * us, 1e-15);
  // Rank 0 blocks from 0: rank 1 sends back at 1.1 us (wait), the trip takes 1.1 us (comm).
  EXPECT_NEAR(r.ranks[0].wait_s, 1.1 * us, 1e-15);
  EXPECT_NEAR(r.ranks[0].comm_s, 1.1 * us, 1e-15);
  EXPECT_EQ(r.mpi_calls, 4u);
}

TEST(SimP2P, RendezvousPingPong) {
  // 10 000 B > 1 KiB: transfer starts when both are there, handshake L + L + n/B
  // = 2 us + 10 us = 12 us; back again: 24 us; the sender is blocked as long.
  auto r = run({{send(1, 10000), recv(1, 10000)}, {recv(0, 10000), send(0, 10000)}}, flat_machine());
  EXPECT_NEAR(r.ranks[0].end_s, 24 * us, 1e-14) << "expected 24 us";
  EXPECT_NEAR(r.ranks[1].end_s, 24 * us, 1e-14) << "expected 24 us (blocking rendezvous send)";
}

TEST(SimP2P, RendezvousHandshakesAreTheMachines) {
  // network.rendezvous_handshakes = h: a 10 000 B trip takes h x L + L + n/B:
  // 11 us with h = 0 (SMPI's model), 12 us with 1 (the default), 13 us with 2.
  for (double h : {0.0, 1.0, 2.0}) {
    auto m = flat_machine();
    m.network.rendezvous_handshakes = h;
    auto r = run({{send(1, 10000), recv(1, 10000)}, {recv(0, 10000), send(0, 10000)}}, m);
    EXPECT_NEAR(r.ranks[0].end_s, 2 * (h + 11) * us, 1e-14) << "h = " << h << ": expected 2 x " << h + 11 << " us";
  }
}

TEST(SimP2P, MeasuredOneWayTimesPriceMessagesWithinANode) {
  // Two cores on one node, the machine's measured one-way curve: an eager
  // 100 B message takes the table's 0.5 us, a rendezvous 10 000 B one its 7 us
  // and no handshake on top (the measured time holds the protocol). Between
  // nodes the line stays: 1 us + n / 1 GB/s (+ 1 handshake for rendezvous).
  auto m = flat_machine({"node.cores=2", "network.eager_threshold=\"1 KiB\"",
                         "network.intra_node_one_way={ bytes = [100, 10000], time_s = [0.5e-6, 7e-6] }"});
  auto eager = run({{send(1, 100)}, {recv(0, 100)}}, m);
  EXPECT_NEAR(eager.ranks[1].end_s, 0.5 * us, 1e-15);
  auto rendezvous = run({{send(1, 10000)}, {recv(0, 10000)}}, m);
  EXPECT_NEAR(rendezvous.ranks[0].end_s, 7 * us, 1e-14);
  EXPECT_NEAR(rendezvous.ranks[1].end_s, 7 * us, 1e-14);
  auto across = run({{send(2, 10000)}, {}, {recv(0, 10000)}}, m);
  EXPECT_NEAR(across.ranks[2].end_s, 12 * us, 1e-14) << "ranks 0 and 2 are on different nodes";
}

TEST(SimP2P, EagerMessagesThatCrossTakeTheMeasuredExchangeStep) {
  // One node of two cores with measured one-way times (100 B: 0.5 us) and
  // exchange steps (100 B: 0.7 us, both sides sending at once).
  auto m = flat_machine({"node.cores=2", "network.eager_threshold=\"1 KiB\"",
                         "network.intra_node_one_way={ bytes = [100, 10000], time_s = [0.5e-6, 7e-6] }",
                         "network.intra_node_exchange={ bytes = [100, 10000], time_s = [0.7e-6, 10e-6] }"});
  auto halo = [](int peer, double delay) {
    std::vector<Event> r{irecv(peer, 100, 1)};
    if (delay > 0) r.push_back(compute(delay));
    r.push_back(isend(peer, 100, 2));
    r.push_back(completion(Kind::Waitall, {1, 2}));
    return r;
  };
  // Both send at 0: each message crosses the other, both take 0.7 us.
  auto both = run({halo(1, 0), halo(0, 0)}, m);
  EXPECT_NEAR(both.ranks[0].end_s, 0.7 * us, 1e-15) << "an exchange step, not the 0.5 us one-way trip";
  EXPECT_NEAR(both.ranks[1].end_s, 0.7 * us, 1e-15);
  // Rank 1 sends at 0.3 us, while rank 0's message (0 -> 0.5 us) is in flight:
  // they cross; rank 0's stretches to 0.7 us, rank 1's arrives at 0.3 + 0.7.
  auto late = run({halo(1, 0), halo(0, 0.3 * us)}, m);
  EXPECT_NEAR(late.ranks[1].end_s, 0.7 * us, 1e-15) << "rank 0's message, stretched by the exchange step";
  EXPECT_NEAR(late.ranks[0].end_s, 1.0 * us, 1e-15) << "rank 1's, sent at 0.3 us, one exchange step";
  // Rank 1 sends at 0.6 us, after rank 0's message arrived: no crossing, one-way each.
  auto after = run({halo(1, 0), halo(0, 0.6 * us)}, m);
  EXPECT_NEAR(after.ranks[1].end_s, 0.6 * us, 1e-15);
  EXPECT_NEAR(after.ranks[0].end_s, 1.1 * us, 1e-15) << "0.6 us + 0.5 us one-way";
  // A ping-pong never crosses: each reply leaves when the request arrived.
  auto ping = run({{send(1, 100), recv(1, 100)}, {recv(0, 100), send(0, 100)}}, m);
  EXPECT_NEAR(ping.ranks[0].end_s, 1.0 * us, 1e-15) << "2 x 0.5 us";
  // The message arrived before its receive was posted (unexpected): the
  // crossing send stretches it all the same.
  auto unexpected = run({{isend(1, 100, 2), irecv(1, 100, 1), completion(Kind::Waitall, {1, 2})},
                         {compute(0.2 * us), isend(0, 100, 2), irecv(0, 100, 1), completion(Kind::Waitall, {1, 2})}},
                        m);
  EXPECT_NEAR(unexpected.ranks[1].end_s, 0.7 * us, 1e-15);
  EXPECT_NEAR(unexpected.ranks[0].end_s, 0.9 * us, 1e-15) << "0.2 us + 0.7 us";
  // Without the exchange curve, and between nodes, messages stay one-way.
  auto m_one_way = flat_machine({"node.cores=2", "network.eager_threshold=\"1 KiB\"",
                                 "network.intra_node_one_way={ bytes = [100, 10000], time_s = [0.5e-6, 7e-6] }"});
  EXPECT_NEAR(run({halo(1, 0), halo(0, 0)}, m_one_way).ranks[0].end_s, 0.5 * us, 1e-15);
  auto across = run({halo(2, 0), {}, halo(0, 0)}, m);
  EXPECT_NEAR(across.ranks[0].end_s, 1.1 * us, 1e-15) << "ranks 0 and 2 on different nodes: 1 us + 100 B / 1 GB/s";
}

TEST(SimP2P, RendezvousSenderWaitsForReceiver) {
  // The receiver comes at 5 us: the sender waits 5 us, then 12 us of transfer.
  auto r = run({{send(1, 10000)}, {compute(5 * us), recv(0, 10000)}}, flat_machine());
  EXPECT_NEAR(r.ranks[0].end_s, 17 * us, 1e-14) << "expected 5 + 12 us";
  EXPECT_NEAR(r.ranks[0].wait_s, 5 * us, 1e-14);
  EXPECT_NEAR(r.ranks[0].comm_s, 12 * us, 1e-14);
}

TEST(SimP2P, IsendRendezvousOverlapsCompute) {
  // isend at 0, receiver there at 0: done at 12 us, hidden by 20 us of compute.
  auto r = run({{isend(1, 10000, 1), compute(20 * us), completion(Kind::Wait, {1})}, {recv(0, 10000)}}, flat_machine());
  EXPECT_NEAR(r.ranks[0].end_s, 20 * us, 1e-14) << "expected 20 us, no wait";
  EXPECT_DOUBLE_EQ(r.ranks[0].wait_s + r.ranks[0].comm_s, 0);
  EXPECT_NEAR(r.ranks[1].end_s, 12 * us, 1e-14) << "expected 12 us";
}

TEST(SimP2P, Overhead) {
  // o = 0.5 us: the sender pays o, the receiver gets it at 1.1 us + o.
  auto r = run({{send(1, 100)}, {recv(0, 100)}}, flat_machine({"network.overhead=\"0.5 us\""}));
  EXPECT_NEAR(r.ranks[0].end_s, 0.5 * us, 1e-15) << "expected o = 0.5 us";
  EXPECT_NEAR(r.ranks[1].end_s, 1.6 * us, 1e-15) << "expected 1.1 + 0.5 us";
}

TEST(SimP2P, TokenRing) {
  // The token goes 0 -> 1 -> 2 -> 3 -> 0, 1.1 us per hop: rank k has it at k x 1.1 us.
  std::vector<std::vector<Event>> ranks(4);
  ranks[0] = {send(1, 100), recv(3, 100)};
  for (int k = 1; k < 4; ++k) ranks[static_cast<size_t>(k)] = {recv(k - 1, 100), send((k + 1) % 4, 100)};
  auto r = run(ranks, flat_machine());
  for (int k = 1; k < 4; ++k) EXPECT_NEAR(r.ranks[static_cast<size_t>(k)].end_s, k * 1.1 * us, 1e-15) << "rank " << k;
  EXPECT_NEAR(r.ranks[0].end_s, 4.4 * us, 1e-15) << "expected 4 x 1.1 us";
  EXPECT_NEAR(r.ranks[3].wait_s, 2.2 * us, 1e-15) << "rank 3 waits until rank 2 sends at 2.2 us";
}

TEST(SimP2P, ShiftRing) {
  // Everyone sends right then receives from the left: all done at 1.1 us.
  std::vector<std::vector<Event>> ranks(5);
  for (int k = 0; k < 5; ++k) ranks[static_cast<size_t>(k)] = {send((k + 1) % 5, 100), recv((k + 4) % 5, 100)};
  auto r = run(ranks, flat_machine());
  for (const auto& t : r.ranks) EXPECT_NEAR(t.end_s, 1.1 * us, 1e-15);
}

TEST(SimP2P, LoadImbalancedExchange) {
  // Rank 0 computes 10 us, rank 1 2 us, then they sendrecv 100 B. Rank 1 waits
  // from 2 us until rank 0 sends at 10 us (8 us wait), then 1.1 us comm: 11.1 us.
  // Rank 0's message from rank 1 arrived at 3.1 us: it ends at 10 us.
  auto r = run({{compute(10 * us), sendrecv(1, 100, 1, 100)}, {compute(2 * us), sendrecv(0, 100, 0, 100)}},
               flat_machine());
  EXPECT_NEAR(r.ranks[0].end_s, 10 * us, 1e-15);
  EXPECT_NEAR(r.ranks[1].end_s, 11.1 * us, 1e-15) << "expected 11.1 us";
  EXPECT_NEAR(r.ranks[1].wait_s, 8 * us, 1e-15) << "the wait lands on rank 1";
  EXPECT_NEAR(r.ranks[1].comm_s, 1.1 * us, 1e-15);
  EXPECT_DOUBLE_EQ(r.ranks[0].wait_s, 0);
  EXPECT_EQ(r.slowest_rank, 1);
  EXPECT_EQ(r.slowest_component, "wait");
  EXPECT_EQ(r.slowest_waited_on, 0);
}

TEST(SimP2P, ProcNullCompletesAtOnce) {
  auto r = run({{send(events::kProcNull, 100), recv(events::kProcNull, 100), irecv(events::kProcNull, 8, 1),
                 completion(Kind::Wait, {1})}},
               flat_machine());
  EXPECT_DOUBLE_EQ(r.predicted_time_s, 0);
}

TEST(SimP2P, WaitanyPicksEarliest) {
  // Rank 1 sends after 10 us, rank 2 at once: waitany completes rank 2's (1.1 us),
  // then the wait on rank 1's ends at 11.1 us.
  auto r = run({{irecv(1, 100, 1), irecv(2, 100, 2), completion(Kind::Waitany, {1, 2}), completion(Kind::Wait, {1})},
                {compute(10 * us), send(0, 100)},
                {send(0, 100)}},
               flat_machine());
  EXPECT_NEAR(r.ranks[0].end_s, 11.1 * us, 1e-15) << "expected 11.1 us";
}

TEST(SimP2P, TestDoesNotBlock) {
  // Test at 0 finds nothing; after 5 us of compute the message (there at 1.1 us) is in.
  auto r = run({{irecv(1, 100, 1), completion(Kind::Test, {1}), compute(5 * us), completion(Kind::Wait, {1})},
                {send(0, 100)}},
               flat_machine());
  EXPECT_NEAR(r.ranks[0].end_s, 5 * us, 1e-15);
  EXPECT_DOUBLE_EQ(r.ranks[0].wait_s + r.ranks[0].comm_s, 0);
}

TEST(SimP2P, ProbeWaitsForArrival) {
  // Rank 1 sends at 3 us: probe ends at 4.1 us, the receive too.
  Event probe;
  probe.kind = Kind::Probe;
  probe.peer = events::kAnySource;
  probe.tag = events::kAnyTag;
  auto r = run({{probe, recv(1, 100)}, {compute(3 * us), send(0, 100)}}, flat_machine());
  EXPECT_NEAR(r.ranks[0].end_s, 4.1 * us, 1e-15) << "expected 3 + 1.1 us";
}

// Records which send each receive got.
class Recorder : public events::DataMover {
 public:
  void deliver(const Event& send, int from, Event& received, int to) override {
    log.push_back({from, to, static_cast<int>(send.bytes), received.tag});
  }
  void collective(const std::vector<Event*>& members, const std::vector<int>&) override {
    collectives.push_back(static_cast<int>(members.size()));
  }
  struct Delivery {
    int from, to, bytes, tag;
  };
  std::vector<Delivery> log;
  std::vector<int> collectives;
};

TEST(SimP2P, WildcardsAndNonOvertaking) {
  // Rank 0 sends 1000 B then 0 B (the second would arrive first: 1 us < 2 us);
  // MPI's order still gives the first receive the first message. Rank 2's
  // tag-5 message is only taken by the receive asking for tag 5.
  auto any = events::kAnySource, anytag = events::kAnyTag;
  Recorder mover;
  SimOptions options;
  options.mover = &mover;
  auto r = run({{send(1, 1000, 3), send(1, 0, 3)},
                {compute(20 * us), recv(any, 1000, anytag), recv(0, 1000, anytag), recv(any, 1000, 5)},
                {compute(10 * us), send(1, 8, 5)}},
               flat_machine(), options);
  ASSERT_EQ(mover.log.size(), 3u);
  EXPECT_EQ(mover.log[0].bytes, 1000) << "first receive gets the first message";
  EXPECT_EQ(mover.log[1].bytes, 0);
  EXPECT_EQ(mover.log[2].from, 2);
  EXPECT_EQ(mover.log[2].tag, 5);
  EXPECT_NEAR(r.ranks[1].end_s, 20 * us, 1e-15) << "everything was there by 20 us";
}

TEST(SimP2P, WildcardReceivePostedFirst) {
  // A posted any-source receive takes the first message sent: rank 2's at 0 us,
  // not rank 1's at 5 us.
  Recorder mover;
  SimOptions options;
  options.mover = &mover;
  auto r = run({{recv(events::kAnySource, 100), recv(events::kAnySource, 100)},
                {compute(5 * us), send(0, 100)},
                {send(0, 50)}},
               flat_machine(), options);
  ASSERT_EQ(mover.log.size(), 2u);
  EXPECT_EQ(mover.log[0].from, 2);
  EXPECT_EQ(mover.log[1].from, 1);
  EXPECT_NEAR(r.ranks[0].end_s, 6.1 * us, 1e-15);
}

TEST(SimP2P, Deadlock) {
  try {
    run({{recv(1, 100, 4), send(1, 100)}, {recv(0, 100, 4), send(0, 100)}}, flat_machine());
    FAIL() << "expected a deadlock";
  } catch (const UserError& e) {
    std::string text = e.what();
    EXPECT_NE(text.find("deadlock"), std::string::npos) << text;
    EXPECT_NE(text.find("rank 0"), std::string::npos) << text;
    EXPECT_NE(text.find("rank 1"), std::string::npos) << text;
    EXPECT_NE(text.find("tag 4"), std::string::npos) << text;
  }
}

TEST(SimP2P, DeadlockNamesTheUnmatchedRendezvousSend) {
  // Both ranks send 10 000 B (rendezvous) with tag 7 before receiving: neither
  // send is matched. The report reads peer, tag and comm from the message's
  // envelope, as requests no longer keep them.
  try {
    run({{send(1, 10000, 7), recv(1, 10000, 7)}, {send(0, 10000, 7), recv(0, 10000, 7)}}, flat_machine());
    FAIL() << "expected a deadlock";
  } catch (const UserError& e) {
    std::string text = e.what();
    EXPECT_NE(text.find("rank 0 (event 0, t = 0 s): send waiting for its send to peer 1, tag 7, comm 0"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("rank 1 (event 0, t = 0 s): send waiting for its send to peer 0, tag 7, comm 0"),
              std::string::npos)
        << text;
  }
}

TEST(SimP2P, WaitsInAnyOrderOfRequests) {
  // Three irecvs of 100 B from rank 1, which sends them at 0 (eager: 1 us + 0.1 us
  // on the wire, so all are there at 1.1 us), waited for one by one in reverse
  // order: the request lookup must find each wherever its search starts.
  auto r = run({{irecv(1, 100, 1, 1), irecv(1, 100, 2, 2), irecv(1, 100, 3, 3), completion(Kind::Wait, {3}),
                 completion(Kind::Wait, {2}), completion(Kind::Wait, {1})},
                {send(0, 100, 1), send(0, 100, 2), send(0, 100, 3)}},
               flat_machine());
  EXPECT_NEAR(r.ranks[0].end_s, 1.1 * us, 1e-15) << "expected 1.1 us";
}

TEST(SimP2P, RequestListedTwiceIsAnError) {
  try {
    run({{irecv(1, 100, 5), completion(Kind::Waitall, {5, 5})}, {send(0, 100)}}, flat_machine());
    FAIL() << "expected an error";
  } catch (const UserError& e) {
    std::string text = e.what();
    EXPECT_NE(text.find("request 5 is listed twice"), std::string::npos) << text;
  }
}

TEST(SimP2P, UnknownRequestIsAnError) {
  try {
    run({{compute(1e-6), completion(Kind::Wait, {42})}}, flat_machine());
    FAIL();
  } catch (const UserError& e) {
    std::string text = e.what();
    EXPECT_NE(text.find("rank 0, event 1"), std::string::npos) << text;
    EXPECT_NE(text.find("request 42"), std::string::npos) << text;
  }
}

TEST(SimP2P, TorusLatencyGrowsWithHops) {
  // 4x4x4 torus, one rank per node, L = 1 us + (hops - 1) x 0.5 us, 0-byte messages.
  const char* toml = R"(
name = "torus"
[node]
count = 64
cores = 1
flops_per_core = "1 Gflop/s"
[memory]
DRAM = { bandwidth = "1 GB/s" }
[network]
latency = "1 us"
hop_latency = "0.5 us"
bandwidth = "1 GB/s"
topology = "torus3d"
torus = [4, 4, 4]
)";
  auto m = machine::load_machine_string(toml, "torus");
  // node (x,y,z) = x + 4y + 16z; hops: 1 -> 1, 2 -> 2, 21 = (1,1,1) -> 3, 42 = (2,2,2) -> 6, 63 = (3,3,3) -> 3.
  std::vector<std::pair<int, int>> dest_hops = {{1, 1}, {2, 2}, {21, 3}, {42, 6}, {63, 3}};
  for (auto [dest, hops] : dest_hops) {
    std::vector<std::vector<Event>> ranks(64);
    ranks[0] = {send(dest, 0)};
    ranks[static_cast<size_t>(dest)] = {recv(0, 0)};
    auto r = run(ranks, m);
    double expected = 1e-6 + (hops - 1) * 0.5e-6;
    EXPECT_NEAR(r.ranks[static_cast<size_t>(dest)].end_s, expected, 1e-15) << "rank " << dest << ", " << hops << " hops";
  }
}

TEST(SimP2P, IntraNodeFigures) {
  // Two ranks per node: ranks 0 and 1 share node 0 (intra: 0.2 us, 10 GB/s).
  auto m = flat_machine({"node.cores=2", "network.intra_node_latency=\"0.2 us\"",
                         "network.intra_node_bandwidth=\"10 GB/s\""});
  auto r = run({{send(1, 1000), send(2, 1000)}, {recv(0, 1000)}, {recv(0, 1000)}}, m);
  EXPECT_NEAR(r.ranks[1].end_s, 0.3 * us, 1e-15) << "0.2 us + 1000 B / 10 GB/s";
  EXPECT_NEAR(r.ranks[2].end_s, 2 * us, 1e-15) << "1 us + 1000 B / 1 GB/s";
}

TEST(SimP2P, ComputePricedByMachine) {
  // 2e6 flops at 1 Gflop/s = 2 ms; 1e6 bytes at 1 GB/s = 1 ms: the roofline takes 2 ms.
  Event burst;
  burst.kind = Kind::Compute;
  burst.flops = 2e6;
  burst.bytes_moved = 1e6;
  auto r = run({{burst}}, flat_machine());
  EXPECT_NEAR(r.predicted_time_s, 2e-3, 1e-15);
  EXPECT_NEAR(r.ranks[0].calc_s, 2e-3, 1e-15);
}

// A node's memory bandwidth (1.5 GB/s, at most 1 GB/s per core) is shared by
// the ranks the job puts on it, not by all its cores: one rank alone on a
// 4-core node streams at 1 GB/s, four ranks at 1.5/4 GB/s each.
TEST(SimP2P, MemoryBandwidthIsSharedByTheRanksOnTheNode) {
  auto m = flat_machine({"node.cores=4", "memory.DRAM.node_bandwidth=\"1.5 GB/s\""});
  Event burst;
  burst.kind = Kind::Compute;
  burst.bytes_moved = 1e6;
  auto alone = run({{burst}}, m);
  EXPECT_NEAR(alone.predicted_time_s, 1e-3, 1e-15) << "1e6 B at 1 GB/s";
  auto four = run({{burst}, {burst}, {burst}, {burst}}, m);
  EXPECT_NEAR(four.predicted_time_s, 1e6 / (1.5e9 / 4), 1e-12) << "1e6 B at 1.5/4 GB/s";
}

// More operations in flight than one chunk of the engine's pools holds (2^18):
// requests and envelopes past the first chunk live in a second one, and a
// message must still find its receive there. Rank 0 posts
// 270 000 receives of 100 B, then rank 1 sends them in order: each arrives
// 1.1 us after its send at 0 (o = 0), so everything ends at 1.1 us.
TEST(SimP2P, MoreOperationsInFlightThanOnePoolChunk) {
  constexpr int n = 270000;
  std::vector<std::vector<Event>> ranks(2);
  std::vector<std::uint64_t> receives, sends;
  for (int i = 0; i < n; ++i) {
    ranks[0].push_back(irecv(1, 100, static_cast<std::uint64_t>(i + 1), i));
    receives.push_back(static_cast<std::uint64_t>(i + 1));
    ranks[1].push_back(isend(0, 100, static_cast<std::uint64_t>(i + 1), i));
    sends.push_back(static_cast<std::uint64_t>(i + 1));
  }
  ranks[0].push_back(completion(Kind::Waitall, receives));
  ranks[1].push_back(completion(Kind::Waitall, sends));
  auto r = run(ranks, flat_machine());
  EXPECT_NEAR(r.ranks[0].end_s, 1.1 * us, 1e-15) << "expected L + 100 B / B = 1.1 us";
  EXPECT_NEAR(r.ranks[0].comm_s, 1.1 * us, 1e-15);
  EXPECT_DOUBLE_EQ(r.ranks[1].end_s, 0) << "eager sends cost o = 0";
  EXPECT_EQ(r.mpi_calls, 2u * n + 2);
}

}  // namespace
}  // namespace perfcast::sim::test
