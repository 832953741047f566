// The cases file of `perfcast validate` (docs/validate.md): which apps to run, with
// which arguments, sizes and rank counts, and the settings every run shares.
//
// Parsing is apart from running: load_cases() only reads and checks the file, and
// every error names the file, the line and the key. expand() turns the cases into
// the runs, one per (case, combination of placeholder values, rank count).
#pragma once
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "support/expr.h"

namespace perfcast::validate {

struct Settings {
  std::string machine;     // a machine file (relative to the cases file) or a bundled name
  int repeats = 3;         // timed runs of the measured method
  int warmup = 1;          // untimed runs before them
  double timeout_s = 600;  // per launch, every method
  // The signature method's `perfcast signature run --measure` and `--warmup`.
  int signature_measure = 3;
  std::string signature_warmup = "auto";
};

// A placeholder of the argument templates and its values, in the file's order.
struct Placeholder {
  std::string name;
  std::vector<expr::Value> values;
};

struct Case {
  std::string app;                        // a folder of apps/
  std::string args;                       // the app's arguments, with {placeholders}
  std::string skeleton_args;              // the skeleton's (default: args)
  std::vector<Placeholder> placeholders;  // every other key of the case
  std::vector<int> ranks;                 // ascending, no repeats
  std::string dataset;                    // the learned method's records or model, as written; "" for none
  int line = 0;                           // of its [[case]] header
};

struct CasesFile {
  std::filesystem::path path;
  Settings settings;
  std::vector<Case> cases;
};

// Throws UserError naming file, line and key.
CasesFile load_cases(const std::filesystem::path& path);
CasesFile parse_cases(std::string_view toml_text, const std::filesystem::path& path);

// One (case, sizes, ranks): what every method of a row runs.
struct Run {
  int case_index = 0;
  std::string app;
  std::string args;           // rendered
  std::string skeleton_args;  // rendered
  std::string args_one_rank;  // the args rendered at 1 rank: the naive baseline's row
  std::string size;           // "n=48 steps=10": the placeholder values
  expr::Bindings values;      // the placeholders' values and `ranks`
  int ranks = 1;
  std::string dataset;  // the case's, resolved against the cases file; "" for none
};

// Every run, case by case, sizes in the file's order, ranks ascending within a size
// (so a size's 1-rank measured row exists before the rows that divide it).
std::vector<Run> expand(const CasesFile& file);

// `{name}` replaced by the value of `name` in `values` (`{{` and `}}` are braces).
// Throws UserError naming `what` for an unknown or unclosed placeholder.
std::string render(std::string_view text, const expr::Bindings& values, const std::string& what);

// Splits arguments at spaces, as a shell would without quotes (the cases file's
// arguments are options and numbers).
std::vector<std::string> split_args(const std::string& args);

}  // namespace perfcast::validate
