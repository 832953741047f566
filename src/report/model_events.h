// `perfcast model events`'s summary of the trace it wrote, for people (a
// table) and for scripts (JSON): per rank, what the model's evaluation made.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace perfcast::report {

struct RankEventsSummary {
  int rank = 0;
  std::uint64_t events = 0;          // every event of the rank's stream
  std::uint64_t mpi_calls = 0;       // events other than compute bursts
  std::uint64_t compute_bursts = 0;
  double flops = 0;                  // over the bursts
  double bytes_moved = 0;            // memory traffic over the bursts, bytes
};

struct ModelEventsSummary {
  std::string model_file;
  std::string trace;  // the directory written
  std::vector<RankEventsSummary> ranks;
};

// Keys: trace, np, ranks [{rank, events, mpi_calls, compute_bursts, flops, bytes_moved}].
nlohmann::json model_events_json(const ModelEventsSummary& summary);

// One row per rank up to 16 ranks, else the first and the last; then how to run the trace.
std::string model_events_text(const ModelEventsSummary& summary);

}  // namespace perfcast::report
