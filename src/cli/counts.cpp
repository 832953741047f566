// `perfcast counts`: exact dynamic counts per function (flops by precision and
// vector width, loads, stores, bytes, math calls) from a run under callgrind,
// per rank, optionally minus a second run (e.g. zero time steps) so that set-up
// and MPI start-up drop out.
#include <fmt/format.h>

#include <iostream>

#include "cli/count_checks.h"
#include "cli/commands.h"
#include "counts/run.h"
#include "report/table.h"
#include "support/error.h"

namespace perfcast::cli {

namespace {

struct CountsCliOptions {
  int ranks = 0;
  std::vector<std::string> functions;
  bool all = false;
  bool json = false;
  bool quiet = false;
  bool no_inlining = false;
  bool no_cache_sim = false;
  std::string subtract_run;
  std::string keep_dir;
  double timeout_s = 1800;
  std::vector<std::string> valgrind_flags;
  std::vector<std::string> program;
};

// Splits "--steps 0 --n '8'" like a shell would for plain words and quotes.
std::vector<std::string> split_arguments(const std::string& text) {
  std::vector<std::string> out;
  std::string current;
  bool in_word = false;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        current += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) out.push_back(current);
      current.clear();
      in_word = false;
    } else {
      current += c;
      in_word = true;
    }
  }
  if (quote) throw UserError("unbalanced quote in --subtract-run", {}, "quote the whole argument list once");
  if (in_word) out.push_back(current);
  return out;
}

std::vector<const counts::FunctionCounts*> select(const counts::ProfileCounts& counts,
                                                  const CountsCliOptions& options) {
  std::vector<const counts::FunctionCounts*> rows;
  if (!options.functions.empty()) {
    for (const auto& name : options.functions) {
      bool found = false;
      for (const auto& f : counts.functions)
        if (f.name == name) {
          rows.push_back(&f);
          found = true;
        }
      if (!found)
        throw UserError(fmt::format("no function '{}' executed in rank {}", name, counts.rank), {},
                        "run with --all to list every function with its exact name");
    }
    return rows;
  }
  for (const auto& f : counts.functions) {
    bool nonzero = f.instructions != 0 || f.calls != 0 || f.flops_total() != 0;
    if (!nonzero) continue;
    if (options.all || f.object == counts.main_object) rows.push_back(&f);
  }
  return rows;
}

std::string number(int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (v < 0 ? "-" : "") + out;
}

std::string math_summary(const counts::FunctionCounts& f) {
  std::string s;
  for (const auto& [name, n] : f.math_calls) s += (s.empty() ? "" : " ") + name + ":" + number(n);
  return s.empty() ? "-" : s;
}

void print_table(const counts::ProfileCounts& counts, const std::vector<const counts::FunctionCounts*>& rows) {
  using Align = report::Table::Align;
  report::Table table({"function", "calls", "instructions", "flops dp scalar", "flops dp simd", "flops sp scalar",
                       "flops sp simd", "loads", "stores", "load bytes", "store bytes", "math calls"},
                      {Align::Left, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right,
                       Align::Right, Align::Right, Align::Right, Align::Right, Align::Left});
  auto add = [&](const counts::FunctionCounts& f, const std::string& label, bool total = false) {
    table.add_row({label,
                   total            ? "-"
                   : f.inlined_only ? "inlined"
                   : counts::is_polling_call(f.name) ? number(f.calls) + " (timing)"
                                    : number(f.calls),
                   number(f.instructions), number(f.flops_double_scalar()), number(f.flops_double_simd()),
                   number(f.flops_single_scalar()), number(f.flops_single_simd()), number(f.loads), number(f.stores),
                   number(f.load_bytes), number(f.store_bytes), math_summary(f)});
  };
  for (const auto* f : rows) add(*f, f->name);
  table.add_separator();
  add(counts.total, "(whole program, all objects)", true);
  std::cout << table.render();
  int64_t x87 = counts.total.flops_x87, unclassified = counts.total.unclassified_instructions;
  if (x87 != 0) std::cout << fmt::format("x87 flops (whole program): {}\n", number(x87));
  if (unclassified != 0)
    std::cout << fmt::format("instructions at addresses missing from the disassembly: {}\n", number(unclassified));
}

}  // namespace

void add_counts_command(CLI::App& app) {
  auto options = std::make_shared<CountsCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "counts",
      "Exact flops, loads, stores and math calls per function from a run under callgrind (about 50x slower: "
      "use small inputs; src/counts/README.md)");
  cmd->add_option("-n,--np", options->ranks, "Run under mpirun.openmpi with this many ranks (counts per rank)")
      ->check(kPositiveCount);
  cmd->add_option("--function", options->functions, "Only these functions (repeatable); inlined functions too");
  cmd->add_flag("--all", options->all, "Every function of every object (default: the program's own functions)");
  cmd->add_option("--subtract-run", options->subtract_run,
                  "Arguments of a second run whose counts are subtracted, e.g. \"--steps 0\"");
  cmd->add_flag("--json", options->json, "Print the figures as JSON");
  cmd->add_flag("--no-inlining", options->no_inlining,
                "Do not attribute inlined code to the functions it came from (only to the containing function)");
  cmd->add_flag("--no-cache-sim", options->no_cache_sim,
                "Skip callgrind's cache simulation (about 2x faster; callgrind_dr/dw, a cross-check, become 0)");
  cmd->add_option("--keep", options->keep_dir, "Write the callgrind profiles into this directory and keep them");
  cmd->add_option("--timeout", options->timeout_s, "Seconds allowed per run")->capture_default_str();
  cmd->add_option("--valgrind-arg", options->valgrind_flags,
                  "Extra valgrind flag (repeatable), e.g. "
                  "--valgrind-arg=--toggle-collect=kernel");
  cmd->add_flag("-q,--quiet", options->quiet, "No progress on stderr");
  cmd->add_option("program", options->program, "The program and its arguments, after '--'")->required();
  cmd->footer(
      "Example: perfcast counts -n 2 --function leapfrog_step --subtract-run \"--n 8 --steps 0\" -- "
      "build/apps/wave3d --n 8 --steps 4\n"
      "Flops follow Intel's FP_ARITH_INST_RETIRED definition (add, sub, mul, div, sqrt, min, max, rcp, rsqrt; FMA = "
      "2).");

  cmd->callback([options] {
    counts::Progress progress;
    if (!options->quiet)
      progress = [](const std::string& message) { std::cerr << "perfcast counts: " << message << "\n"; };
    counts::CallgrindRunOptions run;
    run.program = options->program;
    run.ranks = options->ranks;
    run.output_dir = options->keep_dir;
    run.timeout_s = options->timeout_s;
    run.valgrind_flags = options->valgrind_flags;
    run.cache_sim = !options->no_cache_sim;
    counts::CodeCache cache;
    counts::CountOptions count_options;
    count_options.inlining = !options->no_inlining;

    run.label = "run";
    auto profiles = counts::run_callgrind(run, progress);
    auto results = counts::count_ranks(profiles, cache, count_options, progress);
    std::vector<std::string> baseline_args;
    if (!options->subtract_run.empty()) {
      baseline_args = split_arguments(options->subtract_run);
      counts::CallgrindRunOptions second = run;
      second.label = "baseline";
      second.program = {options->program.front()};
      second.program.insert(second.program.end(), baseline_args.begin(), baseline_args.end());
      auto baseline = counts::count_ranks(counts::run_callgrind(second, progress), cache, count_options, progress);
      for (size_t r = 0; r < results.size() && r < baseline.size(); ++r)
        results[r] = counts::subtract(results[r], baseline[r]);
    }

    if (options->json) {
      nlohmann::json per_rank = nlohmann::json::array();
      for (const auto& r : results) {
        nlohmann::json j = counts::to_json(r);
        nlohmann::json functions = nlohmann::json::array();
        for (const auto* f : select(r, *options)) functions.push_back(counts::to_json(*f));
        j["functions"] = functions;
        per_rank.push_back(j);
      }
      nlohmann::json out = {
          {"program", options->program},
          {"ranks", options->ranks},
          {"subtract_run", options->subtract_run.empty() ? nlohmann::json(nullptr) : nlohmann::json(baseline_args)},
          {"per_rank", per_rank}};
      std::cout << out.dump(2) << "\n";
      return;
    }
    for (const auto& r : results) {
      if (options->ranks >= 1)
        std::cout << fmt::format("rank {}", r.rank);
      else
        std::cout << "process";
      if (!options->subtract_run.empty()) std::cout << fmt::format(", minus the run with: {}", options->subtract_run);
      std::cout << "\n";
      print_table(r, select(r, *options));
      std::cout << "\n";
    }
  });
}

}  // namespace perfcast::cli
