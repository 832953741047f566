// A program model's work as compute bursts the simulator prices: what a hand
// skeleton's BSIM_Add_model_work hands the engine (docs/skeletons.md).
//
// A skeleton names a function of a model and the model's parameters; the
// function's counts for the calling rank (its sites: flops, bytes per level,
// MCA cycles where the model has them) become the burst, and the engine
// prices it when it starts (sim::WorkPricer) by model::price_sites, the rules
// `perfcast predict` prices the same sites with, under the node's load of
// that moment. So a skeleton's compute follows the machine file, its --set
// overrides and the ranks sharing a node, where a BSIM_Add_time fixes seconds.
//
// Cheap per call: a model file is loaded once per path; a function's costs
// are composed as predict composes a job's model, with the values every rank
// binds alike (the call's parameters, the size, defaults and lets of those)
// in place (model/specialise.h: a large model's counts stay numbers), once per
// function and those values; a call's counts are kept by (model, function,
// rank, parameters), ranks with the same counts share them, and a count's
// price is kept per node load (so one ModelWork serves one machine: a
// simulation's).
// Not thread-safe: one engine and its fibers use it.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/costs.h"
#include "model/predict.h"
#include "model/program_model.h"
#include "sim/costs.h"

namespace perfcast::modelsim {

class ModelWork final : public sim::WorkPricer {
 public:
  explicit ModelWork(model::PredictOptions options = {});
  ~ModelWork() override;

  // The model file at `path`, loaded once (the same path gives the same
  // index). Throws UserError as model::load_program_model does.
  int load(const std::string& path);

  // One parameter a call binds: a name of the model's (perfcast model params)
  // and its value; an integral value binds as an integer.
  using Parameter = std::pair<std::string_view, double>;

  // The work of `function` ("" or the entry: the whole program) of model
  // `model` on `rank` of `size`, the model's other parameters at their
  // defaults: an id for burst(). Throws UserError for an unknown model index
  // or function, a parameter the model does not have, one without a value,
  // or a count that does not evaluate (naming the model file).
  int work(int model, std::string_view function, const std::vector<Parameter>& parameters, int rank, int size);

  // A burst of work items (work id, multiplier), for Event::live: the same
  // items give the same pointer, valid while this object lives.
  using Items = std::vector<std::pair<int, double>>;
  const void* burst(const Items& items);

  // sim::WorkPricer: the sum of the items' prices, each multiplier times the
  // sum of its sites' refined times (model::price_sites) on the rank's node
  // with `computing` of its ranks at work.
  double work_s(const void* burst, int world_rank, std::uint64_t number, const machine::Pricing& pricing,
                int computing) const override;

  // One work item's counts (for tests and reports).
  const model::RankCounts& counts(int work) const;

 private:
  struct Model;
  struct Work;
  struct Burst;
  double item_s(const Work& work, const machine::NodeGroup& group, const machine::NodeLoad& load) const;

  model::PredictOptions options_;
  std::vector<std::unique_ptr<Model>> models_;
  std::map<std::string, int> model_of_path_;
  std::unordered_map<std::string, int> work_of_call_;   // (model, function, rank, parameters) -> work
  std::unordered_map<std::string, int> work_of_counts_; // (model, function, free names' values) -> work
  std::vector<std::unique_ptr<Work>> works_;
  std::map<Items, std::unique_ptr<Burst>> bursts_;
};

}  // namespace perfcast::modelsim
