// Internal: the analyser's function models as the program model's own types
// (model/program_model.h), which model_write.h writes as the program model's
// JSON. Expressions are simplified here, and MCA's figures rounded to what
// they mean (hundredths of a cycle).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "analyze/module_context.h"
#include "analyze/program_tree.h"
#include "model/program_model.h"

namespace perfcast::analyze::detail {

// One item and the items nested in it.
model::Item to_model_item(const Node& n);

// The model's parameters, in name order: every free name the functions use
// that nothing binds (loop indices, a function's arguments, rank, size and
// the grid's dims), with its description and default where the analysis gave one.
std::vector<model::Parameter> model_parameters(const std::map<std::string, FunctionModel>& functions,
                                               const std::map<std::string, ParamInfo>& descriptions);

// The model's coverage: what the functions the model reaches from `entry`
// (by its calls) left unresolved or guessed, as the analysis recorded it
// where it decided; `reachable` are the functions the program may run (by
// calls or through pointers), `defined` those the IR defines.
model::Coverage model_coverage(const std::map<std::string, FunctionModel>& functions, const std::string& entry,
                               int defined, const std::set<std::string>& reachable);

// The model's functions by name: line, parameters, body.
std::map<std::string, model::Function> model_functions(const std::map<std::string, FunctionModel>& functions);

}  // namespace perfcast::analyze::detail
