// `perfcast calibrate` as a library: measures the machine it runs on and
// returns its machine model with every figure behind it (the raw curves too);
// machine_io.h writes the model as a machine file, writer.h gives the file's
// comments and JSON. Never prints: progress goes to the caller's callback.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "machine/calibrate/bandwidth.h"
#include "machine/calibrate/clock_witnesses.h"
#include "machine/calibrate/core_clock.h"
#include "machine/calibrate/compute.h"
#include "machine/calibrate/instruction_cycles.h"
#include "machine/calibrate/math_cost.h"
#include "machine/calibrate/mpi_bench.h"
#include "machine/calibrate/noise.h"
#include "machine/calibrate/overlap.h"
#include "machine/calibrate/stream_overlap.h"
#include "machine/calibrate/plateau.h"
#include "machine/calibrate/system.h"
#include "machine/machine.h"
#include "machine/physics.h"

namespace perfcast::calibrate {

struct Options {
  bool quick = false;            // fewer sizes and repeats: well under a minute
  int max_procs = 0;             // largest MPI process count; 0: the online cores
  std::filesystem::path mpi_bench;  // the perfcast_mpi_bench executable
  // This host's CPU as LLVM names it, and why that name where it stands in for
  // one LLVM does not know: given by the caller (the analyser knows LLVM's
  // names; calibrate does not link LLVM), written as node.cpu. Empty: none.
  std::string cpu;
  std::string cpu_why;
};

struct Progress {
  int step = 0;        // 1-based
  int steps = 0;
  std::string what;    // what is being measured now
  std::string detail;  // finer position within the step, may be empty
};
using ProgressCallback = std::function<void(const Progress&)>;

struct MemoryResult {
  std::vector<SweepPoint> sweep;  // one core, triad
  std::vector<MemoryLevel> levels;
  double node_dram_bandwidth = 0;  // all cores streaming, in total
  double node_bytes_per_thread = 0;
  std::string kernel_isa;
  std::vector<LevelOverlap> overlap;  // per level but L1, one core
  std::vector<LevelStreamOverlap> stream_overlap;  // the same by address streams
};

// What the cores of the node share, measured with 1, 2, 4 ... of them at once.
struct LevelSharing {
  std::string level;               // "L3", "DRAM": a level the node's cores share
  double bytes_per_core = 0;       // each core's working set
  std::vector<int> cores;          // core counts measured, increasing from 1
  std::vector<double> per_core_Bps;  // each core's triad bandwidth, one per count
};
struct SharingResult {
  std::vector<LevelSharing> levels;
  std::vector<std::string> notes;  // shared levels not measured, and why
  int busy_cores = 0;              // cores the clock was measured on at once (0: not measured)
  double clock_alone_Hz = 0;       // the dependent chain on one core
  double clock_busy_Hz = 0;        // the same on busy_cores at once (median over them)
};

// The core counts calibrate measures sharing at: 1, 2, 4 ... and `cores`.
std::vector<int> sharing_core_counts(int cores);

// The sharing measurement alone (calibrate runs it as one of its steps):
// `levels` as the sweep found them, on up to `cores` cores.
SharingResult measure_sharing(const std::vector<MemoryLevel>& levels, int cores, bool quick);

struct Calibration {
  std::string host;
  std::string cpu_model;
  std::string cpu;      // LLVM's name of it (Options::cpu), node.cpu; empty: not known
  std::string cpu_why;  // why that name, where LLVM does not know this CPU
  double clock_Hz = 0;           // measured (core_clock.h), else as reported; 0 when unknown (no `clock` written)
  double reported_clock_Hz = 0;  // as /proc/cpuinfo reports it (on a VM: the host's nominal clock)
  bool clock_measured = false;
  ClockProbe clock_probe;          // the two chains the clock is read from, and the immediate one
  ClockWitnesses clock_witnesses;  // TSC, cpuinfo, cpufreq, perf cycles: what was readable
  InstructionCycles instruction_cycles;  // FP latencies and the divider's intervals, in cycles
  std::string when_utc;   // ISO 8601
  bool quick = false;
  int cores = 0;
  double wall_s = 0;
  std::vector<ReportedCache> reported_caches;
  ComputeResult compute;
  MemoryResult memory;
  SharingResult sharing;
  std::vector<MathCost> math;
  NoiseResult noise;
  MpiResult mpi;
  // The figures above as the machine file keeps them (machine_model.h).
  machine::Machine machine;
  // Figures outside what hardware does (clock_findings, then the machine's
  // physics_findings); `perfcast calibrate` refuses to write a file with any.
  std::vector<machine::PhysicsFinding> findings;
};

// What calibrate checks a calibration against: the clock probe by its
// witnesses, and every figure of its machine by machine/physics.h.
std::vector<machine::PhysicsFinding> calibration_findings(const Calibration& cal);

Calibration calibrate(const Options& options, const ProgressCallback& progress = {});

}  // namespace perfcast::calibrate
