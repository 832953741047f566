#include "events/phase_patterns.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "support/error.h"

namespace perfcast::events {

using json = nlohmann::json;

namespace {

// Reads fields of one document, naming the file and the field's path in errors.
struct Reader {
  const std::string& file;

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw UserError(what, {file, std::nullopt, field});
  }
  const json& member(const json& object, const std::string& path, const char* name) const {
    auto it = object.find(name);
    if (it == object.end()) fail(path + name, "missing");
    return *it;
  }
  std::int64_t integer(const json& v, const std::string& field, std::int64_t low, std::int64_t high) const {
    if (!v.is_number_integer() || v.get<std::int64_t>() < low || v.get<std::int64_t>() > high)
      fail(field, fmt::format("expected an integer in [{}, {}]", low, high));
    return v.get<std::int64_t>();
  }
  double seconds(const json& v, const std::string& field) const {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) fail(field, "expected seconds >= 0");
    return v.get<double>();
  }
  bool boolean(const json& v, const std::string& field) const {
    if (!v.is_boolean()) fail(field, "expected true or false");
    return v.get<bool>();
  }
  const json& array(const json& v, const std::string& field) const {
    if (!v.is_array()) fail(field, "expected an array");
    return v;
  }
};

constexpr std::int64_t kMaxInt32 = 2147483647;

json pattern_event_json(const PatternEvent& e) {
  json j = {{"kind", std::string(kind_name(e.kind))}, {"comm", e.comm}};
  if (e.peer_offset) j["peer_offset"] = *e.peer_offset;
  if (e.source_offset) j["source_offset"] = *e.source_offset;
  if (e.root) j["root"] = *e.root;
  if (e.proc_null) j["proc_null"] = true;
  if (e.bytes) j["bytes"] = e.bytes;
  if (e.bytes2) j["bytes2"] = e.bytes2;
  if (e.requests) j["requests"] = e.requests;
  return j;
}

PatternEvent parse_pattern_event(const Reader& in, const json& j, const std::string& path) {
  if (!j.is_object()) in.fail(path, "expected an object");
  PatternEvent e;
  const json& kind = in.member(j, path + ".", "kind");
  if (!kind.is_string() || !parse_kind(kind.get<std::string>(), e.kind) || !op_of(e.kind))
    in.fail(path + ".kind", "expected the name of an MPI event kind");
  e.comm = static_cast<std::int32_t>(in.integer(in.member(j, path + ".", "comm"), path + ".comm", -1, kMaxInt32));
  auto optional_int = [&](const char* name) -> std::optional<std::int32_t> {
    auto it = j.find(name);
    if (it == j.end()) return std::nullopt;
    return static_cast<std::int32_t>(in.integer(*it, path + "." + name, -kMaxInt32, kMaxInt32));
  };
  e.peer_offset = optional_int("peer_offset");
  e.source_offset = optional_int("source_offset");
  e.root = optional_int("root");
  if (auto it = j.find("proc_null"); it != j.end()) e.proc_null = in.boolean(*it, path + ".proc_null");
  auto count = [&](const char* name) -> std::uint64_t {
    auto it = j.find(name);
    if (it == j.end()) return 0;
    if (!it->is_number_unsigned() && !(it->is_number_integer() && it->get<std::int64_t>() >= 0))
      in.fail(path + "." + name, "expected an integer >= 0");
    return it->get<std::uint64_t>();
  };
  e.bytes = count("bytes");
  e.bytes2 = count("bytes2");
  e.requests = static_cast<std::uint32_t>(count("requests"));
  return e;
}

}  // namespace

PatternEvent pattern_event(const Event& e, int comm_rank) {
  PatternEvent p;
  p.kind = e.kind;
  if (is_point_to_point(e.kind) || is_collective(e.kind)) p.comm = e.comm;
  if (is_point_to_point(e.kind)) {
    if (e.peer >= 0) p.peer_offset = e.peer - comm_rank;
    p.proc_null = e.peer == kProcNull;
    if (e.kind == Kind::Sendrecv && e.root >= 0) p.source_offset = e.root - comm_rank;
    p.bytes = e.bytes;
    if (e.kind == Kind::Sendrecv) p.bytes2 = e.bytes2;
  } else if (is_collective(e.kind)) {
    if (is_rooted(e.kind)) p.root = e.root;
    p.bytes = e.bytes;
    p.bytes2 = e.bytes2;
  } else if (is_completion(e.kind)) {
    p.requests = static_cast<std::uint32_t>(e.requests.size());
  }
  return p;
}

std::string patterns_json(const PhasePatterns& patterns) {
  json ranks = json::array();
  for (const auto& rank : patterns.by_rank) {
    json phases = json::array();
    for (const auto& phase : rank) {
      json events = json::array();
      for (const auto& e : phase.events) events.push_back(pattern_event_json(e));
      phases.push_back({{"phase", phase.phase}, {"warmup", phase.warmup}, {"events", std::move(events)}});
    }
    ranks.push_back(std::move(phases));
  }
  json j = {{"format", kPhasePatternsFormat},
            {"version", 1},
            {"ranks", patterns.ranks},
            {"measured", patterns.measured},
            {"match_bytes", patterns.match_bytes},
            {"by_rank", std::move(ranks)}};
  return j.dump() + "\n";
}

PhasePatterns parse_patterns(const std::string& text, const std::string& file) {
  Reader in{file};
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) in.fail("", "not a JSON object");
  const json& format = in.member(j, "", "format");
  if (format != kPhasePatternsFormat) in.fail("format", fmt::format("expected \"{}\"", kPhasePatternsFormat));
  if (in.integer(in.member(j, "", "version"), "version", 1, 1023) != 1) in.fail("version", "expected 1");
  PhasePatterns out;
  out.ranks = static_cast<int>(in.integer(in.member(j, "", "ranks"), "ranks", 1, kMaxInt32));
  out.measured = static_cast<int>(in.integer(in.member(j, "", "measured"), "measured", 1, 1000000));
  if (auto it = j.find("match_bytes"); it != j.end()) out.match_bytes = in.boolean(*it, "match_bytes");
  const json& ranks = in.array(in.member(j, "", "by_rank"), "by_rank");
  if (static_cast<int>(ranks.size()) != out.ranks)
    in.fail("by_rank", fmt::format("expected {} ranks' patterns, not {}", out.ranks, ranks.size()));
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    std::string rank_path = fmt::format("by_rank[{}]", r);
    std::vector<PhasePattern> phases;
    for (std::size_t p = 0; p < in.array(ranks[r], rank_path).size(); ++p) {
      std::string path = fmt::format("{}[{}]", rank_path, p);
      const json& phase = ranks[r][p];
      if (!phase.is_object()) in.fail(path, "expected an object");
      PhasePattern pattern;
      pattern.phase =
          static_cast<int>(in.integer(in.member(phase, path + ".", "phase"), path + ".phase", 1, kMaxInt32));
      pattern.warmup = in.integer(in.member(phase, path + ".", "warmup"), path + ".warmup", 0, INT64_MAX);
      const json& events = in.array(in.member(phase, path + ".", "events"), path + ".events");
      for (std::size_t e = 0; e < events.size(); ++e)
        pattern.events.push_back(parse_pattern_event(in, events[e], fmt::format("{}.events[{}]", path, e)));
      if (r > 0 && (p >= out.by_rank[0].size() || out.by_rank[0][p].phase != pattern.phase))
        in.fail(path + ".phase", "every rank lists the same phases in the same order");
      phases.push_back(std::move(pattern));
    }
    if (r > 0 && phases.size() != out.by_rank[0].size())
      in.fail(rank_path, "every rank lists the same phases in the same order");
    out.by_rank.push_back(std::move(phases));
  }
  return out;
}

std::string phase_measurement_file_name(int rank) { return fmt::format("rank-{:06d}.phases.json", rank); }

std::string measurement_json(const RankMeasurement& m) {
  json phases = json::array();
  for (const auto& p : m.phases)
    phases.push_back({{"phase", p.phase},
                      {"occurrences", p.occurrences},
                      {"times_s", p.times_s},
                      {"all_s", p.all_s},
                      {"all_count", p.all_count}});
  json j = {{"format", kPhaseMeasurementFormat},
            {"version", 1},
            {"rank", m.rank},
            {"ranks", m.ranks},
            {"complete", m.complete},
            {"finalized", m.finalized},
            {"calls", m.calls},
            {"pid", m.pid},
            {"phases", std::move(phases)}};
  if (m.init_s) j["init_s"] = *m.init_s;
  if (m.region_s) j["region_s"] = *m.region_s;
  if (m.complete_at_s) j["complete_at_s"] = *m.complete_at_s;
  if (!m.error.empty()) j["error"] = m.error;
  return j.dump(1) + "\n";
}

RankMeasurement parse_measurement(const std::string& text, const std::string& file) {
  Reader in{file};
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) in.fail("", "not a JSON object");
  if (in.member(j, "", "format") != kPhaseMeasurementFormat)
    in.fail("format", fmt::format("expected \"{}\"", kPhaseMeasurementFormat));
  if (in.integer(in.member(j, "", "version"), "version", 1, 1023) != 1) in.fail("version", "expected 1");
  RankMeasurement m;
  m.ranks = static_cast<int>(in.integer(in.member(j, "", "ranks"), "ranks", 1, kMaxInt32));
  m.rank = static_cast<int>(in.integer(in.member(j, "", "rank"), "rank", 0, m.ranks - 1));
  m.complete = in.boolean(in.member(j, "", "complete"), "complete");
  m.finalized = in.boolean(in.member(j, "", "finalized"), "finalized");
  m.calls = static_cast<std::uint64_t>(in.integer(in.member(j, "", "calls"), "calls", 0, INT64_MAX));
  if (auto it = j.find("pid"); it != j.end()) m.pid = in.integer(*it, "pid", 0, INT64_MAX);
  if (auto it = j.find("init_s"); it != j.end()) m.init_s = in.seconds(*it, "init_s");
  if (auto it = j.find("region_s"); it != j.end()) m.region_s = in.seconds(*it, "region_s");
  if (auto it = j.find("complete_at_s"); it != j.end()) m.complete_at_s = in.seconds(*it, "complete_at_s");
  if (auto it = j.find("error"); it != j.end()) {
    if (!it->is_string()) in.fail("error", "expected a string");
    m.error = it->get<std::string>();
  }
  const json& phases = in.array(in.member(j, "", "phases"), "phases");
  for (std::size_t i = 0; i < phases.size(); ++i) {
    std::string path = fmt::format("phases[{}]", i);
    const json& p = phases[i];
    if (!p.is_object()) in.fail(path, "expected an object");
    PhaseTiming t;
    t.phase = static_cast<int>(in.integer(in.member(p, path + ".", "phase"), path + ".phase", 1, kMaxInt32));
    t.occurrences = static_cast<std::uint64_t>(
        in.integer(in.member(p, path + ".", "occurrences"), path + ".occurrences", 0, INT64_MAX));
    const json& times = in.array(in.member(p, path + ".", "times_s"), path + ".times_s");
    for (std::size_t k = 0; k < times.size(); ++k)
      t.times_s.push_back(in.seconds(times[k], fmt::format("{}.times_s[{}]", path, k)));
    t.all_s = in.seconds(in.member(p, path + ".", "all_s"), path + ".all_s");
    t.all_count = static_cast<std::uint64_t>(
        in.integer(in.member(p, path + ".", "all_count"), path + ".all_count", 0, INT64_MAX));
    if (t.times_s.size() > t.occurrences) in.fail(path + ".times_s", "more times than occurrences");
    m.phases.push_back(std::move(t));
  }
  return m;
}

}  // namespace perfcast::events
