// The timed region an app marks with MPI_Pcontrol (docs/methods.md, "The timed
// region"): the marks cost nothing, and the region is what the apps report as
// time_s: per region the slowest rank's end minus start, over regions the median.
#include <gtest/gtest.h>

#include "sim/sim_test_util.h"

namespace {

using namespace perfcast::sim;
using namespace perfcast::sim::test;

Event pcontrol(int level) {
  Event e;
  e.kind = Kind::Pcontrol;
  e.tag = level;
  return e;
}

TEST(SimTimedRegion, MarksCostNothingAndTheRegionIsTheSlowestRanksSpan) {
  // Rank 0 sets up for 1 s, rank 1 for 0.2 s; after the barrier rank 0 works 2 s
  // and rank 1 3 s inside the region, then rank 0 works 0.5 s outside it.
  std::vector<std::vector<Event>> streams = {
      {compute(1.0), coll(Kind::Barrier, 0), pcontrol(1), compute(2.0), pcontrol(0), compute(0.5)},
      {compute(0.2), coll(Kind::Barrier, 0), pcontrol(1), compute(3.0), pcontrol(0)}};
  auto marked = run(streams, flat_machine());
  ASSERT_TRUE(marked.timed_region.has_value());
  const TimedRegion& region = *marked.timed_region;
  EXPECT_EQ(region.problem, "");
  EXPECT_DOUBLE_EQ(region.time_s, 3.0);
  ASSERT_EQ(region.occurrences_s.size(), 1u);
  ASSERT_EQ(region.ranks.size(), 2u);
  EXPECT_DOUBLE_EQ(region.ranks[0].inside_s, 2.0);
  EXPECT_DOUBLE_EQ(region.ranks[1].inside_s, 3.0);
  // Both start when the barrier releases them, after rank 0's set-up (the flat
  // machine's barrier: a microsecond).
  EXPECT_GE(region.ranks[0].start_s, 1.0);
  EXPECT_GE(region.ranks[1].start_s, 1.0);
  EXPECT_NEAR(region.ranks[0].start_s, region.ranks[1].start_s, 1e-5);
  EXPECT_LT(region.time_s, marked.predicted_time_s);

  // Without the marks: the same job to the nanosecond, and no region.
  for (auto& s : streams) std::erase_if(s, [](const Event& e) { return e.kind == Kind::Pcontrol; });
  auto plain = run(streams, flat_machine());
  EXPECT_FALSE(plain.timed_region.has_value());
  EXPECT_DOUBLE_EQ(plain.predicted_time_s, marked.predicted_time_s);
}

TEST(SimTimedRegion, RepeatedRegionsGiveTheirMedianAndOtherLevelsAreIgnored) {
  std::vector<Event> rank;
  for (double s : {4.0, 1.0, 2.0}) {
    rank.push_back(pcontrol(1));
    rank.push_back(pcontrol(7));  // a tool's own level
    rank.push_back(compute(s));
    rank.push_back(pcontrol(0));
  }
  auto r = run({rank, rank}, flat_machine());
  ASSERT_TRUE(r.timed_region.has_value());
  EXPECT_EQ(r.timed_region->occurrences_s, (std::vector<double>{4.0, 1.0, 2.0}));
  EXPECT_DOUBLE_EQ(r.timed_region->time_s, 2.0);
  EXPECT_DOUBLE_EQ(r.timed_region->ranks[0].inside_s, 7.0);
}

TEST(SimTimedRegion, MarksThatMakeNoRegionSayWhy) {
  auto unclosed = run({{pcontrol(1), compute(1.0)}, {pcontrol(1), compute(1.0), pcontrol(0)}}, flat_machine());
  ASSERT_TRUE(unclosed.timed_region.has_value());
  EXPECT_EQ(unclosed.timed_region->problem, "rank 0: its last region has no MPI_Pcontrol(0)");
  EXPECT_TRUE(unclosed.timed_region->occurrences_s.empty());

  auto unopened = run({{compute(1.0), pcontrol(0)}}, flat_machine());
  EXPECT_EQ(unopened.timed_region->problem, "rank 0: MPI_Pcontrol(0) at 1 s with no region started");

  auto uneven = run({{pcontrol(1), pcontrol(0), pcontrol(1), pcontrol(0)}, {pcontrol(1), pcontrol(0)}},
                    flat_machine());
  EXPECT_EQ(uneven.timed_region->problem, "rank 0 marks 2 region(s), rank 1 marks 1");

  auto unmarked_rank = run({{pcontrol(1), pcontrol(0)}, {compute(1.0)}}, flat_machine());
  EXPECT_EQ(unmarked_rank.timed_region->problem, "rank 0 marks 1 region(s), rank 1 marks 0");
}

}  // namespace
