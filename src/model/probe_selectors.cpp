#include "model/probe_selectors.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <map>
#include <optional>
#include <regex>
#include <string_view>
#include <vector>

#include "model/probe_arrivals.h"
#include "model/probe_per_rank.h"
#include "support/expr.h"

namespace perfcast::model {

namespace {

// Whether `e` compares a value that reads `name` for equality or inequality
// with a constant anywhere in it (`zext(k.sel, 32) == 3`, `select(k.sel != 1, ...)`).
// `against_any`: compared with anything (a function's argument tested
// against another, `proc == myproc`), not only with a constant.
bool tests_for_equality(const Expr& e, const std::string& name, bool against_any = false) {
  if (e.kind() == expr::Kind::Compare &&
      (e.comparison() == expr::Comparison::Eq || e.comparison() == expr::Comparison::Ne)) {
    const Expr& a = e.operands()[0];
    const Expr& b = e.operands()[1];
    if (((against_any || a.is_constant()) && expr::free_names(b).count(name)) ||
        ((against_any || b.is_constant()) && expr::free_names(a).count(name)))
      return true;
  }
  if (e.kind() == expr::Kind::Integer || e.kind() == expr::Kind::Real || e.kind() == expr::Kind::Name) return false;
  return std::any_of(e.operands().begin(), e.operands().end(),
                     [&](const Expr& o) { return tests_for_equality(o, name, against_any); });
}

// Whether `e` compares a value that reads `name` with `<`, `<=`, `>` or `>=` anywhere in it.
bool tests_in_order(const Expr& e, const std::string& name) {
  if (e.kind() == expr::Kind::Compare && e.comparison() != expr::Comparison::Eq &&
      e.comparison() != expr::Comparison::Ne &&
      (expr::free_names(e.operands()[0]).count(name) || expr::free_names(e.operands()[1]).count(name)))
    return true;
  if (e.kind() == expr::Kind::Integer || e.kind() == expr::Kind::Real || e.kind() == expr::Kind::Name) return false;
  return std::any_of(e.operands().begin(), e.operands().end(), [&](const Expr& o) { return tests_in_order(o, name); });
}

// The line the first item of a side starts at that the analyser located (0: none).
int first_line(const Items& items) {
  for (const Item& item : items)
    if (item.line > 0) return item.line;
  return 0;
}

std::string note_of(const std::string& test, bool ordered = false) {
  return std::string(ordered ? kOrderedTestWhy : kEqualityTestWhy) + test;
}

// The count a comparison states is positive: `a > b` is `a - b > 0`,
// `a >= b` is `a - b + 1 > 0` (integers); none for an (in)equality test.
std::optional<Expr> positive_count_of(const Expr& condition) {
  if (condition.kind() != expr::Kind::Compare) return std::nullopt;
  const Expr& a = condition.operands()[0];
  const Expr& b = condition.operands()[1];
  switch (condition.comparison()) {
    case expr::Comparison::Gt:
      return a - b;
    case expr::Comparison::Ge:
      return a - b + Expr(1);
    case expr::Comparison::Lt:
      return b - a;
    case expr::Comparison::Le:
      return b - a + Expr(1);
    default:
      return std::nullopt;
  }
}

// A branch whose test states that its then-side loop's trips are positive
// (a loop's guard) kept that loop from pricing a negative count; once the
// test is a probability, the loop must say it itself: its trips become
// max(trips, 0), equal wherever the guard let it run.
void clamp_guarded_loops(const Expr& condition, Items& then_items) {
  const std::optional<Expr> positive = positive_count_of(condition);
  if (!positive) return;
  for (Item& item : then_items) {
    auto* loop = std::get_if<LoopItem>(&item.body);
    if (!loop) continue;
    const Expr difference = expr::simplify_or_keep(loop->trip_count - *positive);
    if (difference.is_constant() && difference.real_value() == 0)
      loop->trip_count = expr::maximum({loop->trip_count, Expr(0)});
  }
}

// `loop_lines`: lines whose branches are left as they are (a test of the loop
// statement there: its guard, the vectoriser's checks, a remainder).
// `against_any`: a function's arguments, whose ordered tests are unfolded too.
void unfold(Items& items, const std::string& function, const std::string& fallback_file,
            const std::map<std::string, std::string>& varied, Coverage& c, int& count, bool against_any = false,
            const std::set<int>& loop_lines = {}) {
  for (Item& item : items) {
    if (auto* b = std::get_if<BranchItem>(&item.body)) {
      if (b->condition && !loop_lines.count(item.line)) {
        for (const auto& [name, own_file] : varied) {
          const bool equality = tests_for_equality(*b->condition, name, against_any);
          if (!equality && !(against_any && tests_in_order(*b->condition, name))) continue;
          const std::string test = expr::to_string(*b->condition);
          clamp_guarded_loops(*b->condition, b->then_items);
          b->condition.reset();
          b->probability = 0.5;
          // Each side by its first item's line, not by where the optimised
          // code's side starts (an empty side's is the join's, which the other reaches too).
          b->then_line = first_line(b->then_items);
          b->else_line = first_line(b->else_items);
          const std::string note = note_of(test, !equality);
          item.note = item.note.empty() ? note : item.note + "; " + note;
          // A local's tests are in its own file, where its probe is; others'
          // in the file of the function's other sites.
          const std::string& file = own_file.empty() ? fallback_file : own_file;
          c.guessed_branches.push_back({function, fmt::format("{}:{}", file, item.line), 0.5, note});
          ++count;
          break;
        }
      }
      unfold(b->then_items, function, fallback_file, varied, c, count, against_any, loop_lines);
      unfold(b->else_items, function, fallback_file, varied, c, count, against_any, loop_lines);
    } else if (auto* l = std::get_if<LoopItem>(&item.body)) {
      unfold(l->body, function, fallback_file, varied, c, count, against_any, loop_lines);
    }
  }
}

// The file of a function's other coverage sites ("dir/f.c" of "dir/f.c:12"),
// where its branches' sites are named, else of its definition; "" when
// neither is known (the binding then looks for the one file with a probe at
// the branch's line).
std::string file_of(const Coverage& c, const Function& f) {
  const std::string& function = f.name;
  for (const auto& b : c.guessed_branches)
    if (b.function == function) return b.site.substr(0, b.site.rfind(':'));
  for (const auto& l : c.unknown_loops)
    if (l.function == function && l.virtual_call.empty() && !l.recursion) return l.site.substr(0, l.site.rfind(':'));
  for (const auto& u : c.unresolved_calls)
    if (u.caller == function) return u.site.substr(0, u.site.rfind(':'));
  return f.file;
}

// The branch items at `line` of `items` whose note names `why`: the copies
// of one test (an inlined or unrolled copy), each priced by its own sides.
void find_items(Items& items, int line, const std::string& why, std::vector<Item*>& out) {
  for (Item& item : items) {
    if (auto* b = std::get_if<BranchItem>(&item.body)) {
      if (item.line == line && !b->computed() && item.note.find(why) != std::string::npos) out.push_back(&item);
      find_items(b->then_items, line, why, out);
      find_items(b->else_items, line, why, out);
    } else if (auto* l = std::get_if<LoopItem>(&item.body)) {
      find_items(l->body, line, why, out);
    }
  }
}

std::optional<double> lookup(const std::map<std::string, double>& m, const std::string& name) {
  auto it = m.find(name);
  return it == m.end() ? std::nullopt : std::optional<double>(it->second);
}

}  // namespace

int unfold_equality_tests(ProgramModel& model, const std::map<std::string, std::string>& varied) {
  if (!model.coverage || varied.empty()) return 0;
  int count = 0;
  for (auto& [name, fn] : model.functions)
    unfold(fn.body, name, file_of(*model.coverage, fn), varied, *model.coverage, count);
  return count;
}

int unfold_argument_tests(ProgramModel& model, const std::map<std::string, std::set<std::string>>& varied) {
  if (!model.coverage) return 0;
  int count = 0;
  for (const auto& [function, formals] : varied) {
    auto fn = model.functions.find(function);
    if (fn == model.functions.end()) continue;
    std::map<std::string, std::string> tested;  // its own names, each probed in its own file
    for (const std::string& formal : formals) tested[formal] = "";
    std::set<int> loops;  // the tests of a loop statement size it: its count keeps the argument's mean
    std::function<void(const Items&)> lines = [&](const Items& items) {
      for (const Item& item : items)
        if (const auto* l = std::get_if<LoopItem>(&item.body)) {
          loops.insert(item.line);
          lines(l->body);
        } else if (const auto* b = std::get_if<BranchItem>(&item.body)) {
          lines(b->then_items);
          lines(b->else_items);
        }
    };
    lines(fn->second.body);
    unfold(fn->second.body, function, file_of(*model.coverage, fn->second), tested, *model.coverage, count, true,
           loops);
  }
  return count;
}

namespace {

// Gives back its condition to each test unfolded into the coverage's guessed
// branches from index `from` on that `keep` rejects, and drops its entry.
template <typename Keep>
int give_back_conditions(ProgramModel& model, std::size_t from, Keep keep) {
  int count = 0;
  auto& guessed = model.coverage->guessed_branches;
  for (auto b = guessed.begin() + static_cast<std::ptrdiff_t>(std::min(from, guessed.size())); b != guessed.end();) {
    auto fn = model.functions.find(b->function);
    const std::string_view prefix = b->why.starts_with(kOrderedTestWhy) ? kOrderedTestWhy : kEqualityTestWhy;
    if (!tests_a_varied_value(b->why) || keep(*b) || fn == model.functions.end()) {
      ++b;
      continue;
    }
    const int line = std::atoi(b->site.c_str() + b->site.rfind(':') + 1);
    std::vector<Item*> items;
    find_items(fn->second.body, line, b->why, items);
    const Expr test = expr::parse(b->why.substr(prefix.size()));
    for (Item* item : items) {
      std::get<BranchItem>(item->body).condition = test;
      // The note without that part, or the "; " that joined it to another.
      std::size_t at = item->note.find(b->why), size = b->why.size();
      if (at >= 2 && item->note.compare(at - 2, 2, "; ") == 0) at -= 2, size += 2;
      else if (item->note.compare(at + size, 2, "; ") == 0) size += 2;
      item->note.erase(at, size);
      ++count;
    }
    b = guessed.erase(b);
  }
  return count;
}

}  // namespace

int restore_ordered_tests_not_one_way(ProgramModel& model) {
  if (!model.coverage) return 0;
  return give_back_conditions(model, 0, [](const Coverage::Branch& b) {
    const bool one_way = b.probe_probability && (*b.probe_probability == 0 || *b.probe_probability == 1);
    return !b.why.starts_with(kOrderedTestWhy) || one_way || b.probe_not_reached;
  });
}

int price_argument_tests(ProgramModel& model, const ProbeRun& run, const std::string& function,
                         const std::string& argument, const std::string& origin, std::vector<ProbeFinding>& out) {
  if (!model.coverage) return 0;
  const std::size_t from = model.coverage->guessed_branches.size();
  if (unfold_argument_tests(model, {{function, {argument}}}) == 0) return 0;
  const std::vector<ProbeRun> views = rank_views(run);
  for (std::size_t k = from; k < model.coverage->guessed_branches.size(); ++k) {
    Coverage::Branch& b = model.coverage->guessed_branches[k];
    ProbeFinding f{ProbeFinding::Kind::Branch, b.site, b.function, std::nullopt, ""};
    bind_equality_test(model, run, views, b, origin, f);
    out.push_back(std::move(f));
  }
  give_back_conditions(model, from, [](const Coverage::Branch& b) { return b.probe_probability.has_value(); });
  return static_cast<int>(model.coverage->guessed_branches.size() - from);
}

void add_priced_arguments(const ProgramModel& model, const ProbeRun& run,
                          const std::map<std::string, std::set<std::string>>& passed_on, const std::string& origin,
                          std::map<std::string, std::set<std::string>>& varied) {
  for (const auto& [function, formals] : passed_on)
    for (const std::string& formal : formals) {
      ProgramModel trial = model;
      const std::size_t before = trial.coverage ? trial.coverage->guessed_branches.size() : 0;
      if (unfold_argument_tests(trial, {{function, {formal}}}) == 0) continue;
      bool priced = true;
      for (std::size_t k = before; priced && k < trial.coverage->guessed_branches.size(); ++k) {
        ProbeFinding ignored{ProbeFinding::Kind::Branch, "", "", std::nullopt, ""};
        Coverage::Branch& b = trial.coverage->guessed_branches[k];
        bind_equality_test(trial, run, {}, b, origin, ignored);
        priced = b.probe_probability.has_value();
      }
      if (priced) varied[function].insert(formal);
    }
}

void bind_equality_test(ProgramModel& model, const ProbeRun& run, const std::vector<ProbeRun>& rank_views,
                        Coverage::Branch& b, const std::string& origin, ProbeFinding& f) {
  const std::size_t colon = b.site.rfind(':');
  const int line = std::atoi(b.site.c_str() + colon + 1);
  std::string file = b.site.substr(0, colon);
  file = file.substr(file.rfind('/') == std::string::npos ? 0 : file.rfind('/') + 1);
  auto fn = model.functions.find(b.function);
  std::vector<Item*> copies;
  if (fn != model.functions.end()) find_items(fn->second.body, line, b.why, copies);
  if (copies.empty()) {
    f.status = "the model has no such branch";
    return;
  }
  // The files whose first branch probe, or a switch's sides, are at that
  // line: the entry's own, or, where it names none, the one file that has one there.
  static const std::regex first_probe(R"(^(.*):([0-9]+):(branch\.taken|switch\.runs)$)");
  std::vector<std::string> files;
  for (const auto& [name, value] : run.features) {
    std::smatch m;
    if (std::regex_match(name, m, first_probe) && std::stoi(m[2]) == line && (file.empty() || m[1] == file) &&
        std::find(files.begin(), files.end(), m[1]) == files.end())
      files.push_back(m[1]);
  }
  if (files.size() != 1) {
    f.status = files.empty() ? "no branch or switch probe at that line: left at its guess"
                             : "probes at that line in several files: left at its guess";
    return;
  }
  const std::string at = files.front();
  if (file.empty()) b.site = fmt::format("{}:{}", at, line);
  // Arrivals at the line in the run `r`: its first branch probe's, else the
  // runs of its switch's sides.
  auto arrivals_at = [&](const ProbeRun& r) {
    double arrivals = lookup(r.features, fmt::format("{}:{}:branch.taken", at, line)).value_or(0) +
                      lookup(r.features, fmt::format("{}:{}:branch.not_taken", at, line)).value_or(0);
    if (!lookup(r.features, fmt::format("{}:{}:branch.taken", at, line))) {
      const std::string sides = fmt::format("{}:{}:switch", at, line);
      for (const auto& [name, value] : r.features)
        if (name.starts_with(sides) && name.ends_with(".runs")) arrivals += value;
    }
    return arrivals;
  };
  // Arrivals into the side of the line's tests that does nothing before
  // their join (a bare RETURN: the probes' `.taken_empty`, `.not_taken_empty`),
  // summed over the line's branch probes (`a || b` tested twice, each test's
  // empty side the same return); none where no probe there has one.
  auto into_empty = [&](const ProbeRun& r) -> std::optional<double> {
    std::optional<double> total;
    for (int k = 1;; ++k) {
      const std::string probe = fmt::format("{}:{}:branch{}", at, line, k == 1 ? std::string() : fmt::format("#{}", k));
      if (!lookup(r.features, probe + ".taken")) return total;
      for (const char* side : {"taken", "not_taken"})
        if (lookup(r.code, fmt::format("{}.{}_empty", probe, side)))
          total = total.value_or(0) + lookup(r.features, fmt::format("{}.{}", probe, side)).value_or(0);
    }
  };
  // The share of the arrivals in `r` that take `item`'s then side: the
  // arrivals into the line a side starts at (the sides of the file's branch
  // probes, and of its switches, that start there; a side starting at the
  // branch's own line, a one-line `IF (c) CALL f`, its own test's side alone)
  // over the arrivals at its line. None, with `why`, where the run cannot say.
  auto then_share = [&](const ProbeRun& r, const BranchItem& item, bool& by_empty_side,
                        std::string& why) -> std::optional<double> {
    const double arrivals = arrivals_at(r);
    if (arrivals <= 0) return std::nullopt;
    auto into = [&](int side_line) { return arrivals_into(r, at, side_line, side_line == line); };
    std::optional<double> then_runs = into(item.then_line), else_runs = into(item.else_line);
    // Neither side's line found (the side with work starts where the
    // optimiser sank code into it, the other is empty): the model's one empty
    // side is the probes' side that does nothing.
    by_empty_side = false;
    if (!then_runs && !else_runs && item.then_items.empty() != item.else_items.empty()) {
      (item.then_items.empty() ? then_runs : else_runs) = into_empty(r);
      by_empty_side = then_runs || else_runs;
    }
    if (!then_runs && !else_runs) {
      why = "no branch or switch probe has a side starting where its sides do: left at its guess";
      return std::nullopt;
    }
    const double runs = then_runs ? *then_runs : *else_runs;
    if (runs > arrivals * (1 + 1e-9)) {
      why = "its side's line was entered more often than the branch was reached (its lines run elsewhere too): left "
            "at its guess";
      return std::nullopt;
    }
    return then_runs ? runs / arrivals : 1 - runs / arrivals;
  };
  if (arrivals_at(run) <= 0) {
    f.status = "not reached by the probe run";
    b.probe_not_reached = true;
    return;
  }
  std::optional<double> priced;
  bool priced_by_empty_side = false, each_rank = false;
  for (Item* copy : copies) {
    auto& item = std::get<BranchItem>(copy->body);
    bool by_empty_side = false;
    const std::optional<double> share = then_share(run, item, by_empty_side, f.status);
    if (!share) continue;
    item.probability = *share;
    // A test of a rank's own value (its peer against its rank) takes one
    // side on one rank and the other on the next: each rank its own share.
    std::vector<double> each;
    for (const ProbeRun& view : rank_views) {
      bool ignored = false;
      std::string unused;
      each.push_back(then_share(view, item, ignored, unused).value_or(std::nan("")));
    }
    if (!each.empty() && ranks_differ(each)) {
      item.share = each_rank_or_mean(each, item.probability);
      each_rank = true;
    }
    copy->note += "; " + origin;
    if (!priced) {
      priced = item.probability;
      priced_by_empty_side = by_empty_side;
    }
  }
  if (!priced) return;
  b.probe_probability = priced;
  f.value = priced;
  f.status =
      priced_by_empty_side
          ? "bound (the arrivals into the sides of its line's probes that do nothing, its empty side, over those "
            "at its line)"
          : "bound (the arrivals into the line its side starts at over those at its line)";
  if (each_rank)
    f.status += fmt::format("; each rank its own share at {} processes, the mean at other counts", run.ranks);
}

}  // namespace perfcast::model
