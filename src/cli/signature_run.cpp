// `perfcast signature run`: run an application on this machine with the
// tracer in signature mode, stop it once every rank has timed the relevant
// phases' first occurrences, and predict the whole run from them
// (signature/signature_run.h); `--compare` also runs it whole.
#include "signature/signature_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "report/table.h"
#include "support/error.h"
#include "support/units.h"
#include "trace/launch.h"

namespace perfcast::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string seconds_text(double s) { return s == 0 ? "0 s" : units::format(s, units::Dimension::Seconds, 4); }
std::string percent(double share) { return fmt::format("{:.1f} %", 100 * share); }

struct RunOptions {
  std::string signature, output;
  std::vector<std::string> command;
  std::string warmup = "auto";
  int measure = 3;
  bool compare = false, json = false;
  bool any_size = false;  // phases recognised by their calls whatever sizes they move
};

// The full run of --compare: the traced region's time (MPI_Init's return to
// MPI_Finalize's entry, slowest rank), what the signature predicts.
struct FullRun {
  trace::SignatureModeRun run;
  double region_s = 0;
};

trace::SignatureModeRun launch(const RunOptions& o, const fs::path& dir, const fs::path& patterns, int ranks,
                               bool stop) {
  std::error_code ec;
  trace::SignatureModeOptions options;
  options.library = trace::find_trace_library(fs::read_symlink("/proc/self/exe", ec));
  options.dir = dir;
  options.patterns = patterns;
  options.log = dir / "job.log";
  options.ranks = ranks;
  options.stop_when_measured = stop;
  return trace::run_signature_mode(o.command, options);
}

void run(const RunOptions& o) {
  signature::Signature s = signature::read_signature(o.signature);
  std::optional<int> warmup;
  if (o.warmup != "auto") {
    try {
      std::size_t used = 0;
      warmup = std::stoi(o.warmup, &used);
      if (used != o.warmup.size()) throw std::invalid_argument(o.warmup);
    } catch (const std::exception&) {
      throw UserError(fmt::format("'{}' is not a number of occurrences", o.warmup), {.field = "--warmup"},
                      "--warmup auto, or a count such as --warmup 1");
    }
  }
  events::PhasePatterns patterns = signature::phase_patterns(s, warmup, o.measure, !o.any_size);
  fs::path dir = fs::absolute(o.output).lexically_normal();
  trace::prepare_signature_run_dir(dir);
  fs::path patterns_file = dir / "phases.json";
  {
    std::ofstream out(patterns_file);
    out << events::patterns_json(patterns);
    if (!out) throw UserError("cannot write", {patterns_file.string()});
  }

  trace::SignatureModeRun sig_run = launch(o, dir, patterns_file, s.ranks, true);
  auto measured = signature::read_measurements(dir, s.ranks);
  if (!sig_run.stopped && sig_run.status != 0 && static_cast<int>(measured.size()) < s.ranks)
    throw UserError(fmt::format("{} exited with status {} before every rank reported (its output: {})",
                                o.command.front(), sig_run.status, (dir / "job.log").string()));
  signature::RunPrediction prediction = signature::predict_from_measurements(s, patterns, measured);
  double executed_s = 0;  // the slowest rank's time from MPI_Init's return to its last needed occurrence
  for (const auto& m : measured) executed_s = std::max(executed_s, m.complete_at_s.value_or(m.region_s.value_or(0)));

  std::optional<FullRun> full;
  if (o.compare) {
    fs::path full_dir = dir / "full";
    fs::create_directories(full_dir);
    full.emplace();
    full->run = launch(o, full_dir, patterns_file, s.ranks, false);
    auto whole = signature::read_measurements(full_dir, s.ranks);
    for (const auto& m : whole) {
      if (!m.region_s)
        throw UserError(fmt::format("the full run's rank {} did not reach MPI_Finalize (its output: {})", m.rank,
                                    (full_dir / "job.log").string()));
      full->region_s = std::max(full->region_s, *m.region_s);
    }
    if (static_cast<int>(whole.size()) < s.ranks || full->run.status != 0)
      throw UserError(fmt::format("the full run exited with status {} (its output: {})", full->run.status,
                                  (full_dir / "job.log").string()));
  }

  json out = {{"signature", o.signature},
              {"command", o.command},
              {"directory", dir.string()},
              {"warmup", o.warmup},
              {"measure", o.measure},
              {"any_size", o.any_size},
              {"stopped_early", sig_run.stopped},
              {"exit_status", sig_run.status},
              {"reported_s", sig_run.reported_s},
              {"wall_s", sig_run.wall_s},
              {"executed_s", executed_s},
              {"prediction", signature::to_json(prediction)}};
  if (full) {
    double error = full->region_s > 0 ? (prediction.predicted_s - full->region_s) / full->region_s : 0;
    double cost = full->run.wall_s > 0 ? (sig_run.stopped ? sig_run.reported_s : sig_run.wall_s) / full->run.wall_s : 0;
    out["compare"] = {{"measured_s", full->region_s},
                      {"error", error},
                      {"full_wall_s", full->run.wall_s},
                      {"cost", cost},
                      {"executed_share", full->region_s > 0 ? executed_s / full->region_s : 0}};
  }
  if (o.json) {
    std::cout << out.dump(2) << "\n";
    return;
  }

  std::cout << fmt::format(
      "ran {} with the signature {} ({} relevant phase{}, warm-up {}, then {} timed per rank and phase{})\n",
      fmt::join(o.command, " "), o.signature, prediction.phases.size(), prediction.phases.size() == 1 ? "" : "s",
      o.warmup, o.measure, o.any_size ? ", message sizes not compared" : "");
  if (sig_run.stopped)
    std::cout << fmt::format("stopped after {} once every rank had measured (the job's output: {})\n",
                             seconds_text(sig_run.reported_s), (dir / "job.log").string());
  else
    std::cout << fmt::format("the run ended by itself after {} (status {}){}; the job's output: {}\n",
                             seconds_text(sig_run.wall_s), sig_run.status,
                             prediction.complete ? "" : " before every phase was measured", (dir / "job.log").string());
  using Align = report::Table::Align;
  report::Table table(
      {"phase", "weight", "timed from", "per occurrence", "spread (min - max, timed)", "contribution", "share"},
      {Align::Left, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right});
  for (const auto& e : prediction.phases) {
    std::string spread = e.measured()
                             ? fmt::format("{} - {} ({})", seconds_text(e.min_s), seconds_text(e.max_s), e.timed)
                             : "not measured: the signature's";
    table.add_row({std::to_string(e.phase), std::to_string(e.weight), fmt::format("#{}", e.warmup + 1),
                   seconds_text(e.per_occurrence_s), spread, seconds_text(e.contribution_s), percent(e.share)});
  }
  double total = prediction.predicted_s;
  table.add_row({prediction.initialization_measured ? "initialisation" : "initialisation (the signature's)", "", "", "",
                 "", seconds_text(prediction.initialization_s),
                 percent(total > 0 ? prediction.initialization_s / total : 0)});
  table.add_row({"remainder (the signature's)", "", "", "", "", seconds_text(prediction.remainder_s),
                 percent(total > 0 ? prediction.remainder_s / total : 0)});
  std::cout << table.render();
  std::cout << fmt::format(
      "predicted: {} (rank {}, the slowest: a job takes its slowest rank's time); the signature predicted {} where "
      "it was built\n",
      seconds_text(total), prediction.slowest_rank, seconds_text(prediction.signature_predicted_s));
  for (const auto& e : prediction.phases)
    if (!e.unmeasured_ranks.empty())
      std::cout << fmt::format("phase {} was not measured on rank{} {}: {}\n", e.phase,
                               e.unmeasured_ranks.size() == 1 ? "" : "s", fmt::join(e.unmeasured_ranks, ", "),
                               e.measured() ? "they take the other ranks' mean" : "its time is the signature's");
  if (full) {
    const json& c = out["compare"];
    std::cout << fmt::format(
        "full run: {} (MPI_Init's return to MPI_Finalize, slowest rank), {} of wall time; error {:+.1f} %; the "
        "signature run needed {} of wall time ({} of the full run's), and ran {} of the full run's MPI region\n",
        seconds_text(full->region_s), seconds_text(full->run.wall_s), 100 * c["error"].get<double>(),
        seconds_text(sig_run.stopped ? sig_run.reported_s : sig_run.wall_s), percent(c["cost"].get<double>()),
        percent(c["executed_share"].get<double>()));
  }
}

}  // namespace

void add_signature_run_command(CLI::App& signature) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = signature.add_subcommand(
      "run",
      "Run the app with the tracer timing only the signature's relevant phases, stop it early, and predict the "
      "whole run (weight x time).");
  cmd->add_option("SIGNATURE", o->signature, "A signature file (perfcast signature build)")->required();
  cmd->add_option("-o,--output", o->output, "The run directory (phase patterns, measurements, the job's output)")
      ->required();
  cmd->add_option("command", o->command, "The launch command, after --: mpirun.openmpi -n 4 ./app args");
  cmd->add_option("--warmup", o->warmup,
                  "Occurrences of each phase not timed first; auto: from the signature's representative occurrence")
      ->capture_default_str();
  cmd->add_option("--measure", o->measure, "Occurrences of each phase timed per rank after the warm-up")
      ->capture_default_str();
  cmd->add_flag("--any-size", o->any_size,
                "Recognise phases by their calls, not their message sizes: for a run of another input size");
  cmd->add_flag("--compare", o->compare, "Also run the app whole: the signed error and the share of its time spent");
  cmd->add_flag("--json", o->json, "Print the result as JSON");
  cmd->callback([o] {
    if (o->command.empty())
      throw UserError("no command to run", {}, "perfcast signature run app.sig -o DIR -- mpirun.openmpi -n 4 ./app");
    run(*o);
  });
}

}  // namespace perfcast::cli
