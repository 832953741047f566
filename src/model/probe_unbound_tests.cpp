#include "model/probe_unbound_tests.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <regex>

#include "support/expr.h"

namespace perfcast::model {

namespace {

struct AtLine {
  int tests = 0, loops = 0;
  std::set<int> then_lines, else_lines;  // where each test's sides start
  std::vector<BranchItem*> reading;      // the tests that read an unbound name
  bool guards_loop = true;               // each of those holds a loop of its line on one side only

  // One test, or copies of one: every test's `then` side starts at one line,
  // or every test's `else` side (a peeled copy leaves to the loop's next
  // line, the loop's own copy to its header).
  bool one_source_test() const {
    auto one_line = [](const std::set<int>& lines) { return lines.size() == 1 && *lines.begin() > 0; };
    return tests == 1 || one_line(then_lines) || one_line(else_lines);
  }
};

bool holds_loop_at(const Items& items, int line) {
  return std::any_of(items.begin(), items.end(), [&](const Item& item) {
    return item.line == line && std::holds_alternative<LoopItem>(item.body);
  });
}

void collect(Items& items, const std::set<std::string>& unbound, std::map<int, AtLine>& lines) {
  for (Item& item : items) {
    if (auto* l = std::get_if<LoopItem>(&item.body)) {
      ++lines[item.line].loops;
      collect(l->body, unbound, lines);
    } else if (auto* b = std::get_if<BranchItem>(&item.body)) {
      AtLine& at = lines[item.line];
      ++at.tests;
      at.then_lines.insert(b->then_line);
      at.else_lines.insert(b->else_line);
      if (b->condition && !b->share && (b->then_line || b->else_line) &&
          item.note.find("inlined from") == std::string::npos) {
        const std::set<std::string> names = expr::free_names(*b->condition);
        const bool reads = std::any_of(names.begin(), names.end(), [&](const auto& n) { return unbound.count(n); });
        if (reads && !names.count("rank")) {
          at.reading.push_back(b);
          at.guards_loop =
              at.guards_loop && holds_loop_at(b->then_items, item.line) != holds_loop_at(b->else_items, item.line);
        }
      }
      collect(b->then_items, unbound, lines);
      collect(b->else_items, unbound, lines);
    }
  }
}

}  // namespace

std::vector<UnboundTest> tests_reading(ProgramModel& model, const std::set<std::string>& unbound) {
  std::vector<UnboundTest> out;
  if (unbound.empty()) return out;
  for (auto& [name, fn] : model.functions) {
    std::map<int, AtLine> lines;
    collect(fn.body, unbound, lines);
    for (const auto& [line, at] : lines) {
      if (line <= 0 || at.reading.empty() || !at.one_source_test() || (at.loops > 0 && !at.guards_loop)) continue;
      UnboundTest t{name, line, {}, at.loops > 0};
      for (BranchItem* b : at.reading) t.branches.emplace_back(b, b->condition);
      out.push_back(std::move(t));
    }
  }
  return out;
}

std::set<std::string> required_names(const ProgramModel& model) {
  std::set<std::string> out;
  for (const Parameter& p : model.parameters)
    if (!p.default_value) out.insert(p.name);
  return out;
}

std::set<std::string> files_of_locals_tested(const ProgramModel& model, const ProbeRun& run, const UnboundTest& t,
                                             const std::set<std::string>& unbound) {
  static const std::regex local(R"(^source variable [^ ]+ of .*? \(([A-Za-z0-9_]+):[0-9]+\))");
  std::set<std::string> tags, files;
  std::set<std::string> read;
  for (const auto& [branch, condition] : t.branches)
    for (const std::string& n : expr::free_names(*condition)) read.insert(n);
  for (const Parameter& p : model.parameters) {
    std::smatch m;
    if (unbound.count(p.name) && read.count(p.name) && std::regex_search(p.description, m, local)) tags.insert(m[1]);
  }
  const std::string suffix = fmt::format(":{}:branch.taken", t.line);
  for (const auto& [name, value] : run.features)
    if (name.ends_with(suffix)) {
      const std::string file = name.substr(0, name.size() - suffix.size());
      if (tags.count(file_tag(file))) files.insert(file);
    }
  return files;
}

void drop_condition(UnboundTest& t) {
  for (auto& [branch, condition] : t.branches) {
    branch->condition.reset();
    branch->probability = 0.5;
  }
}

void restore(UnboundTest& t) {
  for (auto& [branch, condition] : t.branches) {
    branch->condition = condition;
    branch->probability = 0.5;
  }
}

}  // namespace perfcast::model
