// `perfcast sweep --dataset FILE --param NAME=VALUES... -- COMMAND...`: runs
// an instrumented program at every point of a grid of parameters (or a seeded
// random sample of it), each run appending its feature record labelled with
// its point, to build a dataset for `perfcast learn`. Rerun, it skips the
// points whose label the dataset already holds, so an interrupted sweep
// resumes. A point that fails is reported and the sweep goes on.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/feature_launch.h"
#include "cli/progress_line.h"
#include "learn/feature_records.h"
#include "learn/sweep_plan.h"
#include "support/error.h"
#include "support/process.h"

namespace perfcast::cli {

namespace {

namespace fs = std::filesystem;

struct SweepArgs {
  std::string dataset;
  std::vector<std::string> parameters;
  std::optional<size_t> samples;
  uint64_t seed = 1;
  double timeout_s = 600;
  bool dry_run = false;
  std::vector<std::string> command;
};

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The end of a failed run's stderr, for the warning.
std::string last_lines(const std::string& text, size_t count) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::string out;
  for (size_t i = lines.size() > count ? lines.size() - count : 0; i < lines.size(); ++i) out += "  " + lines[i] + "\n";
  return out;
}

void run_sweep(const SweepArgs& a) {
  if (a.command.empty())
    throw UserError("no command to run", {"", {}, "--"},
                    "perfcast sweep --dataset runs.jsonl --param np=1,2,4 -- mpirun.openmpi -n {np} ./app");
  std::vector<learn::SweepParameter> parameters;
  for (const auto& p : a.parameters) parameters.push_back(learn::parse_sweep_parameter(p));
  if (parameters.empty()) throw UserError("no parameter to sweep", {"", {}, "--param"}, "e.g. --param n=16:64:16");
  std::vector<learn::SweepPoint> points = learn::sweep_points(parameters, a.samples, a.seed);
  for (const auto& point : points) learn::sweep_command(a.command, parameters, point);  // every template error first

  const fs::path dataset = fs::absolute(a.dataset);
  std::set<std::string> done;
  if (fs::exists(dataset)) {
    learn::RecordFile file = learn::parse_feature_records(slurp(dataset), dataset.string());
    for (const auto& r : file.records) done.insert(r.label);
  }
  if (a.dry_run) {
    for (const auto& point : points) {
      std::string line = done.count(point.label) ? "done  " : "to run";
      for (const auto& w : learn::sweep_command(a.command, parameters, point)) line += " " + w;
      std::cout << line << "\n";
    }
    return;
  }

  ProgressLine progress;
  size_t ran = 0, skipped = 0, failed = 0;
  auto started = std::chrono::steady_clock::now();
  for (size_t i = 0; i < points.size(); ++i) {
    const auto& point = points[i];
    if (done.count(point.label)) {
      ++skipped;
      continue;
    }
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    progress.show(fmt::format("[{}/{}] {}  ({} run, {} already in the dataset, {} failed, {:.0f} s)", i + 1,
                              points.size(), point.label, ran, skipped, failed, elapsed));
    std::vector<std::string> command =
        feature_launch(learn::sweep_command(a.command, parameters, point), {kFeaturesDatasetVariable, kFeaturesLabelVariable});
    const auto before = fs::exists(dataset) ? fs::file_size(dataset) : 0;
    ProcessResult r = run_process(command, std::chrono::duration<double>(a.timeout_s),
                                  {{kFeaturesDatasetVariable, dataset.string()}, {kFeaturesLabelVariable, point.label}});
    bool appended = fs::exists(dataset) && fs::file_size(dataset) > before;
    if (r.exit_code == 0 && appended) {
      ++ran;
      continue;
    }
    ++failed;
    progress.end();
    std::string why = r.timed_out ? fmt::format("ran past {} s", a.timeout_s)
                      : r.exit_code != 0 ? fmt::format("exited with status {}", r.exit_code)
                                         : "appended no record (is the program built with perfcast cc --features?)";
    std::cerr << fmt::format("warning: {} {}; the sweep goes on\n{}", point.label, why, last_lines(r.stderr_text, 5));
  }
  progress.end();
  std::cout << fmt::format("{}: {} points run, {} already there, {} failed\n", dataset.string(), ran, skipped, failed);
  if (failed > 0 && ran == 0 && skipped == 0)
    throw UserError("every point failed", {}, "run one point by hand with `perfcast run` to see why");
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto a = std::make_shared<SweepArgs>();
  CLI::App* cmd = app.add_subcommand(
      "sweep", "Run an instrumented program over a grid (or random sample) of parameters, appending a feature record "
               "per point; a rerun skips the points already recorded");
  cmd->add_option("--dataset", a->dataset, "record file the runs append to")->required();
  cmd->add_option("--param", a->parameters, "NAME=a,b,c or NAME=first:last:step or NAME=first:last:*factor; "
                                            "{NAME} in the command takes each value")
      ->required()
      ->allow_extra_args(false);  // one value per --param, so `--param a=1 -- cmd` ends at --
  cmd->add_option("--samples", a->samples, "run this many random points of the grid instead of all");
  cmd->add_option("--seed", a->seed, "seed of the random points")->capture_default_str();
  cmd->add_option("--timeout", a->timeout_s, "seconds one run may take")->capture_default_str();
  cmd->add_flag("--dry-run", a->dry_run, "print each point's command and whether it is done, run nothing");
  cmd->add_option("command", a->command, "the command, after --, with {NAME} words")->required();
  cmd->callback([a] { run_sweep(*a); });
}

}  // namespace perfcast::cli
