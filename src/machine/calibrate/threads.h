// Running one function on every core at once (internal header).
#pragma once

#include <functional>
#include <vector>

namespace perfcast::calibrate::detail {

// The CPUs this process may run on (its affinity mask), in order.
std::vector<int> allowed_cpus();

// Runs body(thread_index) on `threads` threads, each pinned to its own allowed
// CPU, released together once all are ready; returns each thread's
// (start, end) times in seconds. setup(thread_index) runs on the thread before
// the release (so first-touch puts its memory near its core).
struct Span {
  double start = 0, end = 0;  // wall clock
  double cpu_s = 0;           // the thread's CPU time in body
};
std::vector<Span> run_on_cores(int threads, const std::function<void(int)>& setup,
                               const std::function<void(int)>& body);

}  // namespace perfcast::calibrate::detail
