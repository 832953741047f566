#include "validate/app_bindings.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <fstream>
#include <set>
#include <sstream>

#include "support/error.h"

namespace perfcast::validate {
namespace fs = std::filesystem;

namespace {

SourceLocation at(const fs::path& file, const toml::node& n, const std::string& key) {
  SourceLocation where{file.string(), std::nullopt, key};
  if (n.source().begin.line > 0) where.line = static_cast<int>(n.source().begin.line);
  return where;
}

expr::Expr expression(const fs::path& file, const toml::node& n, const std::string& key) {
  if (n.is_integer()) return expr::integer(n.as_integer()->get());
  if (n.is_floating_point()) return expr::real(n.as_floating_point()->get());
  if (!n.is_string()) throw UserError("expected an expression (a string or a number)", at(file, n, key));
  try {
    return expr::parse(n.as_string()->get());
  } catch (const UserError& e) {
    throw UserError(e.what(), at(file, n, key));
  }
}

const toml::table& table(const fs::path& file, const toml::node& n, const std::string& key) {
  if (!n.is_table()) throw UserError("expected a table", at(file, n, key));
  return *n.as_table();
}

}  // namespace

std::optional<AppBindings> load_app_bindings(const fs::path& file) {
  if (!fs::exists(file)) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  toml::table root;
  try {
    root = toml::parse(text.str(), file.string());
  } catch (const toml::parse_error& e) {
    std::optional<int> line;
    if (e.source().begin.line > 0) line = static_cast<int>(e.source().begin.line);
    throw UserError(fmt::format("not valid TOML: {}", e.description()), {file.string(), line, ""});
  }
  AppBindings b;
  b.file = file;
  for (const auto& [k, v] : root) {
    if (k == "static") {
      for (const auto& [sk, sv] : table(file, v, "static")) {
        std::string key = "static." + std::string(sk.str());
        if (sk == "source") {
          if (!sv.is_string()) throw UserError("expected a path (relative to this file)", at(file, sv, key));
          b.source = fs::absolute(file.parent_path() / sv.as_string()->get());
        } else if (sk == "analyze_flags") {
          const toml::array* a = sv.as_array();
          if (!a) throw UserError("expected an array of strings", at(file, sv, key));
          for (const toml::node& f : *a) {
            if (!f.is_string()) throw UserError("expected an array of strings", at(file, f, key));
            b.analyze_flags.push_back(f.as_string()->get());
          }
        } else if (sk == "let") {
          for (const auto& [lk, lv] : table(file, sv, key))
            b.let[std::string(lk.str())] = expression(file, lv, key + "." + std::string(lk.str()));
        } else if (sk == "bind") {
          for (const auto& [bk, bv] : table(file, sv, key)) {
            int line = bv.source().begin.line > 0 ? static_cast<int>(bv.source().begin.line) : 0;
            b.bind[std::string(bk.str())] = {expression(file, bv, key + "." + std::string(bk.str())), line};
          }
        } else {
          throw UserError("unknown key", at(file, sv, key), "[static] knows source, analyze_flags, let, bind");
        }
      }
    } else if (k == "timed_region") {
      for (const auto& [tk, tv] : table(file, v, "timed_region")) {
        std::string key = "timed_region." + std::string(tk.str());
        if (tk != "baseline") throw UserError("unknown key", at(file, tv, key), "[timed_region] knows baseline");
        for (const auto& [pk, pv] : table(file, tv, key)) {
          if (!pv.is_integer()) throw UserError("expected an integer", at(file, pv, key + "." + std::string(pk.str())));
          b.timed_region_baseline[std::string(pk.str())] = expr::Value(pv.as_integer()->get());
        }
      }
    } else if (k == "learned") {
      for (const auto& [lk, lv] : table(file, v, "learned")) {
        std::string key = "learned." + std::string(lk.str());
        if (lk == "link") {
          const toml::array* a = lv.as_array();
          if (!a) throw UserError("expected an array of strings (flags after the source, e.g. \"-lfftw3\")",
                                  at(file, lv, key));
          for (const toml::node& f : *a) {
            if (!f.is_string()) throw UserError("expected an array of strings", at(file, f, key));
            b.learned_link.push_back(f.as_string()->get());
          }
          continue;
        }
        if (lk != "dataset") throw UserError("unknown key", at(file, lv, key), "[learned] knows dataset and link");
        if (!lv.is_string() || lv.as_string()->get().empty())
          throw UserError("expected a path (relative to this file): feature records or a learned model",
                          at(file, lv, key));
        b.learned_dataset = fs::absolute(file.parent_path() / lv.as_string()->get()).lexically_normal();
      }
    } else {
      throw UserError("unknown key", at(file, v, std::string(k.str())),
                      "the file has [static], [timed_region] and [learned]");
    }
  }
  if (b.source.empty())
    throw UserError("missing: the source to analyse", {file.string(), std::nullopt, "static.source"});
  if (b.bind.empty()) throw UserError("missing: the parameter bindings", {file.string(), std::nullopt, "static.bind"});
  return b;
}

namespace {

// Names `perfcast predict` gives a value per rank of the job (docs/program-model.md, "Names an
// expression may use"): a binding may leave them to it, so that one expression holds at every
// rank and rank count (wave3d's block lengths follow MPI_Dims_create's grid, dims3_*).
bool evaluated_by_predict(const std::string& name) {
  static const std::set<std::string> names = {"rank", "size", "dims2_0", "dims2_1", "dims3_0", "dims3_1", "dims3_2"};
  return names.count(name) > 0;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> bind_parameters(const AppBindings& b, const expr::Bindings& values) {
  expr::Substitution known;
  for (const auto& [name, value] : values)
    known[name] = value.is_integer() ? expr::integer(value.integer()) : expr::real(value.real());
  // A let name may use earlier ones in any order: substitute until none is left
  // (as many passes as there are names; more means a cycle).
  expr::Substitution lets;
  for (const auto& [name, e] : b.let) lets[name] = e;
  for (std::size_t pass = 0; pass <= b.let.size(); ++pass) {
    bool again = false;
    for (auto& [name, e] : lets) {
      for (const std::string& free : expr::free_names(e))
        if (lets.count(free)) again = true;
      e = expr::simplify(expr::substitute(expr::substitute(e, lets), known));
    }
    if (!again) break;
    if (pass == b.let.size())
      throw UserError("the [static.let] names refer to each other in a cycle",
                      {b.file.string(), std::nullopt, "static.let"});
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, bound] : b.bind) {
    const auto& [e, line] = bound;
    expr::Expr done = expr::simplify(expr::substitute(expr::substitute(e, lets), known));
    for (const std::string& free : expr::free_names(done)) {
      if (!evaluated_by_predict(free))
        throw UserError(fmt::format("'{}' has no value: neither a placeholder of the case, `ranks`, nor a [static.let] "
                                    "name (the case has: {})",
                                    free,
                                    [&] {
                                      std::string s;
                                      for (const auto& [k, v] : values) s += (s.empty() ? "" : ", ") + k;
                                      return s;
                                    }()),
                        {b.file.string(), line ? std::optional<int>(line) : std::nullopt, "static.bind." + name});
    }
    out.emplace_back(name, expr::to_string(done));
  }
  return out;
}

}  // namespace perfcast::validate
