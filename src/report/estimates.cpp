#include "report/estimates.h"

#include <stdexcept>

namespace perfcast::report {

namespace {

// The rank with the largest figure (the first of equals): the slowest rank of
// an estimate whose job time is the max over ranks.
int slowest_of(const std::vector<double>& rank_time_s) {
  int slowest = 0;
  for (size_t r = 1; r < rank_time_s.size(); ++r)
    if (rank_time_s[r] > rank_time_s[static_cast<size_t>(slowest)]) slowest = static_cast<int>(r);
  return slowest;
}

template <typename Field>
std::vector<double> per_rank(const model::Prediction& p, Field field) {
  std::vector<double> out;
  out.reserve(p.ranks.size());
  for (const auto& r : p.ranks) out.push_back(r.*field);
  return out;
}

// A simulated estimate from its run (and, for a timed part, its baseline's
// run): the job's time and each rank's end, or their differences.
void set_simulated(Estimate& e, const sim::SimResult& simulated, const sim::SimResult* baseline) {
  if (!baseline) {
    e.time_s = simulated.predicted_time_s;
    e.slowest_rank = simulated.slowest_rank;
    for (const auto& r : simulated.ranks) e.rank_time_s.push_back(r.end_s);
    return;
  }
  e.description += "; the run's simulated time minus the baseline's";
  const double difference = simulated.predicted_time_s - baseline->predicted_time_s;
  if (difference < 0) {
    e.unavailable = "the baseline's simulated time exceeds the run's";
    return;
  }
  e.time_s = difference;
  // Each rank's end minus its end in the baseline: no one rank need give
  // the job's difference, so there is no slowest rank.
  for (size_t r = 0; r < simulated.ranks.size() && r < baseline->ranks.size(); ++r)
    e.rank_time_s.push_back(simulated.ranks[r].end_s - baseline->ranks[r].end_s);
}

}  // namespace

std::vector<Estimate> prediction_estimates(const model::Prediction& p, const sim::SimResult* simulated,
                                           const sim::SimResult* baseline_simulated,
                                           const sim::SimResult* simulated_noisy,
                                           const sim::SimResult* baseline_simulated_noisy) {
  std::vector<Estimate> out;

  Estimate formula{.name = "formula",
                   .description = "the paper's plain formula: max(flops / peak, bytes / bandwidth) + communication",
                   .time_s = p.predicted_time_s,
                   .slowest_rank = p.slowest_rank,
                   .rank_time_s = per_rank(p, &model::RankPrediction::time_s)};
  out.push_back(std::move(formula));

  Estimate mca{.name = "mca",
               .description = "the plain formula with loop bodies' in-core time from LLVM MCA instead of flops / peak"};
  if (p.mca_available) {
    mca.rank_time_s = per_rank(p, &model::RankPrediction::mca_time_s);
    mca.time_s = p.mca_time_s;
    mca.slowest_rank = slowest_of(mca.rank_time_s);
  } else {
    mca.unavailable = p.mca_note;
  }
  out.push_back(std::move(mca));

  Estimate footprint{.name = "footprint",
                     .description = "loop footprints: distinct bytes from the level they fit in, every access at L1"};
  if (p.footprint_available) {
    footprint.rank_time_s = per_rank(p, &model::RankPrediction::footprint_time_s);
    footprint.time_s = p.footprint_time_s;
    footprint.slowest_rank = slowest_of(footprint.rank_time_s);
  } else {
    footprint.unavailable =
        p.footprint_note.empty() ? "no loop the entry runs carries a footprint" : p.footprint_note;
  }
  out.push_back(std::move(footprint));

  Estimate refined{.name = "refined",
                   .description = "per site (loop nest) every refinement available, summed, with communication at "
                                  "the machine's measured times: the fastest state, a lower bound",
                   .time_s = p.refined_time_s,
                   .slowest_rank = p.refined_slowest_rank,
                   .rank_time_s = per_rank(p, &model::RankPrediction::refined_time_s)};
  out.push_back(std::move(refined));

  // The expected slowest of the ranks' stretches: a job figure, no rank's own.
  Estimate noisy{.name = "noisy",
                 .description = "the refined time under the machine's measured noise (the expected slowest rank's "
                                "stretch)"};
  if (p.noise_available) noisy.time_s = p.noisy_time_s;
  else noisy.unavailable = "the machine file has no node.noise";
  out.push_back(std::move(noisy));

  Estimate sim{.name = "simulated",
               .description = "the sites' refined times as bursts between the model's calls on the simulator "
                              "(overlap, waits)",
               .engine = Estimate::Engine::Simulator};
  if (simulated) set_simulated(sim, *simulated, baseline_simulated);
  else sim.unavailable = "not simulated (predict --simulate runs it)";
  out.push_back(std::move(sim));

  Estimate sim_noisy{.name = "simulated-noisy",
                     .description = "the simulation with each rank's compute bursts under the machine's measured "
                                    "noise (a quantile drawn per burst and rank; waits for the slowest rank "
                                    "simulated)",
                     .engine = Estimate::Engine::Simulator};
  if (!p.noise_available) sim_noisy.unavailable = "the machine file has no node.noise";
  else if (!simulated_noisy) sim_noisy.unavailable = "not simulated (predict --simulate runs it)";
  else set_simulated(sim_noisy, *simulated_noisy, baseline_simulated_noisy);
  out.push_back(std::move(sim_noisy));
  return out;
}

FirstEstimate first_estimate(const std::vector<Estimate>& estimates, const model::Prediction& p) {
  FirstEstimate out;
  out.fastest_state_s = p.refined_time_s;
  if (p.noise_available) out.slowest_state_s = p.noisy_slowest_state_time_s;
  for (const char* name : {"simulated-noisy", "noisy", "simulated", "refined"})
    for (const auto& e : estimates)
      if (e.name == name && e.time_s) {
        out.which = e.name, out.description = e.description, out.time_s = *e.time_s;
        if (out.slowest_state_s)
          out.inside_envelope = out.time_s >= out.fastest_state_s && out.time_s <= *out.slowest_state_s;
        return out;
      }
  // `refined` is always available; a list without it is the caller's error.
  throw std::logic_error("first_estimate: no refined estimate in the list");
}

}  // namespace perfcast::report
