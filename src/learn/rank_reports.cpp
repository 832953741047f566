#include "learn/rank_reports.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "support/error.h"

namespace perfcast::learn {

namespace {
using json = nlohmann::json;
constexpr const char* kFormat = "perfcast-features-report";
}  // namespace

std::string rank_report_file_name(int rank) { return fmt::format("rank-{}.features.json", rank); }

RankReport parse_rank_report(const std::string& text, const std::string& source) {
  auto fail = [&](const std::string& field, const std::string& what) -> UserError {
    return UserError(what, {source, std::nullopt, field},
                     "reports are written by the feature runtime (perfcast cc --features)");
  };
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw fail("", fmt::format("not JSON: {}", e.what()));
  }
  if (!j.is_object() || j.value("format", "") != kFormat)
    throw fail("format", fmt::format("not a rank report (format \"{}\" expected)", kFormat));
  if (j.value("version", 0) != 1) throw fail("version", "version 1 expected");
  RankReport r;
  try {
    r.rank = j.at("rank").get<int>();
    r.ranks = j.at("ranks").get<int>();
    r.pid = j.at("pid").get<long>();
    r.time_s = j.at("time_s").get<double>();
  } catch (const json::exception& e) {
    throw fail("rank, ranks, pid, time_s", fmt::format("missing or mistyped: {}", e.what()));
  }
  if (r.ranks < 1 || r.rank < 0 || r.rank >= r.ranks)
    throw fail("rank", fmt::format("rank {} of {} ranks is not a rank of the job", r.rank, r.ranks));
  if (!(r.time_s >= 0) || !std::isfinite(r.time_s)) throw fail("time_s", "is not a time since MPI_Init");
  const json& features = j.contains("features") ? j.at("features") : json();
  if (!features.is_object()) throw fail("features", "is not an object");
  for (const auto& [name, f] : features.items()) {
    if (!f.is_array() || f.size() != 3 || !f[0].is_string() || !f[1].is_number() || !f[2].is_number())
      throw fail("features." + name, "is not [\"count\" or \"value\", value, seconds]");
    std::string kind = f[0].get<std::string>();
    if (kind != "count" && kind != "value") throw fail("features." + name, fmt::format("unknown kind '{}'", kind));
    r.features.push_back({name, kind == "count", f[1].get<double>(), f[2].get<double>()});
  }
  return r;
}

FeatureRecord reduce_rank_reports(const std::vector<RankReport>& reports, const std::string& command) {
  if (reports.empty()) throw UserError("no rank reported its features");
  const int ranks = reports.front().ranks;
  std::set<int> seen;
  for (const auto& r : reports) {
    if (r.ranks != ranks)
      throw UserError(fmt::format("rank {} reports a job of {} ranks, rank {} one of {}", r.rank, r.ranks,
                                  reports.front().rank, ranks));
    if (!seen.insert(r.rank).second) throw UserError(fmt::format("rank {} reported twice", r.rank));
  }
  if (static_cast<int>(seen.size()) != ranks)
    throw UserError(fmt::format("{} of {} ranks reported their features", seen.size(), ranks));

  struct Sum {
    bool count = false;
    double value = 0, changed_s = 0;
    bool any = false;
  };
  std::map<std::string, Sum> sums;
  FeatureRecord out;
  out.ranks = ranks;
  out.command = command;
  for (const auto& r : reports) {
    out.time_s = std::max(out.time_s, r.time_s);
    for (const auto& f : r.features) {
      Sum& s = sums[f.name];
      s.count = f.count;
      if (f.count)
        s.value += f.value;
      else
        s.value = s.any ? std::max(s.value, f.value) : f.value;
      s.any = true;
      s.changed_s = std::max(s.changed_s, f.changed_s);
    }
  }
  json features = json::object();
  for (const auto& [name, s] : sums) {
    double epoch = out.time_s > 0 ? std::min(1.0, s.changed_s / out.time_s) : 0;
    out.features[name] = {s.value, epoch};
    features[name] = {s.value, epoch};
  }
  out.text = json{{"format", "perfcast-features"},
                  {"version", 1},
                  {"time_s", out.time_s},
                  {"ranks", ranks},
                  {"command", command},
                  {"features", features}}
                 .dump();
  return out;
}

}  // namespace perfcast::learn
