// The replay with MPI as traced (sim/as_traced.h): each call ends at its start
// plus its traced duration, or where the engine held it past that. Hand-computed
// times beside the simulated ones; the flat machine's own network costs nothing here.
#include <gtest/gtest.h>

#include "sim/as_traced.h"
#include "sim/sim_test_util.h"
#include "support/error.h"

namespace perfcast::sim::test {
namespace {

Event timed(Event e, double duration_s) {
  e.duration_s = duration_s;
  return e;
}

SimResult run_as_traced(std::vector<std::vector<Event>> ranks) {
  events::VectorJobSource job(std::move(ranks));
  auto traced = with_traced_mpi_durations(job);
  return simulate(*traced, without_communication_costs(flat_machine()));
}

TEST(SimAsTraced, ACallEndsAtItsStartPlusItsTracedDuration) {
  // Rank 0 computes 1 s, then sends (traced 0.5 s): ends at 1.5 s.
  // Rank 1's receive was traced at 1.6 s: the engine holds it until the send
  // starts at 1 s (wait 1 s), the other 0.6 s follow as calc: ends at 1.6 s.
  auto r = run_as_traced({{compute(1.0), timed(send(1, 100), 0.5)}, {timed(recv(0, 100), 1.6)}});
  EXPECT_NEAR(r.ranks[0].end_s, 1.5, 1e-12) << "expected 1 s + 0.5 s";
  EXPECT_NEAR(r.ranks[1].end_s, 1.6, 1e-12) << "expected its traced 1.6 s";
  EXPECT_NEAR(r.ranks[1].wait_s, 1.0, 1e-12) << "held until the send started at 1 s";
  EXPECT_NEAR(r.ranks[1].calc_s, 0.6, 1e-12);
  EXPECT_EQ(r.ranks[1].comm_s, 0.0);
}

TEST(SimAsTraced, AStreamThatContradictsItsPartnerShowsAsTheReplaysError) {
  // The receive claims 0.2 s, but its sender starts at 1 s: the replay holds it
  // to 1 s, 0.8 s past its traced end (what the check exists to show).
  auto r = run_as_traced({{compute(1.0), timed(send(1, 100), 0.5)}, {timed(recv(0, 100), 0.2)}});
  EXPECT_NEAR(r.ranks[1].end_s, 1.0, 1e-12);
  EXPECT_NEAR(r.ranks[1].calc_s, 0.0, 1e-12);
}

TEST(SimAsTraced, CollectivesAndMessagesCostNothingBeyondTheTrace) {
  // 100 MB and a 1 MB allreduce on a 1 GB/s machine would take 0.1 s and more;
  // as traced they take their durations.
  auto r = run_as_traced({{timed(send(1, 100'000'000), 0.01), timed(coll(Kind::Allreduce, 1'000'000), 0.02)},
                          {timed(recv(0, 100'000'000), 0.01), timed(coll(Kind::Allreduce, 1'000'000), 0.02)}});
  EXPECT_NEAR(r.predicted_time_s, 0.03, 1e-12) << "expected 0.01 s + 0.02 s";
}

TEST(SimAsTraced, RefusesACallWithoutADuration) {
  try {
    run_as_traced({{compute(1.0), send(1, 100)}, {timed(recv(0, 100), 1.0)}});
    ADD_FAILURE() << "replayed a call without a traced duration";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("rank 0, event 1 (send): no traced duration"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace perfcast::sim::test
