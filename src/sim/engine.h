// The discrete-event engine: replays every rank's event stream on simulated
// clocks, with MPI matching semantics and the machine model's costs.
//
// Time model (all per message between world ranks s -> d, L = latency_s(s, d),
// B = bandwidth_Bps(s, d), o = network.overhead_s, n = bytes):
//   eager (n <= eager threshold): the sender pays o and goes on; the message
//     arrives at t_send + L + n/B; a receive posted at t_post completes at
//     max(t_post, arrival) + o.
//   o is charged per message side (an eager send, a completed receive), not
//   per call: a send to MPI_PROC_NULL and a wait cost nothing here, where
//   `perfcast predict`'s formula charges o for every MPI call (at ~10 ns a
//   call the two differ by less than the noise of any real run).
//   rendezvous (n > threshold, and every ssend/issend): the transfer starts at
//     max(t_send, t_post) (both sides there), takes h handshakes of L
//     (network.rendezvous_handshakes, 1 by default: the request to send) plus L + n/B;
//     the send completes then, the receive o later.
//   Within a node whose one-way times the machine measured
//     (network.intra_node_one_way), L + n/B is that time for n, and the
//     rendezvous handshakes are in it (h = 0). Where it also measured the
//     exchange step (network.intra_node_exchange), an eager message that
//     crosses one going the other way between the same two ranks (both in
//     flight at once, as in a halo exchange) takes that step instead, and so
//     does the one it crosses.
//   A blocked interval [t0, t1] is split into comm = the part after the
//     transfer that ended it started, and wait = the rest (time blocked until
//     the partner reached the matching point).
//   Collectives: see collectives.h (table rule or point-to-point algorithms).
//   Compute bursts: their given seconds, else their work's price when they
//     carry work (a live skeleton's model work: SimOptions::work_pricer), else priced by the machine with the
//     node's ranks computing at once (costs.h: those in a burst when it starts)
//     and, on a node holding more ranks than cores, each rank's share of a
//     core (machine::NodeLoad). Given seconds are the source's own price (a
//     traced gap was measured as the rank ran; a model's bursts are priced
//     with the share already): the engine does not stretch them.
//
// Scheduling: ranks ready to act sit in a priority queue (a 4-ary heap) keyed
// by (time, rank, sequence); a rank keeps acting while it stays first in that
// order, so a step costs O(log N) at most and nothing scans all ranks. Members a collective
// releases resume at their own completion time, which may precede the last
// member's arrival: the processing order stays deterministic, and only the
// choice among wildcard matches can differ from strict time order then.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "events/event.h"
#include "events/source.h"
#include "machine/machine.h"
#include "machine/pricing.h"
#include "sim/costs.h"
#include "sim/timed_region.h"

namespace perfcast::sim {

enum class CollectiveMode {
  Auto,        // the machine's table when it has one for the operation, else algorithms
  Table,       // the machine's measured tables only (an operation without a table is an error)
  Algorithms,  // decomposed into point-to-point schedules (collectives.h)
};

const char* collective_mode_name(CollectiveMode mode);
bool parse_collective_mode(std::string_view name, CollectiveMode& out);

// What the timeline shows for a span.
enum class SpanKind : std::uint8_t { Compute, Wait, Comm };

// Receives spans as the engine produces them (one track per rank); only called
// when given, so a plain run pays nothing for it.
class TimelineSink {
 public:
  virtual ~TimelineSink() = default;
  virtual void span(int rank, SpanKind kind, events::Kind op, double start_s, double end_s) = 0;
};

// Where a long simulation stands (SimOptions::progress).
struct SimProgress {
  std::uint64_t events = 0;  // simulated so far
  int ranks_done = 0, ranks = 0;
  double simulated_s = 0;    // the simulated time reached (the next runnable rank's clock)
  double wall_s = 0;
};

struct SimOptions {
  CollectiveMode collectives = CollectiveMode::Auto;
  events::DataMover* mover = nullptr;     // live skeletons; null for recorded streams
  // Prices compute bursts given by their work (costs.h); null: a burst that
  // carries work is an error.
  const WorkPricer* work_pricer = nullptr;
  TimelineSink* timeline = nullptr;
  // Called every `progress_every_s` of wall time while the simulation runs
  // (never in a run shorter than that): checked every 65536 events, so a
  // plain run pays one comparison per step for it.
  std::function<void(const SimProgress&)> progress;
  double progress_every_s = 1;
  // Budgets: a job that passes either is stopped with an error naming the
  // ranks still running (a skeleton or trace that never ends). 0: no limit.
  std::uint64_t max_events = 0;
  double max_simulated_s = 0;
};

struct RankTimes {
  double calc_s = 0;
  double wait_s = 0;
  double comm_s = 0;
  double end_s = 0;
};

// What a job did that MPI leaves erroneous or undefined but that does not stop
// the simulation, counted for one rank (only ranks with any are listed).
struct RankWarnings {
  int rank = 0;
  std::uint64_t unreceived_messages = 0;  // sent to this rank and never received
  std::uint64_t incomplete_requests = 0;  // nonblocking calls never completed by a wait or test
  bool missing_finalize = false;          // its stream has MPI_Init but no MPI_Finalize
  std::uint64_t calls_after_finalize = 0; // MPI calls after its MPI_Finalize
};

struct SimResult {
  double predicted_time_s = 0;  // max end over ranks
  std::uint64_t events = 0;     // every event simulated
  std::uint64_t mpi_calls = 0;  // events other than compute and marker
  double wall_s = 0;            // the simulation's own run time
  std::vector<RankTimes> ranks;
  std::array<std::uint64_t, events::kKindCount> kind_counts{};

  int slowest_rank = 0;
  std::string slowest_component;  // "calc", "wait" or "comm"
  int slowest_waited_on = -1;     // for "wait": the rank it waited on most (-1 when unknown)
  std::size_t engine_bytes = 0;   // peak engine state, for the per-rank memory goal
  std::vector<RankWarnings> warnings;  // by rank, only ranks with a warning
  // Where the ranks sat: on a node holding more ranks than cores they
  // time-share its cores (machine::NodeLoad; bursts the engine prices).
  machine::Placement placement;
  // The app's timed region from its MPI_Pcontrol marks; nullopt when it marks none.
  std::optional<TimedRegion> timed_region;
};

// Runs the whole job. Throws UserError for inconsistent streams (naming the
// rank, the event index and what was wrong) and on deadlock (listing blocked
// ranks and what each waits for).
SimResult simulate(events::JobSource& job, const machine::Machine& machine, const SimOptions& options = {});

}  // namespace perfcast::sim
