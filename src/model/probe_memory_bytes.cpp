// A memset/memcpy/memmove's bytes from a probe run (probe_memory_bytes.h).
#include "model/probe_memory_bytes.h"

#include <fmt/format.h>

#include <cstring>
#include <regex>
#include <vector>

#include "support/expr.h"

namespace perfcast::model {

namespace {

// A library template's instance, as the analyser describes a memset in one
// (`(in <linkage name>)`): the probes of its code are named with `@<tag>`
// (library_tag), a program's templates' told by their `.function` fact.
struct Instance {
  std::optional<double> id;  // function_id, none outside a template's instance
  std::string tag;           // "@<tag>", empty outside a library's
};

// Whether a probe loop's name `@tag` part (`tag`, empty without one) and its
// `.function` fact (`base.function`) allow it to be `instance`'s.
bool of_instance(const ProbeRun& run, const std::string& base, const std::string& tag, const Instance& instance) {
  if (!tag.empty() && !instance.tag.empty() && tag != instance.tag) return false;
  auto fact = run.code.find(base + ".function");
  return !instance.id || fact == run.code.end() || fact->second == *instance.id;
}

// The feature site (`file.f90:12`) of the probes' loops at `line` of the file
// the analyser tagged `tag`; none unless exactly one file has loops there.
std::optional<std::string> loop_site_of(const ProbeRun& run, const std::string& tag, const std::string& line) {
  static const std::regex loop_form(R"(^(.*):([0-9]+):loop(@[0-9A-F]+)?(#[0-9]+)?\.headers$)");
  std::optional<std::string> site;
  for (const auto& [name, value] : run.features) {
    std::smatch f;
    if (!std::regex_match(name, f, loop_form) || f[2] != line || file_tag(f[1]) != tag) continue;
    const std::string at = std::string(f[1]) + ":" + line;
    if (site && *site != at) return std::nullopt;
    site = at;
  }
  return site;
}

// The fill loops at `at` of `instance`: the line's loops with the code fact
// `.fill_bytes` (two where two statements fill on one line, `mu = 0; wmu = 0`).
std::vector<std::string> fill_loops(const ProbeRun& run, const std::string& at, const Instance& instance) {
  static const std::regex fill_form(R"(^(.*):loop(@[0-9A-F]+)?(#[0-9]+)?\.fill_bytes$)");
  std::vector<std::string> found;
  const std::string prefix = at + ":loop";
  for (auto it = run.code.lower_bound(prefix); it != run.code.end() && it->first.starts_with(prefix); ++it) {
    std::smatch f;
    if (!std::regex_match(it->first, f, fill_form) || f[1] != at) continue;
    const std::string base = it->first.substr(0, it->first.size() - std::strlen(".fill_bytes"));
    if (feature(run, base + ".headers") && of_instance(run, base, f[2], instance)) found.push_back(base);
  }
  return found;
}

// The fill loops of `instance` whose store is at `line` of the file the
// analyser tagged `tag` though the loop starts at another (the code fact
// `.fill_line`: a C loop whose body is on the line after its `for`,
// `std::fill`'s, where the memset the optimiser makes of it takes the store's
// line; `.fill_line:<file>` where the store is another file's, an assignment
// the loop calls, inlined); none unless they start at one line.
std::vector<std::string> fill_loops_storing_at(const ProbeRun& run, const std::string& tag, const std::string& line,
                                               const Instance& instance) {
  static const std::regex fill_form(R"(^(.*):([0-9]+):loop(@[0-9A-F]+)?(#[0-9]+)?\.fill_line(:(.+))?$)");
  std::vector<std::string> found;
  std::optional<std::string> site;
  for (const auto& [name, value] : run.code) {
    std::smatch f;
    if (!std::regex_match(name, f, fill_form) || fmt::format("{}", value) != line ||
        file_tag(f[6].matched ? f[6].str() : f[1].str()) != tag)
      continue;
    const std::string base = name.substr(0, name.size() - f[5].length() - std::strlen(".fill_line"));
    if (!of_instance(run, base, f[3], instance) || !run.code.count(base + ".fill_bytes") ||
        !feature(run, base + ".headers"))
      continue;
    const std::string at = std::string(f[1]) + ":" + std::string(f[2]);
    if (site && *site != at) return {};
    site = at;
    found.push_back(base);
  }
  return found;
}

// The mean bytes per call of the memsets the optimiser made of the fill loops
// `fills`: loop idiom makes one of an innermost loop (an array's first
// dimension, a string's padding; the loops around it, unrolled or not, are
// the model's own), so each loop's iterations times its store's bytes, over
// the loops' arrivals (the analyser names the memsets of one line alike).
// Sets `status` to what was bound or why nothing was.
std::optional<double> fill_bytes_per_call(const ProbeRun& run, const std::vector<std::string>& fills,
                                          std::string& status) {
  double bytes = 0, arrivals = 0;
  for (const std::string& fill : fills) {
    const double store = run.code.at(fill + ".fill_bytes");
    auto headers = feature(run, fill + ".headers"), entries = feature(run, fill + ".entries");
    if (!headers || !entries) {
      status = "no probe of that call at that line, nor counts of the loop there it was made of";
      return std::nullopt;
    }
    if (*entries > 0) bytes += store * trips_per_arrival(run, fill, *headers, *entries) * *entries;
    arrivals += *entries;
  }
  if (arrivals == 0) {
    status = "not reached by the probe run: 0";
    return 0.0;
  }
  status = fills.size() == 1
               ? fmt::format("bound (the loop at that line the optimiser made one memset: its mean trips per arrival "
                             "times its {}-byte store)",
                             run.code.at(fills.front() + ".fill_bytes"))
               : fmt::format("bound (the {} loops at that line the optimiser made memsets of: their iterations "
                             "times their stores' bytes, over their arrivals)",
                             fills.size());
  return bytes / arrivals;
}

}  // namespace

std::optional<ProbeFinding> bind_memory_bytes(const ProbeRun& run, Parameter& p, const std::string& origin) {
  static const std::regex name_form(R"(\.(memset|memcpy|memmove)[0-9]+\.bytes$)");
  static const std::regex described(R"(bytes of the mem(set|cpy) at (\S+):([0-9]+)(?: \(in (\S+)\))?$)");
  std::smatch name, where;
  if (!std::regex_search(p.name, name, name_form) || !std::regex_search(p.description, where, described))
    return std::nullopt;
  const bool set = name[1] == "memset";
  const std::string tag = where[2], line = where[3];
  // In a template's instance (described "... (in <linkage name>)"), only that
  // instance's probes count: a library's are named with it (`memmove@<id>`),
  // others told by their `.function` fact where the line has several.
  const std::optional<double> instance =
      where[4].matched ? std::optional<double>(function_id(where[4].str())) : std::nullopt;
  const std::string instance_tag = where[4].matched ? library_tag(where[4].str()) : "";
  double calls = 0, bytes = 0;
  std::string site;
  bool probed = false;
  for (const auto& [feature_name, value] : run.features) {
    // file:line:kind[@instance][#k].calls, the file tagged as the analyser tags it
    static const std::regex feature_form(R"(^(.*):([0-9]+):(memset|memcpy|memmove)(@[0-9A-F]+)?(#[0-9]+)?\.calls$)");
    std::smatch f;
    if (!std::regex_match(feature_name, f, feature_form) || f[2] != line || file_tag(f[1]) != tag ||
        (f[3] == "memset") != set || (f[4].matched && f[4] != instance_tag))
      continue;
    const std::string base = feature_name.substr(0, feature_name.size() - std::strlen(".calls"));
    if (auto fact = run.code.find(base + ".function"); instance && fact != run.code.end() && fact->second != *instance)
      continue;
    auto b = feature(run, base + ".bytes");
    if (!b) continue;
    probed = true;
    site = std::string(f[1]) + ":" + line;
    calls += value;
    bytes += *b;
  }
  ProbeFinding out{ProbeFinding::Kind::Value, site.empty() ? tag + ":" + line : site, p.name, std::nullopt, ""};
  if (!probed && set) {
    // A memset the optimiser made of a fill loop: no probe saw the call.
    const Instance of{instance, instance_tag};
    std::vector<std::string> fills;
    if (auto at = loop_site_of(run, tag, line)) fills = fill_loops(run, *at, of), out.site = *at;
    if (fills.empty()) fills = fill_loops_storing_at(run, tag, line, of);
    std::optional<double> filled;
    if (!fills.empty()) {
      out.site = fills.front().substr(0, fills.front().rfind(":loop"));
      filled = fill_bytes_per_call(run, fills, out.status);
    } else if (out.site != tag + ":" + line) {
      out.status = "no probe of that call at that line, nor a loop there filling memory with a constant that the "
                   "optimiser could have made it of";
    }
    if (filled) {
      bind_measure(p, *filled, *filled == 0 ? origin + kNeverReached : origin);
      out.value = *filled;
    } else if (out.status.empty()) {
      out.status = "no probe of that call at that line (was the program built with perfcast cc --features from these "
                   "sources?)";
    }
  } else if (!probed) {
    out.status = "no probe of that call at that line (was the program built with perfcast cc --features from these "
                 "sources?)";
  } else if (calls == 0) {
    bind_measure(p, 0, origin + kNeverReached);
    out.value = 0;
    out.status = "not reached by the probe run: 0";
  } else {
    bind_measure(p, bytes / calls, origin);
    out.value = bytes / calls;
    out.status = "bound (the mean bytes per call at that line)";
  }
  return out;
}

}  // namespace perfcast::model
