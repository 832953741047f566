// A simulation's result (sim::SimResult) for people (a table) and for scripts
// (JSON): one data collection, two renderings that cannot disagree. The
// result's JSON has one schema wherever it appears: `perfcast simulate --json`
// and the "simulated" block of `perfcast predict --simulate --json`
// (docs/json.md).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "report/placement.h"
#include "sim/compute_rescale.h"
#include "sim/engine.h"

namespace perfcast::report {

struct SimulationContext {
  std::string source;    // what was simulated (a trace directory, a file, a skeleton)
  std::string machine;   // machine name
  sim::CollectiveMode collectives = sim::CollectiveMode::Auto;
  bool include_wall = true;  // false: leave out the simulator's own timings (for byte-identical output)
  std::vector<std::string> unused_network_overrides;  // PlacementContext's: the placement's warnings name them
  bool given_seconds = true;  // PlacementContext's: a trace or skeleton may give its bursts' seconds
  std::vector<std::string> machine_warnings;  // physics_warnings of the machine: JSON warnings.machine
  bool mpi_as_traced = false;  // MPI priced at the traced durations (sim/as_traced.h), not by the machine
  // A trace's compute rescaled from the machine it was recorded on (sim/compute_rescale.h);
  // none when the bursts replay for the seconds they were measured.
  std::optional<sim::ComputeRescale> compute_rescale;
};

// One line per machine figure outside what hardware does (machine/physics.h),
// naming the key; what predict and simulate warn about (stderr and JSON).
std::vector<std::string> physics_warnings(const machine::Machine& machine);

// The result alone: predicted_time_s, events, mpi_calls, nranks, slowest_rank,
// slowest {rank, component, waited_on}, kinds {name: count}, ranks [{rank,
// calc_s, wait_s, comm_s, end_s}], placement (placement.h); with
// `include_wall` also wall_s, mpi_calls_per_s, engine_bytes_per_rank.
nlohmann::json sim_result_json(const sim::SimResult& result, bool include_wall = true,
                               const PlacementContext& placement = {});

// `perfcast simulate --json`: the result and what was simulated (source,
// machine, collectives), with the machine's physics warnings as warnings.machine.
nlohmann::json simulation_json(const sim::SimResult& result, const SimulationContext& context);

// Per-rank rows up to `max_rows` ranks; beyond, min/median/max per component
// and the slowest ranks.
std::string simulation_table(const sim::SimResult& result, const SimulationContext& context, int max_rows = 16);

// A simulated time for people: 4 significant digits in s, ms, us, ns or ps;
// below a picosecond (rounding of the engine's sums, e.g. a wait of end -
// start - comm that should be 0) "0 s". JSON keeps the exact double.
std::string seconds_text(double s);

// One line for a progress display: events so far, simulated time reached,
// ranks done, wall time (no newline).
std::string simulation_progress_text(const sim::SimProgress& progress);

}  // namespace perfcast::report
