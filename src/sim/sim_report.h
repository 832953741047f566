// A simulation's result for people (a table) and for scripts (JSON): one data
// collection (SimResult), two renderings that cannot disagree.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/engine.h"

namespace perfcast::sim {

struct ReportContext {
  std::string source;    // what was simulated (a trace directory, a file, a skeleton)
  std::string machine;   // machine name
  CollectiveMode collectives = CollectiveMode::Auto;
  bool include_wall = true;  // false: leave out the simulator's own timings (for byte-identical output)
};

// Keys: predicted_time_s, events, mpi_calls, wall_s, mpi_calls_per_s, ranks
// [{rank, calc_s, wait_s, comm_s, end_s}], slowest_rank, slowest {rank,
// component, waited_on}, kinds {name: count}, machine, source, collectives,
// engine_bytes_per_rank.
nlohmann::json result_json(const SimResult& result, const ReportContext& context);

// Per-rank rows up to `max_rows` ranks; beyond, min/median/max per component
// and the slowest ranks.
std::string result_table(const SimResult& result, const ReportContext& context, int max_rows = 16);

// A simulated time for people: 4 significant digits in s, ms, us, ns or ps;
// below a picosecond (rounding of the engine's sums, e.g. a wait of end -
// start - comm that should be 0) "0 s". JSON keeps the exact double.
std::string seconds_text(double s);

// One line for a progress display: events so far, simulated time reached,
// ranks done, wall time (no newline).
std::string progress_text(const SimProgress& progress);

}  // namespace perfcast::sim
