// The communicators of a job's streams as one global list, for the OTF2
// export: OTF2 defines each communicator once, by its members, while a stream
// names them by per-rank handles (events/event.h). Replays the streams'
// communicator calls as MPI matches them: the n-th creation call on a
// communicator is the same call on each of its members.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "events/event.h"
#include "events/source.h"

namespace perfcast::otf2 {

struct GlobalComm {
  std::vector<std::int32_t> world_ranks;  // in the communicator's rank order
  int parent = -1;                        // the communicator it was made from; -1: world and self
  events::Kind made_by = events::Kind::Init;
};

struct JobComms {
  // 0 is MPI_COMM_WORLD, 1 MPI_COMM_SELF (each rank's own), then every created one.
  std::vector<GlobalComm> comms;
  // Per rank, per communicator-creating call of its stream in order: the
  // global communicator it gave this rank, -1 for MPI_COMM_NULL.
  std::vector<std::vector<int>> created;
};

// The communicator-creating calls of one rank, in stream order.
struct CreationCall {
  events::Kind kind = events::Kind::CommSplit;
  std::int32_t comm = 0, color = 0, key = 0, new_comm = -1;
  std::uint64_t event_index = 0;
};

// Reads every stream once for its creation calls (and the calls freeing
// communicators), then matches them. Throws UserError naming the rank and event
// when the calls do not match up (a member that never makes a call its
// communicator's others make, a call on a handle no earlier call made).
JobComms resolve_communicators(events::JobSource& job);

// The same from the calls already gathered (calls[r] is rank r's).
JobComms resolve_communicators(const std::vector<std::vector<CreationCall>>& calls);

}  // namespace perfcast::otf2
