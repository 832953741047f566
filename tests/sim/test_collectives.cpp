// Collectives at 1, 2, 3, 8 and 13 ranks in both modes. Table mode is checked
// against hand-computed values of BSIM's rule; algorithm mode against the
// rule's orderings and a few schedules computed by hand.
#include <cmath>

#include <gtest/gtest.h>

#include "sim/collectives.h"
#include "sim/sim_test_util.h"
#include "support/error.h"

namespace perfcast::sim::test {
namespace {

constexpr double us = 1e-6;

// Flat machine plus a table for every operation: T(P, n) = 1 us x (1 + log2 P + n / 1000 B).
machine::Machine table_machine() {
  std::string toml = kFlatMachine;
  for (const char* op : {"barrier", "bcast", "reduce", "allreduce", "gather", "scatter", "allgather", "alltoall",
                         "reduce_scatter"})
    toml += std::string("[[collective]]\nop = \"") + op +
            "\"\nprocs = [1, 2]\nbytes = [0, 1000]\ntime_s = [[1e-6, 2e-6], [2e-6, 3e-6]]\n";
  return machine::load_machine_string(toml, "table");
}

double table_T(int p, double n) { return us * (1 + std::log2(static_cast<double>(p)) + n / 1000); }

const std::vector<Kind> kCollectives = {Kind::Barrier,   Kind::Bcast,     Kind::Reduce,     Kind::Allreduce,
                                        Kind::Gather,    Kind::Gatherv,   Kind::Scatter,    Kind::Scatterv,
                                        Kind::Allgather, Kind::Allgatherv, Kind::Alltoall,  Kind::Alltoallv,
                                        Kind::ReduceScatter, Kind::Scan, Kind::Exscan};

// Staggered arrivals, so the wait rule shows.
double arrival(int i) { return us * (0.7 * i + (i % 3)); }

std::vector<std::vector<Event>> job(Kind kind, int p, int root, std::uint64_t bytes) {
  std::vector<std::vector<Event>> ranks(static_cast<size_t>(p));
  for (int i = 0; i < p; ++i) ranks[static_cast<size_t>(i)] = {compute(arrival(i)), coll(kind, bytes, root)};
  return ranks;
}

bool from_root(Kind k) { return k == Kind::Bcast || k == Kind::Scatter || k == Kind::Scatterv; }
bool to_root(Kind k) { return k == Kind::Reduce || k == Kind::Gather || k == Kind::Gatherv; }

class CollectiveSizes : public ::testing::TestWithParam<int> {};

TEST_P(CollectiveSizes, TableModeFollowsBsimRule) {
  const int p = GetParam();
  const int root = p / 2;
  auto m = table_machine();
  SimOptions options;
  options.collectives = CollectiveMode::Table;
  for (Kind kind : kCollectives) {
    if (kind == Kind::Scan || kind == Kind::Exscan) continue;  // no table exists for them
    const double n = kind == Kind::ReduceScatter ? 64.0 * p : 64.0;
    const double T = table_T(p, n);
    auto r = run(job(kind, p, root, 64), m, options);
    double last = 0;
    for (int i = 0; i < p; ++i) last = std::max(last, arrival(i));
    for (int i = 0; i < p; ++i) {
      double a = arrival(i), expected;
      if (from_root(kind)) expected = std::max(a, arrival(root)) + T;  // receivers wait for the root
      else if (to_root(kind)) expected = i == root ? last + T : a + T;  // the root waits for the last
      else expected = last + T;                                          // everyone waits for the last
      const auto& t = r.ranks[static_cast<size_t>(i)];
      EXPECT_NEAR(t.end_s, expected, 1e-15) << events::kind_name(kind) << " P=" << p << " rank " << i
                                            << ": expected " << expected << " s";
      EXPECT_NEAR(t.comm_s, T, 1e-15) << events::kind_name(kind) << " comm = T";
      EXPECT_NEAR(t.wait_s, expected - a - T, 1e-15) << events::kind_name(kind) << " wait = blocked - T";
    }
  }
}

TEST_P(CollectiveSizes, AlgorithmModeRespectsDependencies) {
  const int p = GetParam();
  const int root = p / 2;
  SimOptions options;
  options.collectives = CollectiveMode::Algorithms;
  for (std::uint64_t bytes : {8ull, 64ull * 1024}) {
    for (Kind kind : kCollectives) {
      auto r = run(job(kind, p, root, bytes), flat_machine(), options);
      double last = 0;
      int last_rank = 0;
      for (int i = 0; i < p; ++i)
        if (arrival(i) > last) last = arrival(last_rank = i);
      for (int i = 0; i < p; ++i) {
        // The last to arrive may find everything there already (eager, o = 0);
        // everyone else must end after it.
        auto after = [&](double t, double x) { return i == last_rank ? t >= x : t > x; };
        const auto& t = r.ranks[static_cast<size_t>(i)];
        std::string what = std::string(events::kind_name(kind)) + " P=" + std::to_string(p) + " n=" +
                           std::to_string(bytes) + " rank " + std::to_string(i);
        EXPECT_GE(t.end_s, arrival(i)) << what;
        EXPECT_NEAR(t.wait_s + t.comm_s, t.end_s - arrival(i), 1e-15) << what;
        if (p == 1) {
          EXPECT_DOUBLE_EQ(t.end_s, arrival(i)) << what << ": one member costs nothing";
          continue;
        }
        if (from_root(kind) && i != root) {
          EXPECT_GT(t.end_s, arrival(root)) << what << ": waits for the root";
        }
        if (to_root(kind) && i == root) {
          EXPECT_TRUE(after(t.end_s, last)) << what << ": the root waits for the last";
        }
        if (!from_root(kind) && !to_root(kind) && kind != Kind::Scan && kind != Kind::Exscan) {
          EXPECT_TRUE(after(t.end_s, last)) << what << ": waits for the last";
        }
        if (kind == Kind::Scan && i > 0) {
          double before = 0;
          for (int j = 0; j <= i; ++j) before = std::max(before, arrival(j));
          EXPECT_GE(t.end_s, before) << what << ": a prefix needs the ranks before";
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, CollectiveSizes, ::testing::Values(1, 2, 3, 8, 13));

// Everyone arrives at 0; L = 1 us, B = 1 GB/s, o = 0.
double algorithm_end(Kind kind, int p, std::uint64_t bytes, int rank) {
  std::vector<std::vector<Event>> ranks(static_cast<size_t>(p));
  for (auto& r : ranks) r = {coll(kind, bytes)};
  SimOptions options;
  options.collectives = CollectiveMode::Algorithms;
  return run(ranks, flat_machine(), options).ranks[static_cast<size_t>(rank)].end_s;
}

TEST(CollectiveAlgorithms, HandComputedSchedules) {
  // Dissemination barrier: ceil(log2 P) rounds of L.
  EXPECT_NEAR(algorithm_end(Kind::Barrier, 8, 0, 5), 3 * us, 1e-15) << "3 rounds x 1 us";
  EXPECT_NEAR(algorithm_end(Kind::Barrier, 13, 0, 0), 4 * us, 1e-15) << "4 rounds x 1 us";
  // Binomial bcast of 100 B (eager, o = 0: the root's sends leave at once):
  // rank 7 gets it through 0 -> 1 -> 3 -> 7, 3 x 1.1 us; rank 4 straight from the root.
  EXPECT_NEAR(algorithm_end(Kind::Bcast, 8, 100, 7), 3.3 * us, 1e-15);
  EXPECT_NEAR(algorithm_end(Kind::Bcast, 8, 100, 4), 1.1 * us, 1e-15);
  // Recursive doubling allreduce of 8 B: 3 rounds of 1.008 us at P = 8. At 13,
  // ranks 0..9 fold in pairwise (rank 1 has it at 1.008 us) while 10..12 start
  // the doubling at once, so rank 1's last partner (9) is one round ahead: rank 1
  // is done after 3 x 1.008 us and hands the result back to rank 0 at 4 x 1.008 us.
  EXPECT_NEAR(algorithm_end(Kind::Allreduce, 8, 8, 3), 3 * 1.008 * us, 1e-15);
  EXPECT_NEAR(algorithm_end(Kind::Allreduce, 13, 8, 1), 3 * 1.008 * us, 1e-15);
  EXPECT_NEAR(algorithm_end(Kind::Allreduce, 13, 8, 0), 4 * 1.008 * us, 1e-15);
  // Ring allreduce of 4000 B at P = 4: 2(P-1) = 6 rounds of 1000 B (eager): 6 x 2 us.
  EXPECT_NEAR(algorithm_end(Kind::Allreduce, 4, 4000, 2), 12 * us, 1e-14);
  // Pairwise alltoall of 2000 B blocks (rendezvous) at P = 3: 2 rounds of 2L + n/B = 4 us.
  EXPECT_NEAR(algorithm_end(Kind::Alltoall, 3, 2000, 1), 8 * us, 1e-14);
  // Bcast of 16000 B at P = 8 (scatter + recursive-doubling allgather, blocks of
  // 2000 B, rendezvous 2L + n/B): scatter rounds of 8000, 4000, 2000 B end at
  // 10, 16, 20 us; allgather rounds of 2000, 4000, 8000 B at 24, 30, 40 us. The
  // binomial tree would take 3 x (2 + 16) = 54 us.
  for (int rank : {0, 5, 7}) EXPECT_NEAR(algorithm_end(Kind::Bcast, 8, 16000, rank), 40 * us, 1e-14) << rank;
}

TEST(CollectiveAlgorithms, ChosenBySize) {
  EXPECT_STREQ(choose_collective_algorithm(Kind::Allreduce, 64, 8).name, "recursive_doubling_allreduce");
  EXPECT_STREQ(choose_collective_algorithm(Kind::Allreduce, 64, 1 << 20).name, "ring_allreduce");
  EXPECT_STREQ(choose_collective_algorithm(Kind::Allgather, 64, 8).name, "recursive_doubling_allgather");
  EXPECT_STREQ(choose_collective_algorithm(Kind::Allgather, 13, 8).name, "bruck_allgather");
  EXPECT_STREQ(choose_collective_algorithm(Kind::Allgather, 13, 1 << 20).name, "ring_allgather");
  EXPECT_STREQ(choose_collective_algorithm(Kind::Alltoall, 64, 8).name, "bruck_alltoall");
  EXPECT_STREQ(choose_collective_algorithm(Kind::Alltoall, 64, 4096).name, "pairwise_alltoall");
  EXPECT_STREQ(choose_collective_algorithm(Kind::Barrier, 64, 0).name, "dissemination");
  EXPECT_STREQ(choose_collective_algorithm(Kind::Bcast, 64, 8).name, "binomial_bcast");
  EXPECT_STREQ(choose_collective_algorithm(Kind::Bcast, 4, 1 << 20).name, "binomial_bcast");
  EXPECT_STREQ(choose_collective_algorithm(Kind::Bcast, 64, 64 << 10).name, "scatter_doubling_allgather_bcast");
  EXPECT_STREQ(choose_collective_algorithm(Kind::Bcast, 13, 64 << 10).name, "scatter_ring_allgather_bcast");
  EXPECT_STREQ(choose_collective_algorithm(Kind::Bcast, 64, 1 << 20).name, "scatter_ring_allgather_bcast");
  for (const auto& a : collective_algorithms()) EXPECT_GT(std::string(a.description).size(), 10u) << a.name;
}

TEST(CollectiveModes, AutoUsesTableWhenPresent) {
  // Only an allreduce table: allreduce follows it, barrier falls back to dissemination.
  std::string toml = std::string(kFlatMachine) +
                     "[[collective]]\nop = \"allreduce\"\nprocs = [1]\nbytes = [0]\ntime_s = [[7e-6]]\n";
  auto m = machine::load_machine_string(toml, "one-table");
  auto r = run({{coll(Kind::Allreduce, 8), coll(Kind::Barrier, 0)}, {coll(Kind::Allreduce, 8), coll(Kind::Barrier, 0)}},
               m);
  EXPECT_NEAR(r.predicted_time_s, 7 * us + 1 * us, 1e-15) << "7 us from the table + 1 round of L";
  SimOptions table;
  table.collectives = CollectiveMode::Table;
  EXPECT_THROW(run({{coll(Kind::Barrier, 0)}, {coll(Kind::Barrier, 0)}}, m, table), UserError);
}

TEST(CollectiveModes, ATableFromTwoRanksUpSaysNothingOfOneRank) {
  // calibrate measures from 2 ranks: a job of one rank must not pay the
  // 2-rank time (its allreduce moves nothing), while 2 ranks do.
  std::string toml = std::string(kFlatMachine) +
                     "[[collective]]\nop = \"allreduce\"\nprocs = [2]\nbytes = [8]\ntime_s = [[7e-6]]\n";
  auto m = machine::load_machine_string(toml, "from-two");
  EXPECT_EQ(run({{coll(Kind::Allreduce, 8)}}, m).predicted_time_s, 0);
  EXPECT_NEAR(run({{coll(Kind::Allreduce, 8)}, {coll(Kind::Allreduce, 8)}}, m).predicted_time_s, 7 * us, 1e-15);
}

TEST(CollectiveErrors, MembersDisagree) {
  try {
    run({{coll(Kind::Bcast, 8, 0)}, {coll(Kind::Bcast, 8, 1)}}, flat_machine());
    FAIL();
  } catch (const UserError& e) {
    std::string text = e.what();
    EXPECT_NE(text.find("rank 1, event 0"), std::string::npos) << text;
    EXPECT_NE(text.find("root"), std::string::npos) << text;
  }
  try {
    run({{coll(Kind::Barrier, 0)}, {compute(1e-6), coll(Kind::Allreduce, 8)}}, flat_machine());
    FAIL();
  } catch (const UserError& e) {
    std::string text = e.what();
    EXPECT_NE(text.find("rank 1, event 1"), std::string::npos) << text;
    EXPECT_NE(text.find("barrier"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace perfcast::sim::test
