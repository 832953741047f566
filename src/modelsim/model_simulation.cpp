#include "modelsim/model_simulation.h"

#include <utility>
#include <vector>

#include "events/memory_source.h"
#include "model/model_events.h"

namespace perfcast::modelsim {

sim::SimResult simulate_model(const model::ProgramModel& model, const machine::Machine& machine, int np,
                              const std::map<std::string, expr::Value>& parameters, std::uint64_t max_events) {
  model::EventOptions options;
  options.max_events = max_events;
  options.math = &machine.groups.front().math;
  std::vector<model::RankEvents> per_rank = model::model_events(model, np, parameters, options);
  std::vector<std::vector<events::Event>> streams;
  streams.reserve(per_rank.size());
  for (auto& r : per_rank) streams.push_back(std::move(r.events));
  events::VectorJobSource job(std::move(streams));
  return sim::simulate(job, machine);
}

}  // namespace perfcast::modelsim
