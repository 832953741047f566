#include "model/probe_indirect.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>

#include "model/probe_arguments.h"
#include "support/expr.h"

namespace perfcast::model {
namespace {

// "f.c:27:9" -> "f.c:27": the coverage's site of an indirect call item.
std::string line_site(const std::string& site) {
  auto colon = site.rfind(':');
  return colon == std::string::npos ? site : site.substr(0, colon);
}

bool uses_only(const Expr& e, const std::set<std::string>& names) {
  for (const auto& n : expr::free_names(e))
    if (!names.count(n)) return false;
  return true;
}

class IndirectBinder {
 public:
  IndirectBinder(ProgramModel& model, const ProbeRun& run, const std::string& origin,
                 std::vector<ProbeFinding>& out)
      : m_(model), run_(run), origin_(origin), out_(out) {
    for (const Parameter& p : m_.parameters) model_names_.insert(p.name);
    for (const auto& [name, value] : m_.lets) model_names_.insert(name);
    for (const char* b : {"rank", "size", "dims2_0", "dims2_1", "dims3_0", "dims3_1", "dims3_2"}) model_names_.insert(b);
  }

  void run() {
    // The bodies are changed in place: the functions' names first, then each.
    std::vector<std::string> names;
    for (const auto& [name, f] : m_.functions) names.push_back(name);
    for (const std::string& name : names) {
      std::set<std::string> scope = model_names_;
      const Function& f = m_.functions.at(name);
      scope.insert(f.parameters.begin(), f.parameters.end());
      items(m_.functions.at(name).body, scope, name);
    }
  }

 private:
  void items(Items& list, const std::set<std::string>& scope, const std::string& caller) {
    for (Item& it : list) {
      if (auto* c = std::get_if<CallItem>(&it.body); c && c->indirect && c->function.empty()) {
        bind(it, CallItem(*c), scope, caller);
      } else if (auto* l = std::get_if<LoopItem>(&it.body)) {
        std::set<std::string> inner = scope;
        if (!l->var.empty()) inner.insert(l->var);
        items(l->body, inner, caller);
      } else if (auto* b = std::get_if<BranchItem>(&it.body)) {
        items(b->then_items, scope, caller);
        items(b->else_items, scope, caller);
      }
    }
  }

  Coverage::Call* coverage_entry(const std::string& caller, const std::string& site) {
    if (!m_.coverage) return nullptr;
    for (Coverage::Call& u : m_.coverage->unresolved_calls)
      if (u.kind == "indirect" && u.caller == caller && u.site == site) return &u;
    return nullptr;
  }

  // A call of `target` from the indirect call `c`: the arguments the
  // analysis expressed at the call (by position, where the target has a
  // parameter there and the expression's names are known in the caller),
  // and for each other parameter of the target a model parameter to bind.
  CallItem call_of(const std::string& target, const CallItem& c, const std::set<std::string>& scope) {
    const Function& fn = m_.functions.at(target);
    CallItem out;
    out.function = target;
    out.indirect = true;
    out.site = c.site;
    for (size_t a = 0; a < fn.arguments.size() && a < c.positional_args.size(); ++a) {
      const std::string& p = fn.arguments[a];
      if (p.empty() || std::find(fn.parameters.begin(), fn.parameters.end(), p) == fn.parameters.end()) continue;
      if (c.positional_args[a] && uses_only(*c.positional_args[a], scope)) out.args.emplace_back(p, *c.positional_args[a]);
    }
    for (const std::string& p : fn.parameters) {
      if (std::any_of(out.args.begin(), out.args.end(), [&](const auto& a) { return a.first == p; })) continue;
      const std::string name = target + "." + p;
      if (!model_names_.count(name)) {
        Parameter param;
        param.name = name;
        param.description = fmt::format("argument {} of {} where a call through a pointer reaches it ({}): the "
                                        "analysis could not express it",
                                        p, target, c.site);
        m_.parameters.push_back(std::move(param));
        model_names_.insert(name);
        auto at = std::find(fn.arguments.begin(), fn.arguments.end(), p);
        if (at != fn.arguments.end()) created_.push_back({name, target, static_cast<size_t>(at - fn.arguments.begin())});
      }
      out.args.emplace_back(p, expr::var(name));
    }
    return out;
  }

  void bind(Item& it, const CallItem& c, const std::set<std::string>& scope, const std::string& caller) {
    Coverage::Call* entry = coverage_entry(caller, line_site(c.site));
    auto found = run_.indirect_calls.find(c.site);
    if (found == run_.indirect_calls.end()) {
      out_.push_back({ProbeFinding::Kind::IndirectCall, c.site, caller, std::nullopt,
                      "no probe at that call (was the program built with perfcast cc --features from these sources?)"});
      return;
    }
    std::vector<std::pair<std::string, double>> targets(found->second.begin(), found->second.end());
    double total = 0;
    for (const auto& [name, calls] : targets) total += calls;
    if (total <= 0) {
      if (entry) entry->probe_not_reached = true;
      out_.push_back({ProbeFinding::Kind::IndirectCall, c.site, caller, std::nullopt,
                      "not reached by the probe run: left unbound"});
      return;
    }
    // The most called first: the mix's first branch is its likeliest side.
    std::stable_sort(targets.begin(), targets.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    std::vector<std::pair<std::optional<Item>, double>> leaves;
    if (entry) entry->probe_targets.clear();
    for (const auto& [name, calls] : targets) {
      const double per_execution = calls / total;
      if (entry) entry->probe_targets.emplace_back(name, per_execution);
      if (!m_.functions.count(name)) {
        leaves.emplace_back(std::nullopt, per_execution);
        out_.push_back({ProbeFinding::Kind::IndirectCall, c.site, name, per_execution,
                        "not in the model (outside the analysed code): its share is priced as nothing"});
        continue;
      }
      Item leaf;
      leaf.line = it.line;
      leaf.note = it.note;
      leaf.body = call_of(name, c, scope);
      leaves.emplace_back(std::move(leaf), per_execution);
      out_.push_back({ProbeFinding::Kind::IndirectCall, c.site, name, per_execution, "bound"});
    }
    if (std::none_of(leaves.begin(), leaves.end(), [](const auto& l) { return l.first.has_value(); })) return;
    const std::string note = fmt::format("{}: the targets of the call through a pointer at {}", origin_, c.site);
    // A chain of branches: the k-th target with its share of what the ones
    // before it left, so each is taken its calls per execution of the site.
    std::function<Items(size_t)> mix = [&](size_t k) -> Items {
      if (k + 1 == leaves.size()) {
        if (!leaves[k].first) return {};
        return {*leaves[k].first};
      }
      double rest = 0;
      for (size_t i = k; i < leaves.size(); ++i) rest += leaves[i].second;
      BranchItem b;
      b.probability = rest > 0 ? std::min(1.0, leaves[k].second / rest) : 0;
      if (leaves[k].first) b.then_items.push_back(*leaves[k].first);
      b.else_items = mix(k + 1);
      Item choice;
      choice.line = it.line;
      choice.note = note;
      choice.body = std::move(b);
      return {std::move(choice)};
    };
    Items bound = mix(0);
    if (leaves.size() == 1) bound.front().note = it.note.empty() ? note : it.note + "; " + note;
    it = std::move(bound.front());
  }

 public:
  // The parameters call_of made for the targets' arguments: the name, the
  // target and the argument's position, bound once every call is in place.
  struct Made {
    std::string name, target;
    size_t position;
  };
  const std::vector<Made>& made() const { return created_; }

 private:
  ProgramModel& m_;
  const ProbeRun& run_;
  const std::string& origin_;
  std::vector<ProbeFinding>& out_;
  std::set<std::string> model_names_;
  std::vector<Made> created_;
};

// The functions the entry's calls reach.
std::set<std::string> called_from_entry(const ProgramModel& m) {
  std::set<std::string> reached;
  std::function<void(const Items&)> walk = [&](const Items& items) {
    for (const Item& it : items) {
      if (const auto* c = std::get_if<CallItem>(&it.body)) {
        if (!c->function.empty() && m.functions.count(c->function) && reached.insert(c->function).second)
          walk(m.functions.at(c->function).body);
      } else if (const auto* l = std::get_if<LoopItem>(&it.body)) {
        walk(l->body);
      } else if (const auto* b = std::get_if<BranchItem>(&it.body)) {
        walk(b->then_items);
        walk(b->else_items);
      }
    }
  };
  if (m.functions.count(m.entry)) {
    reached.insert(m.entry);
    walk(m.functions.at(m.entry).body);
  }
  return reached;
}

}  // namespace

void bind_indirect_calls(ProgramModel& model, const ProbeRun& run, const std::string& origin,
                         std::vector<ProbeFinding>& out) {
  IndirectBinder binder(model, run, origin, out);
  binder.run();
  // The arguments the calls could not express, by the probes of the
  // targets' entries, once the calls that pass them are in the model (which
  // tells whether a target only sizes with one).
  for (const IndirectBinder::Made& made : binder.made())
    for (Parameter& p : model.parameters)
      if (p.name == made.name && !p.default_value) {
        std::vector<ProbeFinding> tests;
        ProbeFinding f = bind_entry_argument(model, run, p, made.target, made.position, origin, tests);
        out.insert(out.end(), tests.begin(), tests.end());
        out.push_back(std::move(f));
        break;
      }
  // The functions the bound calls now reach are priced: their instructions
  // join the priced ones.
  if (!model.coverage) return;
  Coverage& c = *model.coverage;
  const std::set<std::string> reached = called_from_entry(model);
  for (auto it = c.candidate_instructions_priced.begin(); it != c.candidate_instructions_priced.end();) {
    if (reached.count(it->first)) {
      c.instructions_priced = std::min(c.instructions, c.instructions_priced + it->second);
      it = c.candidate_instructions_priced.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace perfcast::model
