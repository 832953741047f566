// Communicators, live-data hooks, determinism and progress (the renderings: tests/report/).
#include <random>

#include <gtest/gtest.h>

#include "sim/sim_test_util.h"
#include "support/error.h"

namespace perfcast::sim::test {
namespace {

constexpr double us = 1e-6;
constexpr int kRow = 2, kCol = 3;  // handles each rank gives its new communicators

// 4 ranks as a 2 x 2 grid: world rank = 2 * row + col.
std::vector<Event> grid_prologue(int rank) {
  return {split(rank / 2, rank, kRow), split(rank % 2, rank, kCol)};
}

TEST(SimComms, RowAndColumnCommunicators) {
  // After the splits (each an 8-byte recursive-doubling allreduce over 4 ranks:
  // 2 rounds of 1.008 us; two splits, 4.032 us), every rank sends 100 B on its row communicator to its row
  // partner and on its column communicator to its column partner, same tag:
  // messages on different communicators never match each other.
  std::vector<std::vector<Event>> ranks(4);
  for (int r = 0; r < 4; ++r) {
    auto& s = ranks[static_cast<size_t>(r)] = grid_prologue(r);
    int row_peer = 1 - r % 2, col_peer = 1 - r / 2;  // ranks within the new communicators
    s.push_back(irecv(row_peer, 100, 1, 0, kRow));
    s.push_back(irecv(col_peer, 200, 2, 0, kCol));
    if (r == 0) s.push_back(compute(10 * us));  // rank 0 is late on both
    s.push_back(send(row_peer, 100, 0, kRow));
    s.push_back(send(col_peer, 200, 0, kCol));
    s.push_back(completion(Kind::Waitall, {1, 2}));
  }
  SimOptions options;
  options.collectives = CollectiveMode::Algorithms;
  auto r = run(ranks, flat_machine(), options);
  const double split_s = 4 * 1.008 * us;
  // Rank 3 hears from 1 (row) and 2 (column), both on time: split + 1.2 us.
  EXPECT_NEAR(r.ranks[3].end_s, split_s + 1.2 * us, 1e-15);
  // Rank 1 waits for rank 0 on its row: rank 0 sends at split + 10 us.
  EXPECT_NEAR(r.ranks[1].end_s, split_s + 10 * us + 1.1 * us, 1e-15);
  // Rank 2 waits for rank 0's column message (200 B, sent right after the row one).
  EXPECT_NEAR(r.ranks[2].end_s, split_s + 10 * us + 1.2 * us, 1e-15);
}

TEST(SimComms, CollectiveOnSplitCommunicator) {
  // Table mode, allreduce of 8 B on the column communicators: T = 7 us; column 0
  // = {0, 2} where rank 2 arrives 5 us late; column 1 = {1, 3} on time.
  std::string toml = std::string(kFlatMachine) +
                     "[[collective]]\nop = \"allreduce\"\nprocs = [1]\nbytes = [0]\ntime_s = [[7e-6]]\n";
  auto m = machine::load_machine_string(toml, "t");
  std::vector<std::vector<Event>> ranks(4);
  for (int r = 0; r < 4; ++r) {
    auto& s = ranks[static_cast<size_t>(r)] = grid_prologue(r);
    if (r == 2) s.push_back(compute(5 * us));
    s.push_back(coll(Kind::Allreduce, 8, 0, kCol));
  }
  auto r = run(ranks, m);
  // The splits are allreduce-like: table T = 7 us each, 14 us.
  EXPECT_NEAR(r.ranks[1].end_s, 21 * us, 1e-15);
  EXPECT_NEAR(r.ranks[3].end_s, 21 * us, 1e-15);
  EXPECT_NEAR(r.ranks[0].end_s, 26 * us, 1e-15) << "waits for rank 2";
  EXPECT_NEAR(r.ranks[0].wait_s, 5 * us, 1e-15);
}

TEST(SimComms, UndefinedColorAndKeyOrder) {
  // Ranks 0..3 split with color 0 except rank 1 (undefined); keys reverse the order,
  // so in the new communicator rank 0 of it is world 3. Rank 3 (new rank 0) bcasts.
  std::vector<std::vector<Event>> ranks(4);
  for (int r = 0; r < 4; ++r) {
    bool member = r != 1;
    ranks[static_cast<size_t>(r)] = {split(member ? 0 : events::kUndefinedColor, -r, member ? 2 : -1)};
    if (member) {
      if (r == 3) ranks[3].push_back(compute(4 * us));
      ranks[static_cast<size_t>(r)].push_back(coll(Kind::Bcast, 100, 0, 2));
    }
  }
  SimOptions options;
  options.collectives = CollectiveMode::Algorithms;
  auto r = run(ranks, flat_machine(), options);
  EXPECT_GT(r.ranks[0].end_s, 4 * us) << "world 0 waits for the root, world 3";
  EXPECT_LT(r.ranks[1].end_s, 4 * us) << "world 1 is in no communicator";
}

// Communicators with the world's ranks in order keep no rank or handle map
// (Comm::drop_trivial_maps); a dup whose members give different handles keeps
// the handle map. Either way a ring on the new communicator times as on world:
// 100 B to the right neighbour, 1.1 us; a rank's messages on world and on the
// dup never match each other (same tag, different sizes).
TEST(SimComms, DupOfWorldWithSameOrDifferentHandles) {
  for (bool same_handles : {true, false}) {
    std::vector<std::vector<Event>> ranks(4);
    for (int r = 0; r < 4; ++r) {
      int handle = same_handles || r != 2 ? 2 : 7;
      Event dup = coll(Kind::CommDup, 0);
      dup.new_comm = handle;
      auto& s = ranks[static_cast<size_t>(r)];
      s = {dup, irecv((r + 3) % 4, 100, 1, 0, handle), irecv((r + 3) % 4, 300, 2, 0, events::kCommWorld)};
      if (r == 0) s.push_back(compute(10 * us));
      s.push_back(send((r + 1) % 4, 300, 0, events::kCommWorld));
      s.push_back(send((r + 1) % 4, 100, 0, handle));
      s.push_back(completion(Kind::Waitall, {1, 2}));
    }
    SimOptions options;
    options.collectives = CollectiveMode::Algorithms;
    auto r = run(ranks, flat_machine(), options);
    // Rank 3 hears from 2 on time: the 300 B on world take 1.3 us, the 100 B on the dup 1.1 us.
    double dup_s = r.ranks[3].end_s - 1.3 * us;
    EXPECT_NEAR(dup_s, 2 * 1.008 * us, 1e-14) << "recursive doubling over 4 ranks, 8 B: 2 rounds of 1.008 us";
    // Rank 1 waits for rank 0, 10 us late.
    EXPECT_NEAR(r.ranks[1].end_s, dup_s + 10 * us + 1.3 * us, 1e-14) << (same_handles ? "same" : "different");
    EXPECT_NEAR(r.ranks[2].end_s, r.ranks[3].end_s, 1e-15) << (same_handles ? "same" : "different");
  }
}

TEST(SimComms, MessageOnUnknownCommunicatorIsAnError) {
  EXPECT_THROW(run({{send(0, 8, 0, 5)}}, flat_machine()), UserError);
}

class CountingMover : public events::DataMover {
 public:
  void deliver(const Event&, int, Event&, int) override { ++deliveries; }
  void collective(const std::vector<Event*>& members, const std::vector<int>& world) override {
    ++collectives;
    for (size_t i = 0; i < members.size(); ++i) EXPECT_EQ(members[i]->kind, Kind::Allreduce) << world[i];
  }
  int deliveries = 0, collectives = 0;
};

TEST(SimEngine, DataMoverSeesEveryMatchAndCollective) {
  CountingMover mover;
  SimOptions options;
  options.mover = &mover;
  std::vector<std::vector<Event>> ranks(3);
  for (int r = 0; r < 3; ++r)
    ranks[static_cast<size_t>(r)] = {send((r + 1) % 3, 8), recv((r + 2) % 3, 8), coll(Kind::Allreduce, 8)};
  run(ranks, flat_machine(), options);
  EXPECT_EQ(mover.deliveries, 3);
  EXPECT_EQ(mover.collectives, 1);
}

// Records what a live runtime would be told about probes and collectives.
class RecordingMover : public events::DataMover {
 public:
  struct Delivery {
    Kind received_kind;
    int peer, tag, send_world, recv_world;
    std::uint64_t bytes;
  };
  void deliver(const Event& send, int send_world, Event& received, int recv_world) override {
    deliveries.push_back({received.kind, received.peer, received.tag, send_world, recv_world, send.bytes});
  }
  void collective(const std::vector<Event*>& members, const std::vector<int>& world) override {
    for (size_t i = 0; i < members.size(); ++i) {
      // The event the member entered with: its kind and the data it attached.
      EXPECT_EQ(members[i]->kind, Kind::Bcast) << world[i];
      EXPECT_EQ(members[i]->live, reinterpret_cast<void*>(static_cast<std::uintptr_t>(1000 + world[i]))) << world[i];
      EXPECT_EQ(members[i]->bytes, static_cast<std::uint64_t>(64 + world[i])) << world[i];
    }
    ++collectives;
  }
  std::vector<Delivery> deliveries;
  int collectives = 0;
};

Event probe(int peer, int tag) { return p2p(Kind::Probe, peer, 0, tag); }

TEST(SimEngine, ProbeReportsTheMatchedEnvelopeToTheMover) {
  // Rank 0 probes (any source, any tag) twice: rank 1's 24 B message (tag 9) has
  // arrived by then (found in the queue); rank 2's 40 B message (tag 4) comes
  // 20 us later (found on arrival). Each probe is told source, tag and size;
  // each receive after it too; the probe leaves the message queued.
  RecordingMover mover;
  SimOptions options;
  options.mover = &mover;
  auto r = run({{compute(5 * us), probe(events::kAnySource, events::kAnyTag), recv(1, 24, 9),
                 probe(events::kAnySource, events::kAnyTag), recv(2, 40, 4)},
                {send(0, 24, 9)},
                {compute(20 * us), send(0, 40, 4)}},
               flat_machine(), options);
  ASSERT_EQ(mover.deliveries.size(), 4u);
  const auto& p1 = mover.deliveries[0];
  EXPECT_EQ(p1.received_kind, Kind::Probe);
  EXPECT_EQ(p1.peer, 1);
  EXPECT_EQ(p1.tag, 9);
  EXPECT_EQ(p1.send_world, 1);
  EXPECT_EQ(p1.recv_world, 0);
  EXPECT_EQ(p1.bytes, 24u);
  EXPECT_EQ(mover.deliveries[1].received_kind, Kind::Recv);
  EXPECT_EQ(mover.deliveries[1].peer, 1);
  const auto& p2 = mover.deliveries[2];
  EXPECT_EQ(p2.received_kind, Kind::Probe);
  EXPECT_EQ(p2.peer, 2);
  EXPECT_EQ(p2.tag, 4);
  EXPECT_EQ(p2.bytes, 40u);
  EXPECT_EQ(mover.deliveries[3].received_kind, Kind::Recv);
  // Rank 2 sends at 20 us: its message arrives at 20 + 1 (L) + 0.04 (40 B at
  // 1 GB/s) us, which ends the second probe; eager data, o = 0: the receive
  // ends then too.
  EXPECT_NEAR(r.ranks[0].end_s, 21.04 * us, 1e-15);
}

TEST(SimEngine, CollectiveMoverGetsTheEventsMembersEnteredWith) {
  // Each member tags its bcast with its own `live` and size; rank 2 comes 30 us
  // late. The mover must see every member's bcast event, not what a member does next.
  RecordingMover mover;
  SimOptions options;
  options.mover = &mover;
  options.collectives = CollectiveMode::Algorithms;
  std::vector<std::vector<Event>> ranks(4);
  for (int r = 0; r < 4; ++r) {
    auto& s = ranks[static_cast<size_t>(r)];
    if (r == 2) s.push_back(compute(30 * us));
    Event b = coll(Kind::Bcast, 64 + static_cast<std::uint64_t>(r), 0);
    b.live = reinterpret_cast<void*>(static_cast<std::uintptr_t>(1000 + r));
    s.push_back(b);
    s.push_back(send((r + 1) % 4, 8, 3));
    s.push_back(recv((r + 3) % 4, 8, 3));
  }
  run(ranks, flat_machine(), options);
  EXPECT_EQ(mover.collectives, 1);
  EXPECT_EQ(mover.deliveries.size(), 4u);
}

// A random job with wildcards, nonblocking calls and collectives.
std::vector<std::vector<Event>> random_job(int p, int steps, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::vector<Event>> ranks(static_cast<size_t>(p));
  for (int s = 0; s < steps; ++s) {
    for (int r = 0; r < p; ++r) {
      auto& e = ranks[static_cast<size_t>(r)];
      std::uint64_t base = static_cast<std::uint64_t>(s) * 10;
      e.push_back(compute((rng() % 100) * 1e-7));
      e.push_back(irecv(events::kAnySource, 4096, base + 1, s));
      e.push_back(irecv((r + p - 1) % p, 64, base + 2, s));
      e.push_back(isend((r + 1) % p, (rng() % 2) ? 64 : 4096, base + 3, s));
      e.push_back(isend((r + 1) % p, 64, base + 4, s));
      e.push_back(completion(Kind::Waitall, {base + 1, base + 2, base + 3, base + 4}));
      if (s % 3 == 0) e.push_back(coll(Kind::Allreduce, 8 << (s % 12)));
    }
  }
  return ranks;
}

TEST(SimEngine, Deterministic) {
  auto jobs = random_job(13, 40, 7);
  SimOptions options;
  options.collectives = CollectiveMode::Algorithms;
  SimResult a = run(jobs, flat_machine(), options), b = run(jobs, flat_machine(), options);
  EXPECT_GT(a.predicted_time_s, 0);
  EXPECT_EQ(a.predicted_time_s, b.predicted_time_s);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.kind_counts, b.kind_counts);
  EXPECT_EQ(a.slowest_rank, b.slowest_rank);
  ASSERT_EQ(a.ranks.size(), b.ranks.size());
  for (size_t r = 0; r < a.ranks.size(); ++r) {
    EXPECT_EQ(a.ranks[r].calc_s, b.ranks[r].calc_s) << "rank " << r;
    EXPECT_EQ(a.ranks[r].wait_s, b.ranks[r].wait_s) << "rank " << r;
    EXPECT_EQ(a.ranks[r].comm_s, b.ranks[r].comm_s) << "rank " << r;
    EXPECT_EQ(a.ranks[r].end_s, b.ranks[r].end_s) << "rank " << r;
  }
}

// Progress comes while a long job runs, every 65536 events at most (here
// every check: no wall-time gap asked for), and tells the truth about it.
TEST(SimEngine, ProgressComesWhileALongJobRuns) {
  auto jobs = random_job(8, 5000, 3);  // ~260 000 events
  std::vector<SimProgress> seen;
  SimOptions options;
  options.progress_every_s = 0;
  options.progress = [&](const SimProgress& p) { seen.push_back(p); };
  SimResult r = run(jobs, flat_machine(), options);
  ASSERT_GE(seen.size(), 3u) << r.events << " events";
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].ranks, 8);
    EXPECT_LE(seen[i].ranks_done, 8);
    EXPECT_LT(seen[i].events, r.events);
    EXPECT_LE(seen[i].simulated_s, r.predicted_time_s);
    if (i > 0) {
      EXPECT_GE(seen[i].events, seen[i - 1].events + 65536);
      EXPECT_GE(seen[i].simulated_s, seen[i - 1].simulated_s);
      EXPECT_GE(seen[i].wall_s, seen[i - 1].wall_s);
    }
  }

  // The default asks for a second between calls: a short run gets none.
  seen.clear();
  SimOptions quiet;
  quiet.progress = [&](const SimProgress& p) { seen.push_back(p); };
  run(random_job(4, 10, 3), flat_machine(), quiet);
  EXPECT_TRUE(seen.empty());
}

}  // namespace
}  // namespace perfcast::sim::test
