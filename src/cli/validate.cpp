// `perfcast validate CASES.toml`: every method against real runs, one table (docs/validate.md).
#include "validate/validate.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "support/error.h"
#include "support/output_file.h"

namespace perfcast::cli {
namespace fs = std::filesystem;

namespace {

struct ValidateOptions {
  std::string cases;
  std::string machine;
  std::string methods;
  std::string resume;
  std::string build;
  std::string apps;
  std::string models;
  std::string html;
  bool json = false;
  bool quiet = false;
};

// A machine named by a path in the cases file is relative to that file; a bare name
// (no slash, no .toml) is a bundled machine that `--machine` finds itself.
std::string machine_argument(const std::string& machine, const fs::path& base) {
  bool is_path = machine.find('/') != std::string::npos || machine.ends_with(".toml");
  if (!is_path) return machine;
  fs::path p(machine);
  return p.is_absolute() ? machine : (base / p).lexically_normal().string();
}

// The page of `--html`: the Vega library is read first, so a missing one fails before
// any row is run.
struct HtmlReport {
  std::string vega_js;
  explicit HtmlReport(const std::string& path, const std::vector<fs::path>& inputs) {
    refuse_output_over_inputs(path, inputs, "--html");
    vega_js = validate::read_vega_library();
  }
  void write(const std::string& path, const validate::Outcome& outcome) const {
    write_file_atomically(path, validate::outcome_html(outcome, vega_js));
  }
};

void print(const validate::Outcome& outcome, bool json) {
  if (json)
    std::cout << validate::outcome_json(outcome).dump(2) << "\n";
  else
    std::cout << validate::outcome_table(outcome);
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "Run every method against real runs of the apps in a cases file; one table of errors per method");
  cmd->add_option("cases", o->cases, "The cases file (TOML, docs/validate.md), e.g. validate/quick.toml")
      ->check(CLI::ExistingFile);
  cmd->add_option("--machine", o->machine, "Machine file or bundled name (replaces [settings] machine)");
  cmd->add_option(
      "--methods", o->methods,
      "Methods, comma-separated (measured always runs): naive,skeleton,trace-replay,static,static-noisy,simulated-noisy,signature,learned");
  cmd->add_option("--resume", o->resume,
                  "Results file (JSON lines): rows in it are not run again, new rows are appended");
  cmd->add_option("--build", o->build,
                  "Build directory holding apps/<app> and apps/<app>_skel (default: this "
                  "perfcast's)");
  cmd->add_option("--apps", o->apps, "The apps/ folder with each app's validate.toml (default: the source tree's)");
  cmd->add_option("--models", o->models,
                  "Keep each app's program model here and reuse it while its source and flags are unchanged "
                  "(validate where clang is missing with models analysed elsewhere)");
  cmd->add_flag("--json", o->json, "Print {\"rows\": [...], \"summary\": [...]} as JSON");
  cmd->add_option("--html", o->html, "Also write the table and its plots as one self-contained HTML page");
  cmd->add_flag("-q,--quiet", o->quiet, "No progress on stderr");
  cmd->footer("Example: perfcast validate validate/quick.toml --resume /tmp/quick.jsonl --html /tmp/quick.html");
  cmd->require_subcommand(0, 1);

  struct ReportOptions {
    std::string rows, html;
    bool json = false;
  };
  auto r = std::make_shared<ReportOptions>();
  CLI::App* report = cmd->add_subcommand(
      "report", "Render the rows of an earlier validation (its --json document or --resume file) again, runs nothing");
  report->add_option("ROWS", r->rows, "The --json output or the results file of perfcast validate")
      ->required()
      ->check(CLI::ExistingFile);
  report->add_option("--html", r->html, "Write the table and its plots as one self-contained HTML page");
  report->add_flag("--json", r->json, "Print the rows and their summary as JSON");
  report->callback([r] {
    std::optional<HtmlReport> html;
    if (!r->html.empty()) html.emplace(r->html, std::vector<fs::path>{r->rows});
    validate::Outcome outcome = validate::read_outcome(r->rows);
    if (html) html->write(r->html, outcome);
    print(outcome, r->json);
  });

  struct ModelsOptions {
    std::string cases, models, apps, machine;
  };
  auto m = std::make_shared<ModelsOptions>();
  CLI::App* models = cmd->add_subcommand(
      "models", "Analyse each app of the cases and keep its model for --models, running nothing else");
  models->add_option("CASES", m->cases, "The cases file")->required()->check(CLI::ExistingFile);
  models->add_option("--models", m->models, "The folder to keep the models in")->required();
  models->add_option("--apps", m->apps, "The apps/ folder with each app's validate.toml (default: the source tree's)");
  models->add_option("--machine", m->machine,
                     "Machine file or bundled name whose CPU and instruction cycles price the models' in-core work "
                     "(replaces [settings] machine)");
  models->callback([m] {
    validate::CasesFile file = validate::load_cases(m->cases);
    validate::Tools tools;
    tools.perfcast = fs::canonical("/proc/self/exe");
    tools.apps_dir = m->apps.empty() ? fs::path(PERFCAST_SOURCE_DIR) / "apps" : fs::absolute(m->apps);
    tools.models_dir = fs::absolute(m->models);
    tools.machine =
        m->machine.empty() ? machine_argument(file.settings.machine, fs::absolute(m->cases).parent_path()) : m->machine;
    validate::Options options;
    options.progress = [](const std::string& line) { std::cerr << "perfcast validate models: " << line << "\n"; };
    int failed = validate::keep_models(file, tools, options);
    if (failed > 0) throw UserError(fmt::format("{} app{} could not be analysed (above)", failed, failed == 1 ? "" : "s"));
  });

  cmd->callback([cmd, o] {
    if (!cmd->get_subcommands().empty()) return;
    if (o->cases.empty()) throw CLI::RequiredError("cases");
    std::optional<HtmlReport> html;
    if (!o->html.empty()) {
      std::vector<fs::path> inputs = {o->cases};
      if (!o->resume.empty()) inputs.push_back(o->resume);
      html.emplace(o->html, inputs);
    }
    validate::CasesFile file = validate::load_cases(o->cases);
    fs::path self = fs::canonical("/proc/self/exe");
    validate::Tools tools;
    tools.perfcast = self;
    tools.build_dir = o->build.empty() ? self.parent_path().parent_path() : fs::absolute(o->build);
    if (!o->models.empty()) tools.models_dir = fs::absolute(o->models);
    tools.apps_dir = o->apps.empty() ? fs::path(PERFCAST_SOURCE_DIR) / "apps" : fs::absolute(o->apps);
    tools.machine =
        o->machine.empty() ? machine_argument(file.settings.machine, fs::absolute(o->cases).parent_path()) : o->machine;
    validate::Options options;
    options.methods = o->methods.empty() ? std::set<std::string>(validate::kMethods.begin(), validate::kMethods.end())
                                         : validate::parse_methods(o->methods);
    if (!o->resume.empty()) options.resume = fs::path(o->resume);
    if (!o->quiet)
      options.progress = [](const std::string& line) { std::cerr << "perfcast validate: " << line << "\n"; };
    validate::Outcome outcome = validate::run_validation(file, tools, options);
    if (html) html->write(o->html, outcome);
    print(outcome, o->json);
  });
}

}  // namespace perfcast::cli
