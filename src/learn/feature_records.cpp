#include "learn/feature_records.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "support/crc32.h"
#include "support/error.h"

namespace perfcast::learn {

namespace {

constexpr std::string_view kPrefix = "{\"record\":";
constexpr std::string_view kCrcKey = ",\"crc32\":\"";
constexpr std::string_view kSuffix = "\"}";

double number(const nlohmann::json& j, const char* key, const std::string& source, int line) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number())
    throw UserError(it == j.end() ? "missing" : "not a number", {source, line, std::string("record.") + key});
  return it->get<double>();
}

FeatureRecord read_fields(const nlohmann::json& j, const std::string& text, const std::string& source, int line);

FeatureRecord read_record(const std::string& text, const std::string& source, int line) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw UserError(fmt::format("the record's checksum holds but its JSON does not: {}", e.what()),
                    {source, line, "record"});
  }
  try {
    return read_fields(j, text, source, line);
  } catch (const nlohmann::json::exception& e) {  // a field of the wrong JSON type
    throw UserError(fmt::format("a field of the wrong type: {}", e.what()), {source, line, "record"});
  }
}

FeatureRecord read_fields(const nlohmann::json& j, const std::string& text, const std::string& source, int line) {
  if (!j.is_object() || j.value("format", "") != "perfcast-features")
    throw UserError("not a perfcast-features record", {source, line, "record.format"});
  if (j.value("version", 0) != 1)
    throw UserError("a record version this perfcast does not read (it reads 1)", {source, line, "record.version"});
  FeatureRecord r;
  r.line = line;
  r.text = text;
  r.time_s = number(j, "time_s", source, line);
  if (!(r.time_s > 0))
    throw UserError(fmt::format("time {} is not positive", r.time_s), {source, line, "record.time_s"},
                    "errors are relative to the time, so every time must be above zero");
  double ranks = number(j, "ranks", source, line);
  if (ranks < 1 || ranks != std::floor(ranks))
    throw UserError(fmt::format("{} is not a process count", ranks), {source, line, "record.ranks"});
  r.ranks = static_cast<int>(ranks);
  if (j.contains("omp_threads")) {  // optional: a program without OpenMP, or a record before the field
    const double threads = number(j, "omp_threads", source, line);
    if (threads < 1 || threads != std::floor(threads))
      throw UserError(fmt::format("{} is not a thread count", threads), {source, line, "record.omp_threads"});
    r.omp_threads = static_cast<int>(threads);
  }
  r.command = j.value("command", "");
  r.label = j.value("label", "");
  auto features = j.find("features");
  if (features == j.end() || !features->is_object())
    throw UserError("missing, or not an object", {source, line, "record.features"});
  for (auto& [name, pair] : features->items()) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number() || !pair[1].is_number())
      throw UserError("a feature is [value, epoch]", {source, line, "record.features." + name});
    FeatureValue v{pair[0].get<double>(), pair[1].get<double>()};
    if (v.epoch < 0 || v.epoch > 1)
      throw UserError(fmt::format("epoch {} is outside 0..1 (the fraction of the run)", v.epoch),
                      {source, line, "record.features." + name});
    if (name == "ranks" || name == "time_s" || name == "command")
      throw UserError("a feature may not take a column's reserved name", {source, line, "record.features." + name});
    r.features[name] = v;
  }
  // The facts of the code the probes' pass knew (optional: records before it
  // have none): not features, so never columns of the dataset.
  if (auto code = j.find("code"); code != j.end()) {
    if (!code->is_object()) throw UserError("not an object", {source, line, "record.code"});
    for (auto& [name, value] : code->items()) {
      if (!value.is_number()) throw UserError("expected a number", {source, line, "record.code." + name});
      r.code[name] = value.get<double>();
    }
  }
  // The measures for a probe run (optional: records before them have none);
  // not features either.
  if (auto measures = j.find("measures"); measures != j.end()) {
    if (!measures->is_object()) throw UserError("not an object", {source, line, "record.measures"});
    for (auto& [name, value] : measures->items()) {
      if (!value.is_number()) throw UserError("expected a number", {source, line, "record.measures." + name});
      r.measures[name] = value.get<double>();
    }
  }
  // The targets of the calls through pointers, per site (optional: records
  // before these probes have none); not features either.
  if (auto sites = j.find("indirect_calls"); sites != j.end()) {
    if (!sites->is_object()) throw UserError("not an object", {source, line, "record.indirect_calls"});
    for (auto& [site, targets] : sites->items()) {
      const std::string field = "record.indirect_calls." + site;
      if (!targets.is_object()) throw UserError("expected an object: target -> calls", {source, line, field});
      auto& out = r.indirect_calls[site];
      for (auto& [target, calls] : targets.items())
        if (!calls.is_number() || calls.get<double>() < 0)
          throw UserError("expected a number of calls >= 0", {source, line, field + "." + target});
        else
          out[target] = calls.get<double>();
    }
  }
  // Each rank's values where they differed (optional: only a probe run asks).
  if (auto per_rank = j.find("per_rank"); per_rank != j.end()) {
    if (!per_rank->is_object()) throw UserError("not an object", {source, line, "record.per_rank"});
    r.per_rank_recorded = true;
    for (auto& [name, values] : per_rank->items()) {
      const std::string field = "record.per_rank." + name;
      if (!values.is_array() || values.size() != static_cast<std::size_t>(r.ranks))
        throw UserError(fmt::format("expected an array of {} values, one per rank", r.ranks), {source, line, field});
      auto& out = r.per_rank[name];
      for (const auto& v : values) {
        if (!v.is_number() && !v.is_null())
          throw UserError("expected a number, or null for a rank that never assigned it", {source, line, field});
        out.push_back(v.is_null() ? std::nan("") : v.get<double>());
      }
    }
  }
  return r;
}

}  // namespace

bool is_record_file(const std::string& text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string::npos && text[first] == '{';
}

RecordFile parse_feature_records(const std::string& text, const std::string& source, int first_line) {
  RecordFile out;
  std::istringstream in(text);
  std::string raw;
  int line = first_line - 1;
  while (std::getline(in, raw)) {
    ++line;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    if (raw.find_first_not_of(" \t") == std::string::npos) continue;
    auto skip = [&](const std::string& why) {
      out.warnings.push_back(fmt::format("{}:{}: {}; the line is skipped", source, line, why));
    };
    size_t crc_at = raw.rfind(kCrcKey);
    if (raw.compare(0, kPrefix.size(), kPrefix) != 0 || crc_at == std::string::npos || crc_at < kPrefix.size() ||
        raw.size() != crc_at + kCrcKey.size() + 8 + kSuffix.size() ||
        raw.compare(raw.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) {
      skip("a torn or damaged record (not framed as {\"record\":...,\"crc32\":\"...\"})");
      continue;
    }
    std::string body = raw.substr(kPrefix.size(), crc_at - kPrefix.size());
    std::string written = raw.substr(crc_at + kCrcKey.size(), 8);
    std::string computed = fmt::format("{:08x}", perfcast_crc32(body.data(), body.size()));
    if (written != computed) {
      skip(fmt::format("a torn or damaged record (checksum {} where its text gives {})", written, computed));
      continue;
    }
    out.records.push_back(read_record(body, source, line));
  }
  return out;
}

Dataset dataset_from_records(const RecordFile& file, const std::string& source) {
  if (file.records.empty())
    throw UserError("no whole record in the file", {source, std::nullopt, ""},
                    "records come from runs of a program built with `perfcast cc --features` (see docs/learn.md)");
  std::set<std::string> names;
  for (const auto& r : file.records)
    for (const auto& [name, v] : r.features) names.insert(name);
  Dataset d;
  d.source = source;
  d.warnings = file.warnings;
  d.feature_names.assign(names.begin(), names.end());
  d.feature_names.push_back("ranks");
  const size_t cols = d.feature_names.size();
  d.features = Matrix(file.records.size(), cols);
  std::vector<double> epochs(cols, 0.0);
  for (size_t r = 0; r < file.records.size(); ++r) {
    const FeatureRecord& rec = file.records[r];
    for (size_t c = 0; c + 1 < cols; ++c) {
      auto it = rec.features.find(d.feature_names[c]);
      if (it == rec.features.end()) continue;  // absent: 0
      d.features.at(r, c) = it->second.value;
      epochs[c] = std::max(epochs[c], it->second.epoch);
    }
    d.features.at(r, cols - 1) = rec.ranks;
    d.time_s.push_back(rec.time_s);
    d.commands.push_back(rec.command);
  }
  d.epochs = std::move(epochs);
  return d;
}

}  // namespace perfcast::learn
