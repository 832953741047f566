// `perfcast measure`: time a real MPI run the way every perfcast accuracy figure
// is measured (repeats, median and IQR, pinned ranks, oversubscription labelled).
#include <iostream>

#include <fmt/format.h>

#include "cli/count_checks.h"
#include "cli/commands.h"
#include "measure/timing.h"
#include "report/table.h"
#include "support/units.h"

namespace perfcast::cli {

namespace {

struct MeasureOptions {
  int ranks = 1;
  measure::TimingOptions timing;
  bool no_pin = false;
  bool yield = false;
  bool json = false;
  bool quiet = false;
  std::vector<std::string> program;
};

std::string seconds(double s) { return units::format(s, units::Dimension::Seconds, 4); }

void print_table(const measure::TimingResult& r) {
  std::string label = r.oversubscribed
                          ? fmt::format("{} ranks on {} cores: OVERSUBSCRIBED (times serve counts and "
                                        "correctness, not timing)",
                                        r.ranks, r.cores)
                          : fmt::format("{} ranks on {} cores, {}", r.ranks, r.cores,
                                        r.pinned ? (r.busy_poll ? "pinned to cores, waiting ranks busy-poll"
                                                                : "pinned to cores, waiting ranks yield")
                                                 : "not pinned, waiting ranks yield");
  std::cout << label << "\n";
  std::string command;
  for (const auto& w : r.command) command += (command.empty() ? "" : " ") + w;
  std::cout << "command: " << command << "\n\n";

  report::Table table({"time", "median", "IQR", "IQR/median", "min", "max", "runs"});
  auto row = [&](const std::string& name, const measure::Summary& s) {
    table.add_row({name + (r.oversubscribed ? " (oversubscribed)" : ""), seconds(s.median), seconds(s.iqr()),
                   fmt::format("{:.1f} %", 100 * s.relative_iqr()), seconds(s.min), seconds(s.max),
                   std::to_string(s.count)});
  };
  row("wall (whole launch)", r.wall);
  if (r.app_time) row("app (its own time)", *r.app_time);
  std::cout << table.render();
  if (r.app_time)
    std::cout << "\napp time: " << r.app_time_source << "\n";
  else
    std::cout << "\nThe program printed no JSON line with \"time_s\" (--time-pattern reads another format); only "
                 "the wall time of the launch (including MPI start-up) is shown.\n";
}

}  // namespace

void add_measure_command(CLI::App& app) {
  auto options = std::make_shared<MeasureOptions>();
  CLI::App* cmd = app.add_subcommand(
      "measure",
      "Time a real MPI run: repeats after warm-up, median and interquartile range, ranks pinned; runs with "
      "more ranks than cores are labelled oversubscribed");
  cmd->add_option("-n,--np", options->ranks, "Number of MPI ranks")->required()->check(kPositiveCount);
  cmd->add_option("-r,--repeats", options->timing.repeats, "Timed runs (median and IQR over these)")
      ->capture_default_str()
      ->check(kPositiveCount);
  cmd->add_option("-w,--warmup", options->timing.warmups, "Untimed warm-up runs first")
      ->capture_default_str()
      ->check(kNonNegativeCount);
  cmd->add_option("--timeout", options->timing.timeout_s, "Seconds allowed per run")->capture_default_str();
  cmd->add_flag("--no-pin", options->no_pin, "Do not bind ranks to cores");
  cmd->add_flag("--yield", options->yield,
                "Waiting ranks yield their cores instead of busy-polling (pinned runs poll by default, as jobs "
                "on dedicated cores do)");
  auto* pattern = cmd->add_option("--time-pattern", options->timing.time_pattern,
                                  "The app's own time: REGEX's first group (seconds) at its last match in stdout (else stderr)");
  cmd->add_option("--time-file", options->timing.time_file,
                  "Search --time-pattern in the newest file matching GLOB each run wrote, not in stdout")
      ->needs(pattern);
  cmd->add_flag("--json", options->json, "Print the figures as JSON");
  cmd->add_flag("-q,--quiet", options->quiet, "No progress on stderr");
  cmd->add_option("program", options->program, "The program and its arguments, after '--'")->required();
  cmd->footer(
      "Example: perfcast measure -n 2 --repeats 5 -- build/apps/wave3d --n 64 --steps 20\n"
      "If the program prints a last JSON line with \"time_s\" (as apps/ do), its own time is summarised too;\n"
      "for other formats: --time-pattern 'Wall clock\\s+([0-9.eE+-]+)'.");

  cmd->callback([options] {
    measure::MpiLaunch launch;
    launch.ranks = options->ranks;
    launch.program = options->program;
    launch.pin = !options->no_pin;
    launch.busy_poll = !options->yield;
    auto progress = [&](int run, int total, bool warmup) {
      if (options->json || options->quiet) return;
      std::cerr << fmt::format("perfcast measure: run {}/{}{}\n", run, total, warmup ? " (warm-up)" : "");
    };
    measure::TimingResult result = measure::time_mpi_runs(launch, options->timing, progress);
    if (options->json) {
      std::cout << measure::to_json(result).dump(2) << "\n";
    } else {
      print_table(result);
    }
  });
}

}  // namespace perfcast::cli
