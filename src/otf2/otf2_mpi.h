// The MPI vocabulary as OTF2 records it, shared by the export and the import
// (docs/trace.md, "OTF2"): which collective operation a kind is, the region of
// a call (named after its C function, as Score-P names them), and the
// attributes perfcast adds for what OTF2 has no record of.
#pragma once

#include <otf2/otf2.h>

#include <cstdint>
#include <optional>
#include <string>

#include "events/event.h"

namespace perfcast::otf2 {

// OTF2's collective operation of a collective or communicator kind; none for
// the kinds OTF2 records otherwise (point to point, completions, environment)
// and for the v-variants, whose per-peer counts no OTF2 record holds.
std::optional<OTF2_CollectiveOp> collective_op_of(events::Kind kind);

// The region role viewers read a call's shape from.
OTF2_RegionRole region_role_of(events::Kind kind);

// A collective's sizes as Score-P records them (sizeSent, sizeReceived: the
// bytes this rank sends to and receives from all members together) from
// perfcast's (an event's bytes and bytes2: this rank's send and receive
// buffers, as MPI's count x size gives them), for a communicator of `members`
// ranks in which this rank is `me`. Blocks a rank sends to itself count.
struct CollectiveSizes {
  std::uint64_t sent = 0, received = 0;
};
CollectiveSizes scorep_sizes(events::Kind kind, std::uint64_t bytes, std::uint64_t bytes2, std::uint64_t members,
                             std::uint64_t me, std::uint64_t root);
// The inverse: perfcast's bytes and bytes2 from Score-P's sizes. A buffer MPI
// ignores on this rank (a scatter's send buffer off the root, a gather's
// receive buffer) is given the size of the block it would hold, which MPI's
// matching type signatures make equal. Throws UserError when the sizes are not
// whole blocks of the communicator's members (an in-place call, whose own
// block Score-P does not count, reads where the sizes divide evenly).
CollectiveSizes perfcast_sizes(events::Kind kind, std::uint64_t sent, std::uint64_t received, std::uint64_t members,
                               std::uint64_t me, std::uint64_t root);

// Attributes perfcast attaches to an Enter record, named so in the archive:
// MPI_Pcontrol's level (its event's tag), and a marker's id (events::Kind::Marker,
// in a region of that name).
inline constexpr const char* kPcontrolLevelAttribute = "perfcast::pcontrol_level";
inline constexpr const char* kMarkerIdAttribute = "perfcast::marker_id";
inline constexpr const char* kMarkerRegion = "perfcast_marker";

// The archive perfcast writes: a clock of nanoseconds.
inline constexpr std::uint64_t kTicksPerSecond = 1000000000;

}  // namespace perfcast::otf2
