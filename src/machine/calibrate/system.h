// What the system says about itself: host name, cores, caches, SIMD.
//
// The reported cache sizes are only used to choose how far the bandwidth sweep
// goes and to judge its result; the memory levels written to a machine file
// are the measured ones.
#pragma once

#include <string>
#include <vector>

namespace perfcast::calibrate {

struct ReportedCache {
  int level = 0;           // 1, 2, 3, ...
  double size_bytes = 0;   // capacity one core can reach (one instance)
  bool plausible = true;   // false when the figure cannot be a real cache of this CPU
  std::string source;      // "lscpu" or "getconf"
};

// Data and unified caches, innermost first: lscpu when it reports caches, else
// the C library's CPUID-based figures (what `getconf LEVEL1_DCACHE_SIZE` prints).
std::vector<ReportedCache> reported_caches();

// A reported L3 larger than any one core's reach on a real CPU (hypervisors
// report such figures) is implausible: more than 128 MiB and more than 8 MiB
// per online core. Exposed for tests.
bool plausible_cache_size(int level, double size_bytes, int online_cores);

// The largest plausible reported cache, or 0 when none is known.
double last_plausible_cache_bytes(const std::vector<ReportedCache>& caches);

std::string host_name();
std::string cpu_model_name();  // from /proc/cpuinfo (describe_cpu); empty when unknown
// The first processor of a /proc/cpuinfo text: its model name, then its
// family and model numbers and widest SIMD, e.g. "AMD EPYC (family 26, model
// 2, AVX-512)". A VM may name two CPU generations alike ("AMD EPYC" for a Zen 3
// and a Zen 5), and a machine file describes one of them.
std::string describe_cpu(const std::string& cpuinfo);
// The core clock /proc/cpuinfo reports ("cpu MHz" of the first core), in Hz; 0
// when unknown. On a VM it is the host's nominal clock, not what turbo reaches.
double cpu_clock_Hz();

}  // namespace perfcast::calibrate
