// `perfcast simulate`: replays event streams on simulated clocks (src/sim/).
// The command only chooses the job source, runs the engine and prints; a live
// skeleton (--np N -- ./skel args) is one more branch in open_job(): a JobSource
// that is also the DataMover moving its MPI_* data (src/sim/skeleton/).
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/machine_options.h"
#include "cli/memory_budget.h"
#include "cli/progress_line.h"
#include "cli/stdout_aside.h"
#include "events/convert.h"
#include "machine/machine_io.h"
#include "report/simulation.h"
#include "report/otf2_timeline.h"
#include "report/timeline.h"
#include "sim/as_traced.h"
#include "sim/compute_rescale.h"
#include "sim/engine.h"
#include "sim/skeleton/live_job.h"
#include "support/error.h"
#include "support/output_file.h"
#include "trace/collect.h"

namespace perfcast::cli {

namespace {

struct SimulateArgs {
  MachineOptions machine;
  std::string collectives = "auto";
  std::string mpi = "model";  // how MPI calls are priced: by the machine, or at their traced durations
  bool json = false;
  std::string timeline;
  std::string otf2;
  bool force_timeline = false;
  int table_rows = 16;
  std::string events;  // a trace directory or a text events file; with --np, the skeleton
  // Live skeletons: `--np N [--stack-size S] -- ./skel args`.
  int np = 0;
  std::string stack_size = "64K";
  std::vector<std::string> skeleton_args;
  std::uint64_t max_events = 10'000'000'000ULL;
  std::string max_memory;
  double max_time_s = 0;
  // A trace's compute rescaled from the machine it was recorded on.
  std::string traced_machine;  // none: the trace's own traced-machine.toml, if it has one
  std::string rescale_by;      // empty: auto when the traced machine is known, else none
};

// Hands each span to every timeline asked for (Chrome trace, OTF2).
class TimelineSinks : public sim::TimelineSink {
 public:
  void add(sim::TimelineSink* sink) { sinks_.push_back(sink); }
  bool empty() const { return sinks_.empty(); }
  void span(int rank, sim::SpanKind kind, events::Kind op, double start_s, double end_s) override {
    for (sim::TimelineSink* sink : sinks_) sink->span(rank, kind, op, start_s, end_s);
  }

 private:
  std::vector<sim::TimelineSink*> sinks_;
};

// What the engine replays: a job, and for live skeletons the runtime that moves
// their data. `owner` keeps whatever the job needs alive.
struct JobChoice {
  std::unique_ptr<events::JobSource> job;
  events::DataMover* mover = nullptr;
  std::string label;
  sim::skeleton::LiveJobSource* live = nullptr;  // owned by `job`
};

// "64K", "1M", "65536": bytes, binary multiples.
std::size_t parse_stack_size(const std::string& text) {
  std::size_t used = 0;
  unsigned long long n = 0;
  try {
    n = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = text.substr(used);
  unsigned long long scale = unit.empty() || unit == "B" ? 1
                             : unit == "K" || unit == "KiB" ? 1024ULL
                             : unit == "M" || unit == "MiB" ? 1024ULL * 1024
                                                            : 0;
  if (used == 0 || scale == 0)
    throw UserError(fmt::format("'{}' is not a stack size", text), {"", std::nullopt, "--stack-size"},
                    "give bytes with an optional K or M suffix, e.g. 64K");
  return static_cast<std::size_t>(n * scale);
}

JobChoice open_live(const SimulateArgs& a) {
  sim::skeleton::LiveOptions options;
  options.stack_bytes = parse_stack_size(a.stack_size);
  auto live = sim::skeleton::open_live_skeleton(a.events, a.skeleton_args, a.np, options);
  // Libraries do not print: the warnings are the command's to show.
  for (const auto& global : live->warnings())
    std::cerr << fmt::format("perfcast: warning: {}: writable global {} is shared by all ranks\n", a.events, global);
  JobChoice choice;
  choice.live = live.get();
  choice.mover = live.get();
  choice.label = a.events;
  choice.job = std::move(live);
  return choice;
}

// The machine a trace was recorded on: --traced-machine, else the file
// `perfcast trace --machine` kept in the trace directory; none for other
// sources or when neither is there.
std::optional<machine::Machine> traced_machine(const SimulateArgs& a) {
  if (!a.traced_machine.empty()) {
    if (a.np > 0)
      throw UserError("a live skeleton was not traced", {"", std::nullopt, "--traced-machine"},
                      "--traced-machine rescales a trace directory's measured compute");
    return machine::load_machine_file(machine::find_machine_file(a.traced_machine));
  }
  if (a.np > 0) return std::nullopt;
  std::error_code ec;
  std::filesystem::path kept = std::filesystem::path(a.events) / trace::kTracedMachineName;
  if (!std::filesystem::is_regular_file(kept, ec)) return std::nullopt;
  return machine::load_machine_file(kept);
}

// What the replay makes of the traced bursts: rescaled by the two machines'
// core figure (--rescale-by, auto by default) when the traced machine is
// known; a --rescale-by other than none without it is an error.
std::optional<sim::ComputeRescale> choose_compute_rescale(const SimulateArgs& a, const machine::Machine& target,
                                                          int ranks) {
  sim::RescaleBy by = a.rescale_by.empty() ? sim::RescaleBy::Auto : sim::parse_rescale_by(a.rescale_by, "--rescale-by");
  std::optional<machine::Machine> host = traced_machine(a);
  if (!host) {
    if (!a.rescale_by.empty() && by != sim::RescaleBy::None)
      throw UserError("the machine the trace was recorded on is not known, so its compute cannot be rescaled",
                      {"", std::nullopt, "--rescale-by"},
                      "record it with perfcast trace --machine HOST, or give --traced-machine HOST");
    return std::nullopt;
  }
  if (by == sim::RescaleBy::None) return std::nullopt;
  return sim::compute_rescale(*host, target, ranks, by);
}

JobChoice open_job(const SimulateArgs& a) {
  if (a.np > 0) return open_live(a);
  if (!a.skeleton_args.empty())
    throw UserError(fmt::format("unexpected arguments after '{}'", a.events), {}, "a skeleton runs with --np N -- ./skel args");
  if (a.events.empty())
    throw UserError("nothing to simulate", {}, "give a trace directory or a text events file");
  return {events::open_events(a.events), nullptr, a.events};
}

void run_simulation(const SimulateArgs& a) {
  sim::SimOptions options;
  if (!sim::parse_collective_mode(a.collectives, options.collectives))
    throw UserError(fmt::format("'{}' is not a collective mode", a.collectives), {"", std::nullopt, "--collectives"},
                    "use table, algorithms or auto");
  machine::Machine machine = load_machine(a.machine);
  const bool as_traced = a.mpi == "as-traced";
  if (!as_traced && a.mpi != "model")
    throw UserError(fmt::format("'{}' is not a way to price MPI", a.mpi), {"", std::nullopt, "--mpi"},
                    "use model (the machine's network) or as-traced (each call's traced duration)");
  if (as_traced && a.np > 0)
    throw UserError("a live skeleton has no traced durations", {"", std::nullopt, "--mpi"},
                    "--mpi as-traced replays a trace directory written by perfcast trace");
  if (as_traced) machine = sim::without_communication_costs(std::move(machine));
  options.max_events = a.max_events;
  options.max_simulated_s = a.max_time_s;
  std::optional<StdoutAside> skeleton_output;  // a live skeleton's prints go to stderr until it is done
  if (a.np > 0) skeleton_output.emplace();
  // The engine's state is about 1 KB a rank, a live rank's fiber and records
  // up to 8 KB more, and the result (with its JSON) a few hundred bytes. A
  // live job is checked before its ranks are made, a recorded one once its
  // manifest says how many it has.
  auto check_memory = [&](double ranks, bool live) {
    refuse_beyond_budget(ranks * (live ? 9600.0 : 1600.0), a.max_memory,
                         fmt::format("a simulation of {} ranks", ranks));
  };
  if (a.np > 0) check_memory(a.np, true);
  JobChoice choice = open_job(a);
  // Each wrapper wraps the job before it, which it must not outlive: the
  // traced compute rescaled to the target machine, then MPI at its traced
  // durations (which are not rescaled: they are what MPI took, not compute).
  std::optional<sim::ComputeRescale> rescale = choose_compute_rescale(a, machine, choice.job->size());
  std::unique_ptr<events::JobSource> rescaled_job;
  if (rescale) rescaled_job = sim::with_compute_rescaled(*choice.job, *rescale);
  events::JobSource& base_job = rescaled_job ? *rescaled_job : *choice.job;
  std::unique_ptr<events::JobSource> traced_job;
  if (as_traced) traced_job = sim::with_traced_mpi_durations(base_job);
  events::JobSource& job = traced_job ? *traced_job : base_job;
  options.mover = choice.mover;
  if (choice.live) options.work_pricer = choice.live->work_pricer();
  if (!choice.live) check_memory(choice.job->size(), false);

  std::unique_ptr<report::ChromeTraceWriter> timeline;
  std::unique_ptr<report::Otf2TimelineWriter> otf2;
  TimelineSinks sinks;
  if (!a.timeline.empty() || !a.otf2.empty()) {
    int n = choice.job->size();
    if (n > report::kTimelineRankLimit && !a.force_timeline)
      throw UserError(fmt::format("a timeline of {} ranks would hold one track per rank: more than {} is refused, as "
                                  "the file grows with ranks x events and viewers stop coping",
                                  n, report::kTimelineRankLimit),
                      {"", std::nullopt, a.timeline.empty() ? "--otf2" : "--timeline"},
                      "add --force-timeline to write it anyway");
  }
  if (!a.timeline.empty()) {
    refuse_output_over_inputs(a.timeline, {machine::find_machine_file(a.machine.file), a.events}, "--timeline");
    timeline = std::make_unique<report::ChromeTraceWriter>(a.timeline, choice.job->size());
    sinks.add(timeline.get());
  }
  if (!a.otf2.empty()) {
    otf2 = std::make_unique<report::Otf2TimelineWriter>(
        a.otf2, choice.job->size(), fmt::format("{} simulated on {}", choice.label, machine.name));
    sinks.add(otf2.get());
  }
  if (!sinks.empty()) options.timeline = &sinks;

  ProgressLine progress(!a.json);
  options.progress = [&](const sim::SimProgress& p) { progress.show(report::simulation_progress_text(p)); };
  sim::SimResult result = sim::simulate(job, machine, options);
  skeleton_output.reset();
  progress.end();
  if (timeline) timeline->close();
  if (otf2) otf2->close();
  if (choice.live) {
    int shown = 0;
    for (int r = 0; r < choice.job->size() && shown < 8; ++r) {
      int code = choice.live->exit_code(r);
      if (code != 0) {
        std::cerr << fmt::format("perfcast: warning: rank {} of the skeleton {} (exit code {})\n", r,
                                 code < 0 ? "did not finish" : "ended with an error", code);
        ++shown;
      }
    }
  }

  report::SimulationContext context{choice.label, machine.name, options.collectives, true};
  context.mpi_as_traced = as_traced;
  context.compute_rescale = rescale;
  if (result.placement.nodes == 1)
    context.unused_network_overrides = network_overrides_unused_on_one_node(a.machine, machine);
  for (const auto& w :
       report::placement_warnings(result.placement, {context.unused_network_overrides, context.given_seconds}))
    std::cerr << "perfcast simulate: warning: " << w << "\n";
  // As predict does: a machine figure no hardware has is priced all the same, and said.
  context.machine_warnings = report::physics_warnings(machine);
  for (const auto& w : context.machine_warnings) std::cerr << "perfcast simulate: warning: " << w << "\n";
  if (a.json) std::cout << report::simulation_json(result, context).dump(2) << "\n";
  else std::cout << report::simulation_table(result, context, a.table_rows);
  if (!a.json && timeline) std::cout << fmt::format("timeline: {} (open in ui.perfetto.dev)\n", a.timeline);
  if (!a.json && otf2) std::cout << fmt::format("OTF2 archive: {}/traces.otf2 (Vampir, otf2-print)\n", a.otf2);
}

}  // namespace

void add_simulate_command(CLI::App& app) {
  auto a = std::make_shared<SimulateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "simulate",
      "Run event streams (a trace, a text events file) or a live skeleton on simulated clocks: calc, wait "
      "and comm per rank (docs/skeletons.md)");
  add_machine_options(*cmd, a->machine);
  cmd->add_option("--collectives", a->collectives,
                  "How collectives are priced: table (the machine's), algorithms (point-to-point, as MPI "
                  "libraries run them), or auto (table where the machine has one)")
      ->capture_default_str();
  cmd->add_option("--mpi", a->mpi,
                  "How MPI calls are priced: model (the machine's network) or as-traced (each call costs its "
                  "traced duration, messages and collectives nothing: a check of the replay itself)")
      ->capture_default_str();
  cmd->add_option("--traced-machine", a->traced_machine,
                  "The machine a trace was recorded on (default: the one perfcast trace --machine kept in it); its "
                  "compute is rescaled to --machine")
      ->type_name("FILE");
  cmd->add_option("--rescale-by", a->rescale_by,
                  "The core figure a trace's compute is rescaled by: auto (clock where both machines give one, "
                  "else flops; the default), clock, flops, memory or none (docs/trace.md)")
      ->type_name("FIGURE");
  cmd->add_flag("--json", a->json, "Print the figures as JSON");
  cmd->add_option("--timeline", a->timeline, "Write a Chrome-trace/Perfetto JSON timeline (one track per rank)")
      ->type_name("FILE");
  cmd->add_option("--otf2", a->otf2, "Write the timeline as an OTF2 archive into this new directory (Vampir, otf2-print)")
      ->type_name("DIR");
  cmd->add_flag("--force-timeline", a->force_timeline,
                fmt::format("Write the timeline even beyond {} ranks", report::kTimelineRankLimit));
  cmd->add_option("--rows", a->table_rows, "Ranks listed one per row in the table; beyond, a summary")
      ->capture_default_str();
  add_memory_budget_option(*cmd, a->max_memory);
  cmd->add_option("--max-events", a->max_events, "Stop a job that simulates more events than this (default 1e10)")
      ->check(CLI::Range(std::uint64_t{1}, std::numeric_limits<std::uint64_t>::max()));
  cmd->add_option("--max-time", a->max_time_s, "Stop a job whose simulated clock passes this many seconds")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--np", a->np, "Run a live skeleton (built with `perfcast cc`) on this many ranks, as fibers")
      ->check(CLI::Range(1, 1 << 30));
  cmd->add_option("--stack-size", a->stack_size, "Stack of each live skeleton rank (bytes, K or M suffix)")
      ->capture_default_str();
  cmd->add_option("events", a->events,
                  "Trace directory or text events file (docs: src/events/text.h); with --np, the skeleton")
      ->required();
  cmd->add_option("args", a->skeleton_args, "The skeleton's arguments (after --)");
  cmd->footer(
      "Examples: perfcast simulate --machine polus --collectives algorithms run.trace\n"
      "          perfcast simulate --machine polus --np 32768 -- ./skel 100   (docs/skeletons.md)");
  cmd->callback([a] { run_simulation(*a); });
}

}  // namespace perfcast::cli
