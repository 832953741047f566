#include "model/probe_bind.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <regex>
#include <set>
#include <utility>

#include "model/later_test.h"
#include "model/probe_arguments.h"
#include "model/probe_arrivals.h"
#include "model/probe_branch_sides.h"
#include "model/probe_indirect.h"
#include "model/probe_invocations.h"
#include "model/probe_loop_sizes.h"
#include "model/probe_memory_bytes.h"
#include "model/probe_paths.h"
#include "model/probe_per_rank.h"
#include "model/probe_loop_trips.h"
#include "model/probe_regions.h"
#include "model/probe_selectors.h"
#include "model/probe_unbound_tests.h"
#include "model/probe_unpriced.h"
#include "model/probe_values.h"
#include "support/error.h"
#include "support/expr.h"

namespace perfcast::model {

// Shared with probe_values.cpp (declared in probe_bind.h).
double function_id(const std::string& linkage_name) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : linkage_name) h = (h ^ c) * 1099511628211ull;
  return static_cast<double>(h & ((1ull << 53) - 1));
}

// The suffix of a probe's kind in a function from a system header
// (`loop@<id>`, feature_pass.cpp): its instance's function_id in hex.
std::string library_tag(const std::string& linkage_name) {
  return fmt::format("@{:X}", static_cast<std::uint64_t>(function_id(linkage_name)));
}

std::string file_tag(const std::string& file) {
  std::string tag;
  for (char c : file.substr(file.rfind('/') == std::string::npos ? 0 : file.rfind('/') + 1))
    tag += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return tag;
}

// A measure as an expression: whole numbers stay integers (an integer
// parameter takes them), others are reals with ten significant digits.
static Expr measure_expr(double v) {
  if (v == std::trunc(v) && std::fabs(v) < 9e15) return expr::parse(fmt::format("{}", static_cast<long long>(v)));
  return expr::parse(fmt::format("{:.10g}", v));
}

// "dir/f.c:12" -> "f.c:12": features are named by the file without its folder.
std::optional<double> feature(const ProbeRun& run, const std::string& name) {
  auto f = run.features.find(name);
  return f == run.features.end() ? std::nullopt : std::optional<double>(f->second);
}

std::string feature_site(const std::string& site) {
  auto colon = site.rfind(':');
  auto slash = site.rfind('/', colon);
  return slash == std::string::npos ? site : site.substr(slash + 1);
}

int site_line(const std::string& site) {
  auto colon = site.rfind(':');
  if (colon == std::string::npos) return 0;
  try {
    return std::stoi(site.substr(colon + 1));
  } catch (...) {
    return 0;
  }
}

void bind_measure(Parameter& p, double value, const std::string& origin) {
  p.default_value = measure_expr(value);
  // A mean over the loop's arrivals may be fractional: it is what the model's
  // counts need (a mean over the runs is exact), not a value the program holds.
  if (value != std::trunc(value)) p.integer = false;
  p.origin = origin;
}

// Shared with probe_arrivals.cpp (declared in probe_bind.h).
std::optional<std::string> own_feature(const ProbeRun& run, const std::string& at, const std::string& kind,
                                       const char* count, const std::string& function, int depth) {
  auto feature = [&run](const std::string& name) { return run.features.count(name) > 0; };
  if (!feature(at + ":" + kind + "#2." + count)) return at + ":" + kind;
  const double id = function_id(function);
  std::vector<std::string> found;
  for (int k = 1; feature(at + ":" + kind + (k == 1 ? "" : "#" + std::to_string(k)) + "." + count); ++k) {
    const std::string name = at + ":" + kind + (k == 1 ? "" : "#" + std::to_string(k));
    auto fact = run.code.find(name + ".function");
    if (fact == run.code.end() || fact->second != id) continue;
    found.push_back(name);
  }
  if (found.size() > 1 && depth > 0)
    std::erase_if(found, [&](const std::string& name) {
      auto d = run.code.find(name + ".depth");
      return (d == run.code.end() ? 1 : static_cast<int>(d->second)) != depth;
    });
  if (found.size() != 1) return std::nullopt;  // none, or several of one function
  return found.front();
}

namespace {

Parameter* parameter(ProgramModel& model, const std::string& name) {
  for (Parameter& p : model.parameters)
    if (p.name == name) return &p;
  return nullptr;
}


// Sets the probability of the function's branches at `line` around a later
// test's arithmetic (kLaterTestWhy).
void set_later_test_probability(Items& items, int line, double p, const std::string& origin) {
  for (Item& item : items) {
    if (auto* b = std::get_if<BranchItem>(&item.body)) {
      if (item.line == line && !b->condition && is_later_test(item)) {
        b->probability = p;
        item.note += "; " + origin;
      }
      set_later_test_probability(b->then_items, line, p, origin);
      set_later_test_probability(b->else_items, line, p, origin);
    } else if (auto* l = std::get_if<LoopItem>(&item.body)) {
      set_later_test_probability(l->body, line, p, origin);
    }
  }
}

bool holds_loop_of(const Items& items, const std::string& trips) {
  for (const Item& item : items) {
    if (const auto* l = std::get_if<LoopItem>(&item.body)) {
      if (expr::to_string(l->trip_count).find(trips) != std::string::npos || holds_loop_of(l->body, trips))
        return true;
    } else if (const auto* b = std::get_if<BranchItem>(&item.body)) {
      if (holds_loop_of(b->then_items, trips) || holds_loop_of(b->else_items, trips)) return true;
    }
  }
  return false;
}

// A guessed branch at a loop's line that guards the loop (LLVM's test before
// a rotated loop): the bound trips are a mean over every arrival, the skipped
// ones counting 0, so the side that runs the loop is taken with probability 1
// (0 when the loop never iterated). Returns false when no side holds the loop.
bool set_loop_guard(Items& items, int line, const std::string& trips, bool iterated, const std::string& origin,
                    double& probability) {
  bool found = false;
  for (Item& item : items) {
    if (auto* b = std::get_if<BranchItem>(&item.body)) {
      if (item.line == line && !b->computed() && !is_equality_test(item)) {
        bool then_side = holds_loop_of(b->then_items, trips), else_side = holds_loop_of(b->else_items, trips);
        if (then_side != else_side) {
          b->probability = then_side == iterated ? 1.0 : 0.0;
          probability = b->probability;
          item.note = item.note.empty() ? origin : item.note + "; " + origin;
          found = true;
        }
      }
      found |= set_loop_guard(b->then_items, line, trips, iterated, origin, probability);
      found |= set_loop_guard(b->else_items, line, trips, iterated, origin, probability);
    } else if (auto* l = std::get_if<LoopItem>(&item.body)) {
      found |= set_loop_guard(l->body, line, trips, iterated, origin, probability);
    }
  }
  return found;
}

// The depth among the loops of their own line (1: the outermost) of the
// loops in `items` whose trips name `trips`, `around` counting the loops of
// `line` around `items`; 0 when there are none, -1 when they differ.
int model_loop_depth(const Items& items, const std::string& trips, int line, int around = 0) {
  int depth = 0;
  auto merge = [&](int d) {
    if (d == 0 || depth == -1) return;
    depth = depth == 0 || depth == d ? d : -1;
  };
  for (const Item& item : items) {
    if (const auto* l = std::get_if<LoopItem>(&item.body)) {
      const int inside = around + (item.line == line);
      if (item.line == line && expr::to_string(l->trip_count).find(trips) != std::string::npos) merge(inside);
      merge(model_loop_depth(l->body, trips, line, inside));
    } else if (const auto* b = std::get_if<BranchItem>(&item.body)) {
      merge(model_loop_depth(b->then_items, trips, line, around));
      merge(model_loop_depth(b->else_items, trips, line, around));
    }
  }
  return depth;
}

// How deep the deepest loop at `line` in `items` is among the loops of that
// line (model_loop_depth's depths); 0 when none is there.
int deepest_loop_at(const Items& items, int line, int around = 0) {
  int deepest = 0;
  for (const Item& item : items) {
    if (const auto* l = std::get_if<LoopItem>(&item.body)) {
      const int inside = around + (item.line == line);
      if (item.line == line) deepest = std::max(deepest, inside);
      deepest = std::max(deepest, deepest_loop_at(l->body, line, inside));
    } else if (const auto* b = std::get_if<BranchItem>(&item.body)) {
      deepest = std::max({deepest, deepest_loop_at(b->then_items, line, around),
                          deepest_loop_at(b->else_items, line, around)});
    }
  }
  return deepest;
}

// How deep the deepest of the probes' loops at `at` is among that line's
// loops (1 without a `.depth` fact), of the function whose id is `function`
// where given (its `.function` fact), and whether that deepest one fills memory.
struct ProbeNest {
  int deepest = 0;
  bool deepest_fills = false;
};
ProbeNest probe_nest(const ProbeRun& run, const std::string& at, std::optional<double> function) {
  ProbeNest nest;
  for (int k = 1;; ++k) {
    const std::string name = at + ":loop" + (k == 1 ? "" : "#" + std::to_string(k));
    if (!feature(run, name + ".headers")) break;
    auto fact = run.code.find(name + ".function");
    if (function && (fact == run.code.end() || fact->second != *function)) continue;
    auto d = run.code.find(name + ".depth");
    const int depth = d == run.code.end() ? 1 : static_cast<int>(d->second);
    if (depth > nest.deepest) nest.deepest_fills = run.code.count(name + ".fill_bytes") > 0;
    nest.deepest = std::max(nest.deepest, depth);
  }
  return nest;
}

// Whether the loops the probe run saw at `at` in `function` (several, told
// apart by depth) are the model's loops at that line: as many, or one more,
// the deepest, which fills memory (the memset the optimiser made of it). A
// loop the model has at the line and the probes placed at another (a
// parallel loop named at its body's first statement) would shift every depth.
bool same_nest(const ProbeRun& run, const std::string& at, const std::string& function, int model_deepest) {
  const ProbeNest nest = probe_nest(run, at, function_id(function));
  return nest.deepest == model_deepest || (nest.deepest == model_deepest + 1 && nest.deepest_fills);
}

// The depth among the loops of their own line of the polling loops at `line`
// in `items` (model_loop_depth's, for the loops whose trips are one pass).
int polling_loop_depth(const Items& items, int line, int around = 0) {
  int depth = 0;
  for (const Item& item : items) {
    int d = 0;
    if (const auto* l = std::get_if<LoopItem>(&item.body)) {
      const int inside = around + (item.line == line);
      if (item.line == line && !l->polls.empty()) d = inside;
      const int deeper = polling_loop_depth(l->body, line, inside);
      if (deeper != 0) d = d == 0 || d == deeper ? deeper : -1;
    } else if (const auto* b = std::get_if<BranchItem>(&item.body)) {
      const int a = polling_loop_depth(b->then_items, line, around),
                e = polling_loop_depth(b->else_items, line, around);
      d = a == 0 ? e : (e == 0 || e == a ? a : -1);
    }
    if (d != 0) depth = depth == 0 || depth == d ? d : -1;
  }
  return depth;
}

// The polling loops at `line` in `items` priced at no pass: the run never
// entered them. Returns how many.
int set_polling_unreached(Items& items, int line, const std::string& origin) {
  int set = 0;
  for (Item& item : items) {
    if (auto* l = std::get_if<LoopItem>(&item.body)) {
      if (item.line == line && !l->polls.empty()) {
        l->trip_count = Expr(0);
        item.note += (item.note.empty() ? "" : "; ") + ("never entered by the " + origin + ": no pass");
        ++set;
      }
      set += set_polling_unreached(l->body, line, origin);
    } else if (auto* b = std::get_if<BranchItem>(&item.body)) {
      set += set_polling_unreached(b->then_items, line, origin) + set_polling_unreached(b->else_items, line, origin);
    }
  }
  return set;
}

// The probes' loop tested at the bottom (`do { ... } while (!done)`, named at
// its `do` and left by its test's line, the code facts `.tested_at_bottom` and
// `.exit_line`) whose lines hold `line` of `file` (`dir/f.c:`) between the
// two, the innermost where several do: the optimiser folds the flag the test
// reads into a branch at the line that computed it, where the analyser then
// names the loop.
std::optional<std::string> bottom_tested_loop_around(const ProbeRun& run, const std::string& file, int line) {
  static constexpr std::string_view kBottom = ".tested_at_bottom";
  std::optional<std::string> innermost;
  int innermost_start = 0;
  for (const auto& [key, value] : run.code) {
    if (value == 0 || key.size() <= file.size() + kBottom.size() || key.compare(0, file.size(), file) != 0 ||
        !key.ends_with(kBottom))
      continue;
    const std::string base = key.substr(0, key.size() - kBottom.size());
    const int start = std::atoi(base.c_str() + file.size());
    auto exit = run.code.find(base + ".exit_line");
    if (exit == run.code.end() || !(start < line && line < exit->second)) continue;
    if (!innermost || start > innermost_start) innermost = base, innermost_start = start;
  }
  return innermost;
}

}  // namespace

// The probe's loop (`f.c:12:loop#2`) at feature site `at` that is `depth`
// deep among the loops of its line (the pass's code fact `.depth`, 1 when
// absent: the outermost), or the line's only one; none, with `why`, when no
// loop or several are.
std::optional<std::string> probe_loop(const ProbeRun& run, const std::string& at, int depth, std::string& why) {
  std::vector<std::string> found;
  int loops = 0;
  for (int k = 1;; ++k) {
    const std::string base = at + ":loop" + (k == 1 ? "" : fmt::format("#{}", k));
    if (!feature(run, base + ".headers")) break;
    ++loops;
    auto d = run.code.find(base + ".depth");
    if ((d == run.code.end() ? 1 : static_cast<int>(d->second)) == depth) found.push_back(base);
  }
  if (found.size() == 1) return found.front();
  if (loops == 0) {
    // A `DO` without control the probes named at its body's first line, which
    // the analyser named by its statement (`.statement_line`, a code fact), or,
    // the outermost of its line, by the one test that leaves it after work,
    // where the optimiser rotated it to start (`.exit_line`).
    const std::size_t colon = at.rfind(':');
    const std::string file = at.substr(0, colon + 1);
    const double line = std::atof(at.c_str() + colon + 1);
    for (const std::string suffix : {".statement_line", ".exit_line"}) {
      if (suffix == ".exit_line" && depth != 1) break;
      std::vector<std::string> named;
      for (const auto& [key, value] : run.code)
        if (value == line && key.size() > suffix.size() && key.compare(0, file.size(), file) == 0 &&
            key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0)
          named.push_back(key.substr(0, key.size() - suffix.size()));
      if (named.size() == 1) return named.front();
    }
    if (depth == 1)
      if (auto around = bottom_tested_loop_around(run, file, static_cast<int>(line))) return around;
  }
  // One loop at the line: the model's loops there around it are the
  // optimiser's or of other lines' locations, not loops the probes missed.
  if (loops == 1) return at + ":loop";
  why = loops == 0 ? "no probe at that line (was the program built with perfcast cc --features from these sources?)"
        : found.empty() ? fmt::format("no loop of the probe's {} at that line is {} deep in them", loops, depth)
                        : "several loops start at that line, as deep in its loops; the probe cannot tell them apart";
  return std::nullopt;
}

namespace {

// The mean trips per arrival of the probe's loop `probe` (`f.c:12:loop`): a
// loop tested at the top (`for`, `while`) runs its header once per iteration
// and once more to leave; one tested at the bottom (`do ... while`, the
// pass's code fact `.tested_at_bottom`) or never left from its header (`DO`
// ... `EXIT`, `.left_from_body`) once per iteration it starts. Otherwise an
// iteration left from inside the body after its work (`.exits_after_work`:
// `EXIT` on a convergence test) ran, and never went back to the header.
// Whether `items` (a loop's body) hold code after the loop's only exit,
// priced on all of its passes but the last (a share of `trips`, the loop's
// trip count): the loop's trips are then its passes through the exit's test.
bool runs_code_after_its_exit(const Items& items, const std::string& trips) {
  for (const Item& item : items)
    if (const auto* b = std::get_if<BranchItem>(&item.body);
        b && b->share && expr::free_names(*b->share).count(trips) && item.note.find("after the loop's exit") != std::string::npos)
      return true;
  return false;
}

// The loop items of `items`, at any depth, whose trips are `trips`.
void loops_of(const Items& items, const std::string& trips, std::vector<const LoopItem*>& out) {
  for (const Item& item : items) {
    if (const auto* l = std::get_if<LoopItem>(&item.body)) {
      if (expr::to_string(l->trip_count) == trips) out.push_back(l);
      loops_of(l->body, trips, out);
    } else if (const auto* b = std::get_if<BranchItem>(&item.body)) {
      loops_of(b->then_items, trips, out);
      loops_of(b->else_items, trips, out);
    }
  }
}

}  // namespace

double trips_per_arrival(const ProbeRun& run, const std::string& probe, double headers, double entries,
                         std::optional<double> exits_after_work) {
  const bool once = run.code.count(probe + ".tested_at_bottom") > 0 || run.code.count(probe + ".left_from_body") > 0;
  const double left_after_work =
      once ? 0.0 : exits_after_work.value_or(feature(run, probe + ".exits_after_work").value_or(0.0));
  return std::max(0.0, (once ? headers : headers - entries + left_after_work) / entries);
}

namespace {

// The files of a function's coverage sites ("f.c" of "dir/f.c:12"): where its
// own loops' probes are named, to tell them from other files' loops at the same line.
std::set<std::string> files_of(const Coverage& c, const std::string& function) {
  std::set<std::string> files;
  auto add = [&](const std::string& fn, const std::string& site) {
    if (fn == function) files.insert(feature_site(site.substr(0, site.rfind(':'))));
  };
  for (const auto& l : c.unknown_loops) add(l.function, l.site);
  for (const auto& b : c.guessed_branches) add(b.function, b.site);
  for (const auto& u : c.unresolved_calls) add(u.caller, u.site);
  return files;
}

// The files with a probe loop at `line`, where several files have one the
// ones of `own` (a function's files, files_of), else the one the analyser
// tagged `tag` (a variable's declaration's, the file of the loops that read
// it): one when the loop's probe can be found by its line.
std::vector<std::string> loop_files_at(const ProbeRun& run, int line, const std::set<std::string>& own,
                                       const std::string& tag = "") {
  const std::string suffix = ":" + std::to_string(line) + ":loop.headers";
  std::vector<std::string> files;
  for (const auto& [feature, value] : run.features)
    if (feature.size() > suffix.size() && feature.compare(feature.size() - suffix.size(), suffix.size(), suffix) == 0)
      files.push_back(feature.substr(0, feature.size() - suffix.size()));
  if (files.size() <= 1) return files;
  std::vector<std::string> owned = files;
  std::erase_if(owned, [&](const std::string& f) { return !own.count(f); });
  if (owned.size() != 1 && !tag.empty()) {
    owned = files;
    std::erase_if(owned, [&](const std::string& f) { return file_tag(f) != tag; });
  }
  return owned;
}

// The mean the loops in `loops` ran, when every one ran it (none otherwise,
// with why).
std::optional<double> one_mean(const std::vector<SizedLoop>& loops, std::string& why) {
  std::optional<double> mean;
  for (const SizedLoop& loop : loops) {
    if (!loop.no_probe.empty()) {
      why = loop.no_probe;
      return std::nullopt;
    }
    if (loop.entries == 0) {
      why = "the loops it sizes were not reached by the probe run";
      return std::nullopt;
    }
    if (mean && std::fabs(loop.size - *mean) > 1e-9 * std::max(1.0, *mean)) {
      why = "the loops it sizes ran different mean trips";
      return std::nullopt;
    }
    mean = loop.size;
  }
  return mean;
}

// A size a function reads from memory (a struct's field through an argument,
// HPCG's `nrow = A.localNumberOfRows`, or one a caller read and passes to it)
// is one parameter however many sizes the calls pass; where the trips of the
// function's loops follow it (loops_sized_by), the run's mean trips per arrival
// of those loops give the mean over the calls, which makes the total of a cost
// linear in it right. What the run measured at each of those loops (a loop
// without a probe the model's loop can be told by says why); `cast` when a
// loop's trips are a width cast of it, `unrolled` when a loop is its unrolled
// form, whose remainder's test needs a whole number. A callee's loops sized by
// a parameter every call of it passes this one to (names_standing_for) are
// witnesses: they count where the functions that name it size no loop, if each
// was told and those reached ran one mean (a callee reached on only some of its
// calls measures another).
std::vector<SizedLoop> loops_sized(const ProgramModel& model, const ProbeRun& run, const std::string& name,
                                   std::string& why, bool& cast, bool& unrolled) {
  std::vector<SizedLoop> loops, witnesses;
  bool witness_cast = false, witness_unrolled = false;
  for (const auto& [fn_name, local] : names_standing_for(model, name)) {
    const Function& fn = model.functions.at(fn_name);
    std::vector<LoopSizedBy> sized;
    loops_sized_by(fn.body, local, fn.body, sized);
    if (sized.empty()) continue;
    auto any = [&](auto test) { return std::any_of(sized.begin(), sized.end(), test); };
    const bool fn_cast = any([](auto& s) { return s.trips.kind == Trips::Cast; });
    const bool fn_unrolled = any([](auto& s) { return s.trips.kind == Trips::Unrolled; });
    const std::set<std::string> own = files_of(*model.coverage, fn_name);
    std::vector<SizedLoop> fn_loops;
    for (const auto& [line, trips] : sized) {
      const std::vector<std::string> files = loop_files_at(run, line, own);
      const bool differ = any([&, line = line, &trips = trips](auto& o) {
        return o.line == line && (o.trips.scale != trips.scale || o.trips.offset != trips.offset);
      });
      if (differ || files.size() != 1) {
        fn_loops.push_back({fn_name, line, "", 0, 0,
                            differ          ? "loops at that line run different counts of it"
                            : files.empty() ? "no loop probe where it sizes a loop"
                                            : "loops at that line in several files"});
        continue;
      }
      const std::string at = files.front() + ":" + std::to_string(line);
      const int depth = model_loop_depth(fn.body, local, line);
      std::string no_probe;
      std::optional<std::string> probe = depth < 0 ? std::nullopt : probe_loop(run, at, std::max(depth, 1), no_probe);
      // Loops nested at the line told by depth only where the nests agree: a
      // constant loop the optimiser unrolled away (SUM over a 4-wide
      // dimension) leaves the probes one deeper, and the size's loop's depth
      // their outer's.
      const ProbeNest nest = probe_nest(run, at, std::nullopt);
      const int model_deep = deepest_loop_at(fn.body, line);
      if (!probe || (nest.deepest >= 2 && nest.deepest != model_deep &&
                     !(nest.deepest == model_deep + 1 && nest.deepest_fills))) {
        fn_loops.push_back({fn_name, line, at, 0, 0,
                            probe ? fmt::format("the model has {} loops nested at that line and the probes {}: depth "
                                                "cannot tell which is which",
                                                model_deep, nest.deepest)
                                  : "several loops start where it sizes one, and the probe cannot tell which"});
        continue;
      }
      auto headers = feature(run, *probe + ".headers"), entries = feature(run, *probe + ".entries");
      SizedLoop loop{fn_name, line, at, entries.value_or(0), trips.size_of(0), "", false, *probe, trips};
      if (headers && entries && *entries > 0)
        loop.size = trips.size_of(trips_per_arrival(run, *probe, *headers, *entries));
      fn_loops.push_back(loop);
    }
    if (local == name) {
      loops.insert(loops.end(), fn_loops.begin(), fn_loops.end());
      cast = cast || fn_cast;
      unrolled = unrolled || fn_unrolled;
      continue;
    }
    // A witness: every loop told, those reached one mean, the witnesses' so far.
    if (std::any_of(fn_loops.begin(), fn_loops.end(), [](const SizedLoop& l) { return !l.no_probe.empty(); }))
      continue;
    std::vector<SizedLoop> reached = witnesses;
    for (const SizedLoop& l : fn_loops)
      if (l.entries > 0) reached.push_back(l);
    std::string differ;
    if (reached.size() == witnesses.size() || !one_mean(reached, differ)) continue;
    witnesses = std::move(reached);
    witness_cast = witness_cast || fn_cast;
    witness_unrolled = witness_unrolled || fn_unrolled;
  }
  if (loops.empty() && !witnesses.empty()) {
    cast = witness_cast;
    unrolled = witness_unrolled;
    for (SizedLoop& w : witnesses) w.witness = true;
    return witnesses;
  }
  if (loops.empty()) why = "sizes no loop";
  return loops;
}

}  // namespace

namespace {

// A loop the run's arrivals are counted at: its line and the text of its trip count.
using ArrivalLoop = std::pair<int, std::string>;

// The loops in `items` whose trips read `name`, each as the function's
// outermost loop around it (`outer`: the loop around `items`, none at the top):
// an arrival there reads the value last assigned outside loops (`nested` when
// one was inlined from another function, whose own code assigns it).
void loops_reading(const Items& items, const std::string& name, const std::optional<ArrivalLoop>& outer,
                   std::set<ArrivalLoop>& loops, bool& nested) {
  for (const Item& item : items) {
    if (const auto* l = std::get_if<LoopItem>(&item.body)) {
      const ArrivalLoop here = outer.value_or(ArrivalLoop{item.line, expr::to_string(l->trip_count)});
      if (expr::free_names(l->trip_count).count(name)) {
        if (item.note.find("inlined from") != std::string::npos) nested = true;
        loops.insert(outer ? *outer : ArrivalLoop{item.line, name});
      }
      loops_reading(l->body, name, here, loops, nested);
    } else if (const auto* b = std::get_if<BranchItem>(&item.body)) {
      loops_reading(b->then_items, name, outer, loops, nested);
      loops_reading(b->else_items, name, outer, loops, nested);
    }
  }
}

}  // namespace

std::optional<double> arrivals_at_loops_reading(const ProgramModel& model, const ProbeRun& run,
                                                const std::string& name, const std::string& tag) {
  if (!model.coverage) return std::nullopt;
  std::optional<std::string> function;
  std::set<ArrivalLoop> loops;
  bool nested = false;
  for (const auto& [fn_name, fn] : model.functions) {
    std::set<ArrivalLoop> own_loops;
    loops_reading(fn.body, name, std::nullopt, own_loops, nested);
    if (own_loops.empty()) continue;
    if (function) return std::nullopt;  // loops of more than one function read it
    function = fn_name;
    loops = std::move(own_loops);
  }
  if (!function || nested) return std::nullopt;
  const Function& fn = model.functions.at(*function);
  const std::set<std::string> own = files_of(*model.coverage, *function);
  std::optional<double> arrivals;
  for (const auto& [line, trips] : loops) {
    const std::vector<std::string> files = loop_files_at(run, line, own, tag);
    if (files.size() != 1) return std::nullopt;
    const int depth = model_loop_depth(fn.body, trips, line);
    std::string why;
    const std::optional<std::string> probe =
        depth < 0 ? std::nullopt : probe_loop(run, files.front() + ":" + std::to_string(line), std::max(depth, 1), why);
    const std::optional<double> entries = probe ? feature(run, *probe + ".entries") : std::nullopt;
    if (!entries || (arrivals && *arrivals != *entries)) return std::nullopt;
    arrivals = entries;
  }
  return arrivals;
}

std::string probe_origin(const ProbeRun& run) {
  return fmt::format("probe run: `{}` on {} rank{}", run.command, run.ranks, run.ranks == 1 ? "" : "s");
}


std::vector<ProbeFinding> bind_probe_run(ProgramModel& model, const ProbeRun& run) {
  if (!model.coverage)
    throw UserError("the model has no coverage section (written by hand?): nothing says what the analyser left "
                    "unknown, so a probe run has nothing to bind",
                    {}, "give a model written by perfcast analyze");
  Coverage& c = *model.coverage;
  const std::string origin = probe_origin(run);
  std::vector<ProbeFinding> out;
  std::set<std::string> bound;

  // The threads of an OpenMP team (the analyser's `omp.threads`): the run's,
  // as its runtime would start them, never a loop's at a region's line.
  if (Parameter* threads = parameter(model, "omp.threads"); threads && !threads->default_value && run.omp_threads > 0) {
    bind_measure(*threads, run.omp_threads, origin);
    bound.insert(threads->name);
    out.push_back({ProbeFinding::Kind::Value, "", threads->name, static_cast<double>(run.omp_threads),
                   "bound (the threads an OpenMP parallel region of the run starts: omp_get_max_threads)"});
  }

  // Loops: the pass counts a loop's header executions and its arrivals from
  // outside, whence the trips per arrival (trips_per_arrival).
  std::map<std::string, double> merged_join_share;  // a merged loop's trips -> its outer iterations a pass
  for (Coverage::Loop& l : c.unknown_loops) {
    ProbeFinding f{ProbeFinding::Kind::Loop, l.site, l.trip_count, std::nullopt, ""};
    const std::string at = feature_site(l.site);
    Parameter* p = parameter(model, l.trip_count);
    if (l.recursion) {
      bind_recursion(run, l, p, origin, f);
      if (f.value) bound.insert(p->name);
      out.push_back(std::move(f));
      continue;
    }
    if (!l.virtual_call.empty()) {
      bind_virtual_share(run, c, l, p, origin, f);
      if (f.value) bound.insert(p->name);
      out.push_back(std::move(f));
      continue;
    }
    // A template's instances share their loops' lines: each its own feature
    // (own_feature), found by the instance the loop was written in (inlined
    // into `function`, or `function` itself). Otherwise loops at one line (a
    // Fortran array statement's nest) are told apart by how deep each is in
    // that line's loops.
    auto fn = model.functions.find(l.function);
    std::string why;
    std::optional<std::string> probe;
    if (const std::string tagged = at + ":loop" + library_tag(l.instance.empty() ? l.function : l.instance);
        feature(run, tagged + ".headers")) {
      probe = tagged;  // a loop of a system header's template instance
    } else if (run.code.count(at + ":loop.function")) {
      const std::string instance = l.instance.empty() ? l.function : l.instance;
      const int line = site_line(l.site);
      const bool nest = fn != model.functions.end() &&
                        same_nest(run, at, instance, deepest_loop_at(fn->second.body, line));
      probe = own_feature(run, at, "loop", "headers", instance,
                          nest ? model_loop_depth(fn->second.body, l.trip_count, line) : 0);
      if (!probe) why = "several loops start at that line in one instance; the probe cannot tell them apart";
    } else {
      int depth = fn == model.functions.end() ? 1 : model_loop_depth(fn->second.body, l.trip_count, site_line(l.site));
      probe = depth < 0 ? std::nullopt : probe_loop(run, at, std::max(depth, 1), why);
      if (depth < 0) why = "the model's loops of that parameter are at several depths of that line's loops";
      // Several probe loops nested at the line, told by depth, but more of the
      // model's: one the probes placed at another line shifts every depth.
      const int probes_deep = probe_nest(run, at, std::nullopt).deepest;
      if (const int model_deep = fn == model.functions.end() ? 0 : deepest_loop_at(fn->second.body, site_line(l.site));
          probe && probes_deep >= 2 && model_deep > probes_deep) {
        probe.reset();
        why = fmt::format("the model has {} loops nested at that line and the probes {}: depth cannot tell which is which",
                          model_deep, probes_deep);
      }
    }
    // An inner loop the optimiser merged into this one: each pass is one of
    // that loop's iterations, its probe's headers, over this loop's arrivals.
    std::optional<double> merged_headers;
    if (probe && !l.merged_site.empty()) {
      std::string merged_why;
      auto merged = probe_loop(run, feature_site(l.merged_site), 1, merged_why);
      merged_headers = feature(run, merged.value_or("") + ".headers");
      if (!merged_headers) {
        why = fmt::format("the optimiser merged into it the loop at {}, which no probe counts ({})", l.merged_site,
                          merged ? "no probe at that line" : merged_why);
        probe.reset();
      }
    }
    auto headers = feature(run, probe.value_or("") + ".headers");
    auto entries = feature(run, probe.value_or("") + ".entries");
    if (!p)
      f.status = "the model has no such parameter";
    else if (p->default_value)
      f.status = "already has a value";  // the analyser's expression scales with the input; keep it
    else if (!probe)
      f.status = why;
    else if (!headers || !entries)
      f.status = "no probe at that line (was the program built with perfcast cc --features from these sources?)";
    else if (*entries == 0) {
      // At the probe's input the loop ran no iteration at all: 0 is what the
      // run measured, and a parameter on a path the run never takes is not
      // one the user should have to find.
      bind_measure(*p, 0, origin + kNeverReached);
      l.probe_not_reached = true;
      f.value = 0;
      f.status = "not reached by the probe run: 0";
      bound.insert(p->name);
    } else if (merged_headers) {
      const double trips = *merged_headers / *entries;
      if (*merged_headers > 0)
        merged_join_share[l.trip_count] = std::min(1.0, trips_per_arrival(run, *probe, *headers, *entries) / trips);
      bind_measure(*p, trips, origin);
      l.probe_trips = trips;
      f.value = trips;
      f.status = fmt::format("bound (its passes: the iterations of the loop at {} the optimiser merged into it)",
                             l.merged_site);
      bound.insert(p->name);
    } else {
      double trips = trips_per_arrival(run, *probe, *headers, *entries);
      // A loop the probes saw left by a test before its work (`DO; IF (ALL(done))
      // EXIT; ...`), whose exit the optimised code placed after some of the
      // test's own work (ALL's loop): the model prices the code after the exit
      // on all its passes but the last, so its trips are the passes through the
      // test, headers / entries, one more than the iterations of the work.
      std::vector<const LoopItem*> model_loops;
      if (fn != model.functions.end()) loops_of(fn->second.body, l.trip_count, model_loops);
      const bool counts_passes = run.code.count(*probe + ".tested_at_bottom") || run.code.count(*probe + ".left_from_body");
      const bool passes = !counts_passes && !model_loops.empty() &&
                          std::all_of(model_loops.begin(), model_loops.end(), [&](const LoopItem* m) {
                            return runs_code_after_its_exit(m->body, l.trip_count);
                          });
      if (passes) trips = *headers / *entries;
      bind_measure(*p, trips, origin);
      l.probe_trips = trips;
      f.value = trips;
      f.status = "bound";
      // A loop over each rank's own part: each rank's mean at the run's count.
      if (bind_each_rank_or_mean(*p, each_ranks_trips(run, *probe, passes), trips))
        f.status = "bound (each rank its own mean at the run's process count, the mean over the ranks at others)";
      bound.insert(p->name);
    }
    out.push_back(std::move(f));
  }

  // Polling loops: their passes are timing and stay the one priced, but
  // whether the run entered them at all is not. One the run never entered
  // runs no pass at its input, as an unknown loop never reached is bound to 0
  // trips, so what only it reads (a rank, a datatype's size) is on no path the
  // run took.
  for (const Coverage::Polling& l : c.polling_loops) {
    auto fn = model.functions.find(l.function);
    if (fn == model.functions.end()) continue;
    const std::string at = feature_site(l.site);
    const int line = site_line(l.site);
    std::string why;
    std::optional<std::string> probe;
    if (run.code.count(at + ":loop.function")) {
      probe = own_feature(run, at, "loop", "headers", l.function);
    } else {
      const int depth = polling_loop_depth(fn->second.body, line);
      if (depth >= 0) probe = probe_loop(run, at, std::max(depth, 1), why);
    }
    auto entries = feature(run, probe.value_or("") + ".entries");
    if (probe && entries && *entries == 0) set_polling_unreached(fn->second.body, line, origin);
  }

  // Several branches at one line (`a && b`, `IF (a .OR. b)`): one region,
  // each of the model's branches priced by where its sides leave the line
  // (probe_regions.h). Each coverage entry of the line reports the first.
  auto bind_once = [&](Items& body, const LineRegion& region, Coverage::Branch& b, ProbeFinding& f) {
    if (!region.sides_known) {
      f.status = "several branches at that line and no lines of their sides recorded; the probe cannot tell which one "
                 "the model prices";
      return;
    }
    if (region.in_sequence) {
      f.status = "several tests in a row at that line (statements side by side, not one condition); the probe cannot "
                 "tell which one the model prices";
      return;
    }
    if (region.entries <= 0) {
      f.status = "not reached by the probe run";
      b.probe_not_reached = true;
      return;
    }
    // One test in the probes' code: a tree its exits do not tell is priced
    // as that test's fraction, on the side it was measured on (then_is_taken).
    std::function<std::optional<OneTest>(const BranchItem&)> as_one_test;
    const std::string at = feature_site(b.site);
    auto taken = feature(run, at + ":branch.taken"), not_taken = feature(run, at + ":branch.not_taken");
    if (region.tests == 1 && taken && not_taken && *taken + *not_taken > 0) {
      TakenFraction t{*taken / (*taken + *not_taken)};
      auto side = [&](const char* name) {
        auto c = run.code.find(at + ":branch." + name);
        return c == run.code.end() ? 0 : static_cast<int>(c->second);
      };
      t.taken_line = side("taken_line");
      t.not_taken_line = side("not_taken_line");
      t.taken_empty = side("taken_empty");
      t.not_taken_empty = side("not_taken_empty");
      as_one_test = [t](const BranchItem& item) -> std::optional<OneTest> {
        const bool by_empty_side = item.then_items.empty() != item.else_items.empty() && t.taken_empty != t.not_taken_empty;
        return OneTest{then_is_taken(item, t).value_or(true) ? t.taken : 1 - t.taken, by_empty_side};
      };
    }
    RegionBinding r = bind_line_region(body, region, origin, as_one_test);
    if (r.bound == 0 && r.as_one_test > 0) {
      b.probe_probability = r.probability;
      f.value = r.probability;
      f.status = "bound (its sides' lines do not say which way the optimised code tests it: priced as written)";
      return;
    }
    if (r.bound == 0) {
      f.status = fmt::format("several branches at that line; their exits do not tell the model's apart ({})", r.why);
      return;
    }
    b.probe_probability = r.probability;
    f.value = r.probability;
    std::string rest;
    if (r.tests_differ) rest += "; the probes' code tests it otherwise, the split between tests not told";
    if (r.as_one_test) rest += fmt::format("; {} cop{} priced as its one test", r.as_one_test, r.as_one_test == 1 ? "y" : "ies");
    if (const int left = r.untold - r.as_one_test)
      rest += fmt::format("; {} cop{} not told: {}", left, left == 1 ? "y" : "ies", r.why);
    f.status = fmt::format("bound ({} test{} at that line in the probes' code, {} in the model's, as one: each branch "
                           "by where its sides leave the line{})",
                           region.tests, region.tests == 1 ? "" : "s", guessed_branches_at(body, region.line), rest);
  };
  // The line's other coverage entries (`a || b` kept as two tests, and the
  // code both reach) take what the first bound.
  std::map<std::pair<std::string, int>, std::pair<ProbeFinding, Coverage::Branch>> regions_bound;
  auto bind_region = [&](Items& body, const LineRegion& region, Coverage::Branch& b, ProbeFinding& f) {
    const auto key = std::pair{b.function, region.line};
    if (auto done = regions_bound.find(key); done != regions_bound.end()) {
      f.value = done->second.first.value;
      f.status = done->second.first.status;
      b.probe_probability = done->second.second.probe_probability;
      b.probe_not_reached = done->second.second.probe_not_reached;
      return;
    }
    bind_once(body, region, b, f);
    regions_bound.emplace(key, std::pair{f, b});
  };

  // A later test's arithmetic: run where the earlier test passes on, which
  // the probes count at the end of the optimiser (`first_test`), on the
  // operand the code generator tests first.
  auto bind_later_test = [&](Items& body, int line, Coverage::Branch& b, ProbeFinding& f) {
    const std::string at = feature_site(b.site);
    auto decides = feature(run, at + ":first_test.decides"), passes_on = feature(run, at + ":first_test.passes_on");
    auto taken = feature(run, at + ":branch.taken"), not_taken = feature(run, at + ":branch.not_taken");
    if (!decides || !passes_on) {
      f.status = "no probe of the earlier test at that line (the probes count it where the front end holds `a .OR. "
                 "b` as one value): left at its guess";
    } else if (*decides + *passes_on > 0) {
      const double p = *passes_on / (*decides + *passes_on);
      set_later_test_probability(body, line, p, origin);
      b.probe_probability = p;
      f.value = p;
      f.status = "bound (the earlier test's outcomes in the optimised code)";
    } else if (taken && not_taken && *taken + *not_taken > 0) {
      f.status = "the probe build's optimised code does not test that line's or/and as one value: left at its guess";
    } else {
      f.status = "not reached by the probe run";
      b.probe_not_reached = true;
    }
  };

  // Branches: the taken fraction is the probability of the condition's true
  // side as written; the model prices `then` as the true side of the optimised
  // code's test, which may be the other one (then_is_taken).
  // A value that varied, tested for equality: its branches priced by the
  // run's counts, not folded at its mean (probe_selectors.h).
  unfold_equality_tests(model, varied_source_values(model, run));
  std::map<std::string, std::set<std::string>> passed_on;
  std::map<std::string, std::set<std::string>> varied = varied_arguments(model, run, &passed_on);
  add_priced_arguments(model, run, passed_on, origin, varied);
  unfold_argument_tests(model, varied);
  // The optimiser's guard of a loop at the branch's line whose trips the run
  // bound: set by the trips alone, whatever branches the source has there
  // (the two of `while (a && b)`, none of `for (...; i < n; ...)`).
  auto bind_guard = [&](Items& body, Coverage::Branch& b, ProbeFinding& f) {
    const Coverage::Loop* guarded = nullptr;
    for (const Coverage::Loop& l : c.unknown_loops)
      if (l.site == b.site && l.probe_trips) guarded = &l;
    double p = 0;
    if (!guarded || !set_loop_guard(body, site_line(b.site), guarded->trip_count, *guarded->probe_trips > 0, origin, p))
      return false;
    b.probe_probability = p;
    f.value = p;
    f.status = "bound (the guard of the loop at that line)";
    return true;
  };
  std::optional<std::vector<ProbeRun>> views;  // the ranks' views of the run, made once where needed
  // One guessed branch by the run's measures at its line; the finding says how.
  auto bind_branch = [&](Coverage::Branch& b) {
    ProbeFinding f{ProbeFinding::Kind::Branch, b.site, b.function, std::nullopt, ""};
    if (tests_a_varied_value(b.why)) {
      if (!views) views = rank_views(run);
      bind_equality_test(model, run, *views, b, origin, f);
      return f;
    }
    const std::string at = feature_site(b.site);
    const auto own = own_feature(run, at, "branch", "taken", b.function);
    auto taken = own ? feature(run, *own + ".taken") : std::nullopt;
    auto not_taken = own ? feature(run, *own + ".not_taken") : std::nullopt;
    auto fn = model.functions.find(b.function);
    auto bind_as_guard = [&] { return fn != model.functions.end() && bind_guard(fn->second.body, b, f); };
    const int line = site_line(b.site);
    // A template's instances share the line: their branches are each their
    // own (own_feature), one test an instance; otherwise the line's tests are
    // one region (probe_regions.h).
    const bool instances = run.code.count(at + ":branch.function") > 0;
    const std::optional<LineRegion> region = instances ? std::nullopt : line_region(run, at, line);
    // Several tests at the line in the probes' code, or one whose two sides
    // leave to two lines and several in the model's (not copies of one test
    // alone, which the fraction as written prices as well).
    const bool several =
        !instances &&
        (feature(run, at + ":branch#2.taken") ||
         (fn != model.functions.end() && region && region->sides_known && region->exits.size() > 1 &&
          guessed_branches_at(fn->second.body, line) > 1));
    // A guard first: the source's branches at a loop's line (an OpenMP
    // worksharing loop's test of its bounds, a `while (a && b)`) say how
    // often they were taken, not which side of the optimised guard runs the loop.
    if (fn == model.functions.end())
      f.status = "the model has no such function";
    else if (b.why == kReachedOnSomePaths) {
      // Not a branch the probe counts: the lines around it say how often it was reached.
      const std::string at = feature_site(b.site);
      std::optional<double> p;
      std::string why;
      int merged = 0;
      for (const auto& [trips, share] : merged_join_share)
        if (set_merged_joins(fn->second.body, trips, line, share, origin) > 0) merged++, p = share;
      if (merged > 0) {
        b.probe_probability = p;
        f.value = p;
        f.status = "bound (the outer loop's code in a loop an inner loop was merged into: its iterations over the "
                   "loop's passes)";
      } else if (set_join_reach(run, fn->second.body, at.substr(0, at.rfind(':')), line, b.function, origin, p, why) > 0) {
        b.probe_probability = p;
        f.value = p;
        f.status = "bound (a join the analyser could not place: the arrivals at the code it reaches over those "
                   "at the code around it)";
      } else {
        f.status = "a join the analyser could not place, left at its guess: " + why;
      }
    } else if (is_switch_case_why(b.why)) {
      // The optimiser's switch of a chain of tests: each case by the arrivals
      // into its code over those at the switch.
      std::optional<double> p;
      std::string why;
      if (set_switch_cases(run, fn->second.body, at.substr(0, at.rfind(':')), line, b.function, origin, p, why) > 0) {
        b.probe_probability = p;
        f.value = p;
        f.status = "bound (a switch's case: the arrivals into the line its code starts at over those at the switch)";
        if (!why.empty()) f.status += "; a case left at its guess: " + why;
      } else {
        f.status = "a switch's case left at its guess: " + why;
      }
    } else if (b.why == kLaterTestWhy) {
      bind_later_test(fn->second.body, line, b, f);
    } else if (bind_as_guard()) {
    } else if (several) {
      if (region)
        bind_region(fn->second.body, *region, b, f);
      else
        f.status = "no probe at that line";  // a keep list that left out its first test
    } else if (!own) {
      f.status = "several branches at that line (a && b?); the probe cannot tell which one the model prices";
    } else if (!taken || !not_taken) {
      f.status = "no probe at that line";
    } else if (*taken + *not_taken == 0) {
      f.status = "not reached by the probe run";
      b.probe_not_reached = true;
    } else {
      TakenFraction t{*taken / (*taken + *not_taken)};
      auto side_line = [&](const std::string& name) {
        auto c = run.code.find(*own + "." + name);
        return c == run.code.end() ? 0 : static_cast<int>(c->second);
      };
      t.taken_line = side_line("taken_line");
      t.not_taken_line = side_line("not_taken_line");
      t.taken_empty = side_line("taken_empty");
      t.not_taken_empty = side_line("not_taken_empty");
      t.each_rank = each_ranks_fraction(run, *own);
      Orientations o;
      set_branch_probability(fn->second.body, line, t, origin, o);
      b.probe_probability = o.priced.value_or(t.taken);
      f.value = b.probe_probability;
      f.status = bound_status(o);
      if (t.each_rank)
        f.status += fmt::format("; each rank its own fraction at {} process{}, the mean at other counts", run.ranks,
                                run.ranks == 1 ? "" : "es");
    }
    return f;
  };
  for (Coverage::Branch& b : c.guessed_branches) {
    out.push_back(bind_branch(b));
    if (!out.back().value && !b.probe_not_reached) bind_unreached_side(run, model, b, origin, out.back());
  }
  restore_ordered_tests_not_one_way(model);

  // Bytes of memset/memcpy/memmove calls (bind_memory_bytes).
  for (Parameter& p : model.parameters) {
    if (p.default_value || bound.count(p.name)) continue;
    if (auto f = bind_memory_bytes(run, p, origin)) {
      if (f->value) bound.insert(p.name);
      out.push_back(std::move(*f));
    }
  }

  // A call site's arguments the analyser could not follow, by the values the
  // calls passed (probe_arguments.h).
  bind_call_arguments(model, run, origin, bound, out);

  // Sizes: a required parameter of a function (dotted) that is exactly the
  // trips of its loops, bound to their mean trips per arrival (loops_sized);
  // where those loops ran different means, or some never ran, each loop its
  // own (probe_loop_sizes.h).
  std::set<std::string> loop_trips;  // bound, or said why not, above
  for (const Coverage::Loop& l : c.unknown_loops) loop_trips.insert(l.trip_count);
  std::vector<Parameter> per_loop;  // added once the walk over the parameters is done
  for (Parameter& p : model.parameters) {
    if (p.default_value || bound.count(p.name) || loop_trips.count(p.name) || p.name.find('.') == std::string::npos)
      continue;
    std::string why;
    bool cast = false, unrolled = false;
    std::vector<SizedLoop> loops = loops_sized(model, run, p.name, why, cast, unrolled);
    std::optional<double> mean = loops.empty() ? std::nullopt : one_mean(loops, why);
    const std::string site = loops.empty() ? "" : loops.front().site;
    // The program holds a size in an integer; where the parameter is only a
    // size (trips, counts, bytes and its loops' tests: used_only_as_size) a
    // fractional mean makes every total linear in it right, and passes the
    // analyser's casts (zext(nrow, 32)) unchanged. Elsewhere (a test of it,
    // an unrolled loop's remainder), the nearest, off by at most half a trip per call.
    const bool whole =
        unrolled || reads_low_bits(model, p.name) || ((p.integer || cast) && !used_only_as_size(model, p.name));
    const bool witnessed = !loops.empty() && loops.front().witness;
    if (!mean && !witnessed &&
        std::any_of(loops.begin(), loops.end(), [](const SizedLoop& l) { return l.entries > 0; })) {
      for (ProbeFinding& f : bind_size_per_loop(model, p, loops, whole, origin, per_loop)) out.push_back(std::move(f));
      if (p.default_value) bound.insert(p.name);
      continue;
    }
    if (!mean) {  // left to the user, with the reason when it does size a loop
      if (why != "sizes no loop") out.push_back({ProbeFinding::Kind::Value, site, p.name, std::nullopt, why});
      continue;
    }
    const bool rounded = whole && *mean != std::round(*mean);
    const double value = rounded ? std::round(*mean) : *mean;
    bind_measure(p, value, origin);
    const bool each = bind_each_rank_or_mean(p, each_ranks_size(run, loops, whole), value);
    bound.insert(p.name);
    out.push_back({ProbeFinding::Kind::Value, site, p.name, value,
                   fmt::format("bound (from the mean trips per arrival of the loops it sizes{}{})",
                               rounded ? ", to the nearest whole number" : "",
                               each ? "; each rank its own at the run's process count" : "")});
  }
  for (Parameter& p : per_loop) {
    bound.insert(p.name);
    model.parameters.push_back(std::move(p));
  }

  // Values: a required parameter named as one of main's variables (no dot:
  // other functions' variables and fields are prefixed) whose value the run
  // recorded at exactly one declaration.
  for (Parameter& p : model.parameters) {
    // argc defaults to 1 (a run without arguments) only because the analyser
    // cannot know better; the run does.
    if ((p.default_value && p.name != "argc") || bound.count(p.name) || p.name.find('.') != std::string::npos)
      continue;
    std::vector<std::pair<std::string, double>> found;
    const std::string suffix = ":" + p.name;
    for (const auto& [name, value] : run.features)
      if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 &&
          std::count(name.begin(), name.end(), ':') == 2)
        found.emplace_back(name, value);
    if (found.size() != 1) continue;
    bind_measure(p, found.front().second, origin);
    bound.insert(p.name);
    out.push_back({ProbeFinding::Kind::Value, found.front().first, p.name, found.front().second, "bound"});
  }
  // Other functions' variables, globals and MPI element counts, by their probes' mean (probe_values.h).
  bind_source_values(model, run, origin, bound, out);
  // With main's values in (argc): a source's first value the run's calls contradict.
  rebind_defaults_the_run_contradicts(model, run, origin, out);
  bind_indirect_calls(model, run, origin, out);
  // A test that reads what is still required, by how often the run took it
  // where it measured it (probe_unbound_tests.h); left as stated elsewhere.
  const std::set<std::string> unbound = required_names(model);
  for (UnboundTest& t : tests_reading(model, unbound)) {
    std::set<std::string> files = files_of(c, t.function);
    // A function with sites in several files (a library's code inlined into
    // it): those with a branch probe at the test's line.
    if (files.size() > 1)
      std::erase_if(files, [&](const std::string& file) {
        return !feature(run, fmt::format("{}:{}:branch.taken", file, t.line));
      });
    if (files.empty()) files = files_of_locals_tested(model, run, t, unbound);
    if (files.size() != 1) continue;
    drop_condition(t);
    c.guessed_branches.push_back({t.function, fmt::format("{}:{}", *files.begin(), t.line), 0.5, kUnboundTestWhy});
    Coverage::Branch& b = c.guessed_branches.back();
    ProbeFinding f{ProbeFinding::Kind::Branch, b.site, b.function, std::nullopt, ""};
    if (t.guards_loop)  // the loop's guard alone: the source's branches there are the loop's own test
      bind_guard(model.functions.at(t.function).body, b, f);
    else
      f = bind_branch(b);
    if (!f.value) {
      restore(t);
      c.guessed_branches.pop_back();
      continue;
    }
    out.push_back(std::move(f));
  }
  bind_parameters_on_no_path_taken(model, origin, run.ranks, out);
  bind_parameters_pricing_nothing(model, origin, run.ranks, out);
  c.probe_run = fmt::format("`{}` on {} rank{}", run.command, run.ranks, run.ranks == 1 ? "" : "s");
  return out;
}

}  // namespace perfcast::model
