// How engines read event streams: one RankSource per rank, pulled one event at a
// time, so a rank's events are never all in memory at once.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "events/event.h"

namespace perfcast::events {

class RankSource {
 public:
  virtual ~RankSource() = default;

  // The next event of this rank, or false at the end of its stream.
  // `now_s` is the rank's simulated clock when it asks: a live skeleton returns
  // it from MPI_Wtime; a recorded stream ignores it. The engine asks for the next
  // event only when the previous blocking operation of this rank has completed,
  // so a live rank's buffers hold their results when its code continues.
  // The engine passes one buffer to every rank (per-rank Events would be most
  // of its memory), so `out` holds some rank's previous event: set every field
  // the new event uses (reusing the vectors' storage is fine).
  // Throws UserError on a corrupt or truncated stream, naming the rank and offset.
  virtual bool next(Event& out, double now_s) = 0;

  // A hint that next() comes soon (this rank is first in the engine's line): a
  // source whose state is cold (a live rank's fiber stack) may start loading it.
  virtual void prefetch() const {}
};

// A whole job: the streams of ranks 0..size-1.
class JobSource {
 public:
  virtual ~JobSource() = default;
  virtual int size() const = 0;
  // Called once per rank, in rank order, before any next().
  virtual std::unique_ptr<RankSource> open_rank(int rank) = 0;
};

// Live skeletons move real data between ranks for MPI_* (not LMPI_*) calls; the
// engine tells the runtime when an operation has matched or completed, and the
// runtime copies or reduces buffers it attached to the events (Event::live).
// Offline engines run without one.
class DataMover {
 public:
  virtual ~DataMover() = default;
  // A send and the receive it matched: copy the message. Both events carry the
  // calls' kind, comm, bytes and live; `received` carries the match's status
  // (peer = the sender's rank in the communicator, tag = the message's), `send`
  // the same source and tag. (The engine keeps only these from a call to its
  // match: they sit in the message's envelope, so live point-to-point calls
  // cost no copy of their event.)
  virtual void deliver(const Event& send, int send_world_rank, Event& received, int recv_world_rank) = 0;
  // Every member of a collective has arrived: members[i] is the event of the
  // communicator's rank i, world_ranks[i] its world rank, with the scalar MPI
  // fields of its call (kind, comm, peer, root, tag, tag2, bytes, bytes2,
  // request, live), not its vectors.
  virtual void collective(const std::vector<Event*>& members, const std::vector<int>& world_ranks) = 0;
};

}  // namespace perfcast::events
