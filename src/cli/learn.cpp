// `perfcast learn`: a model of run time learned from runtime features (trees,
// forests and baselines), its importances, its predictions, and the comparison
// of methods by training fraction (docs/learn.md).
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/learn_stop.h"
#include "learn/charts.h"
#include "learn/model_file.h"
#include "report/table.h"
#include "support/error.h"

namespace perfcast::cli {

namespace {

using json = nlohmann::json;
using Align = report::Table::Align;

struct LearnArgs {
  std::string dataset, output, method = "et", epochs, process_feature, size_feature;
  unsigned expand = 1;
  std::optional<double> time_filter, input_filter, importance_filter;
  size_t folds = 5, trees = 100, max_columns = 5000;
  uint64_t seed = 1;
  double interval = 0.9;
  bool json = false;
};

std::string percent(double fraction) { return fmt::format("{:.2f} %", 100 * fraction); }

// Torn records skipped while reading a record file: said on stderr, so --json stays one document.
void print_warnings(const learn::Dataset& d) {
  for (const auto& w : d.warnings) std::cerr << "warning: " << w << "\n";
}

learn::Dataset load_dataset(const std::string& path, const std::string& epochs) {
  learn::Dataset d = learn::read_dataset(path);
  print_warnings(d);
  if (!epochs.empty()) d.epochs = learn::read_epochs(epochs, d.feature_names);
  return d;
}

void run_learn(const LearnArgs& a) {
  if (a.dataset.empty()) throw UserError("no dataset", {"", {}, "DATASET"}, "perfcast learn DATASET.csv -o model.json");
  if (a.output.empty()) throw UserError("no model file to write", {"", {}, "-o"}, "name the model file with -o");
  if (a.folds == 1)
    throw UserError("one fold leaves nothing to test on", {"", {}, "--folds"}, "use 0 (none) or 2 and more");
  learn::Dataset data = load_dataset(a.dataset, a.epochs);
  learn::LearnOptions o{.method = learn::parse_method(a.method),
                        .expand = a.expand,
                        .time_filter = a.time_filter,
                        .input_filter = a.input_filter,
                        .importance_filter = a.importance_filter,
                        .trees = a.trees,
                        .seed = a.seed,
                        .max_columns = a.max_columns,
                        .interval = a.interval};
  o.extrap = {.process_feature = a.process_feature, .size_feature = a.size_feature, .folds = a.folds, .seed = a.seed};
  learn::ModelFile file{learn::fit_learned_model(data, o), data.source, data.rows(), std::nullopt};
  if (a.folds >= 2) file.cross_validation = learn::cross_validate(data, o, a.folds);
  learn::write_model_file(file, a.output);

  const learn::LearnedModel& m = file.model;
  if (a.json) {
    json j = {{"model", a.output},
              {"rows", data.rows()},
              {"features", data.feature_names},
              {"method", a.method},
              {"columns", m.expansion.monomials.size()},
              {"kept", m.kept_names},
              {"time_filtered_out", m.time_filtered_out},
              {"cross_validation", nullptr}};
    if (file.cross_validation)
      j["cross_validation"] = {{"folds", file.cross_validation->folds},
                               {"mean_relative_error", file.cross_validation->mean_relative_error},
                               {"fold_errors", file.cross_validation->fold_errors}};
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("{}: {} rows, {} features; method {}", data.source, data.rows(), data.feature_names.size(),
                           a.method);
  if (o.method != learn::Method::Extrap && a.expand > 1)
    std::cout << fmt::format(", expanded to degree {} ({} columns)", a.expand, m.expansion.monomials.size());
  std::cout << fmt::format("; {} column{} kept\n", m.kept.size(), m.kept.size() == 1 ? "" : "s");
  if (!m.time_filtered_out.empty())
    std::cout << fmt::format("time filter dropped {} feature{} not known by {} of the run\n",
                             m.time_filtered_out.size(), m.time_filtered_out.size() == 1 ? "" : "s",
                             percent(*a.time_filter));
  if (const auto* e = std::get_if<learn::ExtrapModel>(&m.estimator)) std::cout << "model: t = " << e->formula() << "\n";
  if (file.cross_validation)
    std::cout << fmt::format("cross-validated mean relative error ({} folds): {}\n", file.cross_validation->folds,
                             percent(file.cross_validation->mean_relative_error));
  std::cout << "model written to " << a.output << "\n";
}

std::vector<learn::Bar> bars_of(const learn::LearnedModel& m) {
  std::vector<learn::Bar> bars;
  for (size_t i = 0; i < m.kept_names.size() && i < m.importances.size(); ++i)
    bars.push_back({m.kept_names[i], m.importances[i]});
  return bars;
}

void run_show(const std::string& path, const std::string& svg, bool as_json) {
  learn::ModelFile file = learn::read_model_file(path);
  const learn::LearnedModel& m = file.model;
  if (!svg.empty()) {
    std::ofstream out(svg);
    out << learn::svg_bar_chart(bars_of(m), fmt::format("Feature importance: {} learned from {}",
                                                        learn::method_name(m.options.method), file.source));
    if (!out) throw UserError("cannot write the SVG file", {svg, std::nullopt, ""}, "check the directory of --svg");
  }
  if (as_json) {
    json j = learn::to_json(file);
    j.erase("estimator");  // the parameters are for machines; show is for the pipeline
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("{}: method {}, learned from {} ({} rows)\n", path, learn::method_name(m.options.method),
                           file.source, file.rows);
  std::cout << fmt::format("inputs: {}\n", fmt::join(m.inputs, ", "));
  if (!m.time_filtered_out.empty())
    std::cout << fmt::format("dropped by the time filter: {}\n", fmt::join(m.time_filtered_out, ", "));
  if (const auto* e = std::get_if<learn::ExtrapModel>(&m.estimator)) std::cout << "model: t = " << e->formula() << "\n";
  if (file.cross_validation)
    std::cout << fmt::format("cross-validated mean relative error ({} folds): {}\n", file.cross_validation->folds,
                             percent(file.cross_validation->mean_relative_error));
  if (m.importances.empty()) {
    std::cout << fmt::format("kept columns: {}\n", fmt::join(m.kept_names, ", "));
  } else {
    std::cout << fmt::format("\nkept columns by importance (mean decrease in impurity):\n");
    std::cout << learn::text_bar_chart(bars_of(m));
  }
  if (!svg.empty()) std::cout << "bar chart written to " << svg << "\n";
}

void run_predict(const std::string& path, const std::string& features, bool as_json) {
  learn::ModelFile file = learn::read_model_file(path);
  const learn::LearnedModel& m = file.model;
  learn::Dataset rows = learn::read_features(features, m.inputs);
  print_warnings(rows);
  json out = json::array();
  bool forest = std::holds_alternative<learn::Forest>(m.estimator);
  report::Table table(forest ? std::vector<std::string>{"row", "predicted", "low", "high", "measured", "error"}
                             : std::vector<std::string>{"row", "predicted", "measured", "error"},
                      std::vector<Align>(forest ? 6 : 4, Align::Right));
  for (size_t r = 0; r < rows.rows(); ++r) {
    learn::Interval p = m.predict(rows.features.row(r));
    json j = {{"row", r + 1}, {"time_s", p.point}, {"low_s", p.low}, {"high_s", p.high}};
    std::string measured = "", error = "";
    if (r < rows.time_s.size()) {
      j["measured_s"] = rows.time_s[r];
      j["relative_error"] = std::abs(p.point - rows.time_s[r]) / rows.time_s[r];
      measured = fmt::format("{:.4g} s", rows.time_s[r]);
      error = percent(j["relative_error"].get<double>());
    }
    out.push_back(j);
    if (forest)
      table.add_row({std::to_string(r + 1), fmt::format("{:.4g} s", p.point), fmt::format("{:.4g} s", p.low),
                     fmt::format("{:.4g} s", p.high), measured, error});
    else
      table.add_row({std::to_string(r + 1), fmt::format("{:.4g} s", p.point), measured, error});
  }
  if (as_json) {
    std::cout
        << json{{"model", path}, {"features", features}, {"interval", m.options.interval}, {"predictions", out}}.dump(2)
        << "\n";
    return;
  }
  std::cout << table.render();
  if (forest)
    std::cout << fmt::format("(low and high: the {:g} % of the trees' predictions around the median)\n",
                             100 * m.options.interval);
}

void run_compare(const std::string& dataset, const std::string& epochs, const learn::CompareOptions& o, bool as_json) {
  learn::Dataset data = load_dataset(dataset, epochs);
  std::vector<learn::CompareCell> cells = learn::compare_methods(data, o);
  if (as_json) {
    json j = json::array();
    for (const auto& c : cells)
      j.push_back({{"method", learn::method_name(c.method)},
                   {"expanded", c.expanded},
                   {"train_fraction", c.train_fraction},
                   {"mean_relative_error", c.mean_relative_error ? json(*c.mean_relative_error) : json()},
                   {"inputs", c.inputs},
                   {"columns", c.columns},
                   {"note", c.note}});
    std::cout
        << json{{"dataset", dataset},
                {"rows", data.rows()},
                {"features", data.feature_names.size()},
                {"expand", o.expand},
                {"time_filter", o.time_filter ? json(*o.time_filter) : json()},
                {"input_filter", o.input_filter ? json(*o.input_filter) : json()},
                {"importance_filter", o.importance_filter ? json(*o.importance_filter) : json()},
                {"repeats", o.repeats},
                {"cells", j}}
               .dump(2)
        << "\n";
    return;
  }
  std::vector<std::string> headers{"method"};
  for (double f : o.train_fractions) headers.push_back(fmt::format("train {:g} %", 100 * f));
  report::Table table(headers);
  std::vector<std::string> notes;
  for (learn::Method method : o.methods)
    for (bool expanded : {false, true}) {
      std::vector<std::string> row{
          fmt::format("{}{}", learn::method_name(method), expanded ? fmt::format(" (degree {})", o.expand) : "")};
      bool any = false;
      for (const auto& c : cells) {
        if (c.method != method || c.expanded != expanded) continue;
        row.push_back(c.mean_relative_error ? percent(*c.mean_relative_error) : "—");
        any = any || c.mean_relative_error.has_value();
        if (!c.note.empty() && c.mean_relative_error == std::nullopt &&
            (notes.empty() || notes.back() != row[0] + ": " + c.note))
          notes.push_back(row[0] + ": " + c.note);
      }
      if (any || !(method == learn::Method::Extrap && expanded)) table.add_row(row);
    }
  std::cout << fmt::format(
      "{}: {} rows; mean relative error on the rows not trained on, {} random split{} per fraction\n\n", dataset,
      data.rows(), o.repeats, o.repeats == 1 ? "" : "s");
  std::cout << table.render();
  for (const auto& n : notes) std::cout << "note: " << n << "\n";
  // What the filtrations left, from the forest's cells at the largest fraction.
  for (const auto& c : cells)
    if (c.method == learn::Method::ExtraTrees && c.train_fraction == o.train_fractions.back() &&
        c.mean_relative_error)
      std::cout << fmt::format("{}: {} features -> {:.1f} inputs -> {:.1f} columns (et, train {:g} %, mean over splits)\n",
                               c.expanded ? fmt::format("degree {}", o.expand) : "no expansion",
                               data.feature_names.size(), c.inputs, c.columns, 100 * c.train_fraction);
}

}  // namespace

void add_learn_command(CLI::App& app) {
  auto a = std::make_shared<LearnArgs>();
  CLI::App* cmd = app.add_subcommand(
      "learn", "Learn a model of run time from runtime features (trees and baselines); see docs/learn.md.");
  cmd->require_subcommand(0, 1);
  cmd->add_option("dataset", a->dataset, "runs: a CSV (features, time_s, optional ranks and command) or a feature record file");
  cmd->add_option("-o,--output", a->output, "model file to write (JSON)");
  cmd->add_option("--method", a->method, "et, rf, ridge, lasso, svr or extrap")->capture_default_str();
  cmd->add_option("--expand", a->expand, "polynomial expansion degree (1: none)")->capture_default_str();
  cmd->add_option("--time-filter", a->time_filter, "keep features known by this fraction of the run (e.g. 0.05)");
  cmd->add_option("--input-filter", a->input_filter,
                  "before expanding, keep the most important inputs up to this cumulated importance (e.g. 0.95)");
  cmd->add_option("--importance-filter", a->importance_filter,
                  "keep the most important features up to this cumulated importance (e.g. 0.95)");
  cmd->add_option("--epochs", a->epochs, "side file of feature,epoch rows");
  cmd->add_option("--folds", a->folds, "cross-validation folds (0: none)")->capture_default_str();
  cmd->add_option("--seed", a->seed, "random seed of forests and folds")->capture_default_str();
  cmd->add_option("--trees", a->trees, "trees per forest")->capture_default_str();
  cmd->add_option("--interval", a->interval, "share of the trees a forest's interval covers")->capture_default_str();
  cmd->add_option("--max-columns", a->max_columns, "refuse expansions wider than this")->capture_default_str();
  cmd->add_option("--process-feature", a->process_feature, "extrap: the process count feature (default ranks)");
  cmd->add_option("--size-feature", a->size_feature, "extrap: the size parameter (default: the best fitting)");
  cmd->add_flag("--json", a->json, "print JSON");
  cmd->callback([cmd, a] {
    if (cmd->get_subcommands().empty()) run_learn(*a);
  });

  auto show = std::make_shared<std::pair<std::string, std::string>>();
  auto show_json = std::make_shared<bool>(false);
  CLI::App* show_cmd = cmd->add_subcommand("show", "Kept features of a model and their importances.");
  show_cmd->add_option("model", show->first, "model file")->required();
  show_cmd->add_option("--svg", show->second, "also write the importances as an SVG bar chart");
  show_cmd->add_flag("--json", *show_json, "print JSON");
  show_cmd->callback([show, show_json] { run_show(show->first, show->second, *show_json); });

  auto predict = std::make_shared<std::pair<std::string, std::string>>();
  auto predict_json = std::make_shared<bool>(false);
  auto early = std::make_shared<EarlyStopArgs>();
  auto run_flag = std::make_shared<bool>(false);
  CLI::App* predict_cmd = cmd->add_subcommand(
      "predict", "Predict the time of each row of a features file, or of a run stopped once the model's features are known.");
  predict_cmd->add_option("model", predict->first, "model file")->required();
  auto* features_opt =
      predict_cmd->add_option("--features", predict->second, "CSV or record file with the model's input features");
  auto* run_opt = predict_cmd->add_flag("--run", *run_flag, "run the command after --, stop it early and predict it");
  features_opt->excludes(run_opt);
  predict_cmd->add_option("--run-dir", early->run_dir, "--run: directory for the ranks' reports and the job's output");
  predict_cmd->add_option("--settle", early->settle_s, "--run: seconds every feature must stay unchanged")
      ->capture_default_str();
  predict_cmd->add_option("--max-epoch", early->max_epoch,
                          "--run: refuse models reading a feature final only after this share of a run")
      ->capture_default_str();
  predict_cmd->add_option("command", early->command, "--run: the command, after --");
  predict_cmd->add_flag("--json", *predict_json, "print JSON");
  predict_cmd->callback([predict, predict_json, early, run_flag] {
    if (*run_flag) {
      early->model = predict->first;
      early->json = *predict_json;
      predict_with_early_stop(*early);
      return;
    }
    if (!early->command.empty())
      throw UserError("a command to run needs --run", {"", {}, "--run"},
                      "perfcast learn predict model.json --run -- mpirun.openmpi -n 4 ./app args");
    if (predict->second.empty())
      throw UserError("nothing to predict", {"", {}, "--features"}, "give --features FILE, or --run -- COMMAND");
    run_predict(predict->first, predict->second, *predict_json);
  });

  auto compare = std::make_shared<learn::CompareOptions>();
  auto compare_args = std::make_shared<std::pair<std::string, std::string>>();
  auto compare_json = std::make_shared<bool>(false);
  CLI::App* compare_cmd = cmd->add_subcommand(
      "compare", "Mean relative error by training fraction for every method, with and without expansion.");
  compare_cmd->add_option("dataset", compare_args->first, "CSV or record file of runs")->required();
  compare_cmd->add_option("--train-fractions", compare->train_fractions, "shares of the rows to train on")
      ->delimiter(',')
      ->capture_default_str();
  compare_cmd->add_option("--expand", compare->expand, "degree of the expanded rows")->capture_default_str();
  compare_cmd->add_option("--time-filter", compare->time_filter, "in every cell: keep features known by this fraction of the run");
  compare_cmd->add_option("--input-filter", compare->input_filter,
                          "in every cell but Extra-P's: before expanding, keep the inputs up to this cumulated importance");
  compare_cmd->add_option("--importance-filter", compare->importance_filter,
                          "in every cell but Extra-P's: after expanding, keep the columns up to this cumulated importance");
  compare_cmd->add_option("--process-feature", compare->extrap.process_feature,
                          "extrap: the process count feature (default ranks)");
  compare_cmd->add_option("--size-feature", compare->extrap.size_feature,
                          "extrap: the size parameter (default: the best fitting of every feature, slow with hundreds)");
  compare_cmd->add_option("--max-columns", compare->max_columns, "refuse expansions wider than this")->capture_default_str();
  compare_cmd->add_option("--repeats", compare->repeats, "random splits per fraction")->capture_default_str();
  compare_cmd->add_option("--trees", compare->trees, "trees per forest")->capture_default_str();
  compare_cmd->add_option("--seed", compare->seed, "random seed")->capture_default_str();
  compare_cmd->add_option("--epochs", compare_args->second, "side file of feature,epoch rows");
  compare_cmd->add_flag("--json", *compare_json, "print JSON");
  compare_cmd->callback([compare, compare_args, compare_json] {
    run_compare(compare_args->first, compare_args->second, *compare, *compare_json);
  });
}

}  // namespace perfcast::cli
