#include "learn/early_stop.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "support/error.h"

namespace perfcast::learn {

namespace {
constexpr const char* kRanks = "ranks";  // the process count: the launch's, not a probe's
}

StopPlan plan_early_stop(const LearnedModel& model, double settle_s, double max_epoch) {
  if (!(settle_s >= 0)) throw UserError("the settling time must be 0 or more", {"", {}, "--settle"});
  if (!(max_epoch >= 0 && max_epoch <= 1)) throw UserError("must be between 0 and 1", {"", {}, "--max-epoch"});
  if (model.input_epochs.size() != model.inputs.size())
    throw UserError("the model records no epochs, so when its features become final is unknown", {},
                    "learn it again from a feature record file (perfcast run/sweep) with this perfcast");
  StopPlan plan;
  plan.settle_s = settle_s;
  std::vector<std::string> late;
  for (size_t i : model.used_inputs()) {
    const std::string& name = model.inputs[i];
    if (name == kRanks) continue;
    double epoch = model.input_epochs[i];
    if (epoch > max_epoch) late.push_back(fmt::format("{} (epoch {:.2f})", name, epoch));
    plan.features.push_back(name);
    plan.horizon_s = std::max(plan.horizon_s, epoch * model.training_time_s);
  }
  if (!late.empty()) {
    size_t shown = std::min<size_t>(late.size(), 4);
    throw UserError(
        fmt::format("cannot stop early: the model reads {} feature{} final only late in its training runs, past "
                    "{:g} of them: {}{}",
                    late.size(), late.size() == 1 ? "" : "s", max_epoch,
                    fmt::join(late.begin(), late.begin() + static_cast<std::ptrdiff_t>(shown), ", "),
                    late.size() > shown ? ", ..." : ""),
        {"", {}, "--max-epoch"},
        "learn the model with --time-filter (e.g. 0.05) to keep only features known early, or run the program whole "
        "(perfcast run) and use learn predict --features");
  }
  return plan;
}

std::string stop_file_text(const StopPlan& plan, const std::string& report_dir) {
  std::string text = "perfcast-features-stop 1\n";
  text += fmt::format("report_dir {}\n", report_dir);
  text += fmt::format("horizon_ms {}\n", static_cast<unsigned long>(std::ceil(plan.horizon_s * 1e3)));
  text += fmt::format("settle_ms {}\n", static_cast<unsigned long>(std::ceil(plan.settle_s * 1e3)));
  for (const auto& f : plan.features) text += fmt::format("feature {}\n", f);
  return text;
}

std::vector<double> input_row(const LearnedModel& model, const FeatureRecord& record,
                              std::vector<std::string>& missing) {
  std::vector<double> row(model.inputs.size(), 0.0);
  std::vector<size_t> used = model.used_inputs();
  for (size_t i = 0; i < model.inputs.size(); ++i) {
    const std::string& name = model.inputs[i];
    if (name == kRanks) {
      row[i] = record.ranks;
    } else if (auto it = record.features.find(name); it != record.features.end()) {
      row[i] = it->second.value;
    } else if (std::find(used.begin(), used.end(), i) != used.end()) {
      missing.push_back(name);
    }
  }
  return row;
}

}  // namespace perfcast::learn
