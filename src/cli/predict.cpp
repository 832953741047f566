// `perfcast predict`: a program model's counts per rank, priced on a machine.
#include <iostream>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "cli/count_checks.h"
#include "cli/commands.h"
#include "cli/machine_options.h"
#include "cli/memory_budget.h"
#include "cli/parameters.h"
#include "cli/progress_line.h"
#include "modelsim/model_simulation.h"
#include "model/item_walks.h"
#include "model/predict.h"
#include "model/specialise.h"
#include "report/prediction.h"
#include "report/simulation.h"

namespace perfcast::cli {

namespace {

struct PredictArgs {
  std::string model_file;
  MachineOptions machine;
  int np = 1;
  std::vector<std::string> params;
  std::vector<std::string> baseline_params;
  std::string memory = "auto";
  bool scalar = false;
  bool json = false;
  bool all_ranks = false;
  bool simulate = false;
  std::uint64_t max_events = 50'000'000;
  std::uint64_t noise_seed = 1;
  std::string max_memory;
};

}  // namespace

void add_predict_command(CLI::App& app) {
  auto a = std::make_shared<PredictArgs>();
  CLI::App* cmd = app.add_subcommand(
      "predict",
      "Predict time and counts per rank from a program model (docs/program-model.md) on a machine: the "
      "plain formula and the refined estimates (docs/methods.md)");
  cmd->add_option("model", a->model_file, "Program model (JSON), e.g. apps/wave3d/wave3d.model.json")
      ->required()
      ->check(CLI::ExistingFile);
  add_machine_options(*cmd, a->machine);
  cmd->add_option("-n,--np", a->np, "Number of MPI ranks")->required()->check(kPositiveCount);
  add_parameter_option(*cmd, a->params);
  cmd->add_option("--baseline-param", a->baseline_params,
                  "Predict the timed part: the run minus a baseline, the run's parameters with this one changed, "
                  "e.g. --baseline-param steps=0 (repeatable; counts are subtracted per site, then priced)")
      ->type_name("NAME=VALUE")
      ->allow_extra_args(false);
  cmd->add_option("--memory", a->memory,
                  "Memory level for all traffic (L1, L2, L3, DRAM), or 'auto': by each loop's working set, "
                  "the outermost level where the model gives none")
      ->capture_default_str();
  cmd->add_flag("--scalar", a->scalar, "Price flops at the scalar (non-SIMD) rate");
  cmd->add_flag("--all-ranks", a->all_ranks, "List every rank in the table");
  cmd->add_flag("--simulate", a->simulate,
                 "Also run the model's calls on the simulator: overlap of messages and compute, and waits "
                 "between ranks, beside the formula (with a baseline: the run's simulated time minus the "
                 "baseline's)");
  cmd->add_option("--max-events", a->max_events,
                  "With --simulate: refuse to make more events than this over all ranks (a guard against a runaway "
                  "loop bound; the events stream into the simulator, so memory stays flat)")
      ->capture_default_str();
  cmd->add_option("--noise-seed", a->noise_seed,
                  "With --simulate and a machine file with noise: the seed of each burst's drawn noise quantile "
                  "(the same seed gives the same figure)")
      ->capture_default_str();
  add_memory_budget_option(*cmd, a->max_memory);
  cmd->add_flag("--json", a->json, "Print the figures as JSON");
  cmd->footer(
      "Example: perfcast predict apps/wave3d/wave3d.model.json --machine polus --np 4 --param n=128 "
      "--param steps=100\n"
      "Timed part only (the run minus its set-up): add --baseline-param steps=0");

  cmd->callback([a] {
    model::ProgramModel m = model::load_program_model(a->model_file);
    machine::Machine machine = load_machine(a->machine);
    model::PredictOptions options{.memory_level = a->memory, .simd = !a->scalar};
    const bool timed_part = !a->baseline_params.empty();
    // The baseline binds its own expressions as the model's defaults: a copy of the model before the run's.
    std::optional<model::ProgramModel> baseline_model;
    std::map<std::string, expr::Value> baseline_parameters;
    if (timed_part) {
      baseline_model = m;
      baseline_parameters =
          bind_parameters(*baseline_model, with_replaced(a->params, a->baseline_params, "--baseline-param"));
    }
    auto parameters = bind_parameters(m, a->params);
    refuse_paths_the_probe_run_did_not_take(m, a->np, a->params);
    // Composed with the values every rank shares in place: a large program's
    // counts stay numbers instead of growing expressions (model/specialise.h).
    // A timed part fixes only what the run and its baseline share.
    expr::Bindings fixed = model::rank_independent_bindings(m, parameters, a->np);
    if (timed_part) {
      const expr::Bindings baseline_fixed =
          model::rank_independent_bindings(*baseline_model, baseline_parameters, a->np);
      std::erase_if(fixed, [&](const auto& entry) {
        auto other = baseline_fixed.find(entry.first);
        return other == baseline_fixed.end() || !(other->second == entry.second);
      });
    }
    model::SymbolicCosts costs = model::symbolic_costs(model::specialised(m, fixed));
    refuse_beyond_budget(model::prediction_bytes(costs, a->np), a->max_memory,
                         fmt::format("a prediction of {} ranks ({} sites and {} MPI sites each)", a->np,
                                     costs.sites.size(), costs.mpi.size()));
    auto predict_with = [&](const model::SymbolicCosts& c) {
      return timed_part ? model::predict_timed_part(m, *baseline_model, c, machine, a->np, parameters,
                                                    baseline_parameters, options)
                        : model::predict(m, c, machine, a->np, parameters, options);
    };
    model::Prediction p;
    try {
      p = predict_with(costs);
    } catch (const UserError&) {
      // The refusal in the model's own names: a model small enough to compose
      // without the job's values is composed again and names them (the same
      // counts fail); a large one's error shows the values in their place.
      if (model::item_count(m) > model::kRecomposableItems) throw;
      p = predict_with(model::symbolic_costs(m));
    }
    std::optional<sim::SimResult> simulated, baseline_simulated, simulated_noisy, baseline_simulated_noisy;
    if (a->simulate) {
      ProgressLine progress(!a->json);
      auto show = [&](const sim::SimProgress& sp) { progress.show(report::simulation_progress_text(sp)); };
      simulated = modelsim::simulate_model(m, machine, a->np, parameters, options, a->max_events, show);
      if (timed_part)
        baseline_simulated = modelsim::simulate_model(*baseline_model, machine, a->np, baseline_parameters, options,
                                                      a->max_events, show);
      // Under the machine's noise: a second simulation, where the file has noise.
      if (p.noise_available) {
        simulated_noisy = modelsim::simulate_model_under_noise(m, machine, a->np, parameters, a->noise_seed, options,
                                                               a->max_events, show);
        if (timed_part)
          baseline_simulated_noisy = modelsim::simulate_model_under_noise(
              *baseline_model, machine, a->np, baseline_parameters, a->noise_seed, options, a->max_events, show);
      }
    }
    report::PredictionView view{p,
                                m,
                                machine,
                                simulated ? &*simulated : nullptr,
                                baseline_simulated ? &*baseline_simulated : nullptr,
                                simulated_noisy ? &*simulated_noisy : nullptr,
                                baseline_simulated_noisy ? &*baseline_simulated_noisy : nullptr};
    report::PredictionContext context{.model_file = a->model_file,
                                      .parameters = a->params,
                                      .memory_level = a->memory,
                                      .all_ranks = a->all_ranks,
                                      .include_wall = true,
                                      .baseline_parameters = a->baseline_params,
                                      .machine_file = a->machine.file};
    if (p.placement.nodes == 1)
      context.unused_network_overrides = network_overrides_unused_on_one_node(a->machine, machine);
    for (const auto& w : report::prediction_warnings(view, context)) std::cerr << "perfcast predict: warning: " << w << "\n";
    if (a->json) std::cout << report::prediction_json(view, context).dump(2) << "\n";
    else std::cout << report::prediction_text(view, context);
  });
}

}  // namespace perfcast::cli
