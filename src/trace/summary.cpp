#include "trace/summary.h"

#include <algorithm>

namespace perfcast::trace {

namespace fs = std::filesystem;
using json = nlohmann::json;

TraceSummary summarize_trace(const fs::path& dir) {
  events::TraceManifest manifest = events::read_manifest(dir);
  TraceSummary out;
  out.path = dir.string();
  out.program = manifest.metadata.program;
  out.command = manifest.metadata.command;
  out.header = read_trace_header(dir);
  bool timed = out.header.ranks.size() == static_cast<std::size_t>(manifest.ranks);
  events::TraceJobSource job(dir);
  for (int r = 0; r < manifest.ranks; ++r) {
    RankSummary rank;
    rank.rank = r;
    auto source = job.open_rank(r);
    events::Event event;
    while (source->next(event, 0)) rank.stats.add(event);
    rank.stats.rank = r;
    rank.calls = rank.stats.events - rank.stats.by_kind[static_cast<std::size_t>(events::Kind::Compute)];
    rank.bytes = rank.stats.bytes_sent + rank.stats.collective_bytes;
    rank.compute_s = rank.stats.compute_seconds;
    if (timed) {
      const RankInfo& info = out.header.ranks[static_cast<std::size_t>(r)];
      rank.host = info.host;
      rank.mpi_s = info.mpi_s;
      rank.finalize_s = info.finalize_s;
      rank.wall_s = info.wall_s;
    }
    for (int k = 1; k < events::kKindCount; ++k)
      if (auto n = rank.stats.by_kind[static_cast<std::size_t>(k)]) rank.top_calls.emplace_back(events::Kind(k), n);
    std::stable_sort(rank.top_calls.begin(), rank.top_calls.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    if (rank.top_calls.size() > 3) rank.top_calls.resize(3);
    out.ranks.push_back(std::move(rank));
  }
  return out;
}

json to_json(const TraceSummary& summary) {
  json ranks = json::array();
  for (const auto& r : summary.ranks) {
    json top = json::array();
    for (const auto& [kind, n] : r.top_calls) top.push_back({{"kind", events::kind_name(kind)}, {"calls", n}});
    ranks.push_back({{"rank", r.rank},
                     {"host", r.host},
                     {"calls", r.calls},
                     {"bytes", r.bytes},
                     {"compute_s", r.compute_s},
                     {"mpi_s", r.mpi_s ? json(*r.mpi_s) : json(nullptr)},
                     {"finalize_s", r.finalize_s ? json(*r.finalize_s) : json(nullptr)},
                     {"wall_s", r.wall_s ? json(*r.wall_s) : json(nullptr)},
                     {"top_calls", std::move(top)}});
  }
  return {{"path", summary.path},
          {"program", summary.program},
          {"command", summary.command},
          {"hosts", summary.header.hosts},
          {"clock_resolution_s", summary.header.clock_resolution_s},
          {"ranks", std::move(ranks)}};
}

}  // namespace perfcast::trace
