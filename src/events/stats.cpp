#include "events/stats.h"

#include "events/trace.h"

namespace perfcast::events {

namespace fs = std::filesystem;
using json = nlohmann::json;

void RankStats::add(const Event& e) {
  ++events;
  ++by_kind[static_cast<std::size_t>(e.kind)];
  if (e.kind != Kind::Compute && e.duration_s >= 0) {
    ++timed_calls;
    call_seconds[static_cast<std::size_t>(e.kind)] += e.duration_s;
  }
  switch (e.kind) {
    case Kind::Compute:
      if (e.seconds >= 0)
        compute_seconds += e.seconds;
      else
        ++unpriced_bursts;
      flops += e.flops;
      bytes_moved += e.bytes_moved;
      break;
    case Kind::Send:
    case Kind::Ssend:
    case Kind::Isend:
    case Kind::Issend:
    case Kind::Sendrecv:
      if (e.peer != kProcNull) {
        ++messages_sent;
        bytes_sent += e.bytes;
      }
      break;
    default:
      if (is_collective(e.kind)) collective_bytes += e.bytes;
      break;
  }
}

void RankStats::add(const RankStats& o) {
  events += o.events;
  for (std::size_t k = 0; k < by_kind.size(); ++k) by_kind[k] += o.by_kind[k];
  timed_calls += o.timed_calls;
  for (std::size_t k = 0; k < call_seconds.size(); ++k) call_seconds[k] += o.call_seconds[k];
  messages_sent += o.messages_sent;
  bytes_sent += o.bytes_sent;
  collective_bytes += o.collective_bytes;
  compute_seconds += o.compute_seconds;
  unpriced_bursts += o.unpriced_bursts;
  flops += o.flops;
  bytes_moved += o.bytes_moved;
  if (o.file_bytes) file_bytes = file_bytes.value_or(0) + *o.file_bytes;
}

std::optional<double> RankStats::bytes_per_event() const {
  if (!file_bytes || events == 0) return std::nullopt;
  return static_cast<double>(*file_bytes) / static_cast<double>(events);
}

EventStats compute_stats(const fs::path& path) {
  EventStats stats;
  stats.path = path.string();
  stats.format = detect_format(path);
  auto job = open_events(path);
  std::vector<std::unique_ptr<RankSource>> sources;
  for (int r = 0; r < job->size(); ++r) sources.push_back(job->open_rank(r));
  Event event;
  for (int r = 0; r < job->size(); ++r) {
    RankStats rank;
    rank.rank = r;
    auto& source = sources[static_cast<std::size_t>(r)];
    while (source->next(event, 0)) rank.add(event);
    source.reset();
    stats.ranks.push_back(rank);
  }
  if (stats.format == EventsFormat::Trace) {
    const auto& manifest = static_cast<TraceJobSource&>(*job).manifest();
    for (auto& rank : stats.ranks)
      rank.file_bytes = fs::file_size(path / manifest.streams[static_cast<std::size_t>(rank.rank)].file);
    stats.manifest_bytes = fs::file_size(path / kManifestName);
  }
  for (const auto& rank : stats.ranks) stats.total.add(rank);
  if (stats.manifest_bytes) stats.total.file_bytes = stats.total.file_bytes.value_or(0) + *stats.manifest_bytes;
  return stats;
}

namespace {

json rank_json(const RankStats& r) {
  json by_kind = json::object();
  for (int k = 0; k < kKindCount; ++k)
    if (r.by_kind[static_cast<std::size_t>(k)])
      by_kind[std::string(kind_name(static_cast<Kind>(k)))] = r.by_kind[static_cast<std::size_t>(k)];
  json j = {{"events", r.events},
            {"by_kind", by_kind},
            {"messages_sent", r.messages_sent},
            {"bytes_sent", r.bytes_sent},
            {"collective_bytes", r.collective_bytes},
            {"compute_seconds", r.compute_seconds},
            {"unpriced_bursts", r.unpriced_bursts},
            {"flops", r.flops},
            {"bytes_moved", r.bytes_moved}};
  if (r.rank >= 0) j["rank"] = r.rank;
  if (r.file_bytes) j["file_bytes"] = *r.file_bytes;
  if (auto b = r.bytes_per_event()) j["bytes_per_event"] = *b;
  return j;
}

}  // namespace

json to_json(const EventStats& stats) {
  json ranks = json::array();
  for (const auto& r : stats.ranks) ranks.push_back(rank_json(r));
  json j = {
      {"path", stats.path}, {"format", format_name(stats.format)}, {"ranks", ranks}, {"total", rank_json(stats.total)}};
  if (stats.manifest_bytes) j["manifest_bytes"] = *stats.manifest_bytes;
  return j;
}

}  // namespace perfcast::events
