#include "model/probe_values.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <regex>
#include <set>
#include <vector>

#include "model/probe_arguments.h"
#include "model/probe_per_rank.h"
#include "support/expr.h"

namespace perfcast::model {

namespace {

// Which variable's measures a parameter's description names: a local, an
// argument or a struct's field by its declaration (file tag and line) and
// source name, or a global by its symbol.
struct VariableOf {
  std::string name;
  std::string tag;
  int line = 0;
  std::string symbol;  // a global's; empty for a local
  bool field = false;  // a struct's field: `name` is the field's, matched after the struct's name
  bool read = false;   // the field's reads through the variable the description names
};

std::optional<VariableOf> variable_of(const std::string& description) {
  static const std::regex local(R"(^source variable ([^ ]+) of .*? \(([A-Za-z0-9_]+):([0-9]+)\))");
  static const std::regex global(R"(^global variable ([^ ]+) \(symbol ([^ )]+)\))");
  std::smatch m;
  static const std::regex field(R"(^field [^ ]*?\.([^ .]+) of .*; the field is declared at ([A-Za-z0-9_]+):([0-9]+)$)");
  if (std::regex_search(description, m, local)) return VariableOf{m[1], m[2], std::stoi(m[3]), "", false};
  if (std::regex_search(description, m, field)) return VariableOf{m[1], m[2], std::stoi(m[3]), "", true};
  if (std::regex_search(description, m, global)) {
    return VariableOf{m[1], "", 0, m[2], false};
  }
  return std::nullopt;
}

// A field's reads through its variable (`A->ncols`), where the feature
// probes name them: the variable's declaration and `var.field.read`.
std::optional<VariableOf> reads_of(const std::string& description) {
  static const std::regex field(R"(^field ([^ ]+) of .*? \(([A-Za-z0-9_]+):([0-9]+)\))");
  std::smatch m;
  if (!std::regex_search(description, m, field)) return std::nullopt;
  return VariableOf{std::string(m[1]) + ".read", m[2], std::stoi(m[3]), "", false, true};
}

// The measures of one variable, summed over its probes (a template's
// instances repeat a local at its line: `n#2`) and over the ranks.
struct Assignments {
  double count = 0, sum = 0, changes = 0;
  bool varied = false;  // some assignment differed from the one before, or ranks held different values
  double definitions = 1;  // the places outside loops that assign it
  std::string feature;     // the first probe's name
  // Where the run recorded each rank's measures, every rank assigned one value
  // only, and the ranks' values differed: each rank's (NaN: a rank that never
  // assigned it).
  std::optional<std::vector<double>> each_rank;
  // Where the ranks' means differ (the run recorded them): each rank's mean.
  std::optional<std::vector<double>> each_ranks_mean;
};

std::optional<double> lookup(const std::map<std::string, double>& m, const std::string& name) {
  auto it = m.find(name);
  return it == m.end() ? std::nullopt : std::optional<double>(it->second);
}

// The probe `file:line:variable` (`#n` on repeats) that `name`, the name of
// one of its measures or facts ending in `suffix`, belongs to, when that
// probe is v's: a local by its name and declaration; a field likewise, its
// probes named `Struct.field` at the field's declaration; a global by its
// symbol alone (one without debug information is named by its symbol).
std::optional<std::string> probe_of(const ProbeRun& run, const VariableOf& v, const std::string& name,
                                    const std::string& suffix) {
  static const std::regex form(R"(^(.*):([0-9]+):([^:]+?)(#[0-9]+)?$)");
  if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return std::nullopt;
  const std::string probe = name.substr(0, name.size() - suffix.size());
  std::smatch f;
  if (!std::regex_match(probe, f, form)) return std::nullopt;
  const std::string variable = f[3];
  // A variable's reads (`n.read`, `var.field.read`) are other probes than its stores.
  if (variable.ends_with(".read") != v.read) return std::nullopt;
  if (v.field && variable.find('.') == std::string::npos) return std::nullopt;
  const std::string name_of = v.field ? variable.substr(variable.rfind('.') + 1) : variable;
  if (v.symbol.empty() ? (name_of != v.name || std::stoi(f[2]) != v.line || file_tag(f[1]) != v.tag)
                       : lookup(run.code, probe + ".symbol") != function_id(v.symbol))
    return std::nullopt;
  return probe;
}

// Whether some unit said v's address escapes (the probes' fact of the code
// `.address_escapes`): stores through that address are not among its
// measures, so their mean is no value of v's.
bool address_escapes(const ProbeRun& run, const VariableOf& v) {
  for (const auto& [name, value] : run.code)
    if (value != 0 && probe_of(run, v, name, ".address_escapes")) return true;
  return false;
}

std::optional<Assignments> measured(const ProbeRun& run, const VariableOf& v);

// What the model reads of a parameter: a field's own reads where the run
// made some (the value the model's function read, whichever object it was),
// else the stores the probes saw into the field or variable; a global's reads
// where its stores tell nothing (none seen outside loops, or through an
// address that escapes: a Fortran namelist READ sets a module's variables in
// the runtime).
std::optional<VariableOf> what_is_read(const ProbeRun& run, const std::string& description) {
  auto v = variable_of(description);
  auto read_some = [&](const VariableOf& r) {
    auto m = measured(run, r);
    return m && m->count > 0;
  };
  if (v && v->field)
    if (auto r = reads_of(description); r && read_some(*r)) return r;
  if (v && !v->symbol.empty() && (!read_some(*v) || address_escapes(run, *v))) {
    VariableOf r = *v;
    r.read = true;
    if (read_some(r)) return r;
  }
  return v;
}

std::optional<Assignments> measured(const ProbeRun& run, const VariableOf& v) {
  std::optional<Assignments> found;
  std::optional<double> first_mean;
  std::vector<std::string> probes;
  for (const auto& [name, count] : run.measures) {
    auto at = probe_of(run, v, name, ".assignments");
    if (!at) continue;
    const std::string& probe = *at;
    probes.push_back(probe);
    auto sum = lookup(run.measures, probe + ".sum");
    auto changes = lookup(run.measures, probe + ".changes");
    if (!sum || !changes) continue;
    if (!found) found = Assignments{0, 0, 0, false, 1, probe};
    found->definitions = std::max(found->definitions, lookup(run.code, probe + ".definitions").value_or(1));
    found->count += count;
    found->sum += *sum;
    found->changes += *changes;
    // Constant on every rank, yet the ranks' values differ when their mean
    // is not their maximum (the value feature, the maximum over the ranks).
    auto last = lookup(run.features, probe);
    found->varied = found->varied || *changes > 0 || (count > 0 && last && *last != *sum / count);
    if (count > 0) {  // a template's instances whose means differ
      if (first_mean && *first_mean != *sum / count) found->varied = true;
      if (!first_mean) first_mean = *sum / count;
    }
  }
  if (found && found->varied) {
    found->each_rank = one_value_on_each_rank(run, probes);
    found->each_ranks_mean = each_ranks_mean(run, probes);
  }
  return found;
}

// The size in bytes of one element of the MPI calls whose bytes are a
// multiple of `name` (`count * 8`), the same for all of them; none otherwise.
std::optional<double> element_bytes(const Items& items, const std::string& name, std::optional<double> size,
                                   bool& mixed) {
  for (const Item& item : items) {
    if (const auto* m = std::get_if<MpiItem>(&item.body)) {
      if (!expr::free_names(m->bytes).count(name)) continue;
      try {
        const double one = expr::evaluate(m->bytes, {{name, expr::Value(1)}}).real();
        const double two = expr::evaluate(m->bytes, {{name, expr::Value(2)}}).real();
        if (two - one != one || one <= 0 || (size && *size != one)) mixed = true;
        size = one;
      } catch (const std::exception&) {  // bytes that need other names too
        mixed = true;
      }
    } else if (const auto* l = std::get_if<LoopItem>(&item.body)) {
      size = element_bytes(l->body, name, size, mixed);
    } else if (const auto* b = std::get_if<BranchItem>(&item.body)) {
      size = element_bytes(b->then_items, name, size, mixed);
      size = element_bytes(b->else_items, name, size, mixed);
    }
  }
  return size;
}

// An MPI call's elements per call read from memory (described "elements per
// call of MPI_Send at <file tag>:<line>"): the run's mean bytes per call at
// that line (its `.calls` and `.bytes` features) over the bytes of one
// element, which the model's bytes of that call say. Nothing when `p` is no
// such parameter.
std::optional<ProbeFinding> bind_message_count(const ProgramModel& model, const ProbeRun& run, Parameter& p,
                                               const std::string& origin) {
  static const std::regex described(R"(^elements per call of (MPI_[A-Za-z_]+) at ([A-Za-z0-9_]+):([0-9]+))");
  std::smatch where;
  if (!std::regex_search(p.description, where, described)) return std::nullopt;
  const std::string op = where[1], tag = where[2], line = where[3];
  static const std::regex feature_form(R"(^(.*):([0-9]+):(MPI_[A-Za-z_]+)(#[0-9]+)?\.calls$)");
  double calls = 0, bytes = 0;
  std::string site;
  for (const auto& [name, value] : run.features) {
    std::smatch f;
    if (!std::regex_match(name, f, feature_form) || f[2] != line || f[3] != op || file_tag(f[1]) != tag) continue;
    auto b = lookup(run.features, name.substr(0, name.size() - std::string(".calls").size()) + ".bytes");
    if (!b) continue;
    site = std::string(f[1]) + ":" + line;
    calls += value;
    bytes += *b;
  }
  if (site.empty()) return std::nullopt;
  ProbeFinding out{ProbeFinding::Kind::Value, site, p.name, std::nullopt, ""};
  bool mixed = false;
  std::optional<double> size;
  for (const auto& [fn_name, fn] : model.functions) size = element_bytes(fn.body, p.name, size, mixed);
  if (!size || mixed) {
    out.status = "the model's bytes of that call are not a multiple of its elements";
  } else if (calls == 0) {
    out.status = "not reached by the probe run";
  } else {
    const double value = std::round(bytes / calls / *size);  // MPI counts are integers
    bind_measure(p, value, origin);
    out.value = value;
    out.status = fmt::format("bound (the mean bytes per call at that line over {} bytes an element)", *size);
  }
  return out;
}

}  // namespace

std::map<std::string, std::string> varied_source_values(const ProgramModel& model, const ProbeRun& run) {
  std::map<std::string, std::string> varied;
  for (const Parameter& p : model.parameters) {
    if (p.default_value) continue;
    auto v = what_is_read(run, p.description);
    if (!v) continue;
    auto a = measured(run, *v);
    if (!a || !a->varied) continue;
    const std::string& probe = a->feature;  // file:line:name
    const std::size_t line = probe.rfind(':', probe.rfind(':') - 1);
    // A local's tests are in the file of its declaration, where its probe
    // is; a field's probes are at the struct's declaration (a header) and a
    // global's wherever it is defined: their tests are named by the file of
    // the function that reads them.
    varied[p.name] = v->symbol.empty() && !v->field ? probe.substr(0, line) : "";
  }
  return varied;
}

void bind_source_values(ProgramModel& model, const ProbeRun& run, const std::string& origin,
                        std::set<std::string>& bound, std::vector<ProbeFinding>& out) {
  for (Parameter& p : model.parameters) {
    // The source's first value as a default of a local the model reads as
    // another assignment (`int first = 0;`, then `range_of(p, &first)`, the
    // call the analyser says wrote it last): what the run measured there is
    // what the model reads, never that first value.
    const bool first_value_overwritten = p.default_value && p.origin.empty() &&
                                         p.description.find(kFirstValueDefault) != std::string::npos &&
                                         p.description.rfind(kAssignedAtLineNote) != std::string::npos;
    if ((p.default_value && !first_value_overwritten) || bound.count(p.name)) continue;
    if (auto f = bind_message_count(model, run, p, origin)) {
      if (f->value) bound.insert(p.name);
      out.push_back(std::move(*f));
      continue;
    }
    auto v = what_is_read(run, p.description);
    if (!v) continue;
    auto a = measured(run, *v);
    if (!a) continue;  // no probe there: assigned only in loops, or a unit built without the probes
    ProbeFinding f{ProbeFinding::Kind::Value, a->feature, p.name, std::nullopt, ""};
    bool after_merge = false;
    if (a->count == 0) {
      f.status = "never assigned outside loops by the probe run";
      out.push_back(std::move(f));
      continue;
    }
    // One value on each rank, another on the next: each rank's own.
    auto bind_each_rank = [&]() {
      p.default_value = each_rank_expression(*a->each_rank);
      p.origin = each_rank_origin(origin, run.ranks);
      bound.insert(p.name);
      int never = 0;
      for (double x : *a->each_rank) never += std::isnan(x);
      f.status = fmt::format("bound to each rank's own value (each {} one, and the ranks' differed{}): holds "
                             "at {} process{} only",
                             after_merge ? "read" : "assigned",
                             never ? fmt::format("; {} rank{} never assigned it: 0 there", never, never == 1 ? "" : "s")
                                   : "",
                             run.ranks, run.ranks == 1 ? "" : "es");
      out.push_back(std::move(f));
    };
    // `n = 10; if (...) n = m;`: the mean is no one place's value, unless it
    // only sizes loops that the run arrived at once per assignment, each
    // arrival reading the one value assigned before it (a local's, set by one
    // of several tests of its kind: arrivals_at_loops_reading).
    const bool once_per_arrival = a->varied && a->definitions > 1 && !v->field && v->symbol.empty() &&
                                  keeps_its_mean(model, p.name) &&
                                  arrivals_at_loops_reading(model, run, p.name, v->tag) == std::optional<double>(a->count);
    // A local the model reads as one assignment's value (the analyser's note
    // and that assignment's line): the probes of that line alone (`n@12`).
    bool at_one = false;
    if (const std::size_t note = p.description.rfind(kAssignedAtLineNote);
        a->varied && a->definitions > 1 && !once_per_arrival && note != std::string::npos && v->symbol.empty() &&
        !v->field) {
      VariableOf one = *v;
      one.name += "@" + p.description.substr(note + kAssignedAtLineNote.size());
      if (auto values = measured(run, one); values && values->count > 0) a = values, at_one = true;
    }
    if (first_value_overwritten && !at_one) continue;  // the source's value stands
    // `f(&n)`, `g(s.n)` to an `int&`: stores the probes did not see, but
    // for the one call that the model reads as the last to write it.
    if (!at_one && address_escapes(run, *v)) {
      f.status = "its address escapes (passed to a call that may write through it, or stored): the probes do not see "
                 "every store to it";
      out.push_back(std::move(f));
      continue;
    }
    if (a->each_rank) {
      bind_each_rank();
      continue;
    }
    if (a->varied && v->field) {  // stores into every object of its type: which one is read, the probe cannot tell
      f.status = "its stores, into any object of its struct, had values that varied: the probe cannot tell which "
                 "object the model reads";
      out.push_back(std::move(f));
      continue;
    }
    if (a->varied && a->definitions > 1 && !once_per_arrival && !at_one) {
      // A local the model reads where its assignments merge (the analyser's
      // note): its reads that all of them reach (`n.read`, the pass's merged
      // reads), the merged value the optimised code holds. One assignment's
      // value the pooled stores do not give.
      VariableOf merged = *v;
      merged.name += ".read";
      merged.read = true;
      const bool read_merged = p.description.ends_with(kReadWhereMergeNote);
      auto reads = read_merged && v->symbol.empty() && !v->field ? measured(run, merged) : std::nullopt;
      if (!reads || reads->count == 0) {
        f.status = fmt::format(
            "assigned at {} places with values that varied: {}", a->definitions,
            read_merged ? "the model reads it where they merge, and the run never read it outside loops after all of "
                          "them (or read it after some of them too)"
                        : "the model reads one of them, or a merge of some of them only, and the probe measures "
                          "them together");
        out.push_back(std::move(f));
        continue;
      }
      a = reads;
      after_merge = true;
      if (a->each_rank) {
        bind_each_rank();
        continue;
      }
    }
    const double mean = a->sum / a->count;
    // The probes measure integers only: the program holds it in one. Where the
    // values varied and it only sizes loops (keeps_its_mean), their mean makes
    // every total linear in it right and passes the analyser's casts of it
    // (zext(n, 32)) unchanged; elsewhere the nearest, off by at most a half per assignment.
    const bool keeps = a->varied && keeps_its_mean(model, p.name);
    const double value = keeps ? mean : std::round(mean);
    bind_measure(p, value, a->varied ? fmt::format("{}, the mean of {} values that varied", origin, a->count) : origin);
    // A size whose calls vary on each rank: each rank's own mean at the run's count, with the
    // rank's own counts of the loops around (its chunks), the rank's own total; rounded as the
    // mean over the ranks is where the model tests it.
    if (a->varied) bind_each_rank_or_mean(p, keeps ? a->each_ranks_mean : each_rounded(a->each_ranks_mean), value);
    bound.insert(p.name);
    f.value = value;
    const char* what = v->read        ? "reads"
                       : after_merge ? "reads after its assignments merge"
                       : at_one      ? "assignments at the line the model reads"
                                     : "assignments";
    f.status = once_per_arrival
                   ? fmt::format("bound (the mean of {} assignments at {} places, one before each arrival at the loops "
                                 "it sizes)",
                                 a->count, a->definitions)
               : a->varied ? fmt::format("bound (the mean of {} {}, whose values varied)", a->count, what)
                           : fmt::format("bound (the value of its {} {})", a->count, what);
    out.push_back(std::move(f));
  }
}

}  // namespace perfcast::model
