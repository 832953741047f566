// `perfcast model show`: what a program model holds and what the analyser
// could not follow to write it (its coverage), for people and for scripts.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "model/program_model.h"

namespace perfcast::report {

// Keys: model, program, source, origin, entry, functions, parameters,
// coverage (the model's section as written, or null: docs/program-model.md).
nlohmann::ordered_json model_summary_json(const model::ProgramModel& model, const std::string& model_file);

// The same as text: a header, then every unresolved call, guessed branch and
// loop of unknown trip count with its site; newline-terminated.
std::string model_summary_text(const model::ProgramModel& model, const std::string& model_file);

}  // namespace perfcast::report
