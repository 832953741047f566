// A replay whose MPI calls cost what they cost when the program ran: a check
// of the replay itself rather than a prediction (`perfcast simulate --mpi
// as-traced`, docs/trace.md#replay-with-mpi-as-traced).
//
// Every MPI call of a recorded stream is replayed where the trace puts it, on
// a machine whose messages and collectives cost nothing, and ends at its start
// plus its traced duration (Event::duration_s, waits included): the engine
// matches every message and gathers every collective, so it holds the call
// until its partners have started theirs (its wait), and the rest of the
// duration follows as a burst (calc). With consistent streams a partner
// always started before the call returned, and each rank ends at its traced
// wall time; what the engine held a call beyond its duration is the replay's
// own error. MPI_Init costs nothing (the replay starts where the traced wall
// time starts: at MPI_Init's return).
#pragma once

#include <memory>

#include "events/source.h"
#include "machine/machine.h"

namespace perfcast::sim {

// The job with each MPI call followed by a burst of what remains of its
// traced duration once the engine has completed it (RankSource::next's now_s).
// `job` must outlive the result. A call without a recorded duration is a
// UserError naming its rank, its position and its kind (an old trace, a
// model's streams).
std::unique_ptr<events::JobSource> with_traced_mpi_durations(events::JobSource& job);

// `machine` with messages and collectives free: no latency, no per-message
// overhead or handshake, unbounded bandwidth, no measured within-node times
// and no collective tables (collectives run as point-to-point algorithms at
// no cost). Compute pricing is left as it is.
machine::Machine without_communication_costs(machine::Machine machine);

}  // namespace perfcast::sim
