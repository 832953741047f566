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

// Attributes perfcast attaches to an Enter record, named so in the archive:
// MPI_Pcontrol's level (its event's tag), and a marker's id (events::Kind::Marker,
// in a region of that name).
inline constexpr const char* kPcontrolLevelAttribute = "perfcast::pcontrol_level";
inline constexpr const char* kMarkerIdAttribute = "perfcast::marker_id";
inline constexpr const char* kMarkerRegion = "perfcast_marker";

// The archive perfcast writes: a clock of nanoseconds.
inline constexpr std::uint64_t kTicksPerSecond = 1000000000;

}  // namespace perfcast::otf2
