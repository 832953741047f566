// Writing a program model as JSON (docs/program-model.md): the document
// load_program_model reads back to an equal model, laid out as `perfcast
// analyze` writes it (keys in its order, expressions as text, MCA's cycles as
// numbers where they are constants).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

#include "model/program_model.h"

namespace perfcast::model {

nlohmann::ordered_json program_model_json(const ProgramModel& model);

// The model's "coverage" section (what the analyser could not follow).
nlohmann::ordered_json coverage_json(const Coverage& coverage);

// One item, and the items nested in it.
nlohmann::ordered_json item_json(const Item& item);

// Writes program_model_json(model), indented by 2, to `file`; throws UserError
// when the file cannot be written.
void write_program_model(const ProgramModel& model, const std::filesystem::path& file);

}  // namespace perfcast::model
