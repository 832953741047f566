// Event streams as an OTF2 archive with MPI's records, as Score-P writes them
// (docs/trace.md, "OTF2"): each rank a location, each MPI call a region named
// after its C function (Enter and Leave at the call's traced start and end),
// messages as MpiSend / MpiIsend / MpiIsendComplete / MpiRecv /
// MpiIrecvRequest / MpiIrecv, collectives as MpiCollectiveBegin / End with
// their communicator, root and sizes, communicators defined by their members.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "events/source.h"

namespace perfcast::otf2 {

struct Otf2Export {
  int ranks = 0;
  std::uint64_t events = 0;       // the streams' events written
  std::uint64_t messages = 0;     // point-to-point messages sent (MpiSend and MpiIsend records)
  std::uint64_t collectives = 0;  // MpiCollectiveEnd records
  int communicators = 0;          // Comm definitions
  std::filesystem::path anchor;   // DIR/traces.otf2, what otf2-print and Vampir open
};

// Writes `job` as the archive DIR/traces.otf2 (`dir` must not exist yet; it
// appears whole, or not at all). A stream's time starts at 0 when its first
// event starts; compute bursts and calls follow each other, each call lasting
// its recorded duration. Refused by name (rank, event index, why): a burst
// without measured seconds, a call without a recorded duration, a receive
// whose source stayed MPI_ANY_SOURCE, a probe, the v-collectives and
// reduce_scatter (OTF2 holds one size per rank, not per-peer counts), a
// completion of a request no earlier call made.
Otf2Export export_otf2(events::JobSource& job, const std::filesystem::path& dir, const std::string& description);

}  // namespace perfcast::otf2
