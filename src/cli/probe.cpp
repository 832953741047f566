// `perfcast probe MODEL -o BOUND (--record FILE | -- COMMAND...)`: binds what
// the static analysis left unknown (loop trips, guessed branches, values read
// from the input, the targets of calls through pointers) from one run of the program built with the feature probes
// (docs/program-model.md, "Probe runs"). With a command, runs it and reads the
// record it appends; with --record only, takes the file's last record.
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/feature_launch.h"
#include "learn/feature_records.h"
#include "model/model_write.h"
#include "model/probe_bind.h"
#include "report/table.h"
#include "support/error.h"

namespace perfcast::cli {
namespace {

namespace fs = std::filesystem;

struct ProbeArgs {
  std::string model_file, output, record;
  std::vector<std::string> command;
};

size_t required_parameters(const model::ProgramModel& m) {
  size_t n = 0;
  for (const auto& p : m.parameters) n += !p.default_value;
  return n;
}

learn::FeatureRecord last_record(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw UserError(fmt::format("cannot read the record file '{}'", file), {"", {}, "--record"});
  std::ostringstream text;
  text << in.rdbuf();
  learn::RecordFile found = learn::parse_feature_records(text.str(), file);
  for (const auto& w : found.warnings) std::cerr << "warning: " << w << "\n";
  if (found.records.empty())
    throw UserError(fmt::format("{}: no feature record", file), {"", {}, "--record"},
                    "give the file `perfcast run --dataset` wrote, or the command to run after --");
  return found.records.back();
}

void run_probe(const ProbeArgs& a) {
  model::ProgramModel m = model::load_program_model(a.model_file);
  learn::FeatureRecord r;
  if (!a.command.empty()) {
    std::string dataset = a.record;
    if (dataset.empty()) {
      const char* tmp = std::getenv("TMPDIR");
      dataset = (fs::path(tmp && *tmp ? tmp : "/tmp") / fmt::format("perfcast-probe-{}.jsonl", ::getpid())).string();
      fs::remove(dataset);
    }
    r = run_and_read_record(a.command, dataset, "", /*every_rank=*/true);
    if (a.record.empty()) fs::remove(dataset);
  } else if (!a.record.empty()) {
    r = last_record(a.record);
  } else {
    throw UserError("no probe run: give its record or the command", {"", {}, "--record"},
                    "perfcast probe model.json -o bound.json -- mpirun.openmpi -n 2 ./app small-args");
  }
  model::ProbeRun run{r.command, r.ranks, {}, r.code, r.indirect_calls, r.measures, r.omp_threads, r.per_rank,
                      r.per_rank_recorded};
  for (const auto& [name, v] : r.features) run.features[name] = v.value;

  const size_t before = required_parameters(m);
  std::vector<model::ProbeFinding> findings = model::bind_probe_run(m, run);
  model::write_program_model(m, a.output);

  static const char* kinds[] = {"loop trips", "branch", "value", "recursion", "indirect call"};
  report::Table table({"what", "site", "parameter / function", "value", "status"});
  for (const auto& f : findings)
    table.add_row({kinds[static_cast<int>(f.kind)], f.site, f.name, f.value ? fmt::format("{:.6g}", *f.value) : "-",
                   f.status});
  std::cout << table.render();
  std::cout << fmt::format(
      "{}: required parameters {} -> {}; bound from {}.\nValues measured at that input may not hold at another: "
      "bind the ones that scale with the input with --param.\n",
      a.output, before, required_parameters(m), model::probe_origin(run));
}

}  // namespace

void add_probe_command(CLI::App& app) {
  auto a = std::make_shared<ProbeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "probe", "Bind a model's unknown loop trips, guessed branches, input values and indirect calls' targets "
               "from one run built with `perfcast cc --features`");
  cmd->add_option("model", a->model_file, "Program model from perfcast analyze (JSON)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", a->output, "the bound model to write")->required();
  cmd->add_option("--record", a->record,
                  "feature record file: read its last record, or, with a command, the file the run appends to");
  cmd->add_option("command", a->command, "the probe run's command, after --");
  cmd->callback([a] { run_probe(*a); });
}

}  // namespace perfcast::cli
