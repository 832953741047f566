// An OTF2 archive (Score-P's, or perfcast's own export) read into a trace
// directory (docs/trace.md, "OTF2"): each MPI rank's location becomes a
// stream, each MPI region of the vocabulary one event made from the region's
// name and the MPI records inside it, the time between MPI regions a compute
// burst. What cannot be mapped stops the import naming the location, the
// event's position and the record or region (threads and locations of other
// kinds, regions of threading or accelerator paradigms, RMA, non-blocking
// collectives, the v-collectives, probes, a region missing the record its call
// makes, measurement switched off). MPI regions the vocabulary has no event for
// and that carry no MPI record (MPI_Comm_rank, MPI_Wtime) and regions of user
// code are read as compute, and counted by name in the result.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

namespace perfcast::otf2 {

struct Otf2Import {
  int ranks = 0;
  std::uint64_t events = 0;   // events written to the trace
  std::uint64_t records = 0;  // OTF2 event records read
  std::uint64_t ticks_per_second = 0;
  // Regions read as compute: name -> how many times they were entered.
  std::map<std::string, std::uint64_t> read_as_compute;
};

// Reads the archive whose anchor file is `anchor` (DIR/traces.otf2) and writes
// its trace at `trace_dir` (events::TraceWriter: whole or not at all). Throws
// UserError naming the archive for an unreadable, truncated or corrupt archive.
Otf2Import import_otf2(const std::filesystem::path& anchor, const std::filesystem::path& trace_dir);

}  // namespace perfcast::otf2
