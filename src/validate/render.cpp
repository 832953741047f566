// One data collection (Outcome), two renderings: the table for people, JSON for scripts.
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "support/error.h"
#include "validate/cells.h"
#include "validate/validate.h"

namespace perfcast::validate {
using nlohmann::json;
using cells::percent;
using cells::run_key;
using cells::seconds;

namespace {

}  // namespace

std::vector<MethodSummary> summarize(const std::vector<Row>& rows) {
  std::map<std::string, const Row*> naive;
  for (const Row& r : rows)
    if (r.method == "naive" && r.error) naive[run_key(r)] = &r;
  std::vector<MethodSummary> out;
  for (const std::string& method : kMethods) {
    if (method == "measured") continue;
    MethodSummary s;
    s.method = method;
    double sum = 0, naive_sum = 0;
    for (const Row& r : rows) {
      if (r.method != method || !r.error) continue;
      ++s.rows;
      sum += std::fabs(*r.error);
      if (std::fabs(*r.error) <= 0.2) ++s.within_20;
      if (auto it = naive.find(run_key(r)); it != naive.end()) {
        ++s.naive_rows;
        naive_sum += std::fabs(*it->second->error);
        if (std::fabs(*it->second->error) <= 0.2) ++s.naive_within_20;
      }
    }
    if (s.rows) s.mean_abs_error = sum / s.rows;
    if (s.naive_rows) s.naive_mean_abs_error = naive_sum / s.naive_rows;
    out.push_back(s);
  }
  return out;
}

json outcome_json(const Outcome& o) {
  json rows = json::array();
  for (const Row& r : o.rows) rows.push_back(to_json(r));
  json summary = json::array();
  for (const MethodSummary& s : summarize(o.rows))
    summary.push_back({{"method", s.method},
                       {"rows", s.rows},
                       {"mean_abs_error", s.rows ? json(s.mean_abs_error) : json(nullptr)},
                       {"within_20_percent", s.within_20},
                       {"naive_rows", s.naive_rows},
                       {"naive_mean_abs_error", s.naive_rows ? json(s.naive_mean_abs_error) : json(nullptr)},
                       {"naive_within_20_percent", s.naive_within_20}});
  return {{"rows", rows},
          {"summary", summary},
          {"machine", o.machine},
          // null when the rows come from a results file, which does not record them
          {"measured_launches", o.counts_known ? json(o.timed_runs) : json(nullptr)},
          {"traced_launches", o.counts_known ? json(o.traced_runs) : json(nullptr)},
          {"rows_resumed", o.counts_known ? json(o.rows_resumed) : json(nullptr)},
          {"methods_not_built", kMethodsNotBuilt}};
}

std::string outcome_table(const Outcome& o) {
  std::map<std::string, const Row*> naive;
  for (const Row& r : o.rows)
    if (r.method == "naive") naive[run_key(r)] = &r;
  struct Line {
    std::vector<std::string> cells;
  };
  std::vector<std::string> header = {"app",         "size",   "ranks",     "measured [q1-q3]",
                                     "basis",       "method", "predicted", "error",
                                     "naive error", "cost",   "note"};
  std::vector<Line> lines;
  for (const Row& r : o.rows) {
    if (r.method == "measured" || r.method == "naive") continue;
    std::string measured = r.measured_s ? fmt::format("{} [{}-{}]", seconds(r.measured_s), seconds(r.measured_q1_s),
                                                      seconds(r.measured_q3_s))
                                        : "";
    std::string naive_error;
    if (auto it = naive.find(run_key(r)); it != naive.end()) naive_error = percent(it->second->error);
    std::string ranks = std::to_string(r.ranks) + (r.oversubscribed ? " (oversub.)" : "");
    std::string cost = fmt::format("{:.1f} s, {}", r.cost_s, r.cost_runs);
    std::string note = r.predicted_s ? "" : r.note;
    lines.push_back({{r.app, r.size, ranks, measured, r.basis, r.method, seconds(r.predicted_s), percent(r.error),
                      naive_error, cost, note}});
  }
  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const Line& l : lines)
    for (std::size_t c = 0; c + 1 < header.size(); ++c) width[c] = std::max(width[c], l.cells[c].size());
  auto print = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (std::size_t c = 0; c < cells.size(); ++c)
      s += c + 1 < cells.size() ? fmt::format("{:<{}}  ", cells[c], width[c]) : cells[c];
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  std::string out = fmt::format("perfcast validate on machine {} (error = predicted / measured - 1)\n\n", o.machine);
  out += print(header);
  for (const Line& l : lines) out += print(l.cells);
  out +=
      "\nper method: rows with an error, mean |error|, rows within 20 %; the naive baseline (T1/R) over the same "
      "rows\n";
  for (const MethodSummary& s : summarize(o.rows)) {
    if (s.method == "naive") continue;
    out += fmt::format("  {:<13} {:>3} rows  {:>6}  {:>3}/{:<3} within 20 %", s.method, s.rows,
                       s.rows ? fmt::format("{:.0f} %", s.mean_abs_error * 100) : "-", s.within_20, s.rows);
    if (s.naive_rows)
      out += fmt::format("   naive: {:.0f} %, {}/{} within 20 %", s.naive_mean_abs_error * 100, s.naive_within_20,
                         s.naive_rows);
    out += "\n";
  }
  if (!kMethodsNotBuilt.empty())
    out += fmt::format("  not built yet: {}\n", fmt::format("{}", fmt::join(kMethodsNotBuilt, ", ")));
  if (o.counts_known)
    out += fmt::format("{} measured launches, {} traced launches this time; {} rows read back from the results file\n",
                       o.timed_runs, o.traced_runs, o.rows_resumed);
  else
    out += "rendered from a results file, which does not record the launches\n";
  return out;
}

Outcome read_outcome(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw UserError("cannot read the rows", {file.string(), std::nullopt, ""});
  std::stringstream text;
  text << in.rdbuf();
  Outcome out;
  // `--json`'s document is one object with "rows"; a results file is one row per line.
  json whole = json::parse(text.str(), nullptr, false);
  if (whole.is_object() && whole.contains("rows")) {
    if (!whole["rows"].is_array()) throw UserError("expected an array of rows", {file.string(), std::nullopt, "rows"});
    for (std::size_t i = 0; i < whole["rows"].size(); ++i) {
      try {
        out.rows.push_back(row_from_json(whole["rows"][i]));
      } catch (const UserError& e) {
        throw UserError(e.what(), {file.string(), std::nullopt, fmt::format("rows[{}]", i)});
      }
    }
    out.machine = whole.value("machine", "");
    out.counts_known = whole.contains("measured_launches") && whole["measured_launches"].is_number();
    if (out.counts_known) {
      out.timed_runs = whole.value("measured_launches", 0);
      out.traced_runs = whole.value("traced_launches", 0);
      out.rows_resumed = whole.value("rows_resumed", 0);
    }
  } else {
    out.counts_known = false;
    // A results file gains a row again when a failed one is rerun: the later replaces it.
    std::map<std::string, std::size_t> index;
    std::istringstream lines(text.str());
    std::string line;
    int number = 0;
    while (std::getline(lines, line)) {
      ++number;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      try {
        Row row = row_from_json(json::parse(line));
        std::string k = fmt::format("{}\x1f{}\x1f{}", run_key(row), row.method, row.machine);
        if (auto it = index.find(k); it != index.end())
          out.rows[it->second] = row;
        else {
          index[k] = out.rows.size();
          out.rows.push_back(row);
        }
      } catch (const std::exception& e) {
        throw UserError(fmt::format("not a row of perfcast validate: {}", e.what()), {file.string(), number, ""},
                        "pass the document `perfcast validate --json` printed, or its --resume file");
      }
    }
  }
  if (out.rows.empty())
    throw UserError("no rows", {file.string(), std::nullopt, ""},
                    "pass the document `perfcast validate --json` printed, or its --resume file");
  // The machine that priced the predictions, when the file does not say.
  if (out.machine.empty())
    for (const Row& r : out.rows)
      if (!r.machine.empty()) {
        out.machine = r.machine;
        break;
      }
  return out;
}

}  // namespace perfcast::validate
