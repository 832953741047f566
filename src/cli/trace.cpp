// `perfcast trace`: run an unmodified MPI program with the PMPI tracer preloaded
// and collect its ranks' event streams into a trace; `trace show` summarises one.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "cli/commands.h"
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
  bool json = false;
};

void run_trace(const TraceOptions& o) {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  fs::path library = trace::find_trace_library(exe);
  fs::path dir = fs::absolute(o.output).lexically_normal();
  trace::prepare_trace_dir(dir);
  int status = trace::run_traced(o.command, library, dir);
  trace::CollectedTrace collected;
  try {
    collected = trace::collect_trace(dir, o.command);
  } catch (const UserError& e) {
    if (status == 0) throw;
    throw UserError(fmt::format("{} exited with status {}, and {}", o.command.front(), status, e.what()));
  }
  const auto& manifest = collected.manifest;
  if (o.json) {
    nlohmann::json ranks = nlohmann::json::array();
    for (const auto& s : manifest.streams) ranks.push_back({{"rank", s.rank}, {"events", s.events}});
    std::cout << nlohmann::json{{"trace", dir.string()}, {"exit_status", status}, {"ranks", ranks}}.dump(2) << "\n";
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
  using Align = report::Table::Align;
  report::Table table(
      {"rank", "calls", "bytes", "in MPI", "of it finalize", "in compute", "wall", "top calls"},
      {Align::Right, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right, Align::Left});
  for (const auto& r : summary.ranks) {
    std::string top;
    for (const auto& [kind, n] : r.top_calls)
      top += fmt::format("{}{} {}", top.empty() ? "" : ", ", events::kind_name(kind), n);
    table.add_row({std::to_string(r.rank), std::to_string(r.calls), bytes_text(static_cast<double>(r.bytes)),
                   r.mpi_s ? seconds_text(*r.mpi_s) : "-", r.finalize_s ? seconds_text(*r.finalize_s) : "-",
                   seconds_text(r.compute_s), r.wall_s ? seconds_text(*r.wall_s) : "-", top});
  }
  std::cout << table.render();
}

}  // namespace

void add_trace_command(CLI::App& app) {
  auto o = std::make_shared<TraceOptions>();
  CLI::App* cmd = app.add_subcommand(
      "trace",
      "Record every MPI call of a real run (PMPI tracer, preloaded) as event streams perfcast simulate replays.");
  cmd->add_option("-o,--output", o->output, "The trace directory to write");
  cmd->add_option("command", o->command, "The launch command, after --: mpirun.openmpi -n 4 ./app args");
  cmd->add_flag("--json", o->json, "Print the result as JSON");
  cmd->require_subcommand(0, 1);

  struct ShowOptions {
    std::string path;
    bool json = false;
  };
  auto show = std::make_shared<ShowOptions>();
  CLI::App* show_cmd =
      cmd->add_subcommand("show", "Per rank: MPI calls, bytes, time in MPI and in compute, the most frequent calls.");
  show_cmd->add_option("TRACE", show->path, "A trace directory")->required();
  show_cmd->add_flag("--json", show->json, "Print the figures as JSON");
  show_cmd->callback([show] { show_trace(show->path, show->json); });

  cmd->callback([cmd, o] {
    if (!cmd->get_subcommands().empty()) return;
    if (o->output.empty()) throw CLI::RequiredError("--output");
    if (o->command.empty())
      throw UserError("no command to trace", {}, "perfcast trace -o DIR -- mpirun.openmpi -n 4 ./app");
    run_trace(*o);
  });
}

}  // namespace perfcast::cli
