#include "trace/summary.h"

#include <algorithm>

namespace perfcast::trace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using events::Kind;

namespace {

std::size_t index(Kind k) { return static_cast<std::size_t>(k); }

// The kinds of `stats` with at least one call, MPI_Init left out when
// `without_init`, ordered by time when `by_time` (ties and untimed: by count).
std::vector<CallKindTime> call_kinds(const events::RankStats& stats, bool timed, bool by_time, bool without_init) {
  std::vector<CallKindTime> out;
  for (int k = 1; k < events::kKindCount; ++k) {
    auto kind = static_cast<Kind>(k);
    if (without_init && kind == Kind::Init) continue;
    if (std::uint64_t n = stats.by_kind[index(kind)]) {
      CallKindTime c{kind, n, std::nullopt};
      if (timed) c.seconds = stats.call_seconds[index(kind)];
      out.push_back(c);
    }
  }
  std::stable_sort(out.begin(), out.end(), [by_time](const CallKindTime& a, const CallKindTime& b) {
    if (by_time && a.seconds.value_or(0) != b.seconds.value_or(0)) return a.seconds.value_or(0) > b.seconds.value_or(0);
    return a.calls > b.calls;
  });
  return out;
}

json seconds_json(const std::optional<double>& s) { return s ? json(*s) : json(nullptr); }

json kinds_json(const std::vector<CallKindTime>& kinds) {
  json out = json::array();
  for (const auto& c : kinds)
    out.push_back({{"kind", events::kind_name(c.kind)}, {"calls", c.calls}, {"seconds", seconds_json(c.seconds)}});
  return out;
}

}  // namespace

TraceSummary summarize_trace(const fs::path& dir) {
  events::TraceManifest manifest = events::read_manifest(dir);
  TraceSummary out;
  out.path = dir.string();
  out.program = manifest.metadata.program;
  out.command = manifest.metadata.command;
  out.header = read_trace_header(dir);
  bool timed = out.header.ranks.size() == static_cast<std::size_t>(manifest.ranks);
  events::TraceJobSource job(dir);
  events::RankStats all;
  for (int r = 0; r < manifest.ranks; ++r) {
    RankSummary rank;
    rank.rank = r;
    auto source = job.open_rank(r);
    events::Event event;
    std::optional<double> init_s;
    while (source->next(event, 0)) {
      rank.stats.add(event);
      if (event.kind == Kind::Init && event.duration_s >= 0) init_s = init_s.value_or(0) + event.duration_s;
    }
    out.folded_events += static_cast<const events::TraceRankSource&>(*source).folded_events_read();
    rank.stats.rank = r;
    rank.calls = rank.stats.events - rank.stats.by_kind[index(Kind::Compute)];
    rank.bytes = rank.stats.bytes_sent + rank.stats.collective_bytes;
    rank.compute_s = rank.stats.compute_seconds;
    if (timed) {
      const RankInfo& info = out.header.ranks[static_cast<std::size_t>(r)];
      rank.host = info.host;
      rank.mpi_s = info.mpi_s;
      rank.finalize_s = info.finalize_s;
      rank.wall_s = info.wall_s;
    }
    const bool calls_timed = rank.stats.timed_calls > 0;
    if (calls_timed) {
      rank.init_s = init_s;
      double total = 0;
      for (double s : rank.stats.call_seconds) total += s;
      rank.calls_s = total - init_s.value_or(0);
      rank.top_calls_by_time = call_kinds(rank.stats, true, true, true);
      if (rank.top_calls_by_time.size() > 3) rank.top_calls_by_time.resize(3);
    }
    rank.top_calls = call_kinds(rank.stats, calls_timed, false, false);
    if (rank.top_calls.size() > 3) rank.top_calls.resize(3);
    out.calls_timed = out.calls_timed || calls_timed;
    all.add(rank.stats);
    out.ranks.push_back(std::move(rank));
  }
  out.call_kinds = call_kinds(all, out.calls_timed, out.calls_timed, true);
  return out;
}

json to_json(const TraceSummary& summary) {
  json ranks = json::array();
  for (const auto& r : summary.ranks) {
    ranks.push_back({{"rank", r.rank},
                     {"host", r.host},
                     {"calls", r.calls},
                     {"bytes", r.bytes},
                     {"compute_s", r.compute_s},
                     {"mpi_s", seconds_json(r.mpi_s)},
                     {"finalize_s", seconds_json(r.finalize_s)},
                     {"wall_s", seconds_json(r.wall_s)},
                     {"init_s", seconds_json(r.init_s)},
                     {"calls_s", seconds_json(r.calls_s)},
                     {"top_calls", kinds_json(r.top_calls)},
                     {"top_calls_by_time", kinds_json(r.top_calls_by_time)}});
  }
  nlohmann::json cut_short = nlohmann::json::array();
  for (const auto& c : summary.header.cut_short)
    cut_short.push_back({{"rank", c.rank},
                         {"events", c.events},
                         {"whole_bytes", c.whole_bytes},
                         {"file_bytes", c.file_bytes},
                         {"stopped", c.stopped}});
  return {{"path", summary.path},
          {"program", summary.program},
          {"command", summary.command},
          {"hosts", summary.header.hosts},
          {"clock_resolution_s", summary.header.clock_resolution_s},
          {"calls_timed", summary.calls_timed},
          {"folded_events", summary.folded_events},
          {"call_kinds", kinds_json(summary.call_kinds)},
          {"cut_short", cut_short},
          {"ranks", std::move(ranks)}};
}

}  // namespace perfcast::trace
