#include "cli/parameters.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "model/probe_paths.h"
#include "model/probe_per_rank.h"
#include "support/error.h"

namespace perfcast::cli {

CLI::Option* add_parameter_option(CLI::App& command, std::vector<std::string>& params) {
  return command
      .add_option("-p,--param", params,
                  "Bind a model parameter, e.g. --param nx=512 (repeatable; 'perfcast model params' lists them)")
      ->type_name("NAME=VALUE")
      ->allow_extra_args(false);
}

namespace {

std::pair<std::string, std::string> split(const std::string& p, const std::string& flag = "--param") {
  auto eq = p.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == p.size())
    throw UserError(fmt::format("{} '{}' is not NAME=VALUE", flag, p), {}, fmt::format("write e.g. {} nx=512", flag));
  return {p.substr(0, eq), p.substr(eq + 1)};
}

}  // namespace

std::map<std::string, expr::Value> bind_parameters(model::ProgramModel& model, const std::vector<std::string>& params) {
  std::vector<std::string> constants;
  for (const auto& p : params) {
    auto [name, text] = split(p);
    expr::Expr e;
    try {
      e = expr::parse(text);
    } catch (const UserError& err) {
      throw UserError(fmt::format("--param {}: '{}' is not an expression: {}", name, text, err.what()));
    }
    if (expr::free_names(e).empty()) {
      constants.push_back(p);
      continue;
    }
    auto it = std::find_if(model.parameters.begin(), model.parameters.end(),
                           [&](const model::Parameter& q) { return q.name == name; });
    if (it == model.parameters.end())
      throw UserError(fmt::format("--param {}: the model has no parameter '{}'", name, name), {},
                      "see 'perfcast model params'");
    it->default_value = e;  // evaluated per rank, with rank, size and the parameters before it
  }
  return parse_parameters(constants);
}

void refuse_paths_the_probe_run_did_not_take(const model::ProgramModel& model, int np,
                                             const std::vector<std::string>& params) {
  std::set<std::string> given;
  for (const auto& p : params) given.insert(split(p).first);
  const std::vector<std::string> off = model::read_off_the_probed_paths(model, np, given);
  if (off.empty()) return;
  int probed = 0;
  std::string names;
  for (std::size_t i = 0; i < off.size() && i < 5; ++i) {
    names += (i ? ", " : "") + off[i];
    for (const auto& q : model.parameters)
      if (q.name == off[i]) probed = std::max(model::ranks_left_unread(q), model::ranks_bound_each_rank(q));
  }
  if (off.size() > 5) names += fmt::format(" and {} more", off.size() - 5);
  throw UserError(fmt::format("{} ranks read {} parameter{} that the probe run on {} process{} bound for that count "
                              "only (read on no path it took, or each rank's own value): {}",
                              np, off.size(), off.size() == 1 ? "" : "s", probed, probed == 1 ? "" : "es", names),
                  {},
                  fmt::format("probe at {} ranks ('perfcast probe MODEL -o OUT -- mpirun -n {} ...'), or bind them "
                              "with --param",
                              np, np));
}

std::map<std::string, expr::Value> parse_parameters(const std::vector<std::string>& params) {
  std::map<std::string, expr::Value> out;
  for (const auto& p : params) {
    auto [name, text] = split(p);
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

std::vector<std::string> with_replaced(const std::vector<std::string>& params,
                                       const std::vector<std::string>& replacements, const std::string& flag) {
  std::vector<std::string> out = params;
  std::vector<std::string> replaced;
  for (const auto& r : replacements) {
    const std::string name = split(r, flag).first;
    if (std::find(replaced.begin(), replaced.end(), name) != replaced.end())
      throw UserError(fmt::format("{} {} is given twice", flag, name));
    replaced.push_back(name);
    auto same_name = [&](const std::string& p) { return p.substr(0, p.find('=')) == name; };
    out.erase(std::remove_if(out.begin(), out.end(), same_name), out.end());
    out.push_back(r);
  }
  return out;
}

}  // namespace perfcast::cli
