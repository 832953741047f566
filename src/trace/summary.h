// Figures about a traced run, for `perfcast trace show`: computed once here,
// rendered as a table or JSON by the command.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "events/event.h"
#include "events/stats.h"
#include "trace/collect.h"

namespace perfcast::trace {

// One kind of MPI call: how many, and the time they took (summed recorded
// durations; absent when the trace records none, as traces of format 1).
struct CallKindTime {
  events::Kind kind = events::Kind::Barrier;
  std::uint64_t calls = 0;
  std::optional<double> seconds;
};

struct RankSummary {
  int rank = 0;
  std::string host;                  // empty when the trace has no tracer header
  events::RankStats stats;           // everything the stream holds
  std::uint64_t calls = 0;           // MPI calls (events other than compute bursts)
  std::uint64_t bytes = 0;           // point-to-point bytes sent and collective send-buffer bytes
  double compute_s = 0;              // the compute bursts' seconds
  std::optional<double> mpi_s;       // time inside MPI calls, from the tracer header
  std::optional<double> finalize_s;  // of which MPI_Finalize
  std::optional<double> wall_s;      // MPI_Init's return to MPI_Finalize's, from the tracer header
  // From the stream's recorded durations (absent when it records none):
  std::optional<double> init_s;   // MPI_Init's own time (before wall_s starts)
  std::optional<double> calls_s;  // every other call's, MPI_Finalize included
  // The call kinds this rank made most often, most frequent first (at most 3).
  std::vector<CallKindTime> top_calls;
  // The call kinds that took most time, longest first (at most 3; MPI_Init
  // left out, it is init_s; empty when no duration is recorded).
  std::vector<CallKindTime> top_calls_by_time;
};

struct TraceSummary {
  std::string path;
  std::string program;
  std::vector<std::string> command;
  TraceHeader header;
  std::vector<RankSummary> ranks;
  bool calls_timed = false;  // the streams record each call's duration
  // Events read from folded loops (--fold-loops): their times are each loop
  // position's mean, not their own.
  std::uint64_t folded_events = 0;
  // Every kind of call over all ranks but MPI_Init: by time, longest first,
  // when calls_timed; else by count.
  std::vector<CallKindTime> call_kinds;
};

// Reads every stream once.
TraceSummary summarize_trace(const std::filesystem::path& dir);

nlohmann::json to_json(const TraceSummary& summary);

}  // namespace perfcast::trace
