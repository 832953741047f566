#include "modelsim/model_simulation.h"

#include <utility>
#include <vector>

#include "model/costs.h"
#include "model/model_events.h"

namespace perfcast::modelsim {

sim::SimResult simulate_model(const model::ProgramModel& model, const machine::Machine& machine, int np,
                              const std::map<std::string, expr::Value>& parameters,
                              const model::PredictOptions& pricing, std::uint64_t max_events,
                              std::function<void(const sim::SimProgress&)> progress) {
  // Where each rank runs, and how many ranks share its node's bandwidth: what
  // predict prices a rank's sites with.
  std::vector<int> node_of(static_cast<size_t>(np)), ranks_on_node(static_cast<size_t>(machine.node_count()));
  for (int r = 0; r < np; ++r) {
    node_of[static_cast<size_t>(r)] = machine.node_of_rank(r, np);
    ++ranks_on_node[static_cast<size_t>(node_of[static_cast<size_t>(r)])];
  }

  model::EventOptions options;
  options.max_events = max_events;
  options.math = &machine.groups.front().math;
  options.price = [&](const model::RankCounts& counts, int rank) {
    int node = node_of[static_cast<size_t>(rank)];
    double seconds = 0;
    for (const auto& site : model::price_sites(counts, machine.group_of_node(node),
                                               ranks_on_node[static_cast<size_t>(node)], pricing))
      seconds += site.refined_s;
    return seconds;
  };
  // Each rank's events made as the engine reads them: memory stays flat
  // however many steps the model's time loop runs.
  model::ModelJobSource job(model, np, parameters, options);
  sim::SimOptions sim_options;
  sim_options.progress = std::move(progress);
  return sim::simulate(job, machine, sim_options);
}

}  // namespace perfcast::modelsim
