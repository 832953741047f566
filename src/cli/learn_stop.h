// `perfcast learn predict MODEL --run -- COMMAND...`: runs a program built
// with feature probes, stops it once every rank's copy of the model's
// features has settled, and predicts the whole run from them (learn_stop.cpp;
// docs/learn.md, "Stopping a run early").
#pragma once

#include <string>
#include <vector>

namespace perfcast::cli {

struct EarlyStopArgs {
  std::string model;
  std::vector<std::string> command;
  std::string run_dir;      // reports and the job's output; a temporary one when empty
  double settle_s = 0.1;    // every feature unchanged this long before a rank reports
  double max_epoch = 0.25;  // refuse a model reading a feature final only after this share of a run
  bool json = false;
};

void predict_with_early_stop(const EarlyStopArgs& args);

}  // namespace perfcast::cli
