// What `perfcast run` and `perfcast sweep` share: the variables that tell the
// feature runtime (src/features/feature_abi.h, C for the runtime's sake) where
// to append and what label to write, passed on to the ranks.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "learn/feature_records.h"

namespace perfcast::cli {

inline constexpr const char* kFeaturesDatasetVariable = "PERFCAST_FEATURES_DATASET";
inline constexpr const char* kFeaturesLabelVariable = "PERFCAST_FEATURES_LABEL";
inline constexpr const char* kFeaturesPerRankVariable = "PERFCAST_FEATURES_PER_RANK";

// Open MPI's launcher passes a variable to the ranks only when told to (-x).
inline std::vector<std::string> feature_launch(const std::vector<std::string>& command,
                                               const std::vector<std::string>& variables) {
  std::vector<std::string> out = command;
  if (command.empty()) return out;
  std::string launcher = std::filesystem::path(command.front()).filename().string();
  if (launcher == "mpirun.openmpi" || launcher == "mpiexec.openmpi" || launcher == "orterun")
    for (auto it = variables.rbegin(); it != variables.rend(); ++it) out.insert(out.begin() + 1, {"-x", *it});
  return out;
}

// Runs a command (a program built with `perfcast cc --features`, usually
// under mpirun.openmpi) with the feature runtime told to append to
// `dataset_file` (and, when `label` is not empty, to label the record with
// it; with `every_rank`, to add each rank's values where they differ), and
// returns the record it appended (run.cpp). A failed run, or one that
// appended nothing, is a UserError saying so.
learn::FeatureRecord run_and_read_record(const std::vector<std::string>& command, const std::string& dataset_file,
                                         const std::string& label = "", bool every_rank = false);

}  // namespace perfcast::cli
