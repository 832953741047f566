#include "fit/measurements.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/error.h"

namespace perfcast::fit {

namespace {

using nlohmann::json;

// The time column's accepted names and their factor to seconds.
const std::vector<std::pair<std::string, double>> kTimeColumns = {
    {"time_s", 1.0}, {"time_ms", 1e-3}, {"time_us", 1e-6}, {"time_ns", 1e-9}};
const char* kTimeNames = "time_s (or time_ms, time_us, time_ns)";

struct Row {
  int line = 0;  // 0 when unknown
  std::string where;  // "row 3" for JSON, empty for CSV (the line says it)
  std::map<std::string, double> values;
  std::vector<double> times_s;
  int repeats = 0;  // 0: not given
};

struct Table {
  std::vector<std::string> variables;
  std::vector<Row> rows;
};

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r");
  std::string out(s.substr(b, e - b + 1));
  if (out.size() >= 2 && out.front() == '"' && out.back() == '"') out = out.substr(1, out.size() - 2);
  return out;
}

std::optional<double> parse_number(const std::string& cell) {
  double v = 0;
  const char* first = cell.data();
  const char* last = cell.data() + cell.size();
  if (first != last && *first == '+') ++first;
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || ptr != last || !std::isfinite(v)) return std::nullopt;
  return v;
}

SourceLocation file_only(const std::string& source) { return {source, std::nullopt, ""}; }

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "(none)" : out;
}

void check_time(double t, const SourceLocation& at) {
  if (t < 0) throw UserError(fmt::format("negative time {}: a kernel time cannot be negative", t), at);
  if (t == 0)
    throw UserError("time is 0: the kernel ran below the timer's resolution", at,
                    "time several calls together and divide, or drop this size");
}

int check_repeats(double r, const SourceLocation& at) {
  if (r < 1 || r != std::floor(r) || r > 1e9)
    throw UserError(fmt::format("repeats must be a whole number of runs, at least 1 (got {})", r), at);
  return static_cast<int>(r);
}

Table parse_csv(std::string_view text, const std::string& source) {
  Table table;
  std::vector<std::string> header;
  std::optional<size_t> time_col, repeats_col;
  double time_factor = 1;
  int line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    std::string line = trim(raw);
    if (line.empty() || line[0] == '#') continue;

    std::vector<std::string> cells;
    size_t start = 0;
    std::string_view l(raw);
    while (true) {
      size_t comma = l.find(',', start);
      cells.push_back(trim(l.substr(start, comma == std::string_view::npos ? comma : comma - start)));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }

    if (header.empty()) {
      header = cells;
      for (size_t c = 0; c < header.size(); ++c) {
        const std::string& name = header[c];
        SourceLocation at{source, line_no, name};
        if (name.empty()) throw UserError(fmt::format("header column {} has no name", c + 1), {source, line_no, ""});
        if (std::count(header.begin(), header.end(), name) > 1)
          throw UserError("column named twice in the header", at);
        auto tc = std::find_if(kTimeColumns.begin(), kTimeColumns.end(), [&](auto& p) { return p.first == name; });
        if (tc != kTimeColumns.end()) {
          if (time_col)
            throw UserError(fmt::format("a second time column (the first is '{}')", header[*time_col]), at);
          time_col = c;
          time_factor = tc->second;
        } else if (name == "repeats") {
          repeats_col = c;
        } else {
          table.variables.push_back(name);
        }
      }
      if (!time_col)
        throw UserError(fmt::format("the header has no time column: expected {}; it has: {}", kTimeNames,
                                    join(header)),
                        {source, line_no, ""}, "name the column of measured times time_s");
      continue;
    }

    if (cells.size() != header.size())
      throw UserError(fmt::format("{} cells, but the header has {} columns ({})", cells.size(), header.size(),
                                  join(header)),
                      {source, line_no, ""});
    Row row;
    row.line = line_no;
    for (size_t c = 0; c < cells.size(); ++c) {
      SourceLocation at{source, line_no, header[c]};
      if (cells[c].empty()) throw UserError("empty cell: expected a number", at);
      std::optional<double> v = parse_number(cells[c]);
      if (!v) throw UserError(fmt::format("'{}' is not a number", cells[c]), at);
      if (c == *time_col) {
        check_time(*v, at);
        row.times_s.push_back(*v * time_factor);
      } else if (repeats_col && c == *repeats_col) {
        row.repeats = check_repeats(*v, at);
      } else {
        row.values[header[c]] = *v;
      }
    }
    table.rows.push_back(std::move(row));
  }
  if (header.empty()) throw UserError("empty file: expected a header line, then one row per measurement", file_only(source));
  return table;
}

// Lines where the row objects start, so JSON errors can say where: nlohmann's
// DOM keeps no positions. Rows sit at depth 1 ([{...}]) or 2 ({"rows":[{...}]}).
std::vector<int> object_lines_at_depth(std::string_view text, int depth) {
  std::vector<int> lines;
  int line = 1, d = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (c == '\n') ++line;
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') {
      if (c == '{' && d == depth) lines.push_back(line);
      ++d;
    } else if (c == '}' || c == ']') --d;
  }
  return lines;
}

std::string json_kind(const json& v) {
  if (v.is_string()) return "the string \"" + v.get<std::string>() + "\"";
  return std::string(v.type_name());
}

Table parse_json(std::string_view text, const std::string& source) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    // Turn the byte offset nlohmann reports into a line.
    int line = 1;
    for (size_t i = 0; i < std::min<size_t>(e.byte, text.size()); ++i)
      if (text[i] == '\n') ++line;
    throw UserError(fmt::format("not valid JSON: {}", e.what()), {source, line, ""});
  }
  const json* rows = nullptr;
  int depth = 1;
  std::string prefix = "";
  if (doc.is_array()) {
    rows = &doc;
  } else if (doc.is_object() && doc.contains("rows") && doc["rows"].is_array()) {
    rows = &doc["rows"];
    depth = 2;
    prefix = "rows";
  } else {
    throw UserError("expected an array of rows, or an object with a \"rows\" array", file_only(source),
                    "a row looks like {\"flops\": 2e6, \"time_s\": 0.00035}");
  }
  std::vector<int> lines = object_lines_at_depth(text, depth);
  if (lines.size() != rows->size()) lines.clear();  // unusual layout: say the row, not the line

  Table table;
  for (size_t i = 0; i < rows->size(); ++i) {
    const json& r = (*rows)[i];
    Row row;
    row.line = lines.empty() ? 0 : lines[i];
    std::string path = fmt::format("{}[{}]", prefix, i);
    auto at = [&](const std::string& key) {
      return SourceLocation{source, row.line ? std::optional<int>(row.line) : std::nullopt, path + "." + key};
    };
    if (!r.is_object())
      throw UserError(fmt::format("expected a row object, got {}", json_kind(r)),
                      {source, row.line ? std::optional<int>(row.line) : std::nullopt, path});
    bool has_time = false;
    for (const auto& [key, value] : r.items()) {
      auto tc = std::find_if(kTimeColumns.begin(), kTimeColumns.end(), [&](auto& p) { return p.first == key; });
      if (tc != kTimeColumns.end()) {
        if (has_time) throw UserError("a second time field in one row", at(key));
        has_time = true;
        std::vector<json> times = value.is_array() ? value.get<std::vector<json>>() : std::vector<json>{value};
        if (times.empty()) throw UserError("empty array of times", at(key));
        for (const json& t : times) {
          if (!t.is_number()) throw UserError(fmt::format("expected a number, got {}", json_kind(t)), at(key));
          check_time(t.get<double>(), at(key));
          row.times_s.push_back(t.get<double>() * tc->second);
        }
        continue;
      }
      if (!value.is_number()) throw UserError(fmt::format("expected a number, got {}", json_kind(value)), at(key));
      double v = value.get<double>();
      if (key == "repeats") {
        row.repeats = check_repeats(v, at(key));
      } else {
        row.values[key] = v;
        if (std::find(table.variables.begin(), table.variables.end(), key) == table.variables.end())
          table.variables.push_back(key);
      }
    }
    if (!has_time) throw UserError(fmt::format("the row has no time: expected {}", kTimeNames), at("time_s"));
    table.rows.push_back(std::move(row));
  }
  return table;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

Measurements summarise(Table table, const std::string& source, const std::string& x_column) {
  Measurements m;
  m.source = source;
  m.variables = table.variables;
  if (m.variables.empty())
    throw UserError("no work-measure column: besides the time there must be an x such as flops or n", file_only(source));
  if (x_column.empty()) {
    if (m.variables.size() > 1)
      throw UserError(fmt::format("several work measures ({}): which one is x?", join(m.variables)), file_only(source),
                      "choose one with --x, e.g. --x " + m.variables.front());
    m.x_name = m.variables.front();
  } else {
    if (std::find(m.variables.begin(), m.variables.end(), x_column) == m.variables.end())
      throw UserError(fmt::format("no column '{}'; the work measures are: {}", x_column, join(m.variables)), file_only(source),
                      "check --x");
    m.x_name = x_column;
  }

  std::map<double, std::pair<std::vector<double>, Sample>> by_x;
  for (const Row& row : table.rows) {
    auto it = row.values.find(m.x_name);
    if (it == row.values.end())
      throw UserError(fmt::format("this row has no '{}'", m.x_name),
                      {source, row.line ? std::optional<int>(row.line) : std::nullopt, m.x_name});
    auto& [times, sample] = by_x[it->second];
    if (times.empty()) {
      sample.x = it->second;
      sample.first_line = row.line;
      sample.repeats = 0;
    }
    times.insert(times.end(), row.times_s.begin(), row.times_s.end());
    sample.repeats += row.repeats ? row.repeats : static_cast<int>(row.times_s.size());
  }
  for (auto& [x, entry] : by_x) {
    entry.second.time_s = median(entry.first);
    m.samples.push_back(entry.second);
  }
  m.rows = static_cast<int>(table.rows.size());
  return m;
}

}  // namespace

Measurements parse_measurements(std::string_view text, std::string_view format, const std::string& source,
                                const std::string& x_column) {
  if (format == "csv") return summarise(parse_csv(text, source), source, x_column);
  if (format == "json") return summarise(parse_json(text, source), source, x_column);
  throw UserError(fmt::format("unknown measurement format '{}': expected csv or json", format), file_only(source));
}

Measurements read_measurements(const std::string& path, const std::string& x_column) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(fmt::format("cannot open measurements file '{}'", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  // The extension decides; without one, a file whose first non-blank character
  // opens a JSON value is JSON.
  std::string lower = path;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  bool json_ext = lower.size() >= 5 && lower.ends_with(".json");
  bool csv_ext = lower.ends_with(".csv");
  size_t first = text.find_first_not_of(" \t\r\n");
  bool looks_json = first != std::string::npos && (text[first] == '[' || text[first] == '{');
  return parse_measurements(text, json_ext || (!csv_ext && looks_json) ? "json" : "csv", path, x_column);
}

}  // namespace perfcast::fit
