#include "modelsim/model_simulation.h"

#include <cmath>

#include <map>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/costs.h"
#include "model/model_events.h"
#include "sim/costs.h"

namespace perfcast::modelsim {

namespace {

// One quantile of `quantiles` for burst `burst` of `world_rank`: a hash of the
// three (splitmix64's finaliser), so a draw depends on nothing but them and
// the same job gives the same draws whatever order the engine meets the ranks.
std::size_t drawn_quantile(std::uint64_t seed, int world_rank, std::uint64_t burst, std::size_t quantiles) {
  auto mix = [](std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  const std::uint64_t h = mix(mix(mix(seed) ^ static_cast<std::uint64_t>(world_rank)) ^ burst);
  return static_cast<std::size_t>(h % quantiles);
}

// A model's compute bursts (model::BurstWork) priced when they start, under
// the node's load of that moment (sim/costs.h): each item's sites by
// model::price_sites, the rules predict prices them with and ModelWork a
// skeleton's model work with. With a noise seed, each burst of each rank
// draws one quantile of its node's noise (drawn_quantile) and every site of
// the burst takes that quantile's time (model::site_time_by_noise_quantile:
// in-core work stretched by the site's mix, traffic not), the quantiles
// drawn towards their mean as the burst spans more of the noise's quanta
// (machine::noise_over_span: a burst of k quanta takes their mean, as predict
// takes a rank's step). Prices are kept per (work, node group, load), one per
// quantile.
//
// A noise with a spell (machine::Noise::spell_s: how long a core's state
// persists) draws per spell instead: a rank keeps its quantile while its
// drawn compute seconds so far stay within one spell, the draw a hash of
// (seed, rank, spell index), the index floor(those seconds / spell_s); a
// burst narrows over its span by the spells it holds (noise_narrowing). The
// clock is the rank's compute alone: its waits in MPI do not move it on.
class BurstPricer final : public sim::WorkPricer {
 public:
  BurstPricer(const model::PredictOptions& options, std::optional<std::uint64_t> noise_seed)
      : options_(options), noise_seed_(noise_seed) {}

  double work_s(const void* work, int world_rank, std::uint64_t number, const machine::Pricing& pricing,
                int computing) const override {
    const auto& burst = *static_cast<const model::BurstWork*>(work);
    const int node = pricing.node(world_rank);
    const machine::NodeGroup& group = pricing.machine().group_of_node(node);
    const machine::NodeLoad load = machine::Pricing::node_load(group, computing, pricing.ranks_on_node(node));
    const std::vector<double>& by_quantile = burst_s(burst, group, load);
    if (by_quantile.size() == 1) return by_quantile.front();
    const double spell_s = group.noise.spell_s;
    if (!(spell_s > 0)) return by_quantile[drawn_quantile(*noise_seed_, world_rank, number, by_quantile.size())];
    RankSpell& rank = spells_[world_rank];
    rank.start(number);
    const auto spell = static_cast<std::uint64_t>(std::floor(rank.before_s / spell_s));
    return rank.latest_s = by_quantile[drawn_quantile(*noise_seed_, world_rank, spell, by_quantile.size())];
  }

 private:
  // A rank's drawn compute seconds before its current burst. The engine
  // (sim::ComputeModel::start) prices a rank's bursts in its program order,
  // numbered 0, 1, ..., and prices one again only while it is the rank's
  // latest (a cohort starting at one moment on a node, each member's next
  // burst later): so a burst's number is the latest's or a later one, and the
  // latest's last price is what the rank ran.
  struct RankSpell {
    std::optional<std::uint64_t> number;  // the latest burst's; none before the first
    double before_s = 0;                  // drawn seconds of the bursts before it
    double latest_s = 0;                  // its last price
    void start(std::uint64_t burst) {
      if (number && burst < *number)
        throw std::logic_error("modelsim: a rank's burst priced after a later one of its own");
      if (number && burst == *number) return;  // priced again: the same start, the same spell
      if (number) before_s += latest_s;
      number = burst;
      latest_s = 0;
    }
  };

  using Key = std::tuple<const void*, const machine::NodeGroup*, int, double>;

  // The quantiles a price has: the group's noise's with a seed, else one (undisturbed).
  bool noisy(const machine::NodeGroup& group) const { return noise_seed_ && !group.noise.empty(); }

  // The burst's seconds at each quantile.
  const std::vector<double>& burst_s(const model::BurstWork& burst, const machine::NodeGroup& group,
                                     const machine::NodeLoad& load) const {
    auto [kept, fresh] = burst_s_.try_emplace(Key{&burst, &group, load.streaming, load.time_share});
    if (!fresh) return kept->second;
    // Item by item in program order, a run's item once per repeat: the sum
    // the burst's items make one after another, so a run adds what its
    // items would one by one.
    std::vector<double> seconds(noisy(group) ? group.noise.stretch.size() : 1, 0.0);
    double undisturbed = 0;
    for (const auto& run : burst.runs) {
      const Priced& item = item_s(*run.counts, group, load);
      for (std::size_t q = 0; q < seconds.size(); ++q)
        for (std::uint64_t k = 0; k < run.repeats; ++k) seconds[q] += item.by_quantile[q];
      for (std::uint64_t k = 0; k < run.repeats; ++k) undisturbed += item.undisturbed_s;
    }
    if (seconds.size() > 1) narrow_over_span(seconds, undisturbed, group.noise);
    return kept->second = std::move(seconds);
  }

  // The burst's quantiles drawn towards their mean as noise_over_span draws a
  // noise's over a span of `span_s` (1 / sqrt of the independent samples it
  // spans: its quanta, or its spells where the noise has one).
  static void narrow_over_span(std::vector<double>& seconds, double span_s, const machine::Noise& noise) {
    const double narrowing = machine::noise_narrowing(noise, span_s);
    if (narrowing == 1) return;
    double mean = 0;
    for (double t : seconds) mean += t;
    mean /= static_cast<double>(seconds.size());
    for (double& t : seconds) t = mean + (t - mean) * narrowing;
  }

  // An item's seconds at each quantile, and undisturbed.
  struct Priced {
    std::vector<double> by_quantile;
    double undisturbed_s = 0;
  };
  const Priced& item_s(const model::RankCounts& counts, const machine::NodeGroup& group,
                       const machine::NodeLoad& load) const {
    auto [kept, fresh] = item_s_.try_emplace(Key{&counts, &group, load.streaming, load.time_share});
    if (!fresh) return kept->second;
    const bool by_noise = noisy(group);
    Priced priced{std::vector<double>(by_noise ? group.noise.stretch.size() : 1, 0.0), 0};
    for (const auto& site : model::price_sites(counts, group, load, options_)) {
      priced.undisturbed_s += site.refined_s;
      if (!by_noise) {
        priced.by_quantile[0] += site.refined_s;
        continue;
      }
      const std::vector<double> site_s = model::site_time_by_noise_quantile(site, group.noise);
      for (std::size_t q = 0; q < site_s.size(); ++q) priced.by_quantile[q] += site_s[q];
    }
    return kept->second = std::move(priced);
  }

  const model::PredictOptions& options_;
  std::optional<std::uint64_t> noise_seed_;
  mutable std::map<Key, std::vector<double>> burst_s_;
  mutable std::map<Key, Priced> item_s_;
  mutable std::unordered_map<int, RankSpell> spells_;  // by world rank, for noises with a spell
};

sim::SimResult simulate(const model::ProgramModel& model, const machine::Machine& machine, int np,
                        const std::map<std::string, expr::Value>& parameters, const model::PredictOptions& pricing,
                        std::uint64_t max_events, std::function<void(const sim::SimProgress&)> progress,
                        std::optional<std::uint64_t> noise_seed) {
  model::EventOptions options;
  options.max_events = max_events;
  options.math = &machine.groups.front().math;
  options.work = true;
  // Each rank's events made as the engine reads them: memory stays flat
  // however many steps the model's time loop runs.
  model::ModelJobSource job(model, np, parameters, options);
  BurstPricer bursts(pricing, noise_seed);
  sim::SimOptions sim_options;
  sim_options.progress = std::move(progress);
  sim_options.work_pricer = &bursts;
  return sim::simulate(job, machine, sim_options);
}

}  // namespace

sim::SimResult simulate_model(const model::ProgramModel& model, const machine::Machine& machine, int np,
                              const std::map<std::string, expr::Value>& parameters,
                              const model::PredictOptions& pricing, std::uint64_t max_events,
                              std::function<void(const sim::SimProgress&)> progress) {
  return simulate(model, machine, np, parameters, pricing, max_events, std::move(progress), std::nullopt);
}

sim::SimResult simulate_model_under_noise(const model::ProgramModel& model, const machine::Machine& machine, int np,
                                          const std::map<std::string, expr::Value>& parameters,
                                          std::uint64_t noise_seed, const model::PredictOptions& pricing,
                                          std::uint64_t max_events,
                                          std::function<void(const sim::SimProgress&)> progress) {
  return simulate(model, machine, np, parameters, pricing, max_events, std::move(progress), noise_seed);
}

}  // namespace perfcast::modelsim
