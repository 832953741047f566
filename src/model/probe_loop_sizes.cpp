#include "model/probe_loop_sizes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "model/item_walks.h"
#include "support/expr.h"

namespace perfcast::model {

namespace {

bool inlined(const Item& item) { return item.note.find("inlined from") != std::string::npos; }

// Whether `item` is, or holds, a loop of the function's own at `line` whose
// trips read `name`.
bool holds_sized_loop(const Item& item, int line, const std::string& name) {
  if (const auto* l = std::get_if<LoopItem>(&item.body)) {
    if (item.line == line && !inlined(item) && expr::free_names(l->trip_count).count(name)) return true;
    for (const Item& inner : l->body)
      if (holds_sized_loop(inner, line, name)) return true;
  } else if (const auto* b = std::get_if<BranchItem>(&item.body)) {
    for (const Items* side : {&b->then_items, &b->else_items})
      for (const Item& inner : *side)
        if (holds_sized_loop(inner, line, name)) return true;
  }
  return false;
}

// Applies `s` to the outermost items at `line` that hold a loop sized by
// `name` (the loop, its guard, an unrolled copy's remainder beside it in the
// guard): the line's code, where `name` is the value that loop runs. Returns
// how many such items.
int substitute_at_line(Items& items, int line, const std::string& name, const expr::Substitution& s) {
  int rewritten = 0;
  for (Item& item : items) {
    if (item.line == line && !inlined(item) && holds_sized_loop(item, line, name)) {
      substitute_in(item, s, AfterSubstitution::Kept);
      ++rewritten;
    } else if (auto* l = std::get_if<LoopItem>(&item.body)) {
      rewritten += substitute_at_line(l->body, line, name, s);
    } else if (auto* b = std::get_if<BranchItem>(&item.body)) {
      rewritten += substitute_at_line(b->then_items, line, name, s);
      rewritten += substitute_at_line(b->else_items, line, name, s);
    }
  }
  return rewritten;
}

// "f.c:12" -> "f_c:12", the analyser's tag of a site in descriptions.
std::string tagged(const std::string& site) {
  const auto colon = site.rfind(':');
  return file_tag(site.substr(0, colon)) + site.substr(colon);
}

}  // namespace

std::vector<ProbeFinding> bind_size_per_loop(ProgramModel& model, Parameter& size, const std::vector<SizedLoop>& loops,
                                             bool whole, const std::string& origin, std::vector<Parameter>& added) {
  std::vector<ProbeFinding> out;
  const std::string name = size.name;
  const std::string short_name = name.substr(name.rfind('.') + 1);
  auto rounded = [&](double v) { return whole ? std::round(v) : v; };
  double iterations = 0, arrivals = 0;
  // One parameter per loop, though several of a line's loops (an unrolled
  // copy and its remainder) read it: the line's source loop is what the probe measured.
  std::set<std::pair<std::string, int>> done;
  for (const SizedLoop& loop : loops) {
    if (!loop.no_probe.empty()) {
      out.push_back({ProbeFinding::Kind::Value, loop.site, name, std::nullopt,
                     fmt::format("the loop at {}:{} keeps it: {}", loop.function, loop.line, loop.no_probe)});
      continue;
    }
    if (!done.emplace(loop.function, loop.line).second) continue;
    auto fn = model.functions.find(loop.function);
    if (fn == model.functions.end()) continue;
    Parameter own;
    own.name = fmt::format("{}.loop_at{}.{}", loop.function, loop.line, short_name);
    // Two sizes of one short name at one loop (`A.n`, `B.n`): the whole name, dots as `_`.
    auto taken = [&](const std::string& n) {
      return std::any_of(model.parameters.begin(), model.parameters.end(),
                         [&](const Parameter& p) { return p.name == n; }) ||
             std::any_of(added.begin(), added.end(), [&](const Parameter& p) { return p.name == n; });
    };
    if (taken(own.name)) {
      std::string full = name;
      std::replace(full.begin(), full.end(), '.', '_');
      own.name = fmt::format("{}.loop_at{}.{}", loop.function, loop.line, full);
    }
    own.description = fmt::format(
        "{} where it sizes the loop at {}, each time that loop runs: that loop's own mean, as the loops {} "
        "sizes did not all run one mean",
        name, tagged(loop.site), name);
    own.integer = size.integer;
    const double value = loop.entries > 0 ? rounded(loop.size) : loop.size;
    bind_measure(own, value, loop.entries > 0 ? origin : origin + kNeverReached);
    if (substitute_at_line(fn->second.body, loop.line, name, {{name, expr::parse(own.name)}}) == 0) continue;
    iterations += loop.entries * loop.size;
    arrivals += loop.entries;
    out.push_back({ProbeFinding::Kind::Value, loop.site, own.name, value,
                   loop.entries > 0 ? "bound (from that loop's own mean trips per arrival: the loops " + name +
                                          " sizes did not all run one mean)"
                                    : "not reached by the probe run: no trips"});
    added.push_back(std::move(own));
  }
  if (arrivals > 0) {
    const double mean = rounded(iterations / arrivals);
    bind_measure(size, mean, origin);
    out.push_back({ProbeFinding::Kind::Value, "", name, mean,
                   "bound for its other uses (the mean over the arrivals at the loops it sizes; each of them reads "
                   "its own)"});
  }
  return out;
}

}  // namespace perfcast::model
