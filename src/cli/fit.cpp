// `perfcast fit`: measured kernel times at a few sizes -> a compute-time model
// for a skeleton's BSIM_Add_time, as a table, JSON or a C function.
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "fit/fit.h"
#include "fit/text.h"
#include "report/table.h"
#include "support/error.h"
#include "support/units.h"

namespace perfcast::cli {

namespace {

using units::Dimension;

struct FitArgs {
  std::string data_file;
  std::string x_column;
  std::string model = "auto";
  int segments = 0;  // 0: chosen
  std::string join = "auto";
  bool origin = false;
  std::string weights = "relative";
  bool json = false;
  std::string emit;
  std::string name;
  std::vector<double> predict;
};

std::string seconds(double s) { return units::format(s, Dimension::Seconds, 4); }
std::string percent(double fraction) { return fmt::format("{:.2f} %", 100 * fraction); }
std::string percent(const std::optional<double>& fraction) { return fraction ? percent(*fraction) : "n/a"; }
std::string number(double v) { return fmt::format("{:.4g}", v); }

fit::FitOptions options_of(const FitArgs& a) {
  fit::FitOptions o;
  using Choice = fit::FitOptions::Choice;
  o.model = a.model == "linear" ? Choice::Linear
            : a.model == "piecewise" ? Choice::Piecewise
            : a.model == "power" ? Choice::Power
                                 : Choice::Auto;
  if (a.segments) o.segments = a.segments;
  o.join = a.join == "continuous" ? fit::Join::Continuous
           : a.join == "discontinuous" ? fit::Join::Discontinuous
                                       : fit::Join::Auto;
  o.through_origin = a.origin;
  o.weighting = a.weights == "equal" ? fit::Weighting::Equal : fit::Weighting::Relative;
  return o;
}

nlohmann::json optional_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

nlohmann::json model_json(const fit::FitResult& r) {
  const fit::Model& m = r.model;
  nlohmann::json segments = nlohmann::json::array();
  for (const auto& s : m.segments)
    segments.push_back({{"x_from", s.x_from},
                        {"x_to", s.x_to},
                        {"intercept_s", s.intercept_s},
                        {"slope_s_per_x", s.slope_s_per_x}});
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : r.points)
    points.push_back({{"x", p.x},
                      {"time_s", p.time_s},
                      {"predicted_s", p.predicted_s},
                      {"residual_s", p.residual_s},
                      {"relative_error", p.relative_error},
                      {"loo_predicted_s", optional_json(p.loo_predicted_s)},
                      {"loo_relative_error", optional_json(p.loo_relative_error)}});
  nlohmann::json j = {{"label", m.label()},
                      {"kind", fit::kind_name(m.kind)},
                      {"parameters", m.parameter_count()},
                      {"through_origin", m.through_origin},
                      {"r_squared", r.r_squared},
                      {"rms_relative_error", r.rms_relative_error},
                      {"max_abs_relative_error", r.max_abs_relative_error},
                      {"bic", r.bic},
                      {"loo",
                       {{"mean_abs_relative_error", optional_json(r.loo_mean_abs_relative_error)},
                        {"max_abs_relative_error", optional_json(r.loo_max_abs_relative_error)},
                        {"standard_error", optional_json(r.loo_standard_error)},
                        {"rms_s", optional_json(r.loo_rms_s)}}},
                      {"points", points}};
  if (m.kind == fit::ModelKind::Power) {
    j["power"] = {{"coefficient_s", m.power_coefficient_s}, {"exponent", m.power_exponent}};
  } else {
    j["segments"] = segments;
    j["breakpoints"] = m.breakpoints;
    if (m.kind == fit::ModelKind::Piecewise) j["continuous"] = m.continuous;
  }
  return j;
}

void print_json(const fit::Measurements& data, const fit::FitReport& report,
                const std::vector<fit::Prediction>& predictions, const FitArgs& a) {
  nlohmann::json samples = nlohmann::json::array();
  for (const auto& s : data.samples) samples.push_back({{"x", s.x}, {"time_s", s.time_s}, {"repeats", s.repeats}});
  nlohmann::json models = nlohmann::json::array();
  for (const auto& c : report.candidates) models.push_back(model_json(c));
  nlohmann::json preds = nlohmann::json::array();
  for (const auto& p : predictions)
    preds.push_back({{"x", p.x}, {"time_s", p.time_s}, {"extrapolated", p.extrapolated}});
  nlohmann::json doc = {{"source", data.source},
                        {"x", data.x_name},
                        {"variables", data.variables},
                        {"rows", data.rows},
                        {"samples", samples},
                        {"weighting", a.weights},
                        {"models", models},
                        {"chosen", report.chosen},
                        {"chosen_label", report.best().model.label()},
                        {"notes", report.notes},
                        {"predictions", preds}};
  std::cout << doc.dump(2) << "\n";
}

void print_table(const fit::Measurements& data, const fit::FitReport& report,
                 const std::vector<fit::Prediction>& predictions, const FitArgs& a) {
  const std::string& x = data.x_name;
  int runs = 0;
  for (const auto& s : data.samples) runs += s.repeats;
  std::cout << fmt::format("{}: {} sizes of {} from {} to {} ({} runs, median per size); fits minimise {} error\n\n",
                           data.source, data.samples.size(), x, number(data.x_min()), number(data.x_max()), runs,
                           a.weights == "equal" ? "absolute" : "relative");

  using Align = report::Table::Align;
  report::Table models({"model", "params", "R²", "max err", "LOO mean", "LOO max", "BIC", "coefficients"},
                       {Align::Left, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right,
                        Align::Right, Align::Left});
  for (size_t i = 0; i < report.candidates.size(); ++i) {
    const auto& c = report.candidates[i];
    models.add_row({(i == report.chosen ? "* " : "  ") + c.model.label(), std::to_string(c.model.parameter_count()),
                    fmt::format("{:.6f}", c.r_squared), percent(c.max_abs_relative_error),
                    percent(c.loo_mean_abs_relative_error), percent(c.loo_max_abs_relative_error),
                    fmt::format("{:.1f}", c.bic), fit::describe(c.model, x)});
  }
  std::cout << models.render();
  std::cout << "(* chosen; LOO: leave-one-out, each size predicted by the model refitted without it — the error to "
               "expect at a size not measured)\n";
  for (const auto& n : report.notes) std::cout << "note: " << n << "\n";

  const fit::FitResult& best = report.best();
  const fit::Model& m = best.model;
  std::cout << fmt::format("\n{}: {}\n", m.label(), fit::describe(m, x));
  if (m.kind != fit::ModelKind::Power) {
    const bool flops = fit::x_unit(x) == "flop";
    std::vector<std::string> headers = {"segment", "from " + x, "to " + x, "slope", "intercept"};
    if (flops) headers.push_back("rate");
    report::Table segs(headers);
    for (size_t j = 0; j < m.segments.size(); ++j) {
      const auto& s = m.segments[j];
      std::vector<std::string> row = {std::to_string(j + 1), j == 0 ? "" : number(s.x_from),
                                      j + 1 == m.segments.size() ? "" : number(s.x_to),
                                      fit::format_slope(s.slope_s_per_x, x), seconds(s.intercept_s)};
      // The rate a segment's slope stands for, the figure machine files carry.
      if (flops) row.push_back(s.slope_s_per_x > 0 ? units::format(1 / s.slope_s_per_x, Dimension::FlopsPerSecond) : "");
      segs.add_row(row);
    }
    std::cout << segs.render();
  }

  report::Table pts({x, "runs", "measured", "fitted", "error", "LOO predicted", "LOO error"});
  for (size_t i = 0; i < best.points.size(); ++i) {
    const auto& p = best.points[i];
    pts.add_row({number(p.x), std::to_string(data.samples[i].repeats), seconds(p.time_s), seconds(p.predicted_s),
                 fmt::format("{:+.2f} %", 100 * p.relative_error),
                 p.loo_predicted_s ? seconds(*p.loo_predicted_s) : "n/a",
                 p.loo_relative_error ? fmt::format("{:+.2f} %", 100 * *p.loo_relative_error) : "n/a"});
  }
  std::cout << "\n" << pts.render();
  std::cout << fmt::format("R² {:.6f}; error at the measured sizes: rms {}, max {}; leave-one-out: mean {}, max {}\n",
                           best.r_squared, percent(best.rms_relative_error), percent(best.max_abs_relative_error),
                           percent(best.loo_mean_abs_relative_error), percent(best.loo_max_abs_relative_error));

  if (!predictions.empty()) {
    report::Table pred({x, "predicted", "note"}, {Align::Right, Align::Right, Align::Left});
    for (const auto& p : predictions)
      pred.add_row({number(p.x), seconds(p.time_s),
                    p.extrapolated ? fmt::format("extrapolated: outside the measured {} .. {}", number(data.x_min()),
                                                 number(data.x_max()))
                                   : ""});
    std::cout << "\n" << pred.render();
  }
}

}  // namespace

void add_fit_command(CLI::App& app) {
  auto a = std::make_shared<FitArgs>();
  CLI::App* cmd = app.add_subcommand(
      "fit",
      "Fit a compute-time model to measured kernel times (the BSIM method's cost for BSIM_Add_time): linear, "
      "piecewise linear with up to 3 segments, or a power law, chosen by leave-one-out cross-validation.");
  cmd->add_option("data", a->data_file,
                  "Measurements: CSV with a header (a work measure such as flops, and time_s; rows of one size are "
                  "repeats, summarised by their median) or JSON rows of the same fields")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--x", a->x_column, "The work-measure column to fit against, when the data have several");
  cmd->add_option("--model", a->model, "auto (best by cross-validated error), linear, piecewise or power")
      ->check(CLI::IsMember({"auto", "linear", "piecewise", "power"}))
      ->capture_default_str();
  cmd->add_option("--segments", a->segments, "Piecewise: exactly this many segments (1-3) instead of choosing")
      ->check(CLI::Range(1, 3));
  cmd->add_option("--join", a->join, "Piecewise: continuous, discontinuous, or auto (both tried)")
      ->check(CLI::IsMember({"auto", "continuous", "discontinuous"}))
      ->capture_default_str();
  cmd->add_flag("--origin", a->origin, "Lines through the origin (no constant time), as the paper's dgemm cost");
  cmd->add_option("--weights", a->weights,
                  "relative: minimise relative errors (timing noise grows with time); equal: absolute errors")
      ->check(CLI::IsMember({"relative", "equal"}))
      ->capture_default_str();
  auto* json = cmd->add_flag("--json", a->json, "Print the figures as JSON");
  auto* emit = cmd->add_option("--emit", a->emit, "Print the chosen model as a C function for a skeleton")
                   ->check(CLI::IsMember({"c"}));
  cmd->add_option("--name", a->name, "Name of the emitted C function (default: <data file stem>_time)");
  cmd->add_option("--predict", a->predict, "Evaluate the chosen model at these x (extrapolation is flagged)");
  json->excludes(emit);
  cmd->footer(
      "Example: perfcast fit dgemm.csv --x flops --emit c > dgemm_time.h, then BSIM_Add_time(dgemm_time(2.0*n*n*n)) "
      "in the skeleton.");

  cmd->callback([a] {
    fit::Measurements data = fit::read_measurements(a->data_file, a->x_column);
    fit::FitReport report = fit::fit(data, options_of(*a));
    std::vector<fit::Prediction> predictions;
    for (double x : a->predict) predictions.push_back(fit::predict(data, report.best().model, x));
    if (!a->emit.empty()) {
      std::string name = fit::c_identifier(a->name.empty() ? fit::default_function_name(a->data_file) : a->name);
      std::cout << fit::emit_c(data, report.best(), name);
      for (const auto& p : predictions)
        std::cout << fmt::format("/* {}({}) = {:.6g} s{} */\n", name, number(p.x), p.time_s,
                                 p.extrapolated ? ", extrapolated" : "");
    } else if (a->json) {
      print_json(data, report, predictions, *a);
    } else {
      print_table(data, report, predictions, *a);
    }
  });
}

}  // namespace perfcast::cli
