// Golden files for the report layer's renderings: a rendering on a fixed input
// is compared with a committed file; PERFCAST_UPDATE_GOLDENS=1 in the
// environment rewrites the file instead (scripts/update_report_goldens.sh).
// JSON is compared field by field (keys sorted, as nlohmann::json writes
// them), and a failure names every field that differs.
#pragma once

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace perfcast::report::test {

inline std::filesystem::path golden_path(const std::string& name) {
  return std::filesystem::path(PERFCAST_SOURCE_DIR) / "tests" / "report" / "golden" / name;
}

inline bool updating_goldens() {
  const char* v = std::getenv("PERFCAST_UPDATE_GOLDENS");
  return v && std::string(v) == "1";
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Where `actual` differs from `expected`: one line per field ("$.ranks[2].end_s:
// 0.0031 != 0.0032"). Numbers equal within 1e-12 relative count as equal, so
// a golden survives a compiler that sums in another order, not a changed figure.
inline void json_differences(const nlohmann::json& expected, const nlohmann::json& actual, const std::string& path,
                             std::vector<std::string>& out) {
  if (expected.is_number() && actual.is_number()) {
    double e = expected.get<double>(), a = actual.get<double>();
    if (std::abs(e - a) > 1e-12 * std::max(std::abs(e), std::abs(a)))
      out.push_back(path + ": expected " + expected.dump() + ", got " + actual.dump());
    return;
  }
  if (expected.type() != actual.type()) {
    out.push_back(path + ": expected " + expected.dump() + ", got " + actual.dump());
    return;
  }
  if (expected.is_object()) {
    for (const auto& [key, value] : expected.items()) {
      if (!actual.contains(key)) out.push_back(path + "." + key + ": missing");
      else json_differences(value, actual[key], path + "." + key, out);
    }
    for (const auto& [key, value] : actual.items())
      if (!expected.contains(key)) out.push_back(path + "." + key + ": not in the golden file");
    return;
  }
  if (expected.is_array()) {
    if (expected.size() != actual.size())
      out.push_back(path + ": " + std::to_string(actual.size()) + " entries, golden file has " +
                    std::to_string(expected.size()));
    for (size_t i = 0; i < std::min(expected.size(), actual.size()); ++i)
      json_differences(expected[i], actual[i], path + "[" + std::to_string(i) + "]", out);
    return;
  }
  if (expected != actual) out.push_back(path + ": expected " + expected.dump() + ", got " + actual.dump());
}

inline void expect_json_golden(const nlohmann::json& actual, const std::string& name) {
  auto path = golden_path(name);
  if (updating_goldens()) {
    std::ofstream(path) << actual.dump(2) << "\n";
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing: PERFCAST_UPDATE_GOLDENS=1 writes it";
  std::vector<std::string> differences;
  json_differences(nlohmann::json::parse(read_text(path)), actual, "$", differences);
  std::string listed;
  for (const auto& d : differences) listed += "  " + d + "\n";
  EXPECT_TRUE(differences.empty()) << name << " differs in " << differences.size() << " field(s):\n" << listed;
}

inline void expect_text_golden(const std::string& actual, const std::string& name) {
  auto path = golden_path(name);
  if (updating_goldens()) {
    std::ofstream(path) << actual;
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing: PERFCAST_UPDATE_GOLDENS=1 writes it";
  EXPECT_EQ(read_text(path), actual) << "expected: " << path;
}

}  // namespace perfcast::report::test
