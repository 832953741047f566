#include "modelsim/model_simulation.h"

#include <map>
#include <tuple>
#include <utility>

#include "model/costs.h"
#include "model/model_events.h"
#include "sim/costs.h"

namespace perfcast::modelsim {

namespace {

// A model's compute bursts (model::BurstWork) priced when they start, under
// the node's load of that moment (sim/costs.h): each item's sites by
// model::price_sites, the rules predict prices them with and ModelWork a
// skeleton's model work with. Prices are kept per (work, node group, load).
class BurstPricer final : public sim::WorkPricer {
 public:
  explicit BurstPricer(const model::PredictOptions& options) : options_(options) {}

  double work_s(const void* work, int world_rank, const machine::Pricing& pricing, int computing) const override {
    const auto& burst = *static_cast<const model::BurstWork*>(work);
    const int node = pricing.node(world_rank);
    const machine::NodeGroup& group = pricing.machine().group_of_node(node);
    const machine::NodeLoad load = machine::Pricing::node_load(group, computing, pricing.ranks_on_node(node));
    auto [kept, fresh] = burst_s_.try_emplace(Key{&burst, &group, load.streaming, load.time_share}, 0.0);
    if (!fresh) return kept->second;
    // Item by item in program order, a run's item once per repeat: the sum
    // the burst's items make one after another, so a run adds what its
    // items would one by one.
    double seconds = 0;
    for (const auto& run : burst.runs) {
      const double item = item_s(*run.counts, group, load);
      for (std::uint64_t k = 0; k < run.repeats; ++k) seconds += item;
    }
    return kept->second = seconds;
  }

 private:
  using Key = std::tuple<const void*, const machine::NodeGroup*, int, double>;

  double item_s(const model::RankCounts& counts, const machine::NodeGroup& group, const machine::NodeLoad& load) const {
    auto [kept, fresh] = item_s_.try_emplace(Key{&counts, &group, load.streaming, load.time_share}, 0.0);
    if (!fresh) return kept->second;
    double seconds = 0;
    for (const auto& site : model::price_sites(counts, group, load, options_)) seconds += site.refined_s;
    return kept->second = seconds;
  }

  const model::PredictOptions& options_;
  mutable std::map<Key, double> burst_s_, item_s_;
};

}  // namespace

sim::SimResult simulate_model(const model::ProgramModel& model, const machine::Machine& machine, int np,
                              const std::map<std::string, expr::Value>& parameters,
                              const model::PredictOptions& pricing, std::uint64_t max_events,
                              std::function<void(const sim::SimProgress&)> progress) {
  model::EventOptions options;
  options.max_events = max_events;
  options.math = &machine.groups.front().math;
  options.work = true;
  // Each rank's events made as the engine reads them: memory stays flat
  // however many steps the model's time loop runs.
  model::ModelJobSource job(model, np, parameters, options);
  BurstPricer bursts(pricing);
  sim::SimOptions sim_options;
  sim_options.progress = std::move(progress);
  sim_options.work_pricer = &bursts;
  return sim::simulate(job, machine, sim_options);
}

}  // namespace perfcast::modelsim
