// The model file of `perfcast learn` (JSON, docs/learn.md): the options, the
// pipeline (inputs, expansion, kept columns with their importances), the
// estimator's parameters, and the cross-validated error when one was computed.
// Reading it back gives the same predictions, bit for bit.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "learn/learner.h"

namespace perfcast::learn {

struct ModelFile {
  LearnedModel model;
  std::string source;  // the dataset it was learned from
  size_t rows = 0;
  std::optional<CrossValidation> cross_validation;
};

nlohmann::json to_json(const ModelFile& file);
// Throws UserError naming `source` and the field for anything missing or mistyped.
ModelFile model_from_json(const nlohmann::json& j, const std::string& source);

void write_model_file(const ModelFile& file, const std::string& path);
ModelFile read_model_file(const std::string& path);

}  // namespace perfcast::learn
