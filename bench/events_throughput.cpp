// Write and read throughput of binary traces, and their size per event, for
// halo-exchange streams (as a skeleton makes them, and as a traced run with
// jittered compute durations does) and for random events (a worst case),
// each written exactly and with loops folded (WriterOptions::fold_loops).
//
//   bench_events [EVENTS_PER_RANK=500000] [RANKS=8] [DIR=$TMPDIR]
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>

#include "events/event_samples.h"
#include "events/trace.h"

namespace {

namespace fs = std::filesystem;
using namespace perfcast::events;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Writes `ranks` streams of about `per_rank` events from `generate(rank, sink)`,
// reads them back, prints one line.
void run(const std::string& name, const fs::path& dir, int ranks, std::uint64_t per_rank,
         const std::function<void(int, std::uint64_t, const std::function<void(const Event&)>&)>& generate,
         bool fold = false) {
  auto start = Clock::now();
  TraceManifest manifest;
  {
    WriterOptions options;
    options.fold_loops = fold;
    TraceWriter writer(dir, ranks, {}, options);
    for (int r = 0; r < ranks; ++r) {
      RankWriter& out = writer.rank(r);
      generate(r, per_rank, [&](const Event& e) { out.append(e); });
    }
    manifest = writer.close();
  }
  double write_s = since(start);
  std::uint64_t events = 0, bytes = 0;
  for (const auto& s : manifest.streams) {
    events += s.events;
    bytes += fs::file_size(dir / s.file);
  }

  start = Clock::now();
  std::uint64_t read = 0;
  std::uint64_t checksum = 0;  // keeps the decoding from being optimised away
  {
    auto job = open_trace(dir);
    Event e;
    for (int r = 0; r < job->size(); ++r) {
      auto source = job->open_rank(r);
      while (source->next(e, 0)) {
        ++read;
        checksum += e.bytes + static_cast<std::uint64_t>(e.kind);
      }
    }
  }
  double read_s = since(start);
  if (read != events) throw std::runtime_error("read back a different number of events");
  double mb = double(bytes) / 1e6;
  std::cout << fmt::format("{:<34} {:>10} {:>9.3f} {:>12.3g} {:>9.1f} {:>12.3g} {:>9.1f}   (checksum {})\n", name,
                           events, double(bytes) / double(events), double(events) / write_s, mb / write_s,
                           double(events) / read_s, mb / read_s, checksum % 1000);
  fs::remove_all(dir);
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t per_rank = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 500000;
  int ranks = argc > 2 ? std::atoi(argv[2]) : 8;
  fs::path base = argc > 3 ? fs::path(argv[3]) : fs::temp_directory_path();
  fs::path dir = base / fmt::format("perfcast-bench-events-{}", ::getpid());

  std::cout << fmt::format("{} ranks x {} events; MB/s are of the trace files (compressed)\n", ranks, per_rank);
  std::cout << fmt::format("{:<34} {:>10} {:>9} {:>12} {:>9} {:>12} {:>9}\n", "stream", "events", "B/event",
                           "write ev/s", "write MB/s", "read ev/s", "read MB/s");
  using perfcast::events::testing::HaloExchange;
  using perfcast::events::testing::RandomEvents;
  for (bool fold : {false, true}) {
    for (bool traced : {false, true})
      run(fmt::format("halo, {} durations{}", traced ? "traced" : "skeleton", fold ? ", folded" : ""), dir, ranks,
          per_rank,
          [traced](int r, std::uint64_t n, const std::function<void(const Event&)>& sink) {
            HaloExchange halo(1000 + r, traced, static_cast<std::uint64_t>(r), traced);
            std::uint64_t made = 0;
            while (made < n) halo.iteration([&](const Event& e) { sink(e), ++made; });
          },
          fold);
    run(fold ? "random events, folded" : "random events (worst case)", dir, ranks, per_rank / 10,
        [](int r, std::uint64_t n, const std::function<void(const Event&)>& sink) {
          RandomEvents random(static_cast<std::uint64_t>(r));
          for (std::uint64_t i = 0; i < n; ++i) sink(random.next());
        },
        fold);
  }
  return 0;
}
