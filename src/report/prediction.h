// `perfcast predict`'s result for people (text) and for scripts (JSON): the
// counts and times per rank, the breakdown by site (loop nest), and the
// estimates (estimates.h) beside each other. Fields: docs/json.md.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "machine/machine.h"
#include "model/predict.h"
#include "model/program_model.h"
#include "report/placement.h"
#include "sim/engine.h"

namespace perfcast::report {

// What was predicted: the inputs a reader needs beside the figures.
struct PredictionContext {
  std::string model_file;
  std::vector<std::string> parameters;  // as given: "n=128"
  std::string memory_level = "auto";
  bool all_ranks = false;     // text: every rank in the table, not only the first, slowest and last beyond 16
  bool include_wall = true;   // false: leave out the simulator's own timings (for byte-identical output)
  // The baseline's, as given (--baseline-param); non-empty: the prediction is
  // of the timed part, the run minus the baseline (model::predict_timed_part).
  std::vector<std::string> baseline_parameters;
  std::vector<std::string> unused_network_overrides;  // PlacementContext's: the placement's warnings name them
  std::string machine_file;  // --machine as given, for the warnings' hints; empty: the machine's name
};

// What a prediction report shows; `simulated` is null when the model's calls
// were not run on the simulator.
struct PredictionView {
  const model::Prediction& prediction;
  const model::ProgramModel& model;
  const machine::Machine& machine;
  const sim::SimResult* simulated = nullptr;
  const sim::SimResult* baseline_simulated = nullptr;  // the baseline's, with a timed part and a simulation
  // The same two under the machine's measured noise (the estimate "simulated-noisy").
  const sim::SimResult* simulated_noisy = nullptr;
  const sim::SimResult* baseline_simulated_noisy = nullptr;
};

nlohmann::json prediction_json(const PredictionView& view, const PredictionContext& context);

// Where the ranks sit, when it changes what the figures mean (placement.h:
// oversubscribed cores, every rank on one node of many), the machine's figures
// outside what hardware does (machine/physics.h), and what the prediction rests
// on that the analyser guessed (the model's coverage: unresolved calls, guessed
// branches, loops of unknown trip count, pointing at `perfcast model show`;
// nothing when the model has no coverage, written by hand), one sentence each.
// `predict` prints them on stderr; the JSON carries them as "warnings".
std::vector<std::string> prediction_warnings(const PredictionView& view, const PredictionContext& context);

// The table per rank, one line per estimate, and the breakdown by site of the
// refined prediction's slowest rank; newline-terminated.
std::string prediction_text(const PredictionView& view, const PredictionContext& context);

}  // namespace perfcast::report
