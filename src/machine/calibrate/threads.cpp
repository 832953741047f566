#include "machine/calibrate/threads.h"

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <thread>

#include "machine/calibrate/timing.h"

namespace perfcast::calibrate::detail {

std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  if (cpus.empty()) cpus.push_back(0);
  return cpus;
}

std::vector<Span> run_on_cores(int threads, const std::function<void(int)>& setup,
                               const std::function<void(int)>& body) {
  auto cpus = allowed_cpus();
  std::vector<Span> spans(threads);
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(cpus[t % cpus.size()], &set);
      pthread_setaffinity_np(pthread_self(), sizeof set, &set);
      if (setup) setup(t);
      ready.fetch_add(1);
      // Spin, not a condition variable: all threads must start within
      // microseconds of each other for the node figure to mean "at once".
      // The yield costs nothing on an idle core and gives the core away on
      // a busy one.
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      spans[t].start = now_s();
      double cpu0 = thread_cpu_s();
      body(t);
      spans[t].cpu_s = thread_cpu_s() - cpu0;
      spans[t].end = now_s();
    });
  }
  while (ready.load() < threads) std::this_thread::yield();
  go.store(true, std::memory_order_release);
  for (auto& th : pool) th.join();
  return spans;
}

}  // namespace perfcast::calibrate::detail
