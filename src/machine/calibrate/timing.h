// Clock and statistics shared by the calibration kernels (internal header).
#pragma once

#include <algorithm>
#include <time.h>

#include <chrono>
#include <vector>

namespace perfcast::calibrate::detail {

inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// CPU time of the calling thread. Kernels are timed with it, not with the
// wall clock: on a shared machine a thread that is descheduled for a while
// would otherwise report the share of the core it got, not what the core does.
inline double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Medians, not means or maxima, throughout: the cores are shared with other
// processes, and a median ignores the samples they disturbed without
// rewarding a lucky one.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Keeps a computed value alive without a store the compiler could drop.
template <typename T>
inline void keep(const T& value) {
  asm volatile("" : : "g"(&value) : "memory");
}

}  // namespace perfcast::calibrate::detail
