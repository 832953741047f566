// Figures about event streams, for `perfcast events stats`: computed once here,
// rendered as a table or JSON by the caller.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "events/convert.h"
#include "events/event.h"

namespace perfcast::events {

struct RankStats {
  int rank = -1;  // -1 for the total over ranks
  std::uint64_t events = 0;
  std::array<std::uint64_t, kKindCount> by_kind{};
  // Point-to-point sends (send, ssend, isend, issend, sendrecv), MPI_PROC_NULL excluded.
  std::uint64_t messages_sent = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t collective_bytes = 0;  // send-buffer bytes of collectives
  double compute_seconds = 0;          // bursts with a duration
  // MPI calls whose duration was recorded (Event::duration_s), and those
  // durations summed per kind.
  std::uint64_t timed_calls = 0;
  std::array<double, kKindCount> call_seconds{};
  std::uint64_t unpriced_bursts = 0;   // bursts given as flops/bytes only, to be priced by a machine model
  double flops = 0;
  double bytes_moved = 0;
  std::optional<std::uint64_t> file_bytes;  // traces only: the rank's stream file

  void add(const Event& event);
  void add(const RankStats& other);  // sums everything but `rank`
  std::optional<double> bytes_per_event() const;
};

struct EventStats {
  std::string path;
  EventsFormat format = EventsFormat::Text;
  std::vector<RankStats> ranks;
  RankStats total;
  std::optional<std::uint64_t> manifest_bytes;  // traces only: trace.json
};

// Reads every event once (streaming: a trace is never all in memory).
EventStats compute_stats(const std::filesystem::path& path);

// The same figures as the table `perfcast events stats` prints.
nlohmann::json to_json(const EventStats& stats);

}  // namespace perfcast::events
