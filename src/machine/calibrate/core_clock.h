// The clock a core actually runs at, measured: a chain of dependent integer
// additions retires one per cycle on every out-of-order x86-64 core (and on
// the in-order ones), so additions per second of thread CPU time is the clock.
//
// /proc/cpuinfo's "cpu MHz" is the host's nominal clock on a VM and a snapshot
// elsewhere; the MCA refinement turns cycles into seconds with the clock, so
// it needs the one the code runs at (turbo included).
#pragma once

namespace perfcast::calibrate {

// Hz; 0 on targets without the measurement (then /proc/cpuinfo's figure is
// used). The best of `repeats` samples of about 20 ms each: a sample can only
// be slowed (by an interrupt, a lower power state), never sped up.
double measured_core_clock_Hz(int repeats = 15);

// The same chain on `threads` cores at once (each pinned to its own core,
// released together): the median over the cores of each one's best sample.
// With threads = 1 the clock one core runs at alone, by the same method, so
// the two compare as "in-core work with the node busy over alone".
double core_clock_Hz_on_cores(int threads, int repeats);

}  // namespace perfcast::calibrate
