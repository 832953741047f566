// `perfcast trace`: run an unmodified MPI program with the PMPI tracer preloaded
// and collect its ranks' event streams into a trace; `trace show` summarises one.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <iostream>

#include "cli/commands.h"
#include "cli/machine_options.h"
#include "events/convert.h"
#include "machine/machine_io.h"
#include "otf2/otf2_export.h"
#include "otf2/otf2_import.h"
#include "simgrid/time_independent.h"
#include "support/output_file.h"
#include "report/table.h"
#include "support/error.h"
#include "support/units.h"
#include "trace/collect.h"
#include "trace/launch.h"
#include "trace/summary.h"

namespace perfcast::cli {

namespace {

namespace fs = std::filesystem;

std::string seconds_text(double s) { return s == 0 ? "0" : units::format(s, units::Dimension::Seconds, 4); }
std::string bytes_text(double b) { return units::format(b, units::Dimension::Bytes, 4); }

struct TraceOptions {
  std::string output;
  std::vector<std::string> command;
  bool fold_loops = false;
  bool json = false;
  std::string host_machine;  // the traced host's machine file, copied into the trace
};

void run_trace(const TraceOptions& o) {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  fs::path library = trace::find_trace_library(exe);
  fs::path dir = fs::absolute(o.output).lexically_normal();
  // Loaded before the run, so a wrong --machine costs no run.
  std::optional<machine::Machine> host;
  if (!o.host_machine.empty()) host = machine::load_machine_file(machine::find_machine_file(o.host_machine));
  trace::prepare_trace_dir(dir);
  int status = trace::run_traced(o.command, library, dir, o.fold_loops);
  trace::CollectedTrace collected;
  try {
    collected = trace::collect_trace(dir, o.command);
  } catch (const UserError& e) {
    if (status == 0) throw;
    throw UserError(fmt::format("{} exited with status {}, and {}", o.command.front(), status, e.what()));
  }
  if (host)
    machine::write_machine_file(*host, dir / trace::kTracedMachineName,
                                {{fmt::format("The machine this trace was recorded on ({}), written by perfcast trace "
                                              "--machine: perfcast simulate rescales the trace's compute from it.",
                                              o.host_machine)},
                                 {}});
  const auto& manifest = collected.manifest;
  if (o.json) {
    nlohmann::json ranks = nlohmann::json::array();
    for (const auto& s : manifest.streams) {
      bool cut = std::any_of(collected.header.cut_short.begin(), collected.header.cut_short.end(),
                             [&](const trace::CutShort& c) { return c.rank == s.rank; });
      ranks.push_back({{"rank", s.rank}, {"events", s.events}, {"cut_short", cut}});
    }
    nlohmann::json out{{"trace", dir.string()}, {"exit_status", status}, {"ranks", ranks}};
    out["traced_machine"] = host ? nlohmann::json(host->name) : nlohmann::json(nullptr);
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << fmt::format("traced {} rank{} of {} into {}\n", manifest.ranks, manifest.ranks == 1 ? "" : "s",
                             manifest.metadata.program, dir.string());
    report::Table table({"rank", "events", "host", "unresolved any-source receives"});
    for (const auto& s : manifest.streams) {
      const auto& info = collected.header.ranks[static_cast<std::size_t>(s.rank)];
      table.add_row(
          {std::to_string(s.rank), std::to_string(s.events), info.host, std::to_string(info.unresolved_receives)});
    }
    std::cout << table.render();
    for (const auto& cut : collected.header.cut_short) std::cout << trace::describe(cut) << "\n";
    std::cout << fmt::format(
        "see it with: perfcast trace show {0}; replay it with: perfcast simulate {0} --machine M\n", o.output);
  }
  if (status != 0)
    throw UserError(fmt::format("{} exited with status {} (its trace was written)", o.command.front(), status));
}

void show_trace(const std::string& path, bool json) {
  trace::TraceSummary summary = trace::summarize_trace(path);
  if (json) {
    std::cout << trace::to_json(summary).dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("trace {}: {} rank{} of {}", summary.path, summary.ranks.size(),
                           summary.ranks.size() == 1 ? "" : "s", summary.program.empty() ? "?" : summary.program);
  if (!summary.header.hosts.empty())
    std::cout << fmt::format(" on {} (clock resolution {})", fmt::join(summary.header.hosts, ", "),
                             seconds_text(summary.header.clock_resolution_s));
  std::cout << "\n";
  if (summary.folded_events > 0)
    std::cout << fmt::format(
        "{} events come from folded loops (--fold-loops): their times are each loop position's mean\n",
        summary.folded_events);
  using Align = report::Table::Align;
  const bool timed = summary.calls_timed;
  std::vector<std::string> heads = {"rank", "calls", "bytes", "in MPI", "of it finalize", "in compute", "wall"};
  if (timed) heads.push_back("MPI_Init");
  heads.push_back(timed ? "top calls by time (count)" : "top calls");
  std::vector<Align> aligns(heads.size(), Align::Right);
  aligns.back() = Align::Left;
  report::Table table(heads, aligns);
  for (const auto& r : summary.ranks) {
    std::string top;
    for (const auto& c : timed ? r.top_calls_by_time : r.top_calls)
      top += c.seconds ? fmt::format("{}{} {} ({})", top.empty() ? "" : ", ", events::kind_name(c.kind),
                                     seconds_text(*c.seconds), c.calls)
                       : fmt::format("{}{} {}", top.empty() ? "" : ", ", events::kind_name(c.kind), c.calls);
    std::vector<std::string> row = {std::to_string(r.rank),
                                    std::to_string(r.calls),
                                    bytes_text(static_cast<double>(r.bytes)),
                                    r.mpi_s ? seconds_text(*r.mpi_s) : "-",
                                    r.finalize_s ? seconds_text(*r.finalize_s) : "-",
                                    seconds_text(r.compute_s),
                                    r.wall_s ? seconds_text(*r.wall_s) : "-"};
    if (timed) row.push_back(r.init_s ? seconds_text(*r.init_s) : "-");
    row.push_back(top);
    table.add_row(row);
  }
  std::cout << table.render();
  for (const auto& cut : summary.header.cut_short) std::cout << trace::describe(cut) << "\n";
  if (!timed) {
    std::cout << "this trace records no call durations (written before format 2): time per call kind is unknown\n";
    return;
  }
  double total = 0;
  for (const auto& c : summary.call_kinds) total += c.seconds.value_or(0);
  std::cout << "\ncalls by time, all ranks (MPI_Init apart, above):\n";
  report::Table kinds({"call", "calls", "time", "per call", "share"},
                      {Align::Left, Align::Right, Align::Right, Align::Right, Align::Right});
  for (const auto& c : summary.call_kinds) {
    double seconds = c.seconds.value_or(0);
    kinds.add_row({std::string(events::kind_name(c.kind)), std::to_string(c.calls), seconds_text(seconds),
                   seconds_text(seconds / static_cast<double>(c.calls)),
                   total > 0 ? fmt::format("{:.1f} %", 100 * seconds / total) : "-"});
  }
  std::cout << kinds.render();
}

struct ExportOptions {
  std::string trace;
  std::string simgrid;
  std::string otf2;
  MachineOptions machine;
};

void export_otf2(const ExportOptions& o) {
  refuse_output_over_inputs(o.otf2, {o.trace}, "--otf2");
  auto job = events::open_events(o.trace);
  otf2::Otf2Export result = otf2::export_otf2(*job, o.otf2, fmt::format("perfcast trace {}", o.trace));
  std::cout << fmt::format("wrote {} events of {} ranks into {}: {} messages, {} collectives, {} communicators\n",
                           result.events, result.ranks, result.anchor.string(), result.messages, result.collectives,
                           result.communicators);
  std::cout << fmt::format("read it with: otf2-print {0} (or Vampir); back with: perfcast trace import {0} -o DIR\n",
                           result.anchor.string());
}

void export_trace(const ExportOptions& o) {
  if (o.simgrid.empty() == o.otf2.empty())
    throw UserError("name one format to export to", {"", std::nullopt, "--simgrid"}, "--simgrid DIR or --otf2 DIR");
  if (!o.otf2.empty()) return export_otf2(o);
  if (o.machine.file.empty())
    throw UserError("a SimGrid export needs the machine its platform is derived from", {"", std::nullopt, "--machine"},
                    "--machine M");
  refuse_output_over_inputs(o.simgrid, {o.trace, machine::find_machine_file(o.machine.file)}, "--simgrid");
  machine::Machine machine = load_machine(o.machine);
  auto job = events::open_events(o.trace);
  simgrid::TimeIndependentExport result = simgrid::export_time_independent(*job, machine, o.simgrid);
  std::cout << fmt::format("wrote {} actions of {} ranks into {} (index {}, platform.xml, smpi_options.txt)\n",
                           result.actions, result.ranks, o.simgrid, result.index_file);
  if (result.other_allreduces > 0)
    std::cout << fmt::format(
        "note: SMPI runs one allreduce algorithm ({}); perfcast runs another for {} of the allreduce calls\n",
        result.allreduce_algorithm, result.other_allreduces);
  std::cout << fmt::format("replay it with: smpirun -np {0} -platform {1}/platform.xml -replay {1}/{2} "
                           "$(cat {1}/smpi_options.txt)\n",
                           result.ranks, o.simgrid, result.index_file);
}

void import_trace(const std::string& archive, const std::string& output) {
  refuse_output_over_inputs(output, {archive}, "--output");
  otf2::Otf2Import result = otf2::import_otf2(archive, output);
  std::cout << fmt::format("read {} OTF2 records of {} ranks into {} events in {}\n", result.records, result.ranks,
                           result.events, output);
  for (const auto& [region, calls] : result.read_as_compute)
    std::cout << fmt::format("read as compute: {} ({} call{})\n", region, calls, calls == 1 ? "" : "s");
  std::cout << fmt::format("see it with: perfcast trace show {0}; replay it with: perfcast simulate {0} --machine M\n",
                           output);
}

}  // namespace

void add_trace_command(CLI::App& app) {
  auto o = std::make_shared<TraceOptions>();
  CLI::App* cmd = app.add_subcommand(
      "trace",
      "Record every MPI call of a real run (PMPI tracer, preloaded) as event streams perfcast simulate replays.");
  cmd->add_option("-o,--output", o->output, "The trace directory to write");
  cmd->add_option("command", o->command, "The launch command, after --: mpirun.openmpi -n 4 ./app args");
  cmd->add_flag("--fold-loops", o->fold_loops,
                "Store repeated loops once: events exact, times as per-position min/mean/max (docs/methods.md)");
  cmd->add_flag("--json", o->json, "Print the result as JSON");
  cmd->add_option("--machine", o->host_machine,
                  "This host's machine file (from perfcast calibrate), kept in the trace so a replay on another "
                  "machine rescales the compute");
  cmd->require_subcommand(0, 1);

  struct ShowOptions {
    std::string path;
    bool json = false;
  };
  auto show = std::make_shared<ShowOptions>();
  CLI::App* show_cmd = cmd->add_subcommand(
      "show", "Per rank: MPI calls, bytes, time in MPI and in compute, MPI_Init apart; calls by count and by time.");
  show_cmd->add_option("TRACE", show->path, "A trace directory")->required();
  show_cmd->add_flag("--json", show->json, "Print the figures as JSON");
  show_cmd->callback([show] { show_trace(show->path, show->json); });

  auto exp = std::make_shared<ExportOptions>();
  CLI::App* export_cmd = cmd->add_subcommand(
      "export", "Write a trace in another tool's format: SimGrid's time-independent trace (smpirun -replay) or OTF2.");
  export_cmd->add_option("TRACE", exp->trace, "A trace directory or text events file")->required();
  export_cmd->add_option("--simgrid", exp->simgrid, "The directory to write: rank_N.txt, traces.txt, platform.xml, "
                                                    "smpi_options.txt")
      ->type_name("DIR");
  export_cmd->add_option("--otf2", exp->otf2, "The directory to write an OTF2 archive with MPI records into "
                                              "(DIR/traces.otf2: Vampir, otf2-print)")
      ->type_name("DIR");
  add_machine_options(*export_cmd, exp->machine, false);
  export_cmd->callback([exp] { export_trace(*exp); });

  struct ImportOptions {
    std::string archive, output;
  };
  auto imp = std::make_shared<ImportOptions>();
  CLI::App* import_cmd = cmd->add_subcommand(
      "import", "Read an OTF2 archive (Score-P's) into a trace directory that simulate and trace show read.");
  import_cmd->add_option("ARCHIVE", imp->archive, "The archive's anchor file (DIR/traces.otf2)")->required();
  import_cmd->add_option("-o,--output", imp->output, "The trace directory to write")->required();
  import_cmd->callback([imp] { import_trace(imp->archive, imp->output); });

  cmd->callback([cmd, o] {
    if (!cmd->get_subcommands().empty()) return;
    if (o->output.empty()) throw CLI::RequiredError("--output");
    if (o->command.empty())
      throw UserError("no command to trace", {}, "perfcast trace -o DIR -- mpirun.openmpi -n 4 ./app");
    run_trace(*o);
  });
}

}  // namespace perfcast::cli
