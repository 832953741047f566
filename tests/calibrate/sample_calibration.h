// A calibration as `perfcast calibrate` returns one, with every part a real
// one has (figures from a quick run on a Zen 3 VM, given more digits than the
// file keeps so that its rounding shows): for tests of the machine file it
// becomes, without measuring anything.
#pragma once

#include "machine/calibrate/calibrate.h"
#include "machine/calibrate/machine_model.h"

namespace perfcast::calibrate {

inline Calibration sample_calibration() {
  Calibration cal;
  cal.host = "zen3-vm";
  cal.cpu_model = "AMD EPYC 7B13 64-Core Processor";
  cal.clock_Hz = 3.0512345e9;
  cal.reported_clock_Hz = 2.45e9;
  cal.clock_measured = true;
  cal.instruction_cycles = {3.01234, 3.0, 13.4567, 4.49876, 19.8765, 8.51234};
  cal.when_utc = "2026-11-26T09:25:00Z";
  cal.quick = true;
  cal.cores = 2;
  cal.wall_s = 31.4159;
  cal.reported_caches = {{1, 32768, true, "lscpu"}, {2, 524288, true, "lscpu"}, {3, 33554432, true, "lscpu"}};

  cal.compute.simd_double = "avx2 double";
  cal.compute.simd_single = "avx2 single";
  cal.compute.per_core = {48.765432e9, 97.123456e9, 6.0987654e9, 6.1234567e9};
  cal.compute.node = {96.5e9, 193.1e9, 12.1e9, 12.2e9};
  cal.compute.threads = 2;
  cal.compute.kernels = {{"avx2 double", 4, true, 48.765432e9, 96.5e9}, {"scalar double", 1, true, 6.0987654e9, 12.1e9}};

  cal.memory.kernel_isa = "avx2";
  cal.memory.sweep = {{4096, 101.2345e9}, {65536, 60.98765e9}, {1048576, 31.23456e9}, {67108864, 14.87654e9}};
  cal.memory.levels = {{"L1", 40123.4, 101.2345e9, true, 4096, 32768},
                       {"L2", 611234.5, 60.98765e9, true, 65536, 524288},
                       {"L3", 3.3456789e7, 31.23456e9, true, 1048576, 16777216},
                       {"DRAM", 0, 14.87654e9, false, 67108864, 268435456}};
  cal.memory.node_dram_bandwidth = 23.456789e9;
  cal.memory.node_bytes_per_thread = 134217728;
  cal.memory.overlap = {
      {"L2", 262144, 1.1e-9, {{4, 1.0e-9, 1.3e-9, 0.31234}}, 0.31234, true},
      {"L3", 4194304, 2.2e-9, {{8, 2.0e-9, 2.9e-9, 0.45678}}, 0.45678, true},
      {"DRAM", 134217728, 4.4e-9, {{16, 4.0e-9, 4.5e-9, 0.0}}, 0.0, false},
  };
  LevelStreamOverlap l3;
  l3.level = "L3";
  l3.working_set_bytes = 4194304;
  l3.memory_s = 2.2e-9;
  l3.passes = {1, 2, 4};
  l3.core_s = {0.5e-9, 1.0e-9, 2.0e-9};
  l3.core_over_memory = {0.2345678, 0.4567891, 0.9123456};
  l3.streams = {3, 5, 7};
  l3.both_s = {{2.3e-9, 2.5e-9, 3.0e-9}, {2.4e-9, 2.7e-9, 3.3e-9}, {2.5e-9, 2.9e-9, 3.6e-9}};
  l3.fraction = {{0.123456, 0.234567, 0.345678}, {0.2, 0.3123, 0.4567}, {0.25, 0.41234, 0.61234}};
  l3.measured = true;
  LevelStreamOverlap dram = l3;
  dram.level = "DRAM";
  dram.measured = false;
  cal.memory.stream_overlap = {l3, dram};

  cal.math = {{"sin", 9.1e-9, 6.2e-9, 55.512345, 37.987654}, {"exp", 4.3e-9, 2.1e-9, 26.234567, 12.876543},
              {"pow", 2.4e-8, 1.1e-8, 146.45678, 67.345678}};

  cal.noise.quantum_s = 51.234567e-6;
  cal.noise.stretch = {1.0012345, 1.0123456, 1.0234567, 1.1345678};
  cal.noise.samples = 12345;
  cal.noise.threads = 2;
  cal.noise.mean_stretch = 1.0456;
  cal.noise.slow_fraction = 0.0123;
  cal.noise.windows = 60;
  cal.noise.pairs_disturbed_together = 0.05;
  cal.noise.pairs_if_independent = 0.04;
  cal.noise.divider_stretch = {1.0001234, 1.0012345, 1.0123456, 1.0567891};
  cal.noise.divider_mean_stretch = 1.0234;
  cal.noise.divider_slow_fraction = 0.0045;

  MpiResult& mpi = cal.mpi;
  mpi.pingpong = {{1, 3.9812345e-7}, {64, 4.0123456e-7}, {4096, 9.8765432e-7}, {65536, 6.1234567e-6},
                  {262144, 2.1987654e-5}, {4194304, 3.4567891e-4}};
  mpi.exchange = {{1, 5.9812345e-7}, {64, 6.0123456e-7}, {4096, 1.4765432e-6}, {65536, 9.1234567e-6},
                  {262144, 3.3987654e-5}, {4194304, 5.1567891e-4}};
  mpi.one_way_s = 3.9812345e-7;
  mpi.call_overhead_s = 2.1234567e-8;
  mpi.latency_s = 3.5565432e-7;
  mpi.bandwidth = 12.3456789e9;
  mpi.eager_threshold_bytes = 4096;
  mpi.procs = {2};
  mpi.launch_command = "mpirun.openmpi -n 2 perfcast_mpi_bench";
  mpi.collectives = {{"barrier", {2}, {0}, {{1.23456e-6}}},
                     {"allreduce", {2}, {8, 1024, 65536}, {{1.0123456e-6, 2.3456789e-6, 3.0987654e-5}}}};
  cal.machine = machine_model(cal);  // as calibrate() returns it
  return cal;
}

}  // namespace perfcast::calibrate
