#include "model/probe_invocations.h"

#include <algorithm>
#include <optional>

#include "model/probe_arrivals.h"

namespace perfcast::model {

namespace {

// The calls the run made at the sites of a recursion's calls back, each
// once (calls at a line whose callee is the recursive function); none where
// a site has no count (a call the probes do not see: in a parallel region).
std::optional<double> calls_back(const ProbeRun& run, const Coverage::Loop& l) {
  if (l.called_back_at.empty()) return std::nullopt;
  double total = 0;
  for (const std::string& site : l.called_back_at) {
    const std::string at = feature_site(site);
    auto calls = call_arrivals(run, at.substr(0, at.rfind(':')), site_line(site), l.function);
    if (!calls) return std::nullopt;
    total += *calls;
  }
  return total;
}

}  // namespace

void bind_recursion(const ProbeRun& run, Coverage::Loop& l, Parameter* p, const std::string& origin,
                    ProbeFinding& f) {
  f.kind = ProbeFinding::Kind::Recursion;
  const std::string at = feature_site(l.site);
  auto entries = feature(run, at + ":recursion.entries");
  if (!entries) entries = feature(run, at + ":function.entries");
  // Each counts calls made within the recursion, neither more: the larger
  // is the more complete (a cycle within the file inside one across files).
  auto inner = calls_back(run, l);
  if (auto in_file = feature(run, at + ":recursion.recursive_calls"))
    inner = std::max(inner.value_or(0), *in_file);
  if (!p)
    f.status = "the model has no such parameter";
  else if (p->default_value)
    f.status = "already has a value";
  else if (!entries)
    f.status = "no probe of the function's entries (was the program built with perfcast cc --features?)";
  else if (!inner)
    f.status = "no count of the calls back into the recursion";
  else if (*entries == 0) {
    // Never entered at the probe's input: 0 invocations is what the run measured.
    bind_measure(*p, 0, origin + kNeverReached);
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

void bind_virtual_share(const ProbeRun& run, const Coverage& c, Coverage::Loop& l, Parameter* p,
                        const std::string& origin, ProbeFinding& f) {
  auto entries_at = [&](const std::string& site) { return feature(run, feature_site(site) + ":virtual.entries"); };
  auto entries = entries_at(l.site);
  double total = 0;
  bool each = true;
  for (const Coverage::Loop& other : c.unknown_loops)
    if (other.virtual_call == l.virtual_call && other.function == l.function) {
      auto e = entries_at(other.site);
      if (!e || feature(run, feature_site(other.site) + ":virtual#2.entries")) each = false;
      total += e.value_or(0);
    }
  if (!p)
    f.status = "the model has no such parameter";
  else if (p->default_value)
    f.status = "already has a value";
  else if (!entries || !each)
    f.status = "no probe of one of the call's overrides (each counted at its definition, one override a line)";
  else if (total == 0) {
    bind_measure(*p, 0, origin + kNeverReached);
    l.probe_not_reached = true;
    f.value = 0;
    f.status = "not reached by the probe run: 0";
  } else {
    const double share = *entries / total;
    bind_measure(*p, share, origin);
    l.probe_trips = share;
    f.value = share;
    f.status = "bound (the override's share of the entries of the call's overrides)";
  }
}

}  // namespace perfcast::model
