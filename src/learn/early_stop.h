// Stopping a run once a learned model's features are known (docs/learn.md,
// "Stopping a run early"): a prediction needs only the start of a run when the
// model reads features that are final early. The plan says which features the
// runtime watches, and when a rank may report:
//   * not before the horizon: the latest epoch any of them had in training
//     times the training runs' mean time (a run's total is unknown while it
//     runs, so the training runs' time stands in for it);
//   * and only once every one of them has kept its value for `settle_s`.
// The risk, said in the docs: a feature that changes after it has settled
// (a value assigned again late in the run) makes the prediction wrong.
#pragma once

#include <string>
#include <vector>

#include "learn/feature_records.h"
#include "learn/learner.h"

namespace perfcast::learn {

struct StopPlan {
  std::vector<std::string> features;  // runtime features the model reads (not `ranks`)
  double horizon_s = 0;
  double settle_s = 0;
};

// The plan for `model`. A UserError when the model cannot stop a run early:
// no epochs recorded, or a feature it reads became final only after
// `max_epoch` of the training runs (a loop count known at the end).
StopPlan plan_early_stop(const LearnedModel& model, double settle_s, double max_epoch);

// The stop file the runtime reads (src/features/feature_abi.h).
std::string stop_file_text(const StopPlan& plan, const std::string& report_dir);

// The model's input row from a record: `ranks` its process count, a feature
// the record lacks 0 (named in `missing` when the model reads it).
std::vector<double> input_row(const LearnedModel& model, const FeatureRecord& record,
                              std::vector<std::string>& missing);

}  // namespace perfcast::learn
