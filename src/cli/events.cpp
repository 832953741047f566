// `perfcast events`: convert event streams between text and binary traces,
// show them as text, and summarise them.
#include <fmt/format.h>

#include <iostream>

#include "cli/count_checks.h"
#include "cli/commands.h"
#include "events/convert.h"
#include "events/stats.h"
#include "events/text.h"
#include "report/table.h"
#include "support/output_file.h"
#include "support/units.h"

namespace perfcast::cli {

namespace {

using events::EventStats;
using events::RankStats;

std::string bytes_text(double b) { return units::format(b, units::Dimension::Bytes, 4); }
std::string seconds_text(double s) { return s == 0 ? "0" : units::format(s, units::Dimension::Seconds, 4); }
std::string per_event_text(const RankStats& r) {
  auto b = r.bytes_per_event();
  return b ? fmt::format("{:.2f}", *b) : "-";
}

void print_stats(const EventStats& stats) {
  const RankStats& t = stats.total;
  std::cout << fmt::format("{} {}: {} rank{}, {} events", events::format_name(stats.format), stats.path,
                           stats.ranks.size(), stats.ranks.size() == 1 ? "" : "s", t.events);
  if (t.file_bytes)
    std::cout << fmt::format(", {} on disk with trace.json ({} bytes/event)", bytes_text(double(*t.file_bytes)),
                             per_event_text(t));
  std::cout << "\n\n";

  // Events by kind: one column per kind that occurs anywhere.
  std::vector<int> kinds;
  for (int k = 0; k < events::kKindCount; ++k)
    if (t.by_kind[static_cast<std::size_t>(k)]) kinds.push_back(k);
  std::vector<std::string> headers = {"rank"};
  for (int k : kinds) headers.emplace_back(events::kind_name(static_cast<events::Kind>(k)));
  headers.emplace_back("events");
  report::Table by_kind(headers);
  auto kind_row = [&](const std::string& name, const RankStats& r) {
    std::vector<std::string> cells = {name};
    for (int k : kinds) cells.push_back(std::to_string(r.by_kind[static_cast<std::size_t>(k)]));
    cells.push_back(std::to_string(r.events));
    by_kind.add_row(cells);
  };
  for (const auto& r : stats.ranks) kind_row(std::to_string(r.rank), r);
  if (stats.ranks.size() > 1) {
    by_kind.add_separator();
    kind_row("all", t);
  }
  std::cout << "events by kind\n" << by_kind.render() << "\n";

  report::Table volume({"rank", "messages sent", "bytes sent", "collective bytes", "compute time", "unpriced bursts",
                        "file size", "bytes/event"});
  auto volume_row = [&](const std::string& name, const RankStats& r) {
    volume.add_row({name, std::to_string(r.messages_sent), bytes_text(double(r.bytes_sent)),
                    bytes_text(double(r.collective_bytes)), seconds_text(r.compute_seconds),
                    std::to_string(r.unpriced_bursts), r.file_bytes ? bytes_text(double(*r.file_bytes)) : "-",
                    per_event_text(r)});
  };
  for (const auto& r : stats.ranks) volume_row(std::to_string(r.rank), r);
  if (stats.ranks.size() > 1) {
    volume.add_separator();
    volume_row("all", t);
  }
  std::cout << "traffic and compute\n" << volume.render();
  std::cout << "\nbytes sent: point-to-point sends (MPI_PROC_NULL excluded); collective bytes: send buffers; "
               "unpriced bursts: compute given as flops/bytes, priced by a machine model.\n";
  if (t.file_bytes) std::cout << "file size: each rank's stream file; 'all' adds trace.json.\n";
}

}  // namespace

void add_events_command(CLI::App& app) {
  CLI::App* events = app.add_subcommand(
      "events",
      "Event streams (what each rank does: compute bursts and MPI operations): convert between the text form "
      "and binary traces, show them, summarise them.");
  events->require_subcommand(1);

  struct ConvertOptions {
    std::string in, out;
  };
  auto convert = std::make_shared<ConvertOptions>();
  CLI::App* convert_cmd = events->add_subcommand(
      "convert", "Convert a text file to a trace directory, or a trace directory to a text file (by what IN is).");
  convert_cmd->add_option("IN", convert->in, "A text file of events, or a trace directory")->required();
  convert_cmd->add_option("OUT", convert->out, "The trace directory or text file to write")->required();
  convert_cmd->footer(
      "OUT is written completely or not at all; an existing trace at OUT is replaced only once the new one is whole.");
  convert_cmd->callback([convert] {
    refuse_output_over_inputs(convert->out, {convert->in}, "OUT");
    auto result = events::convert_events(convert->in, convert->out);
    std::cout << fmt::format("{} {} -> {} {}: {} rank{}, {} events\n", events::format_name(result.from), convert->in,
                             events::format_name(result.to), convert->out, result.ranks, result.ranks == 1 ? "" : "s",
                             result.events);
  });

  struct ShowOptions {
    std::string path;
    int rank = -1;
    std::uint64_t head = 0;
  };
  auto show = std::make_shared<ShowOptions>();
  CLI::App* show_cmd = events->add_subcommand("show", "Print event streams in the text form.");
  show_cmd->add_option("TRACE", show->path, "A trace directory (or a text file)")->required();
  show_cmd->add_option("-r,--rank", show->rank, "Only this rank")->check(kNonNegativeCount);
  show_cmd->add_option("--head", show->head, "Only the first N events of each rank")->check(kPositiveCount);
  show_cmd->callback([show] {
    auto job = events::open_events(show->path);
    events::TextWriteOptions options;
    options.only_rank = show->rank;
    if (show->head > 0) options.head = show->head;
    events::write_text(*job, std::cout, options);
  });

  struct StatsOptions {
    std::string path;
    bool json = false;
  };
  auto stats = std::make_shared<StatsOptions>();
  CLI::App* stats_cmd = events->add_subcommand(
      "stats",
      "Per rank: events by kind, messages and bytes sent, compute time; for traces, file sizes and bytes per event.");
  stats_cmd->add_option("TRACE", stats->path, "A trace directory (or a text file)")->required();
  stats_cmd->add_flag("--json", stats->json, "Print the figures as JSON");
  stats_cmd->callback([stats] {
    EventStats figures = events::compute_stats(stats->path);
    if (stats->json)
      std::cout << events::to_json(figures).dump(2) << "\n";
    else
      print_stats(figures);
  });
}

}  // namespace perfcast::cli
