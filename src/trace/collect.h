// Turning the files a traced run left into a trace directory (events/trace.h).
//
// Each rank writes its own stream and info file at MPI_Finalize; the manifest
// is written here, after the launcher has returned, by the command that
// started the run. That needs no extra collective in the user's job (a barrier
// at finalize would change what is measured and hang when a rank died), sees
// every rank's result (so it can say which ranks are missing or failed), and
// checks each stream end to end before calling the trace complete.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "events/trace.h"
#include "trace/rank_info.h"

namespace perfcast::trace {

// A rank that started under the tracer and never reached MPI_Finalize (it was
// killed, or crashed): its stream holds the events of the blocks it had
// written whole (the tracer writes one at least every kFlushIntervalS).
struct CutShort {
  int rank = 0;
  std::uint64_t events = 0;       // kept: the whole events before the cut
  std::uint64_t whole_bytes = 0;  // of the stream file, read up to here
  std::uint64_t file_bytes = 0;   // of the stream file as the rank left it
  std::string stopped;            // why reading stopped there
};

// The traced host's machine file, which `perfcast trace --machine` writes into
// the trace so that a replay on another machine can rescale the measured
// compute (sim/compute_rescale.h). Part of the trace: a new trace over the
// directory replaces it.
inline constexpr const char* kTracedMachineName = "traced-machine.toml";

// What the manifest's "tracer" header holds besides the standard fields.
struct TraceHeader {
  std::vector<std::string> hosts;  // distinct, in rank order
  double clock_resolution_s = 0;   // the coarsest of the ranks'
  std::vector<RankInfo> ranks;     // ranks[r] is rank r's
  std::vector<CutShort> cut_short;  // ranks whose stream ends early, in rank order
};

// "rank 1 was cut short (it never reached MPI_Finalize): 4096 events kept, read up to byte ..."
std::string describe(const CutShort& cut);

struct CollectedTrace {
  events::TraceManifest manifest;
  TraceHeader header;
};

// Makes `dir` ready for a run: created when absent; a trace or the files of an
// earlier traced run there are removed; anything else refuses (UserError).
void prepare_trace_dir(const std::filesystem::path& dir);

// Reads every rank's info file, reads every stream through (checksums and
// event counts), writes trace.json with the tracer header, reads it back with
// events::read_manifest, and removes the info files. A rank whose info file
// says it never finished (killed mid-run) keeps its stream up to the last
// whole block, listed in the header's cut_short. Throws UserError naming the
// ranks whose files are missing or that reported an error.
CollectedTrace collect_trace(const std::filesystem::path& dir, const std::vector<std::string>& command);

// The tracer header of a trace's manifest; empty when the trace was not
// recorded by the tracer.
TraceHeader read_trace_header(const std::filesystem::path& dir);

}  // namespace perfcast::trace
