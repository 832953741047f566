#include "model/probe_arguments.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <regex>
#include <tuple>
#include <utility>
#include <vector>

#include "model/probe_per_rank.h"
#include "model/probe_selectors.h"
#include "support/error.h"
#include "support/expr.h"

namespace perfcast::model {

std::vector<std::string> names_of_callee(const std::string& callee) {
  std::vector<std::string> names = {callee};
  for (std::size_t i = 0; i + 1 < callee.size(); ++i)
    if ((callee[i] == 'C' || callee[i] == 'D') && callee[i + 1] == '2') {
      std::string complete_object = callee;
      complete_object[i + 1] = '1';
      names.push_back(complete_object);
    }
  return names;
}

namespace {

bool names(const std::optional<Expr>& e, const std::string& name) { return e && expr::free_names(*e).count(name); }

// The lines of the loops in `items`, at any depth.
void loop_lines(const Items& items, std::set<int>& lines) {
  for (const Item& item : items) {
    if (const auto* l = std::get_if<LoopItem>(&item.body)) {
      lines.insert(item.line);
      loop_lines(l->body, lines);
    } else if (const auto* b = std::get_if<BranchItem>(&item.body)) {
      loop_lines(b->then_items, lines);
      loop_lines(b->else_items, lines);
    }
  }
}

using Visited = std::set<std::pair<std::string, std::string>>;  // function, name

bool only_sizes(const ProgramModel& model, const Items& items, const std::set<int>& loops, const std::string& name,
                Visited& visited);

bool only_sizes_in(const ProgramModel& model, const std::string& function, const std::string& name, Visited& visited) {
  if (!visited.insert({function, name}).second) return true;
  auto fn = model.functions.find(function);
  if (fn == model.functions.end()) return true;
  std::set<int> loops;
  loop_lines(fn->second.body, loops);
  return only_sizes(model, fn->second.body, loops, name, visited);
}

// A branch at the line of one of the function's loops is a test of that loop
// statement (its guard, the vectoriser's run-time checks, an unrolled loop's
// remainder): it prices the loop's iterations, so a mean prices their mean.
bool only_sizes(const ProgramModel& model, const Items& items, const std::set<int>& loops, const std::string& name,
                Visited& visited) {
  for (const Item& item : items) {
    if (const auto* l = std::get_if<LoopItem>(&item.body)) {
      if (!only_sizes(model, l->body, loops, name, visited)) return false;
    } else if (const auto* b = std::get_if<BranchItem>(&item.body)) {
      if (names(b->condition, name) && !loops.count(item.line)) return false;
      if (!only_sizes(model, b->then_items, loops, name, visited) ||
          !only_sizes(model, b->else_items, loops, name, visited))
        return false;
    } else if (const auto* c = std::get_if<CallItem>(&item.body)) {
      for (const auto& a : c->positional_args)
        if (names(a, name)) return false;
      for (const auto& [formal, passed] : c->args)
        if (names(passed, name) && !only_sizes_in(model, c->function, formal, visited)) return false;
    } else if (const auto* m = std::get_if<MpiItem>(&item.body)) {
      if (names(m->peer, name) || names(m->root, name) || names(m->level, name)) return false;
    }
  }
  return true;
}

// The call site a parameter names: the callee (the model's function), the
// argument's position among its arguments, and the caller's file tag and line.
struct CallSite {
  std::string callee;
  std::size_t position = 0;
  std::string tag;
  int line = 0;
};

// The calls of the model by the name each passes alone as an argument: the
// call and the callee's parameter it is passed as.
using Passing = std::map<std::string, std::vector<std::pair<const CallItem*, std::string>>>;
void calls_passing(const Items& items, Passing& out) {
  for (const Item& item : items) {
    if (const auto* c = std::get_if<CallItem>(&item.body)) {
      for (const auto& [formal, passed] : c->args)
        if (const auto names = expr::free_names(passed); names.size() == 1 && expr::to_string(passed) == *names.begin())
          out[*names.begin()].emplace_back(c, formal);
    } else if (const auto* l = std::get_if<LoopItem>(&item.body)) {
      calls_passing(l->body, out);
    } else if (const auto* b = std::get_if<BranchItem>(&item.body)) {
      calls_passing(b->then_items, out);
      calls_passing(b->else_items, out);
    }
  }
}

// The call site of `p` when the analyser described it as an argument of a
// call and the model's calls pass it as that argument of one function; why
// not in `why` when it is such a parameter but the model does not say.
std::optional<CallSite> call_site_of(const ProgramModel& model, const Passing& passing, const Parameter& p,
                                     std::string& why) {
  static const std::regex described(
      R"(^argument ([^ ]+) of the call of [^ ]+ at ([A-Za-z0-9_]+):([0-9]+), read from memory)");
  std::smatch m;
  if (!std::regex_search(p.description, m, described)) return std::nullopt;
  const std::string formal = m[1];
  CallSite site{"", 0, m[2], std::stoi(m[3])};
  if (auto calls = passing.find(p.name); calls != passing.end())
    for (const auto& [call, passed_as] : calls->second) {
      if (passed_as != formal || call->function.empty() || (!site.callee.empty() && site.callee != call->function)) {
        why = "the model's calls do not pass it as that argument of one function";
        return std::nullopt;
      }
      site.callee = call->function;
    }
  auto callee = site.callee.empty() ? model.functions.end() : model.functions.find(site.callee);
  if (callee == model.functions.end()) {
    why = "no call of the model passes it";
    return std::nullopt;
  }
  const auto& arguments = callee->second.arguments;
  auto at = std::find(arguments.begin(), arguments.end(), formal);
  if (at == arguments.end()) {
    why = "the model does not say where the argument sits among the callee's";
    return std::nullopt;
  }
  site.position = static_cast<std::size_t>(at - arguments.begin());
  return site;
}

std::optional<double> lookup(const std::map<std::string, double>& m, const std::string& name) {
  auto it = m.find(name);
  return it == m.end() ? std::nullopt : std::optional<double>(it->second);
}

// One argument's measures at a call site, summed over the probes of that
// callee at that line (each call the line makes of it) and over the ranks.
struct Passed {
  double calls = 0, sum = 0;
  bool varied = false;  // between calls, between ranks, or between the line's calls
  std::string feature;  // the first probe's
  // Where every rank passed one value only and the ranks' differed (the run
  // recorded them): each rank's (one_value_on_each_rank).
  std::optional<std::vector<double>> each_rank;
  std::optional<std::vector<double>> each_ranks_mean;  // where the ranks' means differ
};

// The call probes of the run (`file:line:call.callee`, `#k` on repeats) by
// their file tag, line and callee id: the probes' names without `.callee`.
using CallProbes = std::map<std::tuple<std::string, int, double>, std::vector<std::string>>;
CallProbes call_probes(const ProbeRun& run) {
  static const std::regex form(R"(^(.*):([0-9]+):call(#[0-9]+)?\.callee$)");
  CallProbes out;
  for (const auto& [name, id] : run.code) {
    std::smatch f;
    if (name.ends_with(".callee") && std::regex_match(name, f, form))
      out[{file_tag(f[1]), std::stoi(f[2]), id}].push_back(name.substr(0, name.size() - std::string(".callee").size()));
  }
  return out;
}

// The probes of the call `site` makes: those of its callee at its line, by
// any name the probes may know it by (names_of_callee: the model names a
// constructor by the base-object symbol the analyser reads, to which the
// complete-object one clang emits is an alias; no other callee at the same
// line differs from it in that one character).
CallProbes::const_iterator probes_of(const CallProbes& probes, const CallSite& site) {
  for (const std::string& name : names_of_callee(site.callee))
    if (auto at = probes.find({site.tag, site.line, function_id(name)}); at != probes.end()) return at;
  return probes.end();
}

// The probes of the call `site` makes (probes_of). A call without a line (0:
// the optimiser merged several calls of one callee, `if (c) f(x, 1); else
// f(x, 0);` becoming one call of f(x, c ? 1 : 0)) is any of them: the probes
// of that callee at every line of the file, which bind it only where every
// call they saw passed one value (measured: `varied` otherwise).
std::vector<std::string> site_probes(const CallProbes& probes, const CallSite& site) {
  if (site.line == 0) {
    std::vector<std::string> all;
    const double id = function_id(site.callee);
    for (const auto& [key, names] : probes)
      if (std::get<0>(key) == site.tag && std::get<2>(key) == id) all.insert(all.end(), names.begin(), names.end());
    return all;
  }
  auto at = probes_of(probes, site);
  return at == probes.end() ? std::vector<std::string>{} : at->second;
}

std::optional<Passed> measured(const ProbeRun& run, const CallProbes& probes, const CallSite& site) {
  const std::vector<std::string> calls_of_site = site_probes(probes, site);
  if (calls_of_site.empty()) return std::nullopt;
  std::optional<Passed> found;
  std::optional<double> first_mean;
  std::vector<std::string> arguments;
  for (const std::string& call : calls_of_site) {
    const std::string argument = call + ".arg" + std::to_string(site.position + 1);
    arguments.push_back(argument);
    auto calls = lookup(run.measures, argument + ".assignments");
    auto sum = lookup(run.measures, argument + ".sum");
    auto changes = lookup(run.measures, argument + ".changes");
    if (!calls || !sum || !changes) continue;
    if (!found) found = Passed{0, 0, false, argument};
    found->calls += *calls;
    found->sum += *sum;
    // Constant on every rank, yet the ranks' values differ where their mean
    // is not their maximum (the value feature, the maximum over the ranks).
    auto last = lookup(run.features, argument);
    found->varied = found->varied || *changes > 0 || (*calls > 0 && last && *last != *sum / *calls);
    if (*calls > 0) {
      if (first_mean && *first_mean != *sum / *calls) found->varied = true;
      if (!first_mean) first_mean = *sum / *calls;
    }
  }
  if (found && found->varied) {
    found->each_rank = one_value_on_each_rank(run, arguments);
    found->each_ranks_mean = each_ranks_mean(run, arguments);
  }
  return found;
}

// The calls of each function of the model: for each, the arguments of every
// call item that names it (callee parameter -> the caller's expression), and
// the function that makes the call.
using CallsOf = std::map<std::string, std::vector<std::pair<std::string, const CallItem*>>>;
void collect_calls(const std::string& caller, const Items& items, CallsOf& out) {
  for (const Item& item : items) {
    if (const auto* c = std::get_if<CallItem>(&item.body)) {
      if (!c->function.empty()) out[c->function].emplace_back(caller, c);
    } else if (const auto* l = std::get_if<LoopItem>(&item.body)) {
      collect_calls(caller, l->body, out);
    } else if (const auto* b = std::get_if<BranchItem>(&item.body)) {
      collect_calls(caller, b->then_items, out);
      collect_calls(caller, b->else_items, out);
    }
  }
}

}  // namespace

bool used_only_as_size(const ProgramModel& model, const std::string& name) {
  Visited visited;
  for (const auto& [fn_name, fn] : model.functions)
    if (!only_sizes_in(model, fn_name, name, visited)) return false;
  return true;
}

// Grown to a fixed point: a callee joins once every call of it passes `name`
// or a caller's parameter already in.
std::set<std::pair<std::string, std::string>> names_standing_for(const ProgramModel& model, const std::string& name) {
  CallsOf calls;
  for (const auto& [fn_name, fn] : model.functions) collect_calls(fn_name, fn.body, calls);
  std::set<std::pair<std::string, std::string>> local;  // function, its parameter
  auto stands_for = [&](const std::string& caller, const Expr& passed) {
    const std::string text = expr::to_string(passed);
    return text == name || local.count({caller, text}) > 0;
  };
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [callee, sites] : calls) {
      auto fn = model.functions.find(callee);
      if (fn == model.functions.end()) continue;
      for (const std::string& formal : fn->second.arguments) {
        if (formal.empty() || local.count({callee, formal})) continue;
        bool every = true;
        for (const auto& [caller, call] : sites) {
          auto passed = std::find_if(call->args.begin(), call->args.end(),
                                     [&](const auto& a) { return a.first == formal; });
          every = every && passed != call->args.end() && stands_for(caller, passed->second);
        }
        if (every && !sites.empty()) grew = local.insert({callee, formal}).second || grew;
      }
    }
  }
  std::set<std::pair<std::string, std::string>> out = local;
  for (const auto& [fn_name, fn] : model.functions) out.insert({fn_name, name});
  return out;
}

namespace {
bool names_trips_of_a_loop(const Items& items, const std::string& name) {
  for (const Item& item : items) {
    if (const auto* l = std::get_if<LoopItem>(&item.body)) {
      if (expr::free_names(l->trip_count).count(name) || names_trips_of_a_loop(l->body, name)) return true;
    } else if (const auto* b = std::get_if<BranchItem>(&item.body)) {
      if (names_trips_of_a_loop(b->then_items, name) || names_trips_of_a_loop(b->else_items, name)) return true;
    }
  }
  return false;
}
}  // namespace

namespace {

// Whether `e` reads the low bits of a value naming `name`: a trunc to fewer
// bits than any count needs, an unrolled or vectorised loop's remainder
// (trunc(n, 2) = n mod 4 iterations), which the mean of the values does not give.
bool reads_low_bits_of(const Expr& e, const std::string& name) {
  if (e.kind() == expr::Kind::Trunc && e.bits() < 8 && names(e.operands()[0], name)) return true;
  for (const Expr& op : e.operands())
    if (reads_low_bits_of(op, name)) return true;
  return false;
}

bool function_reads_low_bits(const ProgramModel& model, const std::string& function, const std::string& name,
                             Visited& visited);

// Through calls as the callee's parameter it is passed as, as only_sizes.
bool items_read_low_bits(const ProgramModel& model, const Items& items, const std::string& name, Visited& visited) {
  for (const Item& item : items) {
    bool found = false;
    for_each_expression(item, [&](const Expr& e) { found = found || reads_low_bits_of(e, name); });
    if (found) return true;
    if (const auto* l = std::get_if<LoopItem>(&item.body)) {
      if (items_read_low_bits(model, l->body, name, visited)) return true;
    } else if (const auto* b = std::get_if<BranchItem>(&item.body)) {
      if (items_read_low_bits(model, b->then_items, name, visited) ||
          items_read_low_bits(model, b->else_items, name, visited))
        return true;
    } else if (const auto* c = std::get_if<CallItem>(&item.body)) {
      for (const auto& [formal, passed] : c->args)
        if (names(passed, name) && function_reads_low_bits(model, c->function, formal, visited)) return true;
    }
  }
  return false;
}

bool function_reads_low_bits(const ProgramModel& model, const std::string& function, const std::string& name,
                             Visited& visited) {
  if (!visited.insert({function, name}).second) return false;
  auto fn = model.functions.find(function);
  return fn != model.functions.end() && items_read_low_bits(model, fn->second.body, name, visited);
}

}  // namespace

bool reads_low_bits(const ProgramModel& model, const std::string& name) {
  Visited visited;
  for (const auto& [function, fn] : model.functions)
    if (function_reads_low_bits(model, function, name, visited)) return true;
  return false;
}

bool keeps_its_mean(const ProgramModel& model, const std::string& name) {
  if (!used_only_as_size(model, name) || reads_low_bits(model, name)) return false;
  for (const auto& [function, local] : names_standing_for(model, name))
    if (names_trips_of_a_loop(model.functions.at(function).body, local)) return true;
  return false;
}

std::map<std::string, std::set<std::string>> varied_arguments(const ProgramModel& model, const ProbeRun& run,
                                                              std::map<std::string, std::set<std::string>>* passed_on) {
  std::map<std::string, std::set<std::string>> out;
  const CallProbes probes = call_probes(run);
  if (probes.empty()) return out;
  // The parameters no value is known for yet, and the peers whose default is
  // an assumption (a real neighbour), not a value the code gives.
  std::set<std::string> required;
  for (const Parameter& p : model.parameters)
    if (!p.default_value || p.description.find(kAssumedNeighbourNote) != std::string::npos) required.insert(p.name);
  CallsOf calls;
  for (const auto& [fn_name, fn] : model.functions) collect_calls(fn_name, fn.body, calls);
  // A function's own parameters that stand for one of those through every call
  // (CloverLeaf's `advec_cell_driver` passing its `dir` on to the kernel that tests it).
  std::set<std::pair<std::string, std::string>> standing;
  for (const std::string& name : required)
    if (name.find(".trips") == std::string::npos) standing.merge(names_standing_for(model, name));
  // Whether the run's calls of `callee` passed values that varied as its
  // argument at `position`; none where no probe measured such a call.
  auto varied_at_calls = [&](const std::string& callee, std::size_t position) -> std::optional<bool> {
    const double id = function_id(callee);
    bool varied = false;
    std::optional<double> mean;
    for (const auto& [key, names] : probes) {
      if (std::get<2>(key) != id) continue;
      CallSite site{callee, position, std::get<0>(key), std::get<1>(key)};
      auto passed = measured(run, probes, site);
      if (!passed || passed->calls == 0) continue;
      const double m = passed->sum / passed->calls;
      // One value on each rank is bound rank by rank, yet its tests stay priced by the run's
      // counts: the value it is tested against may be an assumed default (a peer's).
      varied = varied || passed->varied || (mean && *mean != m);
      mean = m;
    }
    return mean ? std::optional<bool>(varied) : std::nullopt;
  };
  for (const auto& [callee, sites] : calls) {
    auto fn = model.functions.find(callee);
    if (fn == model.functions.end()) continue;
    for (std::size_t position = 0; position < fn->second.arguments.size(); ++position) {
      const std::string& formal = fn->second.arguments[position];
      if (formal.empty()) continue;
      // A caller passes it an expression the model cannot evaluate without a value no one gave yet.
      const bool open = standing.count({callee, formal}) > 0 || std::any_of(sites.begin(), sites.end(), [&](const auto& site) {
        for (const auto& [name, passed] : site.second->args) {
          if (name != formal) continue;
          const auto read = expr::free_names(passed);
          if (std::any_of(read.begin(), read.end(), [&](const std::string& n) { return required.count(n) > 0; }))
            return true;
        }
        return false;
      });
      if (open && varied_at_calls(callee, position).value_or(false)) out[callee].insert(formal);
    }
  }
  // An argument a function passes on as it is, where that function's own
  // varied, is open too, whatever the function's other callers pass.
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [callee, sites] : calls) {
      auto fn = model.functions.find(callee);
      if (fn == model.functions.end()) continue;
      for (std::size_t position = 0; position < fn->second.arguments.size(); ++position) {
        const std::string& formal = fn->second.arguments[position];
        if (formal.empty() || (out.count(callee) && out.at(callee).count(formal)) ||
            (passed_on && passed_on->count(callee) && passed_on->at(callee).count(formal)))
          continue;
        const bool handed = std::any_of(sites.begin(), sites.end(), [&](const auto& site) {
          auto varied = out.find(site.first);
          if (varied == out.end()) return false;
          for (const auto& [name, passed] : site.second->args)
            if (name == formal && varied->second.count(expr::to_string(passed))) return true;
          return false;
        });
        if (!handed) continue;
        const std::optional<bool> measured_varied = varied_at_calls(callee, position);
        if (measured_varied.value_or(false))
          grew = out[callee].insert(formal).second || grew;
        else if (!measured_varied && passed_on)
          (*passed_on)[callee].insert(formal);
      }
    }
  }
  return out;
}

void bind_call_arguments(ProgramModel& model, const ProbeRun& run, const std::string& origin,
                         std::set<std::string>& bound, std::vector<ProbeFinding>& out) {
  const CallProbes probes = call_probes(run);
  if (probes.empty()) return;  // a program built without the probes of calls
  Passing passing;
  for (const auto& [fn_name, fn] : model.functions) calls_passing(fn.body, passing);
  for (Parameter& p : model.parameters) {
    if (p.default_value || bound.count(p.name)) continue;
    std::string why;
    auto site = call_site_of(model, passing, p, why);
    if (!site) {
      if (!why.empty()) out.push_back({ProbeFinding::Kind::Value, "", p.name, std::nullopt, why});
      continue;
    }
    auto passed = measured(run, probes, *site);
    if (!passed) continue;  // no probe there: a unit built without the probes, or an argument they do not read
    ProbeFinding f{ProbeFinding::Kind::Value, passed->feature, p.name, std::nullopt, ""};
    if (passed->calls == 0) {  // read only by a call the run never made, as an unreached loop's trips
      bind_measure(p, 0, origin + ", never called there");
      bound.insert(p.name);
      f.value = 0;
      f.status = "the call was not reached by the probe run: 0";
      out.push_back(std::move(f));
      continue;
    }
    if (passed->each_rank) {  // one value on each rank, another on the next: each rank's own
      p.default_value = each_rank_expression(*passed->each_rank);
      p.origin = each_rank_origin(origin, run.ranks);
      bound.insert(p.name);
      f.status = fmt::format("bound to each rank's own value (each passed one, and the ranks' differed): holds at {} "
                             "process{} only",
                             run.ranks, run.ranks == 1 ? "" : "es");
      out.push_back(std::move(f));
      continue;
    }
    if (passed->varied && !used_only_as_size(model, p.name)) {
      f.status =
          "its values varied between calls or ranks, and the callee tests it, not only sizes loops with it: "
          "a mean would pick one side of that test for every call";
      out.push_back(std::move(f));
      continue;
    }
    // Where the values varied it only sizes (above): their mean makes every
    // total linear in it right, and passes the analyser's casts of it
    // (zext(n, 32)) unchanged, where it sizes a loop (keeps_its_mean); else,
    // and for a value that did not vary, the nearest integer.
    const bool keeps = passed->varied && keeps_its_mean(model, p.name);
    const double value = keeps ? passed->sum / passed->calls : std::round(passed->sum / passed->calls);
    bind_measure(
        p, value,
        passed->varied ? fmt::format("{}, the mean of {} calls' values, which varied", origin, passed->calls) : origin);
    // A size whose calls vary on each rank (a rank's chunks): each rank's own mean at the run's
    // count, rounded as the mean over the ranks is where the model tests it.
    if (passed->varied)
      bind_each_rank_or_mean(p, keeps ? passed->each_ranks_mean : each_rounded(passed->each_ranks_mean), value);
    bound.insert(p.name);
    f.value = value;
    f.status =
        passed->varied
            ? fmt::format("bound (the mean of the values of its {} calls, which varied; it only sizes)", passed->calls)
            : fmt::format("bound (the value of its {} calls)", passed->calls);
    if (site->line == 0) f.status += "; a call the optimiser merged from several: every call of its callee in that file";
    out.push_back(std::move(f));
  }
}

namespace {

// A call item's arguments, with the line the call is at.
struct CallArgument {
  const Expr* passed;
  std::string callee, formal;
  int line = 0;
};
void call_arguments(const Items& items, std::vector<CallArgument>& out) {
  for (const Item& item : items) {
    if (const auto* c = std::get_if<CallItem>(&item.body)) {
      if (c->function.empty() || item.line <= 0) continue;
      for (const auto& [formal, passed] : c->args) out.push_back({&passed, c->function, formal, item.line});
    } else if (const auto* l = std::get_if<LoopItem>(&item.body)) {
      call_arguments(l->body, out);
    } else if (const auto* b = std::get_if<BranchItem>(&item.body)) {
      call_arguments(b->then_items, out);
      call_arguments(b->else_items, out);
    }
  }
}

}  // namespace

void rebind_defaults_the_run_contradicts(ProgramModel& model, const ProbeRun& run, const std::string& origin,
                                         std::vector<ProbeFinding>& out) {
  const CallProbes probes = call_probes(run);
  if (probes.empty()) return;
  std::map<std::string, Parameter*> by_name;
  for (Parameter& p : model.parameters) by_name[p.name] = &p;
  auto first_value_default = [&](const std::string& name) {
    auto p = by_name.find(name);
    return p != by_name.end() && p->second->default_value && p->second->origin.empty() &&
           p->second->description.find(kFirstValueDefault) != std::string::npos;
  };
  std::vector<CallArgument> calls;
  for (const auto& [fn_name, fn] : model.functions) call_arguments(fn.body, calls);
  // Per parameter: the value the run says it held (none where its calls disagree), and the first probe.
  std::map<std::string, std::optional<double>> run_value;
  std::map<std::string, std::pair<std::string, double>> first_probe;  // feature, calls
  for (const CallArgument& call : calls) {
    const std::set<std::string> names = expr::free_names(*call.passed);
    if (std::none_of(names.begin(), names.end(), first_value_default)) continue;
    auto callee = model.functions.find(call.callee);
    if (callee == model.functions.end()) continue;
    const auto& arguments = callee->second.arguments;
    auto at = std::find(arguments.begin(), arguments.end(), call.formal);
    if (at == arguments.end()) continue;
    // The probes of that callee at that line, in whichever file: one file, or none is told.
    const double id = function_id(call.callee);
    std::optional<std::string> tag;
    bool several = false;
    for (const auto& [key, names_at] : probes)
      if (std::get<1>(key) == call.line && std::get<2>(key) == id) {
        several = several || (tag && *tag != std::get<0>(key));
        tag = std::get<0>(key);
      }
    if (!tag || several) continue;
    auto passed = measured(run, probes, {call.callee, static_cast<std::size_t>(at - arguments.begin()), *tag, call.line});
    if (!passed || passed->calls == 0 || passed->varied) continue;
    const double value = passed->sum / passed->calls;
    // The argument at the parameters' values, with one of its first-value defaults set to
    // `with` (the others as they are): a number, or none where a name is unbound or not one.
    auto argument_at = [&](const std::string& changed, std::optional<double> with) -> std::optional<double> {
      expr::Bindings b;
      for (const std::string& n : names) {
        auto p = by_name.find(n);
        if (p == by_name.end() || !p->second->default_value) return std::nullopt;
        try {
          b[n] = n == changed && with ? expr::Value(static_cast<std::int64_t>(std::llround(*with)))
                                      : expr::evaluate(*p->second->default_value, {});
        } catch (const UserError&) {
          return std::nullopt;
        }
      }
      try {
        return expr::evaluate(*call.passed, b).real();
      } catch (const UserError&) {
        return std::nullopt;
      }
    };
    auto as_is = argument_at("", std::nullopt);
    if (!as_is || *as_is == value || value != std::round(value)) continue;
    // The one first-value default whose run value makes the call pass what the run passed.
    std::optional<std::string> found;
    int fits = 0;
    for (const std::string& n : names)
      if (first_value_default(n) && argument_at(n, value) == std::optional<double>(value)) {
        found = n;
        ++fits;
      }
    if (fits != 1) continue;
    auto [it, fresh] = run_value.emplace(*found, value);
    if (!fresh && it->second != std::optional<double>(value)) it->second.reset();
    if (fresh) first_probe[*found] = {passed->feature, passed->calls};
  }
  for (const auto& [name, value] : run_value) {
    if (!value) continue;
    Parameter& p = *by_name.at(name);
    const std::string source_default = expr::to_string(*p.default_value);
    bind_measure(p, *value, origin + ", the value its calls passed (not the source's first value, " + source_default + ")");
    out.push_back({ProbeFinding::Kind::Value, first_probe[name].first, name, *value,
                   fmt::format("bound (what {:.0f} calls passed; the source's first value {} is not what the run used: "
                               "an option parsed in a loop?)",
                               first_probe[name].second, source_default)});
  }
}

namespace {

// The probes of `target`'s entry (`file:line:entry`, `entry#k` where several
// functions are defined at its line, told apart by `.function`, the id of
// their linkage name) whose argument `position` the run measured.
std::optional<std::string> entry_probe(const ProbeRun& run, const Function& target, std::size_t position) {
  const std::string site = target.file + ":" + std::to_string(target.line) + ":entry";
  const std::string argument = ".arg" + std::to_string(position + 1);
  for (int k = 1; k < 64; ++k) {
    const std::string base = k == 1 ? site : site + "#" + std::to_string(k);
    if (!run.measures.count(base + argument + ".assignments")) return std::nullopt;
    auto id = run.code.find(base + ".function");
    if (id == run.code.end()) return base + argument;
    for (const std::string& name : names_of_callee(target.name))
      if (id->second == function_id(name)) return base + argument;
  }
  return std::nullopt;
}

}  // namespace

ProbeFinding bind_entry_argument(ProgramModel& model, const ProbeRun& run, Parameter& p, const std::string& target,
                                 std::size_t position, const std::string& origin, std::vector<ProbeFinding>& tests) {
  ProbeFinding f{ProbeFinding::Kind::Value, "", p.name, std::nullopt, ""};
  const Function& fn = model.functions.at(target);
  const std::optional<std::string> probe = entry_probe(run, fn, position);
  if (!probe) {
    f.status = "no probe of its function's entry (was the unit that takes its address built with perfcast cc --features?)";
    return f;
  }
  f.site = *probe;
  const double entries = *lookup(run.measures, *probe + ".assignments");
  const double sum = lookup(run.measures, *probe + ".sum").value_or(0);
  const double changes = lookup(run.measures, *probe + ".changes").value_or(0);
  // The entries through pointers: every site's calls of the target. The
  // calls whose probes read the argument at that position are the direct
  // ones; what they passed is taken away from the entry's sum.
  double through_pointers = 0;
  for (const auto& [site, targets] : run.indirect_calls)
    for (const std::string& name : names_of_callee(target))
      if (auto calls = targets.find(name); calls != targets.end()) through_pointers += calls->second;
  double direct_calls = 0, direct_sum = 0;
  const CallProbes probes = call_probes(run);
  for (const std::string& name : names_of_callee(target)) {
    const double id = function_id(name);
    for (const auto& [key, calls] : probes)
      if (std::get<2>(key) == id)
        for (const std::string& call : calls) {
          const std::string argument = call + ".arg" + std::to_string(position + 1);
          direct_calls += lookup(run.measures, argument + ".assignments").value_or(0);
          direct_sum += lookup(run.measures, argument + ".sum").value_or(0);
        }
  }
  if (through_pointers <= 0) {
    f.status = "its function was not reached through a pointer by the probe run";
    return f;
  }
  if (entries != through_pointers + direct_calls) {
    f.status = fmt::format("its function was entered {} times, {} through pointers and {} by calls whose probes read the "
                           "argument: the entries' values are not the pointers' calls'",
                           entries, through_pointers, direct_calls);
    return f;
  }
  const double mean = (sum - direct_sum) / through_pointers;
  // Constant on every rank, yet the ranks' values differ where their mean is
  // not their maximum (the value feature, the maximum over the ranks).
  auto last = lookup(run.features, *probe);
  const bool varied = changes > 0 || (last && *last != sum / entries);
  if (varied && direct_calls == 0)
    if (auto each = one_value_on_each_rank(run, {*probe})) {  // each rank its own value
      p.default_value = each_rank_expression(*each);
      p.origin = each_rank_origin(origin, run.ranks);
      f.status = fmt::format("bound to each rank's own value at its function's entries (each passed one, and the "
                             "ranks' differed): holds at {} process{} only",
                             run.ranks, run.ranks == 1 ? "" : "es");
      return f;
    }
  // No one value of it decides the target's tests of it for every call, and
  // no user knows it: those tests are priced by the run's counts of them.
  if (varied && !used_only_as_size(model, p.name))
    price_argument_tests(model, run, target, fn.arguments.at(position), origin, tests);
  if (varied && !used_only_as_size(model, p.name)) {
    f.status = "its values varied between calls or ranks, and the callee tests it where the run did not count its "
               "sides, not only sizes loops with it: a mean would pick one side of that test for every call";
    return f;
  }
  const bool keeps = varied && keeps_its_mean(model, p.name);
  const double value = keeps ? mean : std::round(mean);
  bind_measure(p, value,
               varied ? fmt::format("{}, the mean of the {} calls through pointers, whose values varied", origin,
                                    through_pointers)
                      : origin);
  if (varied && direct_calls == 0) {
    auto each = each_ranks_mean(run, {*probe});
    bind_each_rank_or_mean(p, keeps ? each : each_rounded(each), value);
  }
  f.value = value;
  f.status = varied ? fmt::format("bound (the mean of the values its {} calls through pointers passed, which varied; "
                                  "it only sizes)",
                                  through_pointers)
                    : fmt::format("bound (the value its {} calls through pointers passed)", through_pointers);
  return f;
}

}  // namespace perfcast::model
