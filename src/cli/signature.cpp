// `perfcast signature`: an application signature (its phases and their
// weights) built from a trace, and shown.
#include "signature/signature.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "events/convert.h"
#include "support/error.h"
#include "support/output_file.h"
#include "support/units.h"
#include "trace/collect.h"

namespace perfcast::cli {

namespace {

namespace fs = std::filesystem;
using signature::Signature;

std::string seconds_text(double s) { return s == 0 ? "0 s" : units::format(s, units::Dimension::Seconds, 4); }
std::string percent(double share) { return fmt::format("{:.1f} %", 100 * share); }

// A phase's blocks, one line per tick; long phases show their start and end.
void print_blocks(const signature::Phase& p) {
  constexpr std::size_t kShown = 8;
  std::size_t n = p.blocks.size();
  for (std::size_t t = 0; t < n; ++t) {
    if (n > kShown && t == kShown - 2) {
      std::cout << fmt::format("      ... {} more ticks\n", n - kShown + 1);
      t = n - 2;
      continue;
    }
    std::cout << fmt::format("    {:>4}  {}\n", t + 1, signature::describe(p.blocks[t]));
  }
}

void print_signature(const Signature& s) {
  std::cout << fmt::format("signature of {} on {} rank{}, from {}\n", s.program.empty() ? "?" : s.program, s.ranks,
                           s.ranks == 1 ? "" : "s", s.trace.empty() ? "?" : s.trace);
  std::size_t relevant = static_cast<std::size_t>(
      std::count_if(s.phases.begin(), s.phases.end(), [](const auto& p) { return p.relevant; }));
  std::cout << fmt::format(
      "algorithm {}, {} ticks, {} phase{} found; {} relevant (asked to cover {}) cover {} of the time\n\n",
      signature::algorithm_name(s.algorithm), s.ticks, s.phases.size(), s.phases.size() == 1 ? "" : "s", relevant,
      percent(s.coverage), percent(s.covered_share));
  for (const auto& p : s.phases) {
    std::cout << fmt::format("phase {}{}: weight {}, {} tick{} from tick {}, {} per occurrence, {} in all ({})\n", p.id,
                             p.relevant ? "" : " (not relevant)", p.weight, p.blocks.size(),
                             p.blocks.size() == 1 ? "" : "s", p.first_tick, seconds_text(p.time_per_occurrence_s),
                             seconds_text(p.time_s), percent(p.share));
    if (!p.inner.empty()) std::cout << fmt::format("    its body also runs phase {}\n", fmt::join(p.inner, ", "));
    print_blocks(p);
  }
  double phases_s = s.predicted_total_s - s.initialization_s - s.remainder_s;
  std::cout << fmt::format(
      "\npredicted on the traced machine: initialisation {} + relevant phases (time x weight) {} + remainder {} = "
      "{}\n",
      seconds_text(s.initialization_s), seconds_text(phases_s), seconds_text(s.remainder_s),
      seconds_text(s.predicted_total_s));
  if (s.calls_timed) {
    std::cout << fmt::format("traced total (compute and MPI calls; MPI_Init and MPI_Finalize apart): {}",
                             seconds_text(s.traced_total_s));
    if (s.traced_wall_before_finalize_s)
      std::cout << fmt::format("; slowest rank's wall time less MPI_Finalize: {}",
                               seconds_text(*s.traced_wall_before_finalize_s));
  } else {
    std::cout << fmt::format("traced total (compute critical path, calls at zero cost: no call durations): {}",
                             seconds_text(s.traced_total_s));
    if (s.traced_wall_s) std::cout << fmt::format("; slowest rank's wall time: {}", seconds_text(*s.traced_wall_s));
  }
  std::cout << "\n";
}

struct BuildOptions {
  std::string trace, output, algorithm = "repeats";
  double coverage = 0.95;
  bool json = false;
};

void build(const BuildOptions& o) {
  signature::BuildOptions options;
  if (!signature::parse_algorithm(o.algorithm, options.algorithm))
    throw UserError(fmt::format("'{}' is not an algorithm", o.algorithm), {.field = "--algorithm"},
                    "--algorithm repeats or --algorithm loops");
  refuse_output_over_inputs(o.output, {o.trace}, "-o");
  auto job = events::open_events(o.trace);
  auto trace = signature::logical_clock(signature::read_streams(*job));
  options.coverage = o.coverage;
  Signature s = signature::build_signature(trace, options);
  s.trace = o.trace;
  if (events::is_trace_dir(o.trace)) {
    s.program = events::read_manifest(o.trace).metadata.program;
    auto header = trace::read_trace_header(o.trace);
    for (const auto& rank : header.ranks) {
      s.traced_wall_s = std::max(s.traced_wall_s.value_or(0), rank.wall_s);
      s.traced_wall_before_finalize_s =
          std::max(s.traced_wall_before_finalize_s.value_or(0), rank.wall_s - rank.finalize_s);
    }
  }
  signature::write_signature(s, o.output);
  if (o.json)
    std::cout << signature::to_json(s).dump(2) << "\n";
  else
    print_signature(s);
}

}  // namespace

void add_signature_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "signature", "Application signatures: the phases a traced run repeats, their weights and times.");
  cmd->require_subcommand(1);

  auto b = std::make_shared<BuildOptions>();
  CLI::App* build_cmd = cmd->add_subcommand(
      "build", "Find the phases of a trace (logical clock, repeated blocks) and write them as a signature file.");
  build_cmd->add_option("TRACE", b->trace, "A trace directory (perfcast trace) or an events text file")->required();
  build_cmd->add_option("-o,--output", b->output, "The signature file to write")->required();
  build_cmd->add_option("--algorithm", b->algorithm, "repeats (suffix-array repeats) or loops (loop-nest folding)")
      ->capture_default_str();
  build_cmd->add_option("--coverage", b->coverage, "Share of the time the relevant phases must cover, in (0, 1]")
      ->capture_default_str();
  build_cmd->add_flag("--json", b->json, "Print the signature as JSON");
  build_cmd->callback([b] { build(*b); });

  struct ShowOptions {
    std::string path;
    bool json = false;
  };
  auto show = std::make_shared<ShowOptions>();
  CLI::App* show_cmd = cmd->add_subcommand("show", "Each phase's events, weight and time, and the predicted total.");
  show_cmd->add_option("SIGNATURE", show->path, "A signature file (perfcast signature build)")->required();
  show_cmd->add_flag("--json", show->json, "Print the signature as JSON");
  add_signature_run_command(*cmd);
  show_cmd->callback([show] {
    Signature s = signature::read_signature(show->path);
    if (show->json)
      std::cout << signature::to_json(s).dump(2) << "\n";
    else
      print_signature(s);
  });
}

}  // namespace perfcast::cli
