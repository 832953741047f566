#include "model/probe_arrivals.h"

#include "model/probe_arguments.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

namespace perfcast::model {
bool is_join(const Item& item) { return item.note.find(kReachedOnSomePaths) != std::string::npos; }

bool is_switch_case_why(std::string_view why) {
  return why.starts_with("one of ") && why.find(" switch cases") != std::string_view::npos;
}

bool is_switch_case(const Item& item) {
  const std::size_t at = item.note.find("one of ");
  return at != std::string::npos && is_switch_case_why(std::string_view(item.note).substr(at));
}

std::optional<double> line_arrivals(const ProbeRun& run, const std::string& file, int line,
                                    const std::string& function) {
  const std::string at = file + ":" + std::to_string(line);
  for (const bool loop : {true, false}) {
    const std::string kind = loop ? "loop" : "branch";
    const char* count = loop ? "entries" : "taken";
    if (!feature(run, at + ":" + kind + "." + count)) continue;
    std::optional<std::string> own = run.code.count(at + ":" + kind + ".function")
                                         ? own_feature(run, at, kind, count, function)
                                         : std::optional<std::string>(at + ":" + kind);
    if (!own) return std::nullopt;
    if (loop) return feature(run, *own + ".entries");
    auto taken = feature(run, *own + ".taken"), not_taken = feature(run, *own + ".not_taken");
    if (!taken || !not_taken) return std::nullopt;
    return *taken + *not_taken;
  }
  return std::nullopt;
}

std::optional<double> call_arrivals(const ProbeRun& run, const std::string& file, int line,
                                    const std::string& callee) {
  if (line == 0 || callee.empty()) return std::nullopt;
  std::vector<double> ids;
  for (const std::string& name : names_of_callee(callee)) ids.push_back(function_id(name));
  std::optional<double> total;
  for (int k = 1;; ++k) {
    const std::string base = fmt::format("{}:{}:call{}", file, line, k == 1 ? "" : fmt::format("#{}", k));
    auto id = run.code.find(base + ".callee");
    if (id == run.code.end()) break;
    if (std::find(ids.begin(), ids.end(), id->second) == ids.end()) continue;
    auto calls = feature(run, base + ".calls");
    if (!calls) return std::nullopt;
    total = total.value_or(0) + *calls;
  }
  return total;
}

std::optional<double> arrivals_into(const ProbeRun& run, const std::string& file, int line, bool own_tests_only) {
  if (line == 0) return std::nullopt;
  static const std::regex side_fact(
      R"(^(.*):([0-9]+):((branch(#[0-9]+)?)\.(taken|not_taken)_line|(switch(#[0-9]+)?)\.side_line)$)");
  std::optional<double> total;
  double to_own_line = 0;  // sides of the line's own tests that stay on it
  for (const auto& [name, value] : run.code) {
    std::smatch m;
    if (value != line || !std::regex_match(name, m, side_fact) || m[1] != file) continue;
    const std::string count =
        m[4].matched ? fmt::format("{}:{}:{}.{}", file, std::string(m[2]), std::string(m[4]), std::string(m[6]))
                     : fmt::format("{}:{}:{}.runs", file, std::string(m[2]), std::string(m[7]));
    const double n = feature(run, count).value_or(0);
    if (std::stoi(m[2]) == line)
      to_own_line += n;
    else if (!own_tests_only)
      total = total.value_or(0) + n;
  }
  // Of the sides that stay on the line, those that go on to its later tests
  // (`b` of `a && b`: their evaluations) arrive nowhere new; the rest run a
  // statement there (`if (c) f();` on one line).
  double later_tests = 0;
  for (int k = 2;; ++k) {
    const std::string base = fmt::format("{}:{}:branch#{}", file, line, k);
    auto taken = feature(run, base + ".taken"), not_taken = feature(run, base + ".not_taken");
    if (!taken || !not_taken) break;
    later_tests += *taken + *not_taken;
  }
  if (to_own_line - later_tests > 0) total = total.value_or(0) + (to_own_line - later_tests);
  else if (to_own_line > 0 && !total) total = 0;
  return total;
}

std::optional<double> first_counted(const ProbeRun& run, const std::string& file, const std::string& function,
                                    const Items& items, const Item* skip) {
  for (const Item& item : items) {
    // Code inlined from another function is skipped: its lines are another
    // function's, which the probes count over all of its calls.
    if (&item == skip || item.note.find("inlined from") != std::string::npos) continue;
    if (const auto* call = std::get_if<CallItem>(&item.body)) {
      if (auto n = call_arrivals(run, file, item.line, call->function)) return n;
      continue;
    }
    if (!std::holds_alternative<BranchItem>(item.body) && !std::holds_alternative<LoopItem>(item.body)) continue;
    if (auto n = line_arrivals(run, file, item.line, function)) return n;
    // A test the model computes (the optimiser's guard without a line, SNAP's
    // `ncor < 1` before the loop it skips) sends all of a rank's arrivals to
    // one side: the counted lines of both sides together are its arrivals,
    // and a side that ran where the other has no counted line took them all.
    const auto* b = std::get_if<BranchItem>(&item.body);
    if (!b || !b->condition) continue;
    auto then_side = first_counted(run, file, function, b->then_items);
    auto else_side = first_counted(run, file, function, b->else_items);
    if (then_side && else_side) return *then_side + *else_side;
    if (then_side && *then_side > 0) return then_side;
    if (else_side && *else_side > 0) return else_side;
  }
  return std::nullopt;
}

namespace {

// Calls `set(item, branch, list)` on each branch item at `line` in `items`
// and the lists nested in it (branches' sides, loops' bodies), `list` the
// items that hold it; returns how many it set.
template <class Set>
int set_branches_at(Items& items, int line, Set&& set) {
  int n = 0;
  for (Item& item : items) {
    if (auto* b = std::get_if<BranchItem>(&item.body)) {
      if (item.line == line && set(item, *b, items)) ++n;
      n += set_branches_at(b->then_items, line, set) + set_branches_at(b->else_items, line, set);
    } else if (auto* l = std::get_if<LoopItem>(&item.body)) {
      n += set_branches_at(l->body, line, set);
    }
  }
  return n;
}

}  // namespace

int set_join_reach(const ProbeRun& run, Items& items, const std::string& file, int line, const std::string& function,
                   const std::string& origin, std::optional<double>& probability, std::string& why) {
  return set_branches_at(items, line, [&](Item& item, BranchItem& b, const Items& list) {
    if (b.condition || !is_join(item)) return false;
    auto reached = first_counted(run, file, function, b.then_items);
    if (!reached) reached = arrivals_into(run, file, b.then_line);  // the sides of the tests that lead there
    auto arrivals = first_counted(run, file, function, list, &item);
    if (reached && *reached == 0 && !arrivals && line_arrivals(run, file, line, function) > 0) {
      // Never reached from its line, which the run reached: none went there,
      // whatever the arrivals around it.
      b.probability = 0.0;
      if (!probability) probability = b.probability;
      item.note += "; " + origin;
      return true;
    }
    if (!reached || !arrivals)
      why = "no counted line in the code it reaches, or in the code around it";
    else if (*arrivals <= 0)
      why = "the code around it was not reached by the probe run";
    else if (*reached > *arrivals * (1 + 1e-9))
      why = "the code it reaches ran more often than the code around it (its lines run elsewhere too)";
    else {
      b.probability = std::min(1.0, *reached / *arrivals);
      if (!probability) probability = b.probability;
      item.note += "; " + origin;
      return true;
    }
    return false;
  });
}

int set_unreached_sides(const ProbeRun& run, Items& items, const std::string& file, int line,
                        const std::string& function, const std::string& origin, std::optional<double>& probability) {
  return set_branches_at(items, line, [&](Item& item, BranchItem& b, const Items&) {
    // A line the run never reached says nothing of where its arrivals go.
    if (b.computed() || item.note.find(origin) != std::string::npos || !(line_arrivals(run, file, line, function) > 0))
      return false;
    const auto then_side = first_counted(run, file, function, b.then_items);
    const auto else_side = first_counted(run, file, function, b.else_items);
    const bool then_never = then_side == 0.0, else_never = else_side == 0.0;
    if (then_never == else_never) return false;  // neither side, or both, never entered: nothing told
    b.probability = then_never ? 0.0 : 1.0;
    if (!probability) probability = b.probability;
    item.note += "; " + origin;
    return true;
  });
}

void bind_unreached_side(const ProbeRun& run, ProgramModel& model, Coverage::Branch& b, const std::string& origin,
                         ProbeFinding& f) {
  auto fn = model.functions.find(b.function);
  const std::string at = feature_site(b.site);
  std::optional<double> p;
  if (fn == model.functions.end() ||
      set_unreached_sides(run, fn->second.body, at.substr(0, at.rfind(':')), site_line(b.site), b.function, origin, p) == 0)
    return;
  b.probe_probability = f.value = p;
  f.status = fmt::format("bound (one side starts with code the run never reached; the line's probes alone: {})", f.status);
}

int set_merged_joins(Items& items, const std::string& trips, int line, double share, const std::string& origin) {
  int n = 0;
  for (Item& item : items) {
    if (auto* l = std::get_if<LoopItem>(&item.body)) {
      if (expr::to_string(l->trip_count) == trips)
        for (Item& inner : l->body)
          if (auto* b = std::get_if<BranchItem>(&inner.body); b && inner.line == line && !b->condition && is_join(inner)) {
            b->probability = share;
            inner.note += "; " + origin;
            ++n;
          }
      n += set_merged_joins(l->body, trips, line, share, origin);
    } else if (auto* b = std::get_if<BranchItem>(&item.body)) {
      n += set_merged_joins(b->then_items, trips, line, share, origin) +
           set_merged_joins(b->else_items, trips, line, share, origin);
    }
  }
  return n;
}

int set_switch_cases(const ProbeRun& run, Items& items, const std::string& file, int line,
                     const std::string& function, const std::string& origin, std::optional<double>& probability,
                     std::string& why) {
  return set_branches_at(items, line, [&](Item& item, BranchItem& b, const Items& list) {
    if (b.computed() || !is_switch_case(item)) return false;
    // Into the case: the probes' sides that start at its first line (the
    // chain's test that picks it, or the last test's other side for the
    // default), else a test or loop there that the probes count.
    std::optional<double> reached = arrivals_into(run, file, b.then_line);
    if (!reached && b.then_line) reached = line_arrivals(run, file, b.then_line, function);
    std::optional<double> arrivals = line_arrivals(run, file, line, function);
    if (!arrivals) arrivals = first_counted(run, file, function, list, &item);
    if (!b.then_line)
      why = "the line its code starts at is not known";
    else if (!reached)
      why = fmt::format("no test of the probes goes to line {}, where its code starts", b.then_line);
    else if (!arrivals)
      why = "no counted test at the switch's line, or around it";
    else if (*arrivals <= 0)
      why = "the switch was not reached by the probe run";
    else if (*reached > *arrivals * (1 + 1e-9))
      why = fmt::format("line {}, where its code starts, was entered more often than the switch was reached "
                        "(its lines run elsewhere too)",
                        b.then_line);
    else {
      b.probability = *reached / *arrivals;
      if (!probability) probability = b.probability;
      item.note += "; " + origin;
      return true;
    }
    return false;
  });
}

}  // namespace perfcast::model
