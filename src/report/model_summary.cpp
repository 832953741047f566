#include "report/model_summary.h"

#include <fmt/format.h>

#include "model/model_write.h"
#include "support/expr.h"

namespace perfcast::report {

nlohmann::ordered_json model_summary_json(const model::ProgramModel& m, const std::string& model_file) {
  nlohmann::ordered_json j = {{"model", model_file},          {"program", m.program},
                      {"source", m.source},           {"origin", m.origin},
                      {"entry", m.entry},             {"functions", m.functions.size()},
                      {"parameters", m.parameters.size()}};
  j["coverage"] = m.coverage ? model::coverage_json(*m.coverage) : nlohmann::ordered_json(nullptr);
  return j;
}

std::string model_summary_text(const model::ProgramModel& m, const std::string& model_file) {
  std::string out = fmt::format("{}: program {} ({}), {} functions from '{}', {} parameters\n", model_file,
                                m.program.empty() ? "?" : m.program, m.origin.empty() ? "unknown origin" : m.origin,
                                m.functions.size(), m.entry, m.parameters.size());
  if (!m.coverage) return out + "no coverage section (a model written by hand): nothing recorded as guessed\n";
  const model::Coverage& c = *m.coverage;
  out += model::coverage_summary(c) + "\n";
  out += fmt::format("  IR instructions of the reachable functions: {}, priced: {}\n", c.instructions,
                     c.instructions_priced);
  if (!c.unresolved_calls.empty()) {
    out += fmt::format("unresolved calls ({}): their work is not in the model\n", c.unresolved_calls.size());
    for (const auto& k : c.unresolved_calls) {
      std::string probe;
      for (const auto& [target, per_execution] : k.probe_targets)
        probe += fmt::format("{}{} {:.4g}", probe.empty() ? " (bound by the probe run: " : ", ", target, per_execution);
      if (!probe.empty()) probe += " calls per execution)";
      if (k.probe_not_reached) probe = " (not reached by the probe run)";
      out += fmt::format("  {:<20} {:<9} in {}{}{}\n", k.site, k.kind, k.caller,
                         k.callee.empty() ? " (through a pointer)" : ", calls " + k.callee, probe);
    }
  }
  if (!c.guessed_branches.empty()) {
    out += fmt::format("branches at a guessed probability ({}): set one with perfcast analyze --branch-probability "
                       "FILE:LINE=P\n",
                       c.guessed_branches.size());
    for (const auto& b : c.guessed_branches)
      out += fmt::format("  {:<20} p={:<6.3g} in {}: {}{}\n", b.site, b.probability, b.function, b.why,
                         b.probe_probability   ? fmt::format(" (measured by the probe run: p={:.4g})", *b.probe_probability)
                         : b.probe_not_reached ? " (not reached by the probe run)"
                                               : "");
  }
  if (!c.unknown_loops.empty()) {
    out += fmt::format("loops of unknown trip count ({}): bind their parameters with --param\n", c.unknown_loops.size());
    for (const auto& l : c.unknown_loops)
      out += fmt::format("  {:<20} {} in {}: {}{}\n", l.site, l.trip_count, l.function, l.why,
                         l.probe_trips         ? fmt::format(" (bound by the probe run: {:.6g} trips)", *l.probe_trips)
                         : l.probe_not_reached ? " (not reached by the probe run: 0 at its input)"
                                               : "");
  }
  if (!c.polling_loops.empty()) {
    out += fmt::format("loops that poll for a completion ({}): priced at one pass, their MPI calls lower bounds (the "
                       "passes are timing, not a count; no probe run binds them)\n",
                       c.polling_loops.size());
    for (const auto& l : c.polling_loops)
      out += fmt::format("  {:<20} {} in {}: polls with {}\n", l.site, l.loop, l.function, l.call);
  }
  if (!c.probe_run.empty()) {
    out += fmt::format("values from the probe run {} (measured at that input; they may not hold at another):\n",
                       c.probe_run);
    for (const auto& p : m.parameters)
      if (!p.origin.empty() && p.default_value)
        out += fmt::format("  {} = {}\n", p.name, expr::to_string(*p.default_value));
  }
  return out;
}

}  // namespace perfcast::report
