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
  // The call kinds this rank made most often, most frequent first (at most 3).
  std::vector<std::pair<events::Kind, std::uint64_t>> top_calls;
};

struct TraceSummary {
  std::string path;
  std::string program;
  std::vector<std::string> command;
  TraceHeader header;
  std::vector<RankSummary> ranks;
};

// Reads every stream once.
TraceSummary summarize_trace(const std::filesystem::path& dir);

nlohmann::json to_json(const TraceSummary& summary);

}  // namespace perfcast::trace
