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

}  // namespace perfcast::calibrate
