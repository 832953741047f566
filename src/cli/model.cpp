// `perfcast model`: looks into a program model. `model params` lists the
// parameters a prediction binds, with their descriptions and defaults.
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "model/program_model.h"
#include <algorithm>

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
  for (const auto& p : m.parameters)
    std::cout << fmt::format("  {:<{}}  {:<24}  {}\n", p.name, width,
                             p.default_value ? "default " + expr::to_string(*p.default_value) : "(required)",
                             p.description);
}

}  // namespace

void add_model_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("model", "Look into a program model");
  cmd->require_subcommand(1);
  auto a = std::make_shared<ParamsArgs>();
  CLI::App* params = cmd->add_subcommand("params", "List a program model's parameters: name, default, meaning");
  params->add_option("model", a->model_file, "Program model (JSON)")->required()->check(CLI::ExistingFile);
  params->add_flag("--json", a->json, "Print the list as JSON");
  params->callback([a] { list_parameters(*a); });
}

}  // namespace perfcast::cli
