// The signature file (docs/signature.md): written by write_signature, read and
// checked field by field by read_signature.
#include <fmt/format.h>

#include <climits>
#include <cmath>
#include <fstream>
#include <sstream>

#include "signature/signature.h"
#include "support/error.h"
#include "support/output_file.h"

namespace perfcast::signature {

namespace {

using nlohmann::json;

json event_json(const BlockEvent& b) {
  json j = {{"rank", b.rank}, {"kind", std::string(events::kind_name(b.kind))}};
  if (b.comm != events::kCommWorld) j["comm"] = b.comm;
  if (b.peer_offset) j["peer_offset"] = *b.peer_offset;
  if (b.proc_null) j["proc_null"] = true;
  if (b.source_offset) j["source_offset"] = *b.source_offset;
  if (b.root) j["root"] = *b.root;
  if (b.bytes) j["bytes"] = b.bytes;
  if (b.bytes2) j["bytes2"] = b.bytes2;
  if (b.requests) j["requests"] = b.requests;
  if (b.site) j["site"] = b.site;
  return j;
}

// Reads one document, naming the file and the field (a JSON path such as
// phases[2].weight) in every error.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw UserError(what, {.file = file_, .field = field});
  }

  const json& member(const json& object, const std::string& path, const char* key) const {
    if (!object.is_object()) fail(path, "expected an object");
    auto it = object.find(key);
    if (it == object.end()) fail(join(path, key), "missing");
    return *it;
  }
  const json* optional_member(const json& object, const char* key) const {
    auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  }
  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  double seconds(const json& object, const std::string& path, const char* key) const {
    const json& v = member(object, path, key);
    if (!v.is_number()) fail(join(path, key), "expected a number of seconds");
    double d = v.get<double>();
    if (!std::isfinite(d) || d < 0) fail(join(path, key), fmt::format("expected seconds >= 0, not {}", d));
    return d;
  }
  double share(const json& object, const std::string& path, const char* key, bool zero_allowed) const {
    const json& v = member(object, path, key);
    if (!v.is_number()) fail(join(path, key), "expected a number");
    double d = v.get<double>();
    if (!(d >= 0 && d <= 1) || (!zero_allowed && d == 0))
      fail(join(path, key), fmt::format("expected a share in {}0, 1], not {}", zero_allowed ? "[" : "(", d));
    return d;
  }
  std::int64_t integer(const json& v, const std::string& field, std::int64_t min) const {
    if (!v.is_number_integer()) fail(field, "expected an integer");
    auto i = v.get<std::int64_t>();
    if (i < min) fail(field, fmt::format("expected an integer >= {}, not {}", min, i));
    return i;
  }
  std::int64_t integer(const json& object, const std::string& path, const char* key, std::int64_t min) const {
    return integer(member(object, path, key), join(path, key), min);
  }
  std::string text(const json& object, const std::string& path, const char* key) const {
    const json& v = member(object, path, key);
    if (!v.is_string()) fail(join(path, key), "expected a string");
    return v.get<std::string>();
  }
  const json& array(const json& object, const std::string& path, const char* key) const {
    const json& v = member(object, path, key);
    if (!v.is_array()) fail(join(path, key), "expected an array");
    return v;
  }

 private:
  std::string file_;
};

BlockEvent event_from(const Reader& in, const json& j, const std::string& path, int ranks) {
  BlockEvent b;
  b.rank = static_cast<int>(in.integer(j, path, "rank", 0));
  if (b.rank >= ranks) in.fail(path + ".rank", fmt::format("rank {} of a signature of {} ranks", b.rank, ranks));
  std::string kind = in.text(j, path, "kind");
  if (!events::parse_kind(kind, b.kind) || b.kind == events::Kind::Compute)
    in.fail(path + ".kind", fmt::format("'{}' is not an MPI event kind", kind));
  auto opt_int = [&](const char* key, std::int64_t min) -> std::optional<std::int64_t> {
    const json* v = in.optional_member(j, key);
    if (!v) return std::nullopt;
    return in.integer(*v, Reader::join(path, key), min);
  };
  constexpr std::int64_t any = INT32_MIN;
  if (auto v = opt_int("comm", 0)) b.comm = static_cast<std::int32_t>(*v);
  if (auto v = opt_int("peer_offset", any)) b.peer_offset = static_cast<std::int32_t>(*v);
  if (auto v = opt_int("source_offset", any)) b.source_offset = static_cast<std::int32_t>(*v);
  if (auto v = opt_int("root", 0)) b.root = static_cast<std::int32_t>(*v);
  if (auto v = opt_int("bytes", 0)) b.bytes = static_cast<std::uint64_t>(*v);
  if (auto v = opt_int("bytes2", 0)) b.bytes2 = static_cast<std::uint64_t>(*v);
  if (auto v = opt_int("requests", 0)) b.requests = static_cast<std::uint32_t>(*v);
  if (auto v = opt_int("site", 0)) b.site = static_cast<std::uint32_t>(*v);
  if (const json* v = in.optional_member(j, "proc_null")) {
    if (!v->is_boolean()) in.fail(path + ".proc_null", "expected true or false");
    b.proc_null = v->get<bool>();
  }
  return b;
}

}  // namespace

json to_json(const Signature& s) {
  json phases = json::array();
  for (const auto& p : s.phases) {
    json blocks = json::array();
    for (const auto& block : p.blocks) {
      json events = json::array();
      for (const auto& b : block) events.push_back(event_json(b));
      blocks.push_back(events);
    }
    phases.push_back({{"id", p.id},
                      {"weight", p.weight},
                      {"first_tick", p.first_tick},
                      {"ticks", p.blocks.size()},
                      {"time_per_occurrence_s", p.time_per_occurrence_s},
                      {"time_s", p.time_s},
                      {"share", p.share},
                      {"relevant", p.relevant},
                      {"inner", p.inner},
                      {"representative", p.representative},
                      {"blocks", blocks}});
  }
  json j = {{"format", kSignatureFormatName},
            {"version", kSignatureFormatVersion},
            {"trace", s.trace},
            {"program", s.program},
            {"ranks", s.ranks},
            {"algorithm", algorithm_name(s.algorithm)},
            {"coverage", s.coverage},
            {"ticks", s.ticks},
            {"covered_share", s.covered_share},
            {"initialization_s", s.initialization_s},
            {"remainder_s", s.remainder_s},
            {"predicted_total_s", s.predicted_total_s},
            {"traced_total_s", s.traced_total_s},
            {"calls_timed", s.calls_timed},
            {"phases", phases}};
  if (s.traced_wall_s) j["traced_wall_s"] = *s.traced_wall_s;
  if (s.traced_wall_before_finalize_s) j["traced_wall_before_finalize_s"] = *s.traced_wall_before_finalize_s;
  return j;
}

Signature from_json(const json& j, const std::string& file) {
  Reader in(file);
  Signature s;
  if (!j.is_object()) in.fail("", "expected a JSON object (a perfcast signature)");
  if (in.text(j, "", "format") != kSignatureFormatName)
    in.fail("format", fmt::format("expected \"{}\"", kSignatureFormatName));
  auto version = in.integer(j, "", "version", 1);
  if (version > kSignatureFormatVersion)
    in.fail("version", fmt::format("version {} is not known; this perfcast reads versions 1 to {}", version,
                                   kSignatureFormatVersion));
  s.trace = in.text(j, "", "trace");
  s.program = in.text(j, "", "program");
  s.ranks = static_cast<int>(in.integer(j, "", "ranks", 1));
  std::string algorithm = in.text(j, "", "algorithm");
  if (!parse_algorithm(algorithm, s.algorithm))
    in.fail("algorithm", fmt::format("'{}' is not an algorithm (repeats or loops)", algorithm));
  s.coverage = in.share(j, "", "coverage", false);
  s.ticks = in.integer(j, "", "ticks", 0);
  s.covered_share = in.share(j, "", "covered_share", true);
  s.initialization_s = in.seconds(j, "", "initialization_s");
  s.remainder_s = in.seconds(j, "", "remainder_s");
  s.predicted_total_s = in.seconds(j, "", "predicted_total_s");
  s.traced_total_s = in.seconds(j, "", "traced_total_s");
  if (in.optional_member(j, "traced_wall_s")) s.traced_wall_s = in.seconds(j, "", "traced_wall_s");
  if (in.optional_member(j, "traced_wall_before_finalize_s"))
    s.traced_wall_before_finalize_s = in.seconds(j, "", "traced_wall_before_finalize_s");
  // Version 1 predates call durations: its times never include them.
  if (version >= 2) {
    const json& timed = in.member(j, "", "calls_timed");
    if (!timed.is_boolean()) in.fail("calls_timed", "expected true or false");
    s.calls_timed = timed.get<bool>();
  }
  const json& phases = in.array(j, "", "phases");
  double relevant_s = 0;
  for (std::size_t i = 0; i < phases.size(); ++i) {
    std::string path = fmt::format("phases[{}]", i);
    const json& pj = phases[i];
    Phase p;
    p.id = static_cast<int>(in.integer(pj, path, "id", 1));
    p.weight = in.integer(pj, path, "weight", 1);
    p.first_tick = in.integer(pj, path, "first_tick", 1);
    if (p.first_tick > s.ticks)
      in.fail(path + ".first_tick", fmt::format("tick {} is past the last tick, {}", p.first_tick, s.ticks));
    p.time_per_occurrence_s = in.seconds(pj, path, "time_per_occurrence_s");
    p.time_s = in.seconds(pj, path, "time_s");
    p.share = in.share(pj, path, "share", true);
    const json& relevant = in.member(pj, path, "relevant");
    if (!relevant.is_boolean()) in.fail(path + ".relevant", "expected true or false");
    p.relevant = relevant.get<bool>();
    if (in.optional_member(pj, "representative")) {
      p.representative = in.integer(pj, path, "representative", 0);
      if (p.representative >= p.weight)
        in.fail(path + ".representative",
                fmt::format("occurrence {} of a phase of weight {}", p.representative, p.weight));
    }
    for (const auto& inner : in.array(pj, path, "inner"))
      p.inner.push_back(static_cast<int>(in.integer(inner, path + ".inner", 1)));
    const json& blocks = in.array(pj, path, "blocks");
    auto ticks = in.integer(pj, path, "ticks", 0);
    if (static_cast<std::size_t>(ticks) != blocks.size())
      in.fail(path + ".ticks", fmt::format("says {} ticks, and blocks holds {}", ticks, blocks.size()));
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      std::string bpath = fmt::format("{}.blocks[{}]", path, b);
      if (!blocks[b].is_array()) in.fail(bpath, "expected an array of events");
      Block block;
      for (std::size_t e = 0; e < blocks[b].size(); ++e)
        block.push_back(event_from(in, blocks[b][e], fmt::format("{}[{}]", bpath, e), s.ranks));
      p.blocks.push_back(std::move(block));
    }
    if (p.relevant) relevant_s += p.time_per_occurrence_s * static_cast<double>(p.weight);
    s.phases.push_back(std::move(p));
  }
  // The one equation a signature states: its prediction is the sum of its parts.
  double sum = s.initialization_s + relevant_s + s.remainder_s;
  if (std::abs(sum - s.predicted_total_s) > 1e-9 + 1e-6 * std::abs(sum))
    in.fail("predicted_total_s",
            fmt::format("{} s is not initialization_s + sum of relevant phases' time_per_occurrence_s x weight + "
                        "remainder_s = {} s",
                        s.predicted_total_s, sum));
  return s;
}

void write_signature(const Signature& s, const std::filesystem::path& path) {
  write_file_atomically(path, to_json(s).dump(2) + "\n");
}

Signature read_signature(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw UserError("cannot read the signature file", {.file = path.string()});
  std::stringstream text;
  text << in.rdbuf();
  json j;
  try {
    j = json::parse(text.str());
  } catch (const json::parse_error& e) {
    throw UserError(fmt::format("not JSON: {}", e.what()), {.file = path.string()});
  }
  return from_json(j, path.string());
}

}  // namespace perfcast::signature
