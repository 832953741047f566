#include "model/probe_bind.h"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <set>

#include "support/error.h"
#include "support/expr.h"

namespace perfcast::model {
namespace {

// "dir/f.c:12" -> "f.c:12": features are named by the file without its folder.
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

std::optional<double> feature(const ProbeRun& run, const std::string& name) {
  auto f = run.features.find(name);
  return f == run.features.end() ? std::nullopt : std::optional<double>(f->second);
}

// A measure as an expression: whole numbers stay integers (an integer
// parameter takes them), others are reals with ten significant digits.
Expr measure_expr(double v) {
  if (v == std::trunc(v) && std::fabs(v) < 9e15) return expr::parse(fmt::format("{}", static_cast<long long>(v)));
  return expr::parse(fmt::format("{:.10g}", v));
}

Parameter* parameter(ProgramModel& model, const std::string& name) {
  for (Parameter& p : model.parameters)
    if (p.name == name) return &p;
  return nullptr;
}

void bind_measure(Parameter& p, double value, const std::string& origin) {
  p.default_value = measure_expr(value);
  // A mean over the loop's arrivals may be fractional: it is what the model's
  // counts need (a mean over the runs is exact), not a value the program holds.
  if (value != std::trunc(value)) p.integer = false;
  p.origin = origin;
}

// Sets the probability of the function's guessed branches at `line`.
void set_branch_probability(Items& items, int line, double probability, const std::string& origin) {
  for (Item& item : items) {
    if (auto* b = std::get_if<BranchItem>(&item.body)) {
      if (item.line == line && !b->condition) {
        b->probability = probability;
        item.note = item.note.empty() ? origin : item.note + "; " + origin;
      }
      set_branch_probability(b->then_items, line, probability, origin);
      set_branch_probability(b->else_items, line, probability, origin);
    } else if (auto* l = std::get_if<LoopItem>(&item.body)) {
      set_branch_probability(l->body, line, probability, origin);
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
      if (item.line == line && !b->condition) {
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

// A recursive function's invocations per call from outside its recursion:
// the pass counts the function's entries and the calls its recursion makes of
// it (from itself or the other functions of its cycle), so the calls from
// outside are the difference and the invocations per such call the ratio.
void bind_recursion(const ProbeRun& run, Coverage::Loop& l, Parameter* p, const std::string& origin,
                    ProbeFinding& f) {
  f.kind = ProbeFinding::Kind::Recursion;
  const std::string at = feature_site(l.site);
  auto entries = feature(run, at + ":recursion.entries");
  auto inner = feature(run, at + ":recursion.recursive_calls");
  if (!p)
    f.status = "the model has no such parameter";
  else if (p->default_value)
    f.status = "already has a value";
  else if (!entries || !inner)
    f.status = "no probe of a recursive function defined there (is its cycle of calls within one source file?)";
  else if (*entries == 0) {
    // Never entered at the probe's input: 0 invocations is what the run measured.
    bind_measure(*p, 0, origin + ", never reached there");
    l.probe_not_reached = true;
    f.value = 0;
    f.status = "not reached by the probe run: 0";
  } else if (*entries <= *inner) {
    f.status = "no call from outside its recursion counted";
  } else {
    double per_entry = *entries / (*entries - *inner);
    bind_measure(*p, per_entry, origin);
    l.probe_trips = per_entry;
    f.value = per_entry;
    f.status = "bound";
  }
}

}  // namespace

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

  // Loops: the pass counts a loop's header executions and its arrivals from
  // outside; a loop tested at the top (for, while) runs its header once per
  // iteration plus once to leave, so trips per arrival = (headers - entries) / entries.
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
    auto headers = feature(run, at + ":loop.headers");
    auto entries = feature(run, at + ":loop.entries");
    if (!p)
      f.status = "the model has no such parameter";
    else if (p->default_value)
      f.status = "already has a value";  // the analyser's expression scales with the input; keep it
    else if (feature(run, at + ":loop#2.headers"))
      f.status = "several loops start at that line; the probe cannot tell them apart";
    else if (!headers || !entries)
      f.status = "no probe at that line (was the program built with perfcast cc --features from these sources?)";
    else if (*entries == 0) {
      // At the probe's input the loop ran no iteration at all: 0 is what the
      // run measured, and a parameter on a path the run never takes is not
      // one the user should have to find.
      bind_measure(*p, 0, origin + ", never reached there");
      l.probe_not_reached = true;
      f.value = 0;
      f.status = "not reached by the probe run: 0";
      bound.insert(p->name);
    } else {
      double trips = std::max(0.0, (*headers - *entries) / *entries);
      bind_measure(*p, trips, origin);
      l.probe_trips = trips;
      f.value = trips;
      f.status = "bound";
      bound.insert(p->name);
    }
    out.push_back(std::move(f));
  }

  // Branches: the taken fraction is the probability of the condition's true
  // side, which the model prices as `then`.
  for (Coverage::Branch& b : c.guessed_branches) {
    ProbeFinding f{ProbeFinding::Kind::Branch, b.site, b.function, std::nullopt, ""};
    const std::string at = feature_site(b.site);
    auto taken = feature(run, at + ":branch.taken");
    auto not_taken = feature(run, at + ":branch.not_taken");
    auto fn = model.functions.find(b.function);
    // The optimiser's guard of a loop at that line whose trips the run bound:
    // set by the trips alone, whatever branches the source has there (the
    // two of `while (a && b)`, none of `for (...; i < n; ...)`).
    auto bind_as_guard = [&] {
      const Coverage::Loop* guarded = nullptr;
      for (const Coverage::Loop& l : c.unknown_loops)
        if (l.site == b.site && l.probe_trips) guarded = &l;
      double p = 0;
      if (!guarded || !set_loop_guard(fn->second.body, site_line(b.site), guarded->trip_count,
                                      *guarded->probe_trips > 0, origin, p))
        return false;
      b.probe_probability = p;
      f.value = p;
      f.status = "bound (the guard of the loop at that line)";
      return true;
    };
    if (fn == model.functions.end())
      f.status = "the model has no such function";
    else if (feature(run, at + ":branch#2.taken")) {
      if (!bind_as_guard())
        f.status = "several branches at that line (a && b?); the probe cannot tell which one the model prices";
    } else if (!taken || !not_taken) {
      if (!bind_as_guard()) f.status = "no probe at that line";
    }
    else if (*taken + *not_taken == 0) {
      f.status = "not reached by the probe run";
      b.probe_not_reached = true;
    } else {
      double p = *taken / (*taken + *not_taken);
      set_branch_probability(fn->second.body, site_line(b.site), p, origin);
      b.probe_probability = p;
      f.value = p;
      f.status = "bound";
    }
    out.push_back(std::move(f));
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
    out.push_back({ProbeFinding::Kind::Value, found.front().first, p.name, found.front().second, "bound"});
  }
  c.probe_run = fmt::format("`{}` on {} rank{}", run.command, run.ranks, run.ranks == 1 ? "" : "s");
  return out;
}

}  // namespace perfcast::model
