// `perfcast learn predict MODEL --run -- COMMAND...` (learn_stop.h): the stop
// file written, the job run until every rank reported (the mechanism of the
// signature mode, trace/launch.h), the reports reduced and the model applied.
#include "cli/learn_stop.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/feature_launch.h"
#include "learn/early_stop.h"
#include "learn/model_file.h"
#include "learn/rank_reports.h"
#include "report/table.h"
#include "support/error.h"
#include "trace/launch.h"
#include "support/file_text.h"

namespace perfcast::cli {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr const char* kStopVariable = "PERFCAST_FEATURES_STOP";  // src/features/feature_abi.h

// A fresh directory for the run: the one asked for (created; it must hold no
// earlier reports), or a temporary one.
fs::path prepare_run_dir(const std::string& asked) {
  if (asked.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = fmt::format("{}/perfcast-stop-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(pattern.data())) throw UserError("cannot create a temporary run directory", {pattern});
    return pattern;
  }
  fs::path dir = fs::absolute(asked).lexically_normal();
  std::error_code error;
  fs::create_directories(dir, error);
  if (error || !fs::is_directory(dir))
    throw UserError("cannot create the directory", {dir.string()}, "choose another run directory with --run-dir");
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name.starts_with("rank-") || name == "final.jsonl")
      throw UserError(fmt::format("holds '{}' from an earlier run: not writing here", name), {dir.string()},
                      "choose another run directory with --run-dir, or empty this one");
  }
  return dir;
}

std::string seconds(double s) { return fmt::format("{:.4g} s", s); }

}  // namespace

void predict_with_early_stop(const EarlyStopArgs& a) {
  if (a.command.empty())
    throw UserError("no command to run", {"", {}, "--"},
                    "perfcast learn predict model.json --run -- mpirun.openmpi -n 4 ./app args");
  learn::ModelFile file = learn::read_model_file(a.model);
  const learn::LearnedModel& m = file.model;
  learn::StopPlan plan = learn::plan_early_stop(m, a.settle_s, a.max_epoch);

  const fs::path dir = prepare_run_dir(a.run_dir);
  const fs::path stop_file = dir / "stop.txt", final_records = dir / "final.jsonl", log = dir / "job.log";
  {
    std::ofstream out(stop_file);
    out << learn::stop_file_text(plan, dir.string());
    if (!out) throw UserError("cannot write", {stop_file.string()});
  }

  // Read each rank's report once it is in place (renamed whole); the job's size from rank 0's.
  std::vector<std::optional<learn::RankReport>> reports;
  std::string bad_report;
  auto report_of = [&](int rank) -> std::optional<learn::RankReport> {
    fs::path path = dir / learn::rank_report_file_name(rank);
    std::error_code ec;
    if (!fs::exists(path, ec)) return std::nullopt;
    try {
      return learn::parse_rank_report(read_file_or_empty(path), path.string());
    } catch (const UserError& e) {
      // Not a report this runtime writes (another version's): the job is not stopped on its account.
      if (bad_report.empty()) bad_report = e.what();
      return std::nullopt;
    }
  };
  trace::RankReportOptions o;
  o.environment = {{kStopVariable, stop_file.string()}, {kFeaturesDatasetVariable, final_records.string()}};
  o.log = log;
  o.marker_variable = kStopVariable;
  o.marker_value = stop_file.string();
  o.job_size = [&]() -> int {
    std::optional<learn::RankReport> first = report_of(0);
    if (first) reports.assign(first->ranks, std::nullopt);
    return first ? first->ranks : 0;
  };
  o.reported = [&](int rank) -> std::optional<long> {
    std::optional<learn::RankReport> r = report_of(rank);
    if (!r) return std::nullopt;
    long pid = r->pid;
    if (rank < static_cast<int>(reports.size())) reports[rank] = std::move(r);
    return pid;
  };
  std::cout.flush();
  trace::SignatureModeRun run =
      trace::run_until_ranks_report(feature_launch(a.command, {kStopVariable, kFeaturesDatasetVariable}), o);

  if (!bad_report.empty()) std::cerr << "warning: a rank's report was unreadable: " << bad_report << "\n";
  // The features: the reduced reports when the job was stopped, else the
  // record its MPI_Finalize wrote (it ended before every rank had reported).
  learn::FeatureRecord record;
  std::string source;
  if (run.stopped) {
    std::vector<learn::RankReport> all;
    for (auto& r : reports)
      if (r) all.push_back(*r);
    std::ostringstream command;
    for (const auto& w : a.command) command << (command.tellp() > 0 ? " " : "") << w;
    record = learn::reduce_rank_reports(all, command.str());
    source = "the ranks' reports";
  } else {
    learn::RecordFile found = learn::parse_feature_records(read_file_or_empty(final_records), final_records.string());
    if (found.records.empty())
      throw UserError(fmt::format("{} ended (status {}) before its ranks reported their features, and recorded none "
                                  "at MPI_Finalize (its output: {})",
                                  a.command.front(), run.status, log.string()),
                      {}, "build the program with `perfcast cc --features` (e.g. CC=perfcast-mpicc)");
    record = found.records.back();
    source = "the record of the whole run";
  }
  std::vector<std::string> missing;
  std::vector<double> row = learn::input_row(m, record, missing);
  learn::Interval p = m.predict(row.data());
  const double executed_s = record.time_s;
  json features = json::object();
  for (size_t i : m.used_inputs()) features[m.inputs[i]] = row[i];

  if (a.json) {
    std::cout << json{{"model", a.model},
                      {"command", a.command},
                      {"run_dir", dir.string()},
                      {"stopped_early", run.stopped},
                      {"exit_status", run.status},
                      {"horizon_s", plan.horizon_s},
                      {"settle_s", plan.settle_s},
                      {"executed_s", executed_s},
                      {"wall_s", run.stopped ? run.reported_s : run.wall_s},
                      {"time_s", p.point},
                      {"low_s", p.low},
                      {"high_s", p.high},
                      {"executed_fraction", p.point > 0 ? executed_s / p.point : 0},
                      {"wall_fraction", p.point > 0 ? (run.stopped ? run.reported_s : run.wall_s) / p.point : 0},
                      {"ranks", record.ranks},
                      {"features", features},
                      {"missing_features", missing}}
                     .dump(2)
              << "\n";
  } else {
    if (run.stopped)
      std::cout << fmt::format(
          "stopped after {} of wall time, {} from MPI_Init: every rank's {} feature{} had settled "
          "(unchanged {}, past {})\n",
          seconds(run.reported_s), seconds(executed_s), plan.features.size(), plan.features.size() == 1 ? "" : "s",
          seconds(plan.settle_s), seconds(plan.horizon_s));
    else
      std::cout << fmt::format(
          "the run ended by itself after {} (status {}) before every rank's features settled; "
          "predicting from its whole record\n",
          seconds(run.wall_s), run.status);
    std::cout << fmt::format("predicted: {} from MPI_Init to MPI_Finalize", seconds(p.point));
    if (p.low != p.high) std::cout << fmt::format(" ({} to {})", seconds(p.low), seconds(p.high));
    const double wall_s = run.stopped ? run.reported_s : run.wall_s;
    std::cout << fmt::format("; executed {:.1f} % of it, and {:.1f} % in wall time with the launch (from {})\n",
                             p.point > 0 ? 100 * executed_s / p.point : 0, p.point > 0 ? 100 * wall_s / p.point : 0,
                             source);
    report::Table table({"feature", "value"}, {report::Table::Align::Left, report::Table::Align::Right});
    for (auto& [name, value] : features.items()) table.add_row({name, fmt::format("{:.10g}", value.get<double>())});
    std::cout << table.render();
    std::cout << fmt::format("the job's output: {}\n", log.string());
  }
  for (const auto& name : missing)
    std::cerr << fmt::format(
        "warning: the run recorded no feature {} (a probe the build lacks?); it is 0 in the "
        "prediction\n",
        name);
}

}  // namespace perfcast::cli
