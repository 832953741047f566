// What MPI makes an error (a message larger than its receive) stops the
// simulation; what MPI leaves erroneous but a run survives (messages never
// received, requests never completed, no MPI_Finalize, calls after it) is
// counted per rank in the result.
#include <gtest/gtest.h>

#include "sim/sim_test_util.h"
#include "support/error.h"

namespace {

using namespace perfcast::sim;
using namespace perfcast::sim::test;

Event marker(Kind kind) {
  Event e;
  e.kind = kind;
  return e;
}

TEST(SimMpiSemantics, AMessageLargerThanItsReceiveIsTruncateError) {
  try {
    run({{send(1, 100)}, {recv(0, 50)}}, flat_machine());
    FAIL() << "no error";
  } catch (const perfcast::UserError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("MPI_ERR_TRUNCATE"), std::string::npos) << what;
    EXPECT_NE(what.find("rank 1 received a message of 100 bytes from rank 0"), std::string::npos) << what;
  }
  // A receive larger than the message is fine (MPI reports the count received).
  auto ok = run({{send(1, 50)}, {recv(0, 100)}}, flat_machine());
  EXPECT_TRUE(ok.warnings.empty());
}

TEST(SimMpiSemantics, ACleanJobHasNoWarnings) {
  auto r = run({{marker(Kind::Init), send(1, 8), marker(Kind::Finalize)},
                {marker(Kind::Init), recv(0, 8), marker(Kind::Finalize)}},
               flat_machine());
  EXPECT_TRUE(r.warnings.empty());
}

TEST(SimMpiSemantics, WarningsAreCountedPerRank) {
  // Rank 0: an isend never waited for, two messages to rank 1 that it never
  // receives, then MPI_Finalize and a send after it. Rank 1: MPI_Init only.
  auto r = run({{marker(Kind::Init), isend(1, 8, 7, 5), send(1, 8, 6), marker(Kind::Finalize),
                 send(perfcast::events::kProcNull, 8)},
                {marker(Kind::Init), compute(1e-3)}},
               flat_machine());
  ASSERT_EQ(r.warnings.size(), 2u);
  const RankWarnings& zero = r.warnings[0];
  EXPECT_EQ(zero.rank, 0);
  EXPECT_EQ(zero.incomplete_requests, 1u);
  EXPECT_EQ(zero.unreceived_messages, 0u);
  EXPECT_FALSE(zero.missing_finalize);
  EXPECT_EQ(zero.calls_after_finalize, 1u);
  const RankWarnings& one = r.warnings[1];
  EXPECT_EQ(one.rank, 1);
  EXPECT_EQ(one.unreceived_messages, 2u);
  EXPECT_TRUE(one.missing_finalize);
  EXPECT_EQ(one.incomplete_requests, 0u);
}

TEST(SimMpiSemantics, StreamsWithoutInitNeedNoFinalize) {
  // Fragments of a job (hand-written or cut from a trace) do not model the MPI section.
  auto r = run({{send(1, 8)}, {recv(0, 8)}}, flat_machine());
  EXPECT_TRUE(r.warnings.empty());
}

}  // namespace
