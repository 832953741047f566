// What else says how fast this core runs, read beside the clock probe
// (core_clock.h): none of them is the clock the code runs at, each bounds it
// or confirms it where it can be read, and calibrate records which were.
//
// - The TSC: on CPUs with constant_tsc it ticks at the nominal clock whatever
//   the core runs at; turbo runs above it, by less than 4x on the CPUs made.
// - /proc/cpuinfo's "cpu MHz": the host's nominal clock on a VM, a snapshot
//   of one core elsewhere.
// - cpufreq (/sys/devices/system/cpu/cpu0/cpufreq): the highest clock the
//   kernel knows and the current one; absent on most VMs.
// - perf_event_open's cycle counter over the probe's chain: the cycles the
//   chain took, exactly, where the kernel lets this process count them
//   (usually not in a VM, or with perf_event_paranoid above 2).
#pragma once

#include <string>
#include <vector>

#include "machine/calibrate/core_clock.h"
#include "machine/physics.h"

namespace perfcast::calibrate {

struct ClockWitnesses {
  double tsc_Hz = 0;               // TSC ticks per second of CLOCK_MONOTONIC_RAW; 0 off x86-64
  bool constant_tsc = false;       // /proc/cpuinfo's flag: the TSC ticks at a fixed (the nominal) rate
  double cpuinfo_Hz = 0;           // "cpu MHz" of the first processor; 0 when absent
  double cpufreq_max_Hz = 0;       // cpuinfo_max_freq of cpu0; 0 when unreadable
  double cpufreq_current_Hz = 0;   // scaling_cur_freq of cpu0; 0 when unreadable
  double perf_cycles_Hz = 0;       // counted cycles of the register add chain over its CPU time; 0: not read
  double perf_cycles_per_add = 0;  // counted cycles per link of that chain (1 where the probe is right)
  std::string perf_note;           // why the cycle counter was not read; empty when it was
};

// Reads every witness this host lets it read; never fails (an unreadable
// witness is 0, perf's with its reason).
ClockWitnesses read_clock_witnesses();

// How far above the TSC's nominal clock a core's turbo may run: 3.4x on the
// low-power laptop parts (1.3 GHz base, 4.4 GHz turbo), under 2x on servers.
inline constexpr double kMaxClockOverTsc = 4;
// How far a measured clock may sit above cpufreq's highest (noise of samples).
inline constexpr double kMaxClockOverCpufreqMax = 1.15;

// The clock probe judged by its own two chains and by the witnesses read:
// a finding on node.clock for each that contradicts the register add chain
// (the chains disagreeing, perf counting other than one cycle per add, a clock
// above 4x the TSC or above cpufreq's highest); empty when none does. Pure:
// unit-testable with figures measured elsewhere.
std::vector<machine::PhysicsFinding> clock_findings(const ClockProbe& probe, const ClockWitnesses& witnesses);

// One line per witness, for calibrate's raw output: "TSC 2.6 GHz (constant)".
std::vector<std::string> witness_lines(const ClockWitnesses& w);

}  // namespace perfcast::calibrate
