// MPI figures: point-to-point latency and bandwidth, eager threshold, and
// collective times by size and process count.
//
// The measuring is done by a separate MPI program (perfcast_mpi_bench, built
// from mpi_bench_main.c with the pinned Open MPI) that this driver launches
// through measure::run_mpi once per process count and whose JSON it reads. It
// refuses oversubscribed runs: ranks sharing a core time the scheduler.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace perfcast::calibrate {

struct PingPongPoint {
  double bytes = 0;
  double one_way_s = 0;  // half the median round trip
};

// Ranks 0 and 1 each send the other a message at once and wait for both (the
// two sides of a halo exchange): the time of one such step.
struct ExchangePoint {
  double bytes = 0;
  double step_s = 0;  // median step
};

struct CollectiveTable {  // as a machine file's [[collective]]
  std::string op;
  std::vector<int> procs;                   // rows
  std::vector<double> bytes;                // columns: bytes per process (alltoall: per destination)
  std::vector<std::vector<double>> time_s;  // [procs][bytes]
};

struct MpiResult {
  std::vector<PingPongPoint> pingpong;  // ranks 0 and 1, one per core
  std::vector<ExchangePoint> exchange;  // ranks 0 and 1, one per core
  double latency_s = 0;                 // one-way time of a small message, less the two call overheads
  double one_way_s = 0;                 // one-way time of a small message, as the ping-pong measures it
  double call_overhead_s = 0;           // CPU time of a call that moves nothing (LogP o); 0: not measured
  double bandwidth = 0;                 // B/s
  std::optional<double> eager_threshold_bytes;  // largest size seen sent eagerly
  std::vector<CollectiveTable> collectives;
  std::vector<int> procs;
  std::string launch_command;  // of the 2-rank run, for the record
};

struct MpiOptions {
  std::filesystem::path bench;  // the perfcast_mpi_bench executable
  int max_procs = 2;
  bool quick = false;
  double timeout_s = 600;       // per launch
};

// The options a calibration measures with (perfcast calibrate, whole or --network-only).
MpiOptions calibration_mpi_options(const std::filesystem::path& bench, int max_procs, bool quick);

// Process counts measured: 2, 4, 8, ... and max_procs (quick: 2 and max_procs).
std::vector<int> process_counts(int max_procs, bool quick);

// progress(index, count, procs) before each launch. Throws UserError when a
// launch fails, times out, or reports another communicator size.
MpiResult measure_mpi(const MpiOptions& options,
                      const std::function<void(int, int, int)>& progress = {});

// Analysis of a ping-pong curve, exposed for tests.
double pingpong_latency(const std::vector<PingPongPoint>& curve);
std::optional<double> eager_threshold(const std::vector<PingPongPoint>& curve);
double pingpong_bandwidth(const std::vector<PingPongPoint>& curve, std::optional<double> eager_bytes);

}  // namespace perfcast::calibrate
