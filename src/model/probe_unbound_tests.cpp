#include "model/probe_unbound_tests.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>

#include "support/expr.h"

namespace perfcast::model {

namespace {

struct AtLine {
  int tests = 0, loops = 0;
  BranchItem* reading = nullptr;  // the test that reads an unbound name (one is all a line may have)
  bool guards_loop = false;       // that test holds a loop of its line on one side only
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
      if (b->condition && !b->share && (b->then_line || b->else_line) &&
          item.note.find("inlined from") == std::string::npos) {
        const std::set<std::string> names = expr::free_names(*b->condition);
        const bool reads = std::any_of(names.begin(), names.end(), [&](const auto& n) { return unbound.count(n); });
        if (reads && !names.count("rank")) {
          at.reading = b;
          at.guards_loop = holds_loop_at(b->then_items, item.line) != holds_loop_at(b->else_items, item.line);
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
    for (const auto& [line, at] : lines)
      if (line > 0 && at.reading && at.tests == 1 && (at.loops == 0 || at.guards_loop))
        out.push_back({name, line, at.reading, at.reading->condition, at.loops > 0});
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
  const std::set<std::string> read = expr::free_names(*t.condition);
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
  t.branch->condition.reset();
  t.branch->probability = 0.5;
}

void restore(UnboundTest& t) {
  t.branch->condition = t.condition;
  t.branch->probability = 0.5;
}

}  // namespace perfcast::model
