// `--param NAME=VALUE` for commands that bind a program model's parameters.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "support/expr.h"

namespace perfcast::cli {

CLI::Option* add_parameter_option(CLI::App& command, std::vector<std::string>& params);

// "nx=512" -> {"nx", 512}; the value is an integer or a real. Throws UserError.
std::map<std::string, expr::Value> parse_parameters(const std::vector<std::string>& params);

}  // namespace perfcast::cli
