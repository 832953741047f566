// The logical global clock of a traced run (PAS2P's variant of Lamport's).
//
// Every MPI event of a rank gets a logical tick, one event per rank per tick:
//   - an event starts at the tick after its rank's previous event;
//   - a message sent at tick LT is received at LT+1, or at the receiving
//     event's own start when that is later (never later than either), so the
//     physical order in which messages arrived does not change the clock;
//   - a collective puts all members of its communicator on one tick, the
//     latest start among them.
// A receive happens where it completes: at Recv, at Sendrecv, or at the
// completion (Wait*) that lists an Irecv's request. Sends never wait.
// Compute bursts take no tick: their seconds belong to the next MPI event.
// Ticks no event lands on (both sides of a symmetric Sendrecv land on their
// start + 1) are dropped afterwards, keeping the order of all others.
//
// Beside the ticks, each event gets a reconstructed physical end time. When
// every MPI call but MPI_Init and MPI_Finalize has a recorded duration (a
// trace of format 2), it is the rank's own time: its compute and its calls'
// durations (waits included) since MPI_Init returned, MPI_Finalize left out,
// so the total is the traced region's wall time. Otherwise (format 1 traces,
// text without dur=) calls cost zero and a receive cannot end before its
// message was sent nor a collective before its last member arrived: the
// run's compute critical path.
#pragma once

#include <cstdint>
#include <vector>

#include "events/event.h"
#include "events/source.h"

namespace perfcast::signature {

struct LogicalEvent {
  events::Event event;          // the MPI call (never a compute burst)
  std::int64_t tick = 0;        // >= 1
  int comm_rank = 0;            // this rank's rank in the event's communicator
  double compute_before_s = 0;  // compute bursts between the previous MPI event and this one
  double call_s = 0;            // the call's own duration as counted (0 when durations are not used)
  double end_s = 0;             // reconstructed physical time when the call returns
};

struct LogicalTrace {
  int ranks = 0;
  std::int64_t ticks = 0;                          // the last tick
  std::vector<std::vector<LogicalEvent>> by_rank;  // by_rank[r]: rank r's MPI events, in order
  double total_s = 0;                              // the latest end, trailing compute included
  std::uint64_t unpriced_bursts = 0;               // compute bursts without seconds (counted as 0)
  bool calls_timed = false;                        // call durations are part of the times
  std::uint64_t untimed_calls = 0;                 // MPI calls (not Init, Finalize) with no duration
};

// Every rank's whole stream, in memory.
std::vector<std::vector<events::Event>> read_streams(events::JobSource& job);

// Throws UserError when the streams cannot have run: a receive no send
// matches, a collective some member never reaches, a communicator handle no
// call created (naming the rank, the event index and its kind).
LogicalTrace logical_clock(const std::vector<std::vector<events::Event>>& streams);

}  // namespace perfcast::signature
