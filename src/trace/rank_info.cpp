#include "trace/rank_info.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace perfcast::trace {

using json = nlohmann::json;

std::string rank_info_file_name(int rank) { return fmt::format("rank-{:06d}.info.json", rank); }

std::string rank_info_json(const RankInfo& info) {
  json document = {
      {"rank", info.rank},           {"ranks", info.ranks},       {"events", info.events},
      {"host", info.host},           {"program", info.program},   {"clock_resolution_s", info.clock_resolution_s},
      {"wall_s", info.wall_s},       {"mpi_s", info.mpi_s},       {"finalize_s", info.finalize_s},
      {"compute_s", info.compute_s}, {"tracer_s", info.tracer_s}, {"unresolved_receives", info.unresolved_receives},
      {"error", info.error},         {"finished", info.finished}, {"pid", info.pid}};
  return document.dump(1) + "\n";
}

bool parse_rank_info(const std::string& text, RankInfo& out) {
  json document = json::parse(text, nullptr, false);
  if (document.is_discarded() || !document.is_object()) return false;
  try {
    out.rank = document.at("rank").get<int>();
    out.ranks = document.at("ranks").get<int>();
    out.events = document.at("events").get<std::uint64_t>();
    out.host = document.at("host").get<std::string>();
    out.program = document.at("program").get<std::string>();
    out.clock_resolution_s = document.at("clock_resolution_s").get<double>();
    out.wall_s = document.at("wall_s").get<double>();
    out.mpi_s = document.at("mpi_s").get<double>();
    out.finalize_s = document.at("finalize_s").get<double>();
    out.compute_s = document.at("compute_s").get<double>();
    out.tracer_s = document.at("tracer_s").get<double>();
    out.unresolved_receives = document.at("unresolved_receives").get<std::uint64_t>();
    out.error = document.at("error").get<std::string>();
    out.finished = document.value("finished", true);
    out.pid = document.value("pid", std::int64_t{0});
  } catch (const json::exception&) {
    return false;
  }
  return true;
}

}  // namespace perfcast::trace
