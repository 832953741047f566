// The clock a core actually runs at, measured: a chain of dependent
// register-register additions retires one per cycle on every x86-64 core, so
// additions per second of thread CPU time is the clock. A second chain of
// another unit and latency class (dependent multiplies, three cycles each)
// must agree with it; where they disagree, one of them is not running at the
// rate assumed, and the clock is not known.
//
// /proc/cpuinfo's "cpu MHz" is the host's nominal clock on a VM and a snapshot
// elsewhere; the MCA refinement turns cycles into seconds with the clock, so
// it needs the one the code runs at (turbo included). Other witnesses
// (clock_witnesses.h) are read beside it.
#pragma once

namespace perfcast::calibrate {

// How far the two chains may differ, as a fraction of the lower: samples on a
// shared core move by a few percent; a chain run at twice or a third of its
// assumed rate is far outside.
inline constexpr double kClockChainTolerance = 0.15;

// How far below the fastest the slowest sample of the register chain may be
// before the clock counts as having moved while calibrate watched: a host can
// hold a busy core at a lower clock for 0.1 s to seconds by itself (a lent
// 16-core Xeon went between 2.6 and 1.4 GHz), and in-core work then takes
// longer by as much, where the file gives the fastest.
inline constexpr double kClockMovedFraction = 0.15;

struct ClockProbe {
  double register_add_Hz = 0;          // dependent `add reg, reg` per second: one a cycle
  double multiply_Hz = 0;              // dependent `imul` per second x 3 cycles: the clock another way
  double immediate_add_Hz = 0;         // dependent `add $1, reg` per second: never the clock (clock_chains.h)
  int attempts = 0;                    // measurements made, until the two agreed or the last allowed
  double slowest_register_add_Hz = 0;  // the slowest sample of the register chain (the clock's low)
  bool measured() const { return register_add_Hz > 0 && multiply_Hz > 0; }
  // |add - multiply| over the lower of the two; 0 when not measured.
  double disagreement() const;
  bool agree() const { return disagreement() <= kClockChainTolerance; }
  // The slowest register-chain sample more than kClockMovedFraction below the
  // fastest: the clock moved during the probe.
  bool moved() const;
  // Immediate adds per cycle: about 1, or up to 5 where the renamer folds them.
  double immediate_adds_per_cycle() const;
};

// Both chains, `repeats` samples of about 20 ms each in turns (the best of
// each: a sample can only be slowed, by an interrupt or a lower power state,
// never sped up); measured again with twice the repeats while they disagree,
// up to `attempts` times, keeping each chain's best over all. Zeros on targets
// without the kernels (then /proc/cpuinfo's figure is used).
ClockProbe probe_core_clock(int repeats = 15, int attempts = 3);

// The register chain on `threads` cores at once (each pinned to its own core,
// released together): the median over the cores of each one's best sample.
// With threads = 1 the clock one core runs at alone, by the same method, so
// the two compare as "in-core work with the node busy over alone".
double core_clock_Hz_on_cores(int threads, int repeats);

}  // namespace perfcast::calibrate
