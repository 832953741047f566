// Program models evaluated per rank into event streams (model/model_events.h):
// the streams carry the MPI calls the analytic evaluation counts, the flops and
// bytes it counts, in program order, and the simulator runs them to the end.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>

#include "events/memory_source.h"
#include "machine/machine_io.h"
#include "model/costs.h"
#include "model/model_events.h"
#include "model_text.h"
#include "sim/engine.h"
#include "support/error.h"

using namespace perfcast;
using namespace perfcast::model;
using perfcast::testing::model_from;

namespace {

const std::string kWave3d = std::string(PERFCAST_SOURCE_DIR) + "/apps/wave3d/wave3d.model.json";

machine::Machine polus() {
  return machine::load_machine_file(std::string(PERFCAST_SOURCE_DIR) + "/machines/polus.toml");
}

struct StreamTotals {
  double mpi_calls = 0, flops = 0, bytes = 0;
  std::map<events::Kind, int> kinds;
};

StreamTotals totals(const RankEvents& r) {
  StreamTotals t;
  for (const auto& e : r.events) {
    ++t.kinds[e.kind];
    if (e.kind == events::Kind::Compute) {
      t.flops += e.flops;
      t.bytes += e.bytes_moved;
    } else {
      t.mpi_calls += 1;
    }
  }
  return t;
}

// Per rank, the streams against the analytic evaluation (what predict reports).
void expect_streams_match_counts(const ProgramModel& m, int np, const std::map<std::string, expr::Value>& params,
                                 const std::vector<RankEvents>& ranks) {
  ASSERT_EQ(ranks.size(), static_cast<size_t>(np));
  SymbolicCosts costs = symbolic_costs(m);
  for (int r = 0; r < np; ++r) {
    RankCounts c = evaluate_rank(costs, bind_rank(m, params, r, np), r);
    StreamTotals t = totals(ranks[static_cast<size_t>(r)]);
    EXPECT_EQ(t.mpi_calls, c.mpi_calls) << "rank " << r;
    EXPECT_EQ(ranks[static_cast<size_t>(r)].mpi_calls, c.mpi_calls) << "rank " << r;
    EXPECT_DOUBLE_EQ(t.flops, c.flops_double + c.flops_single) << "rank " << r;
    EXPECT_DOUBLE_EQ(t.bytes, c.load_bytes + c.store_bytes) << "rank " << r;
  }
}

sim::SimResult simulate(const std::vector<RankEvents>& ranks, const machine::Machine& machine) {
  std::vector<std::vector<events::Event>> streams;
  for (const auto& r : ranks) streams.push_back(r.events);
  events::VectorJobSource job(std::move(streams));
  return sim::simulate(job, machine);
}

}  // namespace

TEST(ModelEvents, Wave3dHandModelGivesTheCallsPredictCountsAndSimulates) {
  ProgramModel m = load_program_model(kWave3d);
  const int np = 8;  // a 2 x 2 x 2 process grid: every rank has three real neighbours
  std::map<std::string, expr::Value> params = {{"n", 12}, {"steps", 3}};
  auto ranks = model_events(m, np, params);
  expect_streams_match_counts(m, np, params, ranks);

  // Per step: 6 irecv, 6 isend (MPI_PROC_NULL included, as the program calls them), 1 waitall.
  StreamTotals t0 = totals(ranks[0]);
  EXPECT_EQ(t0.kinds[events::Kind::Irecv], 18);
  EXPECT_EQ(t0.kinds[events::Kind::Isend], 18);
  EXPECT_EQ(t0.kinds[events::Kind::Waitall], 3);
  // Program order: the first step's calls come before the second step's stencil.
  const auto& ev = ranks[0].events;
  ASSERT_GE(ev.size(), 16u);
  EXPECT_EQ(ev[0].kind, events::Kind::Compute);  // pack
  EXPECT_EQ(ev[1].kind, events::Kind::Irecv);
  EXPECT_EQ(ev[13].kind, events::Kind::Waitall);
  EXPECT_EQ(ev[13].requests.size(), 12u);
  EXPECT_EQ(ev[14].kind, events::Kind::Compute);  // unpack + stencil, merged into one burst
  // Rank 0 sits at the low corner: its x_lo, y_lo, z_lo are MPI_PROC_NULL.
  EXPECT_EQ(ev[1].peer, events::kProcNull);
  EXPECT_EQ(ev[2].peer, 4);  // x_hi = rank + py*pz

  auto result = simulate(ranks, polus());
  EXPECT_EQ(result.mpi_calls, static_cast<std::uint64_t>(np) * 39u);
  EXPECT_GT(result.predicted_time_s, 0);
}

// The shapes the analyser writes: MPI inside data-dependent branches (a
// probability), loops over neighbours with the index in the peer, a sendrecv
// that names only its destination, peers defaulting to rank+1 mod size.
static ProgramModel analyser_shaped_model() {
  return model_from(R"json({
    "main": { "body": [
      { "kind": "mpi", "op": "init" },
      { "kind": "loop", "var": "it", "trip_count": "iters", "body": [
        { "kind": "compute", "flops_double": "2 * n", "load_bytes": "16 * n", "store_bytes": "8 * n" },
        { "kind": "loop", "var": "d", "trip_count": "2", "body": [
          { "kind": "mpi", "op": "sendrecv", "bytes": "8 * n", "peer": "select(rank + 1 < size, rank + 1, -1)" }
        ]},
        { "kind": "branch", "probability": 0.25, "then": [
          { "kind": "mpi", "op": "allreduce", "bytes": "8" }
        ], "else": [
          { "kind": "compute", "flops_double": "1" }
        ]},
        { "kind": "call", "function": "halo", "args": { "m": "n" } }
      ]},
      { "kind": "mpi", "op": "barrier" },
      { "kind": "mpi", "op": "finalize" }
    ]},
    "halo": { "parameters": ["m"], "body": [
      { "kind": "mpi", "op": "irecv", "bytes": "8 * m", "peer": "peer_in" },
      { "kind": "mpi", "op": "isend", "bytes": "8 * m", "peer": "peer_out" },
      { "kind": "mpi", "op": "waitall" }
    ]}
  })json",
                    R"json("parameters": { "n": {"default": "100"}, "iters": {},
                         "peer_in": {"default": "mod(rank + size - 1, size)"},
                         "peer_out": {"default": "mod(rank + 1, size)"} })json",
                    "analysed_shape.json");
}

TEST(ModelEvents, AnalyserShapedModelMatchesCountsAndSimulates) {
  ProgramModel m = analyser_shaped_model();
  const int np = 3;
  std::map<std::string, expr::Value> params = {{"iters", 8}};
  auto ranks = model_events(m, np, params);
  // A probability of 1/4 over 8 iterations: exactly 2 allreduces, as the weighted count says.
  expect_streams_match_counts(m, np, params, ranks);
  StreamTotals t = totals(ranks[1]);
  EXPECT_EQ(t.kinds[events::Kind::Allreduce], 2);
  EXPECT_EQ(t.kinds[events::Kind::Sendrecv], 16);

  // The sendrecv's source is the rank that sends to this one at the same call.
  for (const auto& e : ranks[1].events)
    if (e.kind == events::Kind::Sendrecv) {
      EXPECT_EQ(e.peer, 2);
      EXPECT_EQ(e.root, 0);
      EXPECT_EQ(e.bytes2, 800u);
    }
  for (const auto& e : ranks[0].events)
    if (e.kind == events::Kind::Sendrecv) {
      EXPECT_EQ(e.root, events::kProcNull);
    }

  auto result = simulate(ranks, polus());
  std::uint64_t calls = 0;
  for (const auto& r : ranks) calls += static_cast<std::uint64_t>(r.mpi_calls);
  EXPECT_EQ(result.mpi_calls, calls);
}

TEST(ModelEvents, RefusesMoreEventsThanTheBudget) {
  ProgramModel m = load_program_model(kWave3d);
  EventOptions options;
  options.max_events = 100;
  EXPECT_THROW(model_events(m, 2, {{"n", 8}, {"steps", 1000}}, options), perfcast::UserError);
}

// A time loop of 4 steps: compute of `flops` (and 8n bytes), then a barrier.
static ProgramModel four_steps_of(const std::string& flops, const std::string& file) {
  return model_from(R"json({
    "main": { "body": [
      { "kind": "loop", "var": "it", "trip_count": "4", "body": [
        { "kind": "compute", "flops_double": ")json" + flops + R"json(", "load_bytes": "8 * n" },
        { "kind": "mpi", "op": "barrier" }
      ]}
    ]}
  })json",
                    R"json("parameters": { "n": {"default": "10"} })json", file);
}

// Every rank's events, read while `job` (which holds the bursts' work) lives.
static std::vector<std::vector<events::Event>> read_all(ModelJobSource& job) {
  std::vector<std::vector<events::Event>> out(static_cast<size_t>(job.size()));
  for (int r = 0; r < job.size(); ++r) {
    auto source = job.open_rank(r);
    for (events::Event e; source->next(e, 0);) out[static_cast<size_t>(r)].push_back(e);
  }
  return out;
}

// Work evaluated once per distinct binding of the names it needs: a burst that
// depends on the loop's counter differs step by step, one that does not
// repeats. With EventOptions::work each burst points at its work (its items'
// counts) for the engine to price, and equal work is shared, not copied.
TEST(ModelEvents, WorkThatDependsOnTheStepIsCountedPerStep) {
  EventOptions options;
  options.work = true;
  const ProgramModel per_step = four_steps_of("it + 1", "per_step.json");
  ModelJobSource job(per_step, 1, {}, options);
  std::vector<double> flops, work_flops;
  std::set<const void*> works;
  const auto streams = read_all(job);
  for (const auto& e : streams[0])
    if (e.kind == events::Kind::Compute) {
      flops.push_back(e.flops);
      EXPECT_LT(e.seconds, 0) << "priced by the engine when it starts";
      ASSERT_NE(e.live, nullptr);
      works.insert(e.live);
      const auto& work = *static_cast<const BurstWork*>(e.live);
      ASSERT_EQ(work.runs.size(), 1u);
      EXPECT_EQ(work.runs[0].repeats, 1u);
      work_flops.push_back(work.runs[0].counts->flops_double);
    }
  EXPECT_EQ(flops, (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(work_flops, flops);
  EXPECT_EQ(works.size(), 4u) << "each step's binding of `it` its own work";

  // The same loop with work that ignores the counter: four bursts alike, one work.
  const ProgramModel same_step = four_steps_of("n", "same_step.json");
  ModelJobSource again(same_step, 2, {}, options);
  works.clear();
  int bursts = 0;
  for (const auto& rank : read_all(again))
    for (const auto& e : rank)
      if (e.kind == events::Kind::Compute) {
        ++bursts;
        EXPECT_EQ(e.flops, 10);
        EXPECT_EQ(e.bytes_moved, 80);
        works.insert(e.live);
      }
  EXPECT_EQ(bursts, 8);
  EXPECT_EQ(works.size(), 1u) << "both ranks' four steps share one work";

  // Without EventOptions::work, bursts carry flops and bytes alone.
  for (const auto& e : model_events(same_step, 1, {})[0].events)
    if (e.kind == events::Kind::Compute) EXPECT_EQ(e.live, nullptr);
  EXPECT_THROW(model_events(same_step, 1, {}, options), std::invalid_argument) << "its work would dangle";
}

// Items that repeat between two MPI calls (a loop with MPI on a rare side of
// a branch) make one run of their work, repeated: a burst stays small however
// many iterations it gathers.
TEST(ModelEvents, RepeatedItemsInABurstAreOneRun) {
  EventOptions options;
  options.work = true;
  ProgramModel m = model_from(R"json({
    "main": { "body": [
      { "kind": "loop", "var": "i", "trip_count": "1000", "body": [
        { "kind": "compute", "flops_double": "5" },
        { "kind": "branch", "condition": "i == 999", "then": [{ "kind": "mpi", "op": "barrier" }] }
      ]}
    ]}
  })json",
                              "", "runs.json");
  ModelJobSource job(m, 1, {}, options);
  const auto ranks = read_all(job);
  ASSERT_EQ(ranks[0].size(), 2u);
  const auto& e = ranks[0][0];
  EXPECT_EQ(e.flops, 5000);
  const auto& work = *static_cast<const BurstWork*>(e.live);
  ASSERT_EQ(work.runs.size(), 1u);
  EXPECT_EQ(work.runs[0].repeats, 1000u);
  EXPECT_EQ(work.runs[0].counts->flops_double, 5);
}

// The streams the simulator reads are made as it reads them (ModelJobSource),
// in the engine's order (a few events of each rank in turn), and are the
// streams model_events() holds whole: sendrecv sources matched, same bursts.
TEST(ModelEvents, StreamsMadeOnDemandAreTheWholeStreams) {
  ProgramModel m = analyser_shaped_model();
  const int np = 3;
  std::map<std::string, expr::Value> params = {{"iters", 8}};
  auto whole = model_events(m, np, params);

  ModelJobSource job(m, np, params);
  ASSERT_EQ(job.size(), np);
  std::vector<std::unique_ptr<events::RankSource>> sources;
  for (int r = 0; r < np; ++r) sources.push_back(job.open_rank(r));
  std::vector<std::vector<events::Event>> streamed(np);
  for (bool more = true; more;) {
    more = false;
    for (int r = 0; r < np; ++r)
      for (int k = 0; k < r + 1; ++k) {  // uneven turns, as ranks blocked for different times would take
        events::Event e;
        if (!sources[static_cast<size_t>(r)]->next(e, 0)) break;
        streamed[static_cast<size_t>(r)].push_back(e);
        more = true;
      }
  }
  int sendrecvs = 0;
  for (int r = 0; r < np; ++r) {
    const auto& a = whole[static_cast<size_t>(r)].events;
    const auto& b = streamed[static_cast<size_t>(r)];
    ASSERT_EQ(a.size(), b.size()) << "rank " << r;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_TRUE(a[i] == b[i]) << "rank " << r << " event " << i;
      sendrecvs += b[i].kind == events::Kind::Sendrecv && b[i].root >= 0;
    }
  }
  EXPECT_EQ(sendrecvs, 2 * 16) << "ranks 1 and 2 receive from their left neighbour at every sendrecv";

  // The simulator on the streams made on demand: the same result as on the whole ones.
  ModelJobSource again(m, np, params);
  auto on_demand = sim::simulate(again, polus());
  auto held = simulate(whole, polus());
  EXPECT_EQ(on_demand.predicted_time_s, held.predicted_time_s);
  EXPECT_EQ(on_demand.mpi_calls, held.mpi_calls);
}

// A stream is not built ahead of its reader: the first events of a time loop
// of two billion steps come at once (held whole: 4 billion events, ~800 GB).
TEST(ModelEvents, AStreamIsNotBuiltAheadOfItsReader) {
  EventOptions options;
  options.max_events = std::numeric_limits<std::uint64_t>::max();
  ProgramModel m = model_from(R"json({
    "main": { "body": [
      { "kind": "loop", "var": "it", "trip_count": "2e9", "body": [
        { "kind": "compute", "flops_double": "n" },
        { "kind": "mpi", "op": "barrier" }
      ]}
    ]}
  })json",
                              R"json("parameters": { "n": {"default": "10"} })json", "long_loop.json");
  ModelJobSource long_job(m, 2, {}, options);
  auto rank1 = long_job.open_rank(1);
  events::Event e;
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(rank1->next(e, 0));
    EXPECT_EQ(e.kind, i % 2 == 0 ? events::Kind::Compute : events::Kind::Barrier);
  }
  EXPECT_THROW(long_job.open_rank(2), std::out_of_range);
}
