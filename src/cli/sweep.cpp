// `perfcast sweep --dataset FILE --param NAME=VALUES... -- COMMAND...`: runs
// an instrumented program at every point of a grid of parameters (or a seeded
// random sample of it), each run appending its feature record labelled with
// its point, to build a dataset for `perfcast learn`. Rerun, it skips the
// points whose label the dataset already holds, so an interrupted sweep
// resumes. A point that fails is reported and the sweep goes on. With
// --slurm the points are submitted as one Slurm job array instead
// (learn/slurm_array.h), and --slurm-status reports where they stand.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
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
#include "learn/slurm_array.h"
#include "learn/sweep_plan.h"
#include "support/error.h"
#include "support/process.h"
#include "support/file_text.h"

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
  bool slurm = false;
  std::string slurm_dir;  // empty: DATASET.slurm
  learn::SlurmOptions slurm_options;
  std::string slurm_status;
};

// The end of a failed run's stderr, for the warning.
std::string last_lines(const std::string& text, size_t count) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::string out;
  for (size_t i = lines.size() > count ? lines.size() - count : 0; i < lines.size(); ++i) out += "  " + lines[i] + "\n";
  return out;
}

// Submits the points not yet recorded as one job array and says how to follow it.
void submit_sweep(const SweepArgs& a, const std::vector<learn::SweepParameter>& parameters,
                  const std::vector<learn::SweepPoint>& points, const std::set<std::string>& done,
                  const fs::path& dataset) {
  learn::SlurmSubmission s;
  s.work_dir = fs::absolute(a.slurm_dir.empty() ? dataset.string() + ".slurm" : a.slurm_dir);
  s.dataset = dataset;
  s.perfcast = fs::read_symlink("/proc/self/exe");
  s.run_dir = fs::current_path();
  s.options = a.slurm_options;
  // Without --slurm-time each task may run as long as --timeout lets a local run.
  if (s.options.time_limit.empty())
    s.options.time_limit = std::to_string(std::max<long>(1, static_cast<long>(std::ceil(a.timeout_s / 60))));
  for (const auto& point : points)
    s.points.push_back({point.label, learn::sweep_command(a.command, parameters, point), done.count(point.label) > 0});
  size_t to_run =
      static_cast<size_t>(std::count_if(s.points.begin(), s.points.end(), [](const auto& p) { return !p.done; }));
  if (to_run == 0) {
    std::cout << fmt::format("{}: all {} points already there; nothing to submit\n", dataset.string(), points.size());
    return;
  }
  std::string job = learn::submit_slurm_array(s);
  std::cout << fmt::format("submitted job {}: {} point{} as array tasks 0-{} ({} already in {})\n", job, to_run,
                           to_run == 1 ? "" : "s", to_run - 1, points.size() - to_run, dataset.string());
  std::cout << fmt::format("follow it: perfcast sweep --slurm-status {}   (logs in {}/logs)\n", s.work_dir.string(),
                           s.work_dir.string());
}

void report_slurm_status(const std::string& work_dir) {
  learn::SlurmArrayStatus st = learn::slurm_array_status(fs::absolute(work_dir));
  for (const auto& note : st.notes) std::cerr << "note: " << note << "\n";
  for (const auto& p : st.points) {
    std::string line = fmt::format("{:<8} {}", learn::to_string(p.state), p.label);
    if (p.task) line += fmt::format("  (task {})", *p.task);
    if (!p.detail.empty()) line += ": " + p.detail;
    if (p.state == learn::SlurmPointState::failed && !p.log.empty()) line += "; log " + p.log.string();
    std::cout << line << "\n";
  }
  using S = learn::SlurmPointState;
  std::cout << fmt::format("job {} into {}: {} done, {} pending, {} running, {} failed, {} unknown\n", st.job_id,
                           st.dataset.string(), st.count(S::done), st.count(S::pending), st.count(S::running),
                           st.count(S::failed), st.count(S::unknown));
}

void run_sweep(const SweepArgs& a) {
  if (!a.slurm_status.empty()) return report_slurm_status(a.slurm_status);
  if (a.dataset.empty()) throw UserError("no dataset file", {"", {}, "--dataset"}, "name the file records go to");
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
    learn::RecordFile file = learn::parse_feature_records(read_file_or_empty(dataset), dataset.string());
    for (const auto& r : file.records) done.insert(r.label);
  }
  if (a.slurm && !a.dry_run) return submit_sweep(a, parameters, points, done, dataset);
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
  cmd->add_option("--dataset", a->dataset, "record file the runs append to (required)");
  cmd->add_option("--param", a->parameters, "NAME=a,b,c or NAME=first:last:step or NAME=first:last:*factor; "
                                            "{NAME} in the command takes each value")
      ->allow_extra_args(false);  // one value per --param, so `--param a=1 -- cmd` ends at --
  cmd->add_option("--samples", a->samples, "run this many random points of the grid instead of all");
  cmd->add_option("--seed", a->seed, "seed of the random points")->capture_default_str();
  cmd->add_option("--timeout", a->timeout_s, "seconds one run may take")->capture_default_str();
  cmd->add_flag("--dry-run", a->dry_run, "print each point's command and whether it is done, run nothing");
  CLI::Option* slurm =
      cmd->add_flag("--slurm", a->slurm, "submit the points not yet recorded to Slurm as one job array, run nothing here");
  cmd->add_option("--slurm-dir", a->slurm_dir, "work directory of the array (script, logs); default DATASET.slurm")
      ->needs(slurm);
  cmd->add_option("--slurm-partition", a->slurm_options.partition, "partition the array runs in")->needs(slurm);
  cmd->add_option("--slurm-time", a->slurm_options.time_limit, "time limit per task, as sbatch --time; default --timeout")
      ->needs(slurm);
  cmd->add_option("--slurm-max-parallel", a->slurm_options.max_parallel, "at most N tasks at once (the array's %N)")
      ->check(CLI::PositiveNumber)
      ->needs(slurm);
  cmd->add_option("--slurm-option", a->slurm_options.sbatch_options, "an option given to sbatch as it is "
                                                                    "(e.g. --slurm-option=--ntasks=4); repeatable")
      ->allow_extra_args(false)
      ->needs(slurm);
  cmd->add_option("--slurm-status", a->slurm_status, "report where the points of the array submitted from WORKDIR stand")
      ->option_text("WORKDIR");
  cmd->add_option("command", a->command, "the command, after --, with {NAME} words");
  cmd->callback([a] { run_sweep(*a); });
}

}  // namespace perfcast::cli
