// apps/<app>/validate.toml: what the static method needs to price an app's case
// (docs/validate.md): the source to analyse and its flags, and the program model's
// parameters as expressions of the case's placeholders and `ranks`.
//
// The parameter names are the analyser's and change when it does, so the file is
// checked against the model each time: a bound name the model lacks is an error
// naming the model's parameters (the static cell says so; other methods go on).
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "support/expr.h"

namespace perfcast::validate {

struct AppBindings {
  std::filesystem::path file;
  std::filesystem::path source;            // the C source to analyse (absolute)
  std::vector<std::string> analyze_flags;  // before the source, e.g. --branch-probability cg.c:220=1
  // Helper names usable in `bind`: each an expression of placeholders and `ranks`.
  std::map<std::string, expr::Expr> let;
  // Model parameter -> expression of placeholders, `ranks` and `let` names; what is
  // left free after substitution (`rank`, `size`) predict evaluates per rank.
  std::map<std::string, std::pair<expr::Expr, int>> bind;  // expression, line
  // Placeholder values of the baseline run: the timed region is the run minus the
  // baseline (e.g. steps = 0). Empty: the whole program is compared.
  expr::Bindings timed_region_baseline;
  // [learned] dataset: feature records (perfcast run/sweep) or a learned model
  // (perfcast learn -o) the learned method predicts with; empty for none.
  std::filesystem::path learned_dataset;
  // [learned] link: what the probe build adds after the source and -lm, the
  // libraries the app links (lu's -lblas, fft3d's -lfftw3).
  std::vector<std::string> learned_link;
};

// nullopt when the file does not exist; UserError (file, line, key) when it is wrong.
std::optional<AppBindings> load_app_bindings(const std::filesystem::path& file);

// `--param` values for predict: every bound expression with the run's values put in
// and simplified. Throws UserError naming the binding when one cannot be evaluated.
std::vector<std::pair<std::string, std::string>> bind_parameters(const AppBindings& b, const expr::Bindings& values);

}  // namespace perfcast::validate
