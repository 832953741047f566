#include "cli/parameters.h"

#include <fmt/format.h>

#include "support/error.h"

namespace perfcast::cli {

CLI::Option* add_parameter_option(CLI::App& command, std::vector<std::string>& params) {
  return command
      .add_option("-p,--param", params,
                  "Bind a model parameter, e.g. --param nx=512 (repeatable; 'perfcast model params' lists them)")
      ->type_name("NAME=VALUE")
      ->allow_extra_args(false);
}

std::map<std::string, expr::Value> parse_parameters(const std::vector<std::string>& params) {
  std::map<std::string, expr::Value> out;
  for (const auto& p : params) {
    auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == p.size())
      throw UserError(fmt::format("--param '{}' is not NAME=VALUE", p), {}, "write e.g. --param nx=512");
    std::string name = p.substr(0, eq), text = p.substr(eq + 1);
    // A constant expression, so "2^20" and "64*64" work too.
    expr::Value v;
    try {
      v = expr::evaluate(expr::parse(text), {});
    } catch (const UserError& e) {
      throw UserError(fmt::format("--param {}: '{}' is not a number: {}", name, text, e.what()));
    }
    if (!out.emplace(name, v).second) throw UserError(fmt::format("--param {} is given twice", name));
  }
  return out;
}

}  // namespace perfcast::cli
