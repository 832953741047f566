// `--param NAME=VALUE` for commands that bind a program model's parameters.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "model/program_model.h"
#include "support/expr.h"

namespace perfcast::cli {

CLI::Option* add_parameter_option(CLI::App& command, std::vector<std::string>& params);

// "nx=512" -> {"nx", 512}; the value is an integer or a real. Throws UserError.
std::map<std::string, expr::Value> parse_parameters(const std::vector<std::string>& params);

// Like parse_parameters, and a value that is an expression of `rank` and
// `size` (or of other parameters), e.g. --param up="select(rank < size - 1,
// rank + 1, -1)", becomes that parameter's default in `model`: evaluated per
// rank, as the model's own defaults are. Throws UserError for a name the model
// does not have.
std::map<std::string, expr::Value> bind_parameters(model::ProgramModel& model, const std::vector<std::string>& params);

// Refuses (UserError) a job of `np` ranks that reads a parameter a probe run
// on another process count bound for its count only (read on no path it
// took, or each rank's own value) and `params` do not bind
// (model/probe_paths.h): its value is no measure there.
void refuse_paths_the_probe_run_did_not_take(const model::ProgramModel& model, int np,
                                             const std::vector<std::string>& params);

// `params` with each of `replacements` (NAME=VALUE, given with `flag`) in
// place of the one of its name, or added: a baseline's parameters from the
// run's. Throws UserError for a replacement that is not NAME=VALUE or names a
// parameter twice.
std::vector<std::string> with_replaced(const std::vector<std::string>& params,
                                       const std::vector<std::string>& replacements, const std::string& flag);

}  // namespace perfcast::cli
