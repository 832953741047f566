#include "learn/dataset.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "learn/feature_records.h"
#include "support/error.h"

namespace perfcast::learn {

namespace {

struct Line {
  int number = 0;  // 1-based
  std::vector<std::string> cells;
};

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> split_csv(const std::string& line, const std::string& source, int number) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.push_back(trim(cell));
      cell.clear();
    } else {
      cell += c;
    }
  }
  if (quoted) throw UserError("a quoted field is not closed", {source, number, ""});
  cells.push_back(trim(cell));
  return cells;
}

// The lines that carry data: blank lines and '#' comments dropped.
std::vector<Line> read_lines(const std::string& text, const std::string& source) {
  std::vector<Line> out;
  std::istringstream in(text);
  std::string raw;
  int number = 0;
  while (std::getline(in, raw)) {
    ++number;
    std::string t = trim(raw);
    if (t.empty() || t[0] == '#') continue;
    out.push_back({number, split_csv(raw, source, number)});
  }
  return out;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot open the file", {path, std::nullopt, ""});
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string column_label(size_t index, const std::string& name) {
  return fmt::format("column {} ({})", index + 1, name);
}

double number_at(const Line& line, size_t col, const std::string& name, const std::string& source) {
  if (col >= line.cells.size() || line.cells[col].empty())
    throw UserError("missing value", {source, line.number, column_label(col, name)},
                    "every row needs a number in every feature column and in time_s");
  const std::string& cell = line.cells[col];
  double v = 0;
  auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  if (ec != std::errc() || end != cell.data() + cell.size() || !std::isfinite(v))
    throw UserError(fmt::format("'{}' is not a number", cell), {source, line.number, column_label(col, name)});
  return v;
}

void check_width(const Line& line, size_t width, const std::string& source) {
  if (line.cells.size() != width)
    throw UserError(fmt::format("ragged row: {} fields where the header has {}", line.cells.size(), width),
                    {source, line.number, ""});
}

struct Header {
  std::vector<std::string> names;
  std::optional<size_t> time_col, ranks_col, command_col;
  std::vector<size_t> feature_cols;  // in file order; ranks last
};

Header read_header(const Line& line, const std::string& source) {
  Header h;
  h.names = line.cells;
  for (size_t i = 0; i < h.names.size(); ++i) {
    const std::string& n = h.names[i];
    if (n.empty()) throw UserError("a column without a name", {source, line.number, column_label(i, "")});
    for (size_t j = 0; j < i; ++j)
      if (h.names[j] == n) throw UserError("a column named twice", {source, line.number, column_label(i, n)});
    if (n == "time_s")
      h.time_col = i;
    else if (n == "ranks")
      h.ranks_col = i;
    else if (n == "command")
      h.command_col = i;
    else
      h.feature_cols.push_back(i);
  }
  if (h.ranks_col) h.feature_cols.push_back(*h.ranks_col);
  return h;
}

}  // namespace

std::optional<size_t> Dataset::column_of(const std::string& name) const {
  auto it = std::find(feature_names.begin(), feature_names.end(), name);
  if (it == feature_names.end()) return std::nullopt;
  return static_cast<size_t>(it - feature_names.begin());
}

Dataset Dataset::subset(const std::vector<size_t>& which) const {
  Dataset d;
  d.source = source;
  d.feature_names = feature_names;
  d.features = features.select_rows(which);
  if (!time_s.empty()) d.time_s = select(time_s, which);
  for (size_t i : which)
    if (i < commands.size()) d.commands.push_back(commands[i]);
  d.epochs = epochs;
  return d;
}

Dataset parse_dataset(const std::string& text, const std::string& source) {
  if (is_record_file(text)) return dataset_from_records(parse_feature_records(text, source), source);
  std::vector<Line> lines = read_lines(text, source);
  if (lines.empty()) throw UserError("no header and no rows", {source, std::nullopt, ""});
  Header h = read_header(lines[0], source);
  if (!h.time_col)
    throw UserError("the header has no time_s column", {source, lines[0].number, ""},
                    "the header lists the features, then time_s (seconds), and optionally ranks and command");
  if (h.feature_cols.empty()) throw UserError("the header names no feature", {source, lines[0].number, ""});

  Dataset d;
  d.source = source;
  for (size_t c : h.feature_cols) d.feature_names.push_back(h.names[c]);
  size_t first = 1;
  if (lines.size() > 1 && lines[1].cells.size() > *h.time_col && lines[1].cells[*h.time_col] == "epoch") {
    check_width(lines[1], h.names.size(), source);
    std::vector<double> epochs;
    for (size_t c : h.feature_cols) {
      double e = (c == h.ranks_col && lines[1].cells[c].empty()) ? 0.0 : number_at(lines[1], c, h.names[c], source);
      if (e < 0 || e > 1)
        throw UserError(fmt::format("epoch {} is outside 0..1 (the fraction of the run)", e),
                        {source, lines[1].number, column_label(c, h.names[c])});
      epochs.push_back(e);
    }
    d.epochs = std::move(epochs);
    first = 2;
  }
  if (lines.size() <= first) throw UserError("no rows after the header", {source, lines[0].number, ""});
  d.features = Matrix(lines.size() - first, h.feature_cols.size());
  for (size_t i = first; i < lines.size(); ++i) {
    const Line& line = lines[i];
    check_width(line, h.names.size(), source);
    size_t r = i - first;
    for (size_t j = 0; j < h.feature_cols.size(); ++j)
      d.features.at(r, j) = number_at(line, h.feature_cols[j], h.names[h.feature_cols[j]], source);
    double t = number_at(line, *h.time_col, "time_s", source);
    if (t <= 0)
      throw UserError(fmt::format("time {} is not positive", t),
                      {source, line.number, column_label(*h.time_col, "time_s")},
                      "errors are relative to the time, so every time must be above zero");
    d.time_s.push_back(t);
    if (h.command_col) d.commands.push_back(line.cells[*h.command_col]);
  }
  return d;
}

Dataset read_dataset(const std::string& path) { return parse_dataset(slurp(path), path); }

Dataset parse_features(const std::string& text, const std::string& source, const std::vector<std::string>& wanted) {
  if (is_record_file(text)) {
    // Records name only the features a run updated: a wanted one they lack is 0.
    Dataset all = dataset_from_records(parse_feature_records(text, source), source);
    Dataset d;
    d.source = source;
    d.warnings = all.warnings;
    d.feature_names = wanted;
    d.features = Matrix(all.rows(), wanted.size());
    for (size_t j = 0; j < wanted.size(); ++j)
      if (auto c = all.column_of(wanted[j]))
        for (size_t r = 0; r < all.rows(); ++r) d.features.at(r, j) = all.features.at(r, *c);
    d.time_s = all.time_s;
    d.commands = all.commands;
    return d;
  }
  std::vector<Line> lines = read_lines(text, source);
  if (lines.empty()) throw UserError("no header and no rows", {source, std::nullopt, ""});
  Header h = read_header(lines[0], source);
  std::vector<size_t> cols;
  for (const auto& name : wanted) {
    auto it = std::find(h.names.begin(), h.names.end(), name);
    if (it == h.names.end())
      throw UserError(fmt::format("no column '{}', a feature the model needs", name), {source, lines[0].number, ""});
    cols.push_back(static_cast<size_t>(it - h.names.begin()));
  }
  size_t first = 1;
  if (lines.size() > 1 && h.time_col && lines[1].cells.size() > *h.time_col && lines[1].cells[*h.time_col] == "epoch")
    first = 2;
  if (lines.size() <= first) throw UserError("no rows after the header", {source, lines[0].number, ""});
  Dataset d;
  d.source = source;
  d.feature_names = wanted;
  d.features = Matrix(lines.size() - first, wanted.size());
  for (size_t i = first; i < lines.size(); ++i) {
    check_width(lines[i], h.names.size(), source);
    for (size_t j = 0; j < cols.size(); ++j)
      d.features.at(i - first, j) = number_at(lines[i], cols[j], wanted[j], source);
    if (h.time_col) d.time_s.push_back(number_at(lines[i], *h.time_col, "time_s", source));
    if (h.command_col) d.commands.push_back(lines[i].cells[*h.command_col]);
  }
  return d;
}

Dataset read_features(const std::string& path, const std::vector<std::string>& wanted) {
  return parse_features(slurp(path), path, wanted);
}

std::vector<double> parse_epochs(const std::string& text, const std::string& source,
                                 const std::vector<std::string>& feature_names) {
  std::vector<Line> lines = read_lines(text, source);
  if (lines.empty() || lines[0].cells != std::vector<std::string>{"feature", "epoch"})
    throw UserError("an epoch file starts with the header 'feature,epoch'",
                    {source, lines.empty() ? std::nullopt : std::optional<int>(lines[0].number), ""});
  std::vector<double> epochs(feature_names.size(), 0.0);
  for (size_t i = 1; i < lines.size(); ++i) {
    check_width(lines[i], 2, source);
    const std::string& name = lines[i].cells[0];
    auto it = std::find(feature_names.begin(), feature_names.end(), name);
    if (it == feature_names.end())
      throw UserError(fmt::format("'{}' is not a feature of the dataset", name),
                      {source, lines[i].number, "column 1 (feature)"});
    double e = number_at(lines[i], 1, "epoch", source);
    if (e < 0 || e > 1)
      throw UserError(fmt::format("epoch {} is outside 0..1 (the fraction of the run)", e),
                      {source, lines[i].number, "column 2 (epoch)"});
    epochs[static_cast<size_t>(it - feature_names.begin())] = e;
  }
  return epochs;
}

std::vector<double> read_epochs(const std::string& path, const std::vector<std::string>& feature_names) {
  return parse_epochs(slurp(path), path, feature_names);
}

std::string to_csv(const Dataset& d) {
  std::string out;
  for (const auto& n : d.feature_names) out += n + ",";
  out += "time_s\n";
  if (d.epochs) {
    for (double e : *d.epochs) out += fmt::format("{},", e);
    out += "epoch\n";
  }
  for (size_t r = 0; r < d.rows(); ++r) {
    for (size_t c = 0; c < d.features.cols; ++c) out += fmt::format("{},", d.features.at(r, c));
    out += fmt::format("{}\n", r < d.time_s.size() ? d.time_s[r] : 0.0);
  }
  return out;
}

}  // namespace perfcast::learn
