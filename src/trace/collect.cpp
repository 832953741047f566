#include "trace/collect.h"

#include <fmt/format.h>

#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "support/error.h"
#include "support/utc_time.h"
#include "trace/recorder_environment.h"
#include "support/file_text.h"

namespace perfcast::trace {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

SourceLocation in_file(const fs::path& path) { return {path.string(), std::nullopt, ""}; }

// The files a traced run writes: streams (finished or not) and info files.
bool is_run_file(const std::string& name) {
  static const std::regex pattern(R"(rank-\d{6}\.(pcev|info\.json|phases\.json)(\.partial|\.partial\.torn|\.partial\.tail|\.partial\.tail\.new)?)");
  return std::regex_match(name, pattern);
}


std::string rank_list(const std::vector<int>& ranks) {
  std::string text;
  for (std::size_t i = 0; i < ranks.size() && i < 16; ++i) text += (i ? ", " : "") + std::to_string(ranks[i]);
  if (ranks.size() > 16) text += fmt::format(" and {} more", ranks.size() - 16);
  return text;
}

json rank_info_object(const RankInfo& info) {
  return {{"rank", info.rank},
          {"host", info.host},
          {"wall_s", info.wall_s},
          {"mpi_s", info.mpi_s},
          {"finalize_s", info.finalize_s},
          {"compute_s", info.compute_s},
          {"tracer_s", info.tracer_s},
          {"unresolved_receives", info.unresolved_receives}};
}

}  // namespace

std::string describe(const CutShort& cut) {
  return fmt::format(
      "rank {} was cut short (it never reached MPI_Finalize): {} events kept, read up to byte {} of {} "
      "(where it stopped: {})",
      cut.rank, cut.events, cut.whole_bytes, cut.file_bytes, cut.stopped);
}

void prepare_trace_dir(const fs::path& dir) {
  std::error_code error;
  if (!fs::exists(dir, error)) {
    fs::create_directories(dir, error);
    if (error) throw UserError("cannot create the directory: " + error.message(), in_file(dir));
    return;
  }
  if (!fs::is_directory(dir, error))
    throw UserError("exists and is not a directory", in_file(dir), "choose another output directory with -o");
  std::vector<fs::path> old;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    std::string name = entry.path().filename().string();
    if (name == events::kManifestName || name == kTracedMachineName || is_run_file(name))
      old.push_back(entry.path());
    else
      throw UserError(fmt::format("holds '{}', which is not part of a trace: not writing a trace here", name),
                      in_file(dir), "choose another output directory with -o, or empty this one");
  }
  for (const auto& path : old) fs::remove(path, error);
}

CollectedTrace collect_trace(const fs::path& dir, const std::vector<std::string>& command) {
  // The world size comes from the info files themselves.
  std::vector<RankInfo> infos;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (!name.ends_with(".info.json")) continue;
    RankInfo info;
    if (!parse_rank_info(read_file_or_empty(entry.path()), info))
      throw UserError("not a rank info file the tracer wrote", in_file(entry.path()));
    infos.push_back(info);
  }
  if (infos.empty())
    throw UserError("no rank of the run left a trace: no rank returned from MPI_Init under the tracer", in_file(dir),
                    "check that the command runs an MPI program (built with Open MPI) and that it finishes");
  int ranks = infos.front().ranks;
  CollectedTrace out;
  out.header.ranks.resize(static_cast<std::size_t>(ranks));
  std::vector<bool> seen(static_cast<std::size_t>(ranks), false);
  for (const auto& info : infos) {
    if (info.ranks != ranks || info.rank < 0 || info.rank >= ranks)
      throw UserError(fmt::format("rank {} of {} beside rank {} of {}: files of two runs", info.rank, info.ranks,
                                  infos.front().rank, ranks),
                      in_file(dir), "trace into an empty directory");
    seen[static_cast<std::size_t>(info.rank)] = true;
    out.header.ranks[static_cast<std::size_t>(info.rank)] = info;
  }
  std::vector<int> missing, failed, unfinished;
  std::string first_error;
  for (int r = 0; r < ranks; ++r) {
    const RankInfo& info = out.header.ranks[static_cast<std::size_t>(r)];
    if (!seen[static_cast<std::size_t>(r)]) {
      missing.push_back(r);
    } else if (!info.error.empty()) {
      failed.push_back(r);
      if (first_error.empty()) first_error = fmt::format("rank {}: {}", r, info.error);
    } else if (!info.finished) {
      unfinished.push_back(r);
    }
  }
  if (!failed.empty())
    throw UserError(fmt::format("the tracer stopped on rank{} {} ({})", failed.size() == 1 ? "" : "s",
                                rank_list(failed), first_error),
                    in_file(dir));
  if (!missing.empty())
    throw UserError(fmt::format("rank{} {} of {} never returned from MPI_Init under the tracer: no stream",
                                missing.size() == 1 ? "" : "s", rank_list(missing), ranks),
                    in_file(dir));

  json cut_short = json::array();
  for (int r : unfinished) {
    RankInfo& info = out.header.ranks[static_cast<std::size_t>(r)];
    fs::path stream = dir / events::rank_file_name(r);
    fs::path partial = stream;
    partial += ".partial";
    if (!fs::exists(partial))
      throw UserError(fmt::format("rank {} never reached MPI_Finalize and left no stream", r), in_file(stream));
    events::SalvagedStream salvaged = events::salvage_stream(partial, stream, r);
    info.events = salvaged.events;
    CutShort cut{r, salvaged.events, salvaged.whole_bytes, salvaged.file_bytes, salvaged.stopped};
    cut_short.push_back({{"rank", r},
                         {"events", cut.events},
                         {"whole_bytes", cut.whole_bytes},
                         {"file_bytes", cut.file_bytes},
                         {"stopped", cut.stopped}});
    out.header.cut_short.push_back(std::move(cut));
  }

  json streams = json::array(), tracer_ranks = json::array();
  for (int r = 0; r < ranks; ++r) {
    const RankInfo& info = out.header.ranks[static_cast<std::size_t>(r)];
    fs::path stream = dir / events::rank_file_name(r);
    if (!fs::exists(stream)) throw UserError(fmt::format("rank {}: its stream is missing", r), in_file(stream));
    events::TraceRankSource source(stream, r, info.events);  // throws UserError on a bad stream
    events::Event event;
    while (source.next(event)) {
    }
    streams.push_back({{"rank", r}, {"file", events::rank_file_name(r)}, {"events", info.events}});
    tracer_ranks.push_back(rank_info_object(info));
    if (std::find(out.header.hosts.begin(), out.header.hosts.end(), info.host) == out.header.hosts.end())
      out.header.hosts.push_back(info.host);
    out.header.clock_resolution_s = std::max(out.header.clock_resolution_s, info.clock_resolution_s);
  }
  json document = {{"format", events::kTraceFormatName},
                   {"version", events::kTraceFormatVersion},
                   {"ranks", ranks},
                   {"program", out.header.ranks.front().program},
                   {"command", command},
                   {"created", utc_now_iso8601()},
                   {"streams", std::move(streams)},
                   {"tracer",
                    {{"hosts", out.header.hosts},
                     {"clock_resolution_s", out.header.clock_resolution_s},
                     {"ranks", std::move(tracer_ranks)},
                     {"cut_short", std::move(cut_short)}}}};
  fs::path manifest = dir / events::kManifestName;
  {
    std::ofstream file(manifest);
    file << document.dump(1) << "\n";
    if (!file) throw UserError("cannot write the manifest", in_file(manifest));
  }
  out.manifest = events::read_manifest(dir);
  std::error_code ignored;
  for (int r = 0; r < ranks; ++r) fs::remove(dir / rank_info_file_name(r), ignored);
  return out;
}

TraceHeader read_trace_header(const fs::path& dir) {
  TraceHeader header;
  json document = json::parse(read_file_or_empty(dir / events::kManifestName), nullptr, false);
  if (document.is_discarded() || !document.is_object()) return header;
  auto tracer = document.find("tracer");
  if (tracer == document.end() || !tracer->is_object()) return header;
  try {
    header.hosts = tracer->at("hosts").get<std::vector<std::string>>();
    header.clock_resolution_s = tracer->at("clock_resolution_s").get<double>();
    for (const json& r : tracer->at("ranks")) {
      RankInfo info;
      info.rank = r.at("rank").get<int>();
      info.host = r.at("host").get<std::string>();
      info.wall_s = r.at("wall_s").get<double>();
      info.mpi_s = r.at("mpi_s").get<double>();
      info.finalize_s = r.at("finalize_s").get<double>();
      info.compute_s = r.at("compute_s").get<double>();
      info.tracer_s = r.at("tracer_s").get<double>();
      info.unresolved_receives = r.at("unresolved_receives").get<std::uint64_t>();
      header.ranks.push_back(info);
    }
    if (auto cut = tracer->find("cut_short"); cut != tracer->end())
      for (const json& c : *cut)
        header.cut_short.push_back({c.at("rank").get<int>(), c.at("events").get<std::uint64_t>(),
                                    c.at("whole_bytes").get<std::uint64_t>(), c.at("file_bytes").get<std::uint64_t>(),
                                    c.at("stopped").get<std::string>()});
  } catch (const json::exception& e) {
    throw UserError(std::string("the tracer header is malformed: ") + e.what(),
                    {(dir / events::kManifestName).string(), std::nullopt, "tracer"});
  }
  return header;
}

}  // namespace perfcast::trace
