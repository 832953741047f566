// A program model's event streams on the simulator, made as the engine reads
// them (model::ModelJobSource, what `perfcast predict --simulate` does) against
// the same streams built whole first (model::model_events, the way before):
// wall time and peak memory of each, and the ratio.
//
//   bench_model_events [STEPS=100000] [RANKS=2] [N=8]
//
// wave3d's hand-written model (apps/wave3d/wave3d.model.json) on polus: a time
// loop of STEPS steps, 13 MPI calls and 2 bursts a step per rank. Peak memory
// is the process's high-water mark (getrusage), which only grows: the streamed
// run goes first, so its figure is its own; the whole run's is its own when it
// is the larger.
#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "events/memory_source.h"
#include "machine/machine_io.h"
#include "model/model_events.h"
#include "model/program_model.h"
#include "sim/engine.h"

namespace {

using Clock = std::chrono::steady_clock;
using namespace perfcast;

double peak_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
  const long steps = argc > 1 ? std::atol(argv[1]) : 100000;
  const int ranks = argc > 2 ? std::atoi(argv[2]) : 2;
  const long n = argc > 3 ? std::atol(argv[3]) : 8;
  const std::string source = PERFCAST_SOURCE_DIR;
  model::ProgramModel m = model::load_program_model(source + "/apps/wave3d/wave3d.model.json");
  machine::Machine polus = machine::load_machine_file(source + "/machines/polus.toml");
  std::map<std::string, expr::Value> params = {{"n", expr::Value(static_cast<std::int64_t>(n))},
                                               {"steps", expr::Value(static_cast<std::int64_t>(steps))}};
  model::EventOptions options;
  options.max_events = ~std::uint64_t{0};
  const double before_mb = peak_mb();

  auto start = Clock::now();
  model::ModelJobSource streamed(m, ranks, params, options);
  sim::SimResult a = sim::simulate(streamed, polus);
  double streamed_s = std::chrono::duration<double>(Clock::now() - start).count();
  double streamed_mb = peak_mb();

  start = Clock::now();
  std::vector<std::vector<events::Event>> whole;
  for (auto& r : model::model_events(m, ranks, params, options)) whole.push_back(std::move(r.events));
  events::VectorJobSource held(std::move(whole));
  sim::SimResult b = sim::simulate(held, polus);
  double whole_s = std::chrono::duration<double>(Clock::now() - start).count();
  double whole_mb = peak_mb();

  fmt::print("wave3d model, n={} on {} ranks, {} steps: {} events, simulated time {:.9g} s (streamed) {:.9g} s (whole){}\n",
             n, ranks, steps, a.events, a.predicted_time_s, b.predicted_time_s,
             a.predicted_time_s == b.predicted_time_s ? ", identical" : ", DIFFERENT");
  fmt::print("{:<10} {:>9} {:>14}\n", "streams", "wall s", "peak MB");
  fmt::print("{:<10} {:>9.2f} {:>14.0f}\n", "start", 0.0, before_mb);
  fmt::print("{:<10} {:>9.2f} {:>14.0f}\n", "streamed", streamed_s, streamed_mb);
  fmt::print("{:<10} {:>9.2f} {:>14.0f}\n", "whole", whole_s, whole_mb);
  fmt::print("whole / streamed: {:.2f}x the time; memory above the start {:.1f} MB against {:.1f} MB\n",
             whole_s / streamed_s, whole_mb - before_mb, streamed_mb - before_mb);
  return a.predicted_time_s == b.predicted_time_s ? 0 : 1;
}
