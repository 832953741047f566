// `perfcast model`: looks into a program model. `model show` says what it
// holds and what the analyser could not follow to write it; `model params` lists the
// parameters a prediction binds, with their descriptions and defaults;
// `model events` evaluates the model per rank into event streams (a trace
// directory) that `perfcast simulate` runs: an automatic skeleton.
#include <algorithm>
#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/count_checks.h"
#include "cli/commands.h"
#include "cli/machine_options.h"
#include "cli/parameters.h"
#include "events/trace.h"
#include "machine/machine_io.h"
#include "model/costs.h"
#include "model/model_events.h"
#include "model/probe_unpriced.h"
#include "model/program_model.h"
#include "report/model_events.h"
#include "report/model_summary.h"
#include "support/output_file.h"

namespace perfcast::cli {

namespace {

struct ParamsArgs {
  std::string model_file;
  bool json = false;
};

void list_parameters(const ParamsArgs& a) {
  model::ProgramModel m = model::load_program_model(a.model_file);
  if (a.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& p : m.parameters) {
      nlohmann::json j = {{"name", p.name}, {"description", p.description}};
      if (p.default_value) j["default"] = expr::to_string(*p.default_value);
      if (!p.origin.empty()) j["origin"] = p.origin;
      out.push_back(j);
    }
    std::cout << out.dump(2) << "\n";
    return;
  }
  size_t required = 0, width = 4;
  for (const auto& p : m.parameters) {
    width = std::max(width, p.name.size());
    if (!p.default_value) ++required;
  }
  std::cout << fmt::format("{}: {} parameters, {} without a default (bind them with --param NAME=VALUE)\n",
                           a.model_file, m.parameters.size(), required);
  // A default that changes nothing (probe_unpriced.h) says so: its value is no
  // measure, and the user need not look for one.
  for (const auto& p : m.parameters)
    std::cout << fmt::format("  {:<{}}  {:<24}  {}{}\n", p.name, width,
                             p.default_value ? "default " + expr::to_string(*p.default_value) : "(required)",
                             p.description,
                             p.origin.find(model::kPricesNothing) != std::string::npos
                                 ? fmt::format(" [{} at the probe run's values]", model::kPricesNothing)
                                 : "");
}

struct EventsArgs {
  std::string model_file;
  int np = 1;
  std::vector<std::string> params;
  std::string output;
  MachineOptions machine;
  std::uint64_t max_events = 50'000'000;
  bool json = false;
};

void write_events(const EventsArgs& a) {
  refuse_output_over_inputs(a.output, {a.model_file, machine::find_machine_file(a.machine.file)}, "-o");
  model::ProgramModel m = model::load_program_model(a.model_file);
  std::optional<machine::Machine> machine;
  if (!a.machine.file.empty()) machine = load_machine(a.machine);
  model::EventOptions options;
  options.max_events = a.max_events;
  if (machine) options.math = &machine->groups.front().math;
  // Each rank's events go to the trace as they are made: a long time loop
  // never sits whole in memory.
  auto parameters = bind_parameters(m, a.params);
  refuse_paths_the_probe_run_did_not_take(m, a.np, a.params);
  model::ModelJobSource job(m, a.np, parameters, options);

  events::TraceMetadata meta;
  meta.program = m.program.empty() ? a.model_file : m.program;
  meta.command = {"perfcast", "model", "events", a.model_file, "--np", std::to_string(a.np)};
  for (const auto& p : a.params) {
    meta.command.push_back("--param");
    meta.command.push_back(p);
  }
  events::TraceWriter writer(a.output, a.np, meta);
  report::ModelEventsSummary summary{a.model_file, a.output, {}};
  for (int r = 0; r < a.np; ++r) {
    report::RankEventsSummary rank{.rank = r};
    auto source = job.open_rank(r);
    for (events::Event e; source->next(e, 0);) {
      ++rank.events;
      if (e.kind == events::Kind::Compute) {
        ++rank.compute_bursts;
        rank.flops += e.flops;
        rank.bytes_moved += e.bytes_moved;
      } else {
        ++rank.mpi_calls;
      }
      writer.append(r, e);
    }
    summary.ranks.push_back(rank);
  }
  writer.close();

  if (a.json) std::cout << report::model_events_json(summary).dump(2) << "\n";
  else std::cout << report::model_events_text(summary);
}

}  // namespace

void add_model_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("model", "Look into a program model");
  cmd->require_subcommand(1);
  auto show = std::make_shared<ParamsArgs>();
  CLI::App* sh = cmd->add_subcommand(
      "show", "Summarise a program model and what the analyser could not follow: unresolved calls, guessed branches, "
              "loops of unknown trip count, each with its source line");
  sh->add_option("model", show->model_file, "Program model (JSON)")->required()->check(CLI::ExistingFile);
  sh->add_flag("--json", show->json, "Print the summary as JSON");
  sh->callback([show] {
    model::ProgramModel m = model::load_program_model(show->model_file);
    if (show->json) std::cout << report::model_summary_json(m, show->model_file).dump(2) << "\n";
    else std::cout << report::model_summary_text(m, show->model_file);
  });

  auto a = std::make_shared<ParamsArgs>();
  CLI::App* params = cmd->add_subcommand("params", "List a program model's parameters: name, default, meaning");
  params->add_option("model", a->model_file, "Program model (JSON)")->required()->check(CLI::ExistingFile);
  params->add_flag("--json", a->json, "Print the list as JSON");
  params->callback([a] { list_parameters(*a); });

  auto e = std::make_shared<EventsArgs>();
  CLI::App* ev = cmd->add_subcommand(
      "events",
      "Evaluate a program model per rank into event streams (a trace directory: compute bursts with flops and "
      "bytes, MPI operations in program order) that 'perfcast simulate' runs: an automatic skeleton");
  ev->add_option("model", e->model_file, "Program model (JSON)")->required()->check(CLI::ExistingFile);
  ev->add_option("-n,--np", e->np, "Number of MPI ranks")->required()->check(kPositiveCount);
  add_parameter_option(*ev, e->params);
  ev->add_option("-o,--output", e->output, "Trace directory to write")->required();
  add_machine_options(*ev, e->machine, false);
  ev->add_option("--max-events", e->max_events, "Refuse to make more events than this over all ranks (a guard against a runaway loop bound: the events stream to the trace, memory stays flat)")
      ->capture_default_str();
  ev->add_flag("--json", e->json, "Print the summary as JSON");
  ev->footer(
      "--machine only prices math calls in flops (default: 20 flops per call). Example: perfcast model events "
      "apps/wave3d/wave3d.model.json --np 8 --param n=64 --param steps=10 -o wave3d.trace && perfcast simulate "
      "--machine polus wave3d.trace");
  ev->callback([e] { write_events(*e); });
}

}  // namespace perfcast::cli
