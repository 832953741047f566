// Internal: the analyser's function models as the program model's JSON
// (docs/program-model.md), the format model::load_program_model reads.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "analyze/module_context.h"
#include "analyze/program_tree.h"

namespace perfcast::analyze::detail {

// One item and the items nested in it.
nlohmann::ordered_json item_json(const Node& n);

// The model's parameters: every free name the functions use that nothing
// binds (loop indices, a function's arguments, rank, size and the grid's
// dims), with its description and default where the analysis gave one.
nlohmann::ordered_json parameters_json(const std::map<std::string, FunctionModel>& functions,
                                       const std::map<std::string, ParamInfo>& descriptions);

// The model's functions by name: line, parameters, body.
nlohmann::ordered_json functions_json(const std::map<std::string, FunctionModel>& functions);

}  // namespace perfcast::analyze::detail
