// A prediction as a list of named estimates: the plain formula, each
// refinement, the refined time under noise, the simulated time. Every
// rendering of a prediction (predict's table and JSON) walks this one list, so
// a new refinement or method is one more entry here, with its own name.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/predict.h"
#include "sim/engine.h"

namespace perfcast::report {

struct Estimate {
  enum class Engine { Formula, Simulator };  // the analytic predictor, or the model's calls on the simulator

  std::string name;         // stable key for scripts: "formula", "mca", "footprint", "refined", "noisy", "simulated",
                            // "simulated-noisy"
  std::string description;  // what it prices, one line
  Engine engine = Engine::Formula;
  std::optional<double> time_s;      // the job's time (max over ranks); absent: not available
  std::optional<int> slowest_rank;   // the rank that gives time_s; absent where no one rank does
  std::vector<double> rank_time_s;   // per rank in rank order; empty where the estimate has no per-rank figure
  std::string unavailable;           // why time_s is absent
};

// The estimates of `prediction`, in the order they refine each other;
// `simulated` is the model's calls run on the simulator (modelsim), or null
// when that was not asked for. With `baseline_simulated` (a prediction of a
// timed part, model::predict_timed_part) the simulated estimate is the run's
// simulated time minus the baseline's, per rank and for the job: a simulation
// runs the whole program, so its timed part is a difference of two runs (the
// job's time adds up over phases that each end with their slowest rank),
// unavailable where the baseline's time exceeds the run's.
//
// `simulated_noisy` (and `baseline_simulated_noisy`, alike) is the same
// simulation under the machine's measured noise (modelsim::
// simulate_model_under_noise): the estimate "simulated-noisy", absent with
// the reason where the machine file has no noise or nothing was simulated.
std::vector<Estimate> prediction_estimates(const model::Prediction& prediction, const sim::SimResult* simulated,
                                           const sim::SimResult* baseline_simulated = nullptr,
                                           const sim::SimResult* simulated_noisy = nullptr,
                                           const sim::SimResult* baseline_simulated_noisy = nullptr);

// The estimate to read first, and the range the machine file's noise admits
// for one launch. The first available of: `simulated-noisy` (the machine's
// measured noise, with the waits for each step's slowest rank simulated),
// `noisy` (the same noise, the job at the expected slowest rank's stretch),
// `simulated`, `refined`: on real nodes the runs sit in the noisy machine
// state calibrate measured, not at the fastest one `refined` prices
// (docs/methods.md, "Which estimate to read"). The envelope runs from
// `refined` (every quantum at its fastest: a lower bound) to the whole run in
// the noise's slowest state (model::Prediction::noisy_slowest_state_time_s),
// absent without node.noise.
struct FirstEstimate {
  std::string which;  // an Estimate's name
  std::string description;
  double time_s = 0;
  double fastest_state_s = 0;              // the refined time
  std::optional<double> slowest_state_s;   // the noise's slowest state; absent without node.noise
  // Whether time_s lies inside [fastest_state_s, slowest_state_s]: a
  // simulated estimate can lie below it, where the simulation overlaps the
  // messages the refined time adds up. Absent without a slowest state.
  std::optional<bool> inside_envelope;
};
FirstEstimate first_estimate(const std::vector<Estimate>& estimates, const model::Prediction& prediction);

}  // namespace perfcast::report
