#include "report/prediction.h"

#include <algorithm>

#include <fmt/format.h>

#include "machine/physics.h"
#include "report/estimates.h"
#include "report/simulation.h"
#include "report/table.h"
#include "support/units.h"

namespace perfcast::report {

namespace {

using units::Dimension;

std::string quantity(double v, Dimension d) { return units::format(v, d, 4); }
std::string count(double v) { return v >= 1e5 ? fmt::format("{:.4g}", v) : fmt::format("{:.0f}", v); }

nlohmann::json site_json(const model::SitePrediction& s) {
  nlohmann::json site = {{"function", s.function},
                         {"line", s.line},
                         {"flops", s.flops},
                         {"bytes", s.bytes},
                         {"compute_s", s.compute_s},
                         {"memory_s", s.memory_s},
                         {"time_s", s.time_s},
                         {"bound", s.memory_bound ? "memory" : "compute"},
                         {"cycles", s.cycles},
                         {"in_core_s", s.in_core_s},
                         {"l1_access_s", s.l1_access_s},
                         {"traffic_s", s.traffic_s},
                         {"core_traffic_s", s.core_traffic_s},
                         {"serial_fraction", s.serial_fraction},
                         {"refined_s", s.refined_s},
                         {"off_ports_s", s.off_ports_s},
                         {"noise_stretch", s.noise_stretch}};
  if (!s.note.empty()) site["note"] = s.note;
  if (s.streams > 0) site["streams"] = s.streams, site["effective_streams"] = s.effective_streams;
  return site;
}

// Per MPI operation ("test"): its calls, and where some are made inside a
// polling loop, `timing_dependent: true` and how many: those count one pass
// of the loop, a lower bound of what a run makes.
nlohmann::json mpi_calls_by_op(const model::RankCounts& c) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& m : c.mpi) {
    nlohmann::json& op = out[std::string(mpi::name(m.op))];
    if (op.is_null()) op = {{"calls", 0.0}};
    op["calls"] = op["calls"].get<double>() + m.calls;
    if (m.timing_dependent) {
      op["timing_dependent"] = true;
      op["timing_dependent_calls"] = op.value("timing_dependent_calls", 0.0) + m.calls;
    }
  }
  return out;
}

// A count of MPI calls, "≥" before it where some of them are lower bounds.
std::string mpi_calls_text(const model::RankCounts& c) {
  return (c.mpi_calls_timing_dependent > 0 ? "≥" : "") + count(c.mpi_calls);
}

nlohmann::json rank_json(const model::RankPrediction& r, bool mca, bool footprint) {
  const auto& c = r.counts;
  nlohmann::json mem = nlohmann::json::object();
  for (const auto& [level, s] : r.memory_s_if_all_in) mem[level] = s;
  nlohmann::json j = {{"rank", c.rank},
                      {"node", r.node},
                      {"flops", r.flops},
                      {"flops_double", c.flops_double},
                      {"flops_single", c.flops_single},
                      {"math_flops", r.math_flops},
                      {"instruction_flops", r.instruction_flops},
                      {"math_calls", c.math_calls},
                      {"loads", c.loads},
                      {"stores", c.stores},
                      {"load_bytes", c.load_bytes},
                      {"store_bytes", c.store_bytes},
                      {"mpi_calls", c.mpi_calls},
                      {"mpi_calls_timing_dependent", c.mpi_calls_timing_dependent},
                      {"mpi_calls_by_op", mpi_calls_by_op(c)},
                      {"messages", c.messages},
                      {"sent_bytes", c.sent_bytes},
                      {"received_bytes", c.received_bytes},
                      {"compute_s", r.compute_s},
                      {"memory_s", r.memory_s},
                      {"memory_s_if_all_in", mem},
                      {"overhead_s", r.overhead_s},
                      {"latency_s", r.latency_s},
                      {"transfer_s", r.transfer_s},
                      {"time_s", r.time_s},
                      {"bound", r.memory_bound ? "memory" : "compute"}};
  if (mca) {
    j["mca_cycles"] = r.mca_cycles;
    j["mca_flops"] = r.mca_flops;
    j["in_core_s"] = r.in_core_s;
    j["mca_time_s"] = r.mca_time_s;
  }
  if (footprint) {
    j["l1_access_s"] = r.l1_access_s;
    j["traffic_s"] = r.traffic_s;
    j["footprint_time_s"] = r.footprint_time_s;
  }
  j["refined_comm_s"] = r.refined_comm_s;
  j["exchange_messages"] = r.exchange_messages;
  j["refined_time_s"] = r.refined_time_s;
  j["sync_points"] = r.sync_points;
  j["noise_step_s"] = r.noise_step_s;
  nlohmann::json sites = nlohmann::json::array();
  for (const auto& s : r.sites) sites.push_back(site_json(s));
  j["sites"] = std::move(sites);
  return j;
}

nlohmann::json optional_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

nlohmann::json estimate_json(const Estimate& e) {
  return {{"name", e.name},
          {"description", e.description},
          {"engine", e.engine == Estimate::Engine::Simulator ? "simulator" : "formula"},
          {"time_s", optional_json(e.time_s)},
          {"slowest_rank", e.slowest_rank ? nlohmann::json(*e.slowest_rank) : nlohmann::json(nullptr)},
          {"rank_time_s", e.rank_time_s},
          {"unavailable", e.time_s ? nlohmann::json(nullptr) : nlohmann::json(e.unavailable)}};
}

nlohmann::json first_estimate_json(const FirstEstimate& f) {
  return {{"which", f.which},
          {"description", f.description},
          {"time_s", f.time_s},
          {"envelope_s", {f.fastest_state_s, optional_json(f.slowest_state_s)}},
          {"inside_envelope", f.inside_envelope ? nlohmann::json(*f.inside_envelope) : nlohmann::json(nullptr)}};
}

// The first result line: the estimate to read first and the range a launch
// may take under the machine file's noise.
std::string first_estimate_text(const FirstEstimate& f) {
  const std::string low = quantity(f.fastest_state_s, Dimension::Seconds);
  if (!f.slowest_state_s)
    return fmt::format("estimate: {} ({}; the machine file has no node.noise, so no noisy estimate: the refined "
                       "time {} is the fastest state, a lower bound; perfcast calibrate measures the noise)\n",
                       quantity(f.time_s, Dimension::Seconds), f.which, low);
  return fmt::format("estimate: {} ({}, read first); a launch takes {} (refined: the fastest state, a lower bound) to "
                     "{} (the whole run in the noise's slowest state){}\n",
                     quantity(f.time_s, Dimension::Seconds), f.which, low,
                     quantity(*f.slowest_state_s, Dimension::Seconds),
                     f.inside_envelope.value_or(true)
                         ? ""
                         : "; the estimate lies outside that range: the simulation prices overlap and waits the "
                           "range's two figures do not");
}

// "main:177 leapfrog_step": the site's function and loop line, and the source
// function its code was inlined from, when the analyser noted one.
std::string site_label(const model::SitePrediction& s) {
  std::string label = s.line > 0 ? fmt::format("{}:{}", s.function, s.line) : s.function + " (rest)";
  const std::string from = "inlined from ";
  if (s.note.rfind(from, 0) == 0) label += " " + s.note.substr(from.size(), s.note.find(' ', from.size()) - from.size());
  return label;
}

void add_rank_row(Table& t, const model::RankPrediction& r, const std::string& label, bool mca) {
  const auto& c = r.counts;
  std::vector<std::string> row = {label, std::to_string(r.node), quantity(r.flops, Dimension::Flops),
                                  quantity(c.load_bytes + c.store_bytes, Dimension::Bytes), mpi_calls_text(c),
                                  quantity(c.sent_bytes, Dimension::Bytes), quantity(r.compute_s, Dimension::Seconds),
                                  quantity(r.memory_s, Dimension::Seconds),
                                  quantity(r.overhead_s + r.latency_s + r.transfer_s, Dimension::Seconds),
                                  quantity(r.time_s, Dimension::Seconds), r.memory_bound ? "memory" : "compute"};
  if (mca) {
    row.push_back(quantity(r.in_core_s, Dimension::Seconds));
    row.push_back(quantity(r.mca_time_s, Dimension::Seconds));
  }
  t.add_row(row);
}

std::string rank_table(const model::Prediction& p, const PredictionContext& context) {
  std::vector<std::string> header = {"rank", "node", "flops", "mem bytes", "MPI calls", "sent", "compute", "memory",
                                     "comm", "time", "bound"};
  bool mca = p.mca_available;
  if (mca) header.insert(header.end(), {"in-core (MCA)", "time (MCA)"});
  Table t(header);
  if (context.all_ranks || p.ranks.size() <= 16) {
    for (const auto& r : p.ranks) add_rank_row(t, r, std::to_string(r.counts.rank), mca);
  } else {
    // Many ranks: the first, the last and the slowest tell the story.
    add_rank_row(t, p.ranks.front(), "0 (first)", mca);
    add_rank_row(t, p.ranks[static_cast<size_t>(p.slowest_rank)], fmt::format("{} (slowest)", p.slowest_rank), mca);
    add_rank_row(t, p.ranks.back(), fmt::format("{} (last)", p.ranks.back().counts.rank), mca);
  }
  return t.render();
}

// The breakdown by site (loop nest) of one rank, costliest first: which nest
// is compute- or memory-bound under the plain formula, and what the refined
// prediction charges it.
std::string sites_text(const model::RankPrediction& r, bool mca) {
  std::vector<const model::SitePrediction*> order;
  double total = 0;
  for (const auto& s : r.sites) {
    if (s.refined_s <= 0 && s.time_s <= 0) continue;
    order.push_back(&s);
    total += s.refined_s;
  }
  if (order.empty()) return "";
  std::stable_sort(order.begin(), order.end(), [](auto* x, auto* y) { return x->refined_s > y->refined_s; });
  constexpr size_t kShown = 8;
  std::vector<std::string> header = {"site (loop nest)", "flops", "bytes", "compute", "memory", "bound"};
  if (mca) header.push_back("in-core (MCA)");
  header.insert(header.end(), {"L1 accesses", "traffic", "refined", "share"});
  Table t(header);
  auto row = [&](const std::string& label, double flops, double bytes, double compute, double memory,
                 const std::string& bound, double in_core, double l1, double traffic, double refined) {
    std::vector<std::string> cells = {label, quantity(flops, Dimension::Flops), quantity(bytes, Dimension::Bytes),
                                      quantity(compute, Dimension::Seconds), quantity(memory, Dimension::Seconds),
                                      bound};
    if (mca) cells.push_back(quantity(in_core, Dimension::Seconds));
    cells.insert(cells.end(), {quantity(l1, Dimension::Seconds), quantity(traffic, Dimension::Seconds),
                               quantity(refined, Dimension::Seconds),
                               total > 0 ? fmt::format("{:.0f} %", 100 * refined / total) : "-"});
    t.add_row(cells);
  };
  model::SitePrediction rest;
  for (size_t i = 0; i < order.size(); ++i) {
    const auto& s = *order[i];
    if (i < kShown) {
      row(site_label(s), s.flops, s.bytes, s.compute_s, s.memory_s, s.memory_bound ? "memory" : "compute",
          s.in_core_s, s.l1_access_s, s.traffic_s, s.refined_s);
      continue;
    }
    rest.flops += s.flops, rest.bytes += s.bytes, rest.compute_s += s.compute_s, rest.memory_s += s.memory_s;
    rest.in_core_s += s.in_core_s, rest.l1_access_s += s.l1_access_s, rest.traffic_s += s.traffic_s;
    rest.refined_s += s.refined_s;
  }
  if (order.size() > kShown)
    row(fmt::format("{} more sites", order.size() - kShown), rest.flops, rest.bytes, rest.compute_s, rest.memory_s,
        "", rest.in_core_s, rest.l1_access_s, rest.traffic_s, rest.refined_s);
  return fmt::format("\nby site, rank {} (the refined prediction's slowest; --json lists every site of every rank):\n",
                     r.counts.rank) +
         t.render();
}

std::string formula_text(const model::Prediction& p, const PredictionContext& context) {
  std::string out = fmt::format("\npredicted time: {} (rank {}, {}-bound; memory level: {})\n",
                                quantity(p.predicted_time_s, Dimension::Seconds), p.slowest_rank,
                                p.ranks[static_cast<size_t>(p.slowest_rank)].memory_bound ? "memory" : "compute",
                                context.memory_level == "auto" ? "by working set" : context.memory_level);
  out += "plain formula with every byte from one level:";
  for (const auto& level : p.level_names)
    if (p.time_s_if_all_in.count(level))
      out += fmt::format("  all-{} {}", level, quantity(p.time_s_if_all_in.at(level), Dimension::Seconds));
  return out + "\n";
}

std::string mca_text(const model::Prediction& p) {
  if (p.mca_available)
    return fmt::format("refined: in-core time of {} loops from LLVM MCA ({} scheduling model): {}\n", p.mca_loops,
                       p.mca_cpu.empty() ? "unknown" : p.mca_cpu, quantity(p.mca_time_s, Dimension::Seconds));
  // Without loops priced by MCA there is nothing to miss: no line.
  if (p.mca_loops > 0) return "refined (MCA): not available: " + p.mca_note + " (e.g. --set node.clock=\"2.1 GHz\")\n";
  return "";
}

std::string footprint_text(const model::Prediction& p) {
  std::string out;
  if (!p.footprint_note.empty()) out += "refined (footprints): not available: " + p.footprint_note + "\n";
  if (p.footprint_available) {
    const auto& r = p.ranks[static_cast<size_t>(p.slowest_rank)];
    bool mca = p.mca_available;
    out += fmt::format(
        "refined: loop footprints (distinct bytes from the level they fit in, every access at L1{}): {}"
        "  [rank {}: core {}, L1 accesses {}, traffic {}]\n",
        mca ? ", in-core from MCA" : "", quantity(p.footprint_time_s, Dimension::Seconds), r.counts.rank,
        quantity(mca ? r.in_core_s : r.compute_s, Dimension::Seconds), quantity(r.l1_access_s, Dimension::Seconds),
        quantity(r.traffic_s, Dimension::Seconds));
  }
  return out;
}

std::string refined_text(const model::Prediction& p, const machine::Machine& machine) {
  const auto& r = p.ranks[static_cast<size_t>(p.refined_slowest_rank)];
  bool measured_overlap = false, by_streams = false;
  for (const auto& g : machine.groups)
    for (const auto& l : g.memory) {
      measured_overlap |= l.serial_fraction > 0 || !l.overlap_streams.empty();
      by_streams |= !l.overlap_streams.empty();
    }
  return fmt::format(
      "refined (the fastest state, a lower bound): per site, {} against {}, {}, summed: {}  [rank {}: sites {}, comm "
      "{} ({}{})]\n",
      p.mca_available ? "in-core time (MCA)" : "flops / peak",
      p.footprint_available ? "footprint traffic" : "memory traffic",
      !measured_overlap ? "their max (no serial_fraction in the machine file)"
      : by_streams      ? "with the serial fractions the machine file gives for each loop's address streams"
                        : "with the serial fractions the machine file gives",
      quantity(p.refined_time_s, Dimension::Seconds), r.counts.rank,
      quantity(r.refined_time_s - r.refined_comm_s, Dimension::Seconds),
      quantity(r.refined_comm_s, Dimension::Seconds),
      !machine.network.intra_node_one_way.empty() || !machine.collectives.empty()
          ? "messages and collectives at the machine's measured times where it has them"
          : "latency + size / bandwidth: the machine file measured no message or collective times",
      r.exchange_messages > 0
          ? fmt::format("; {:g} messages to peers it also receives from at the measured exchange step",
                        r.exchange_messages)
          : "");
}

std::string noisy_text(const model::Prediction& p) {
  if (!p.noise_available)
    return "refined under noise: not available: the machine file has no node.noise (perfcast calibrate "
           "measures it; --noise-only refreshes it)\n";
  return fmt::format(
      "refined under the machine's noise: {} (x {:.3f}, the expected slowest of {} ranks' stretches, each the "
      "mean over a step of {} between the points where ranks wait; each loop's in-core work stretched, not the "
      "memory traffic it waits for, {}; measured when the machine file was: a shared host's noise changes by "
      "the minute); a whole run in the noise's slowest state: {}\n",
      quantity(p.noisy_time_s, Dimension::Seconds), p.noise_stretch, p.np,
      quantity(p.ranks.empty() ? 0.0 : p.ranks[static_cast<size_t>(p.refined_slowest_rank)].noise_step_s,
               Dimension::Seconds),
      p.noise_off_ports_priced ? "its cycles off the ports (divider, dependency chains) at the divider's noise, "
                                 "the rest at the ports'"
                               : "all at the ports' noise (no cycles off the ports, or no divider_stretch in "
                                 "the machine file)",
      quantity(p.noisy_slowest_state_time_s, Dimension::Seconds));
}

std::string simulated_text(const Estimate& e, const sim::SimResult* simulated, const sim::SimResult* baseline) {
  if (!simulated) return "";  // not asked for: no line
  if (baseline) {
    if (!e.time_s) return "refined + simulated: not available: " + e.unavailable + "\n";
    return fmt::format(
        "refined + simulated, the run's simulated time minus the baseline's: {}  [run {}, baseline {}; {} and {} "
        "events]\n",
        quantity(*e.time_s, Dimension::Seconds), quantity(simulated->predicted_time_s, Dimension::Seconds),
        quantity(baseline->predicted_time_s, Dimension::Seconds), simulated->events, baseline->events);
  }
  const auto& s = *simulated;
  const auto& r = s.ranks.at(static_cast<size_t>(s.slowest_rank));
  return fmt::format(
      "refined + simulated: the sites' refined times as bursts between the model's calls on the simulator (overlap, "
      "waits): {}  [rank {}: calc {}, wait {}, comm {}; {} events]\n",
      quantity(s.predicted_time_s, Dimension::Seconds), s.slowest_rank, seconds_text(r.calc_s),
      seconds_text(r.wait_s), seconds_text(r.comm_s), s.events);
}

// The simulation under noise, beside the plain one: what the draws cost the
// job, as the slowest rank's wait grows with them.
std::string simulated_noisy_text(const Estimate& e, const PredictionView& view) {
  if (!view.simulated) return "";  // not asked for: no line
  if (!e.time_s) return "simulated under noise: not available: " + e.unavailable + "\n";
  const auto* s = view.simulated_noisy;
  if (view.baseline_simulated_noisy)
    return fmt::format(
        "simulated under the machine's noise, the run's simulated time minus the baseline's: {}  [run {}, baseline "
        "{}]\n",
        quantity(*e.time_s, Dimension::Seconds), quantity(s->predicted_time_s, Dimension::Seconds),
        quantity(view.baseline_simulated_noisy->predicted_time_s, Dimension::Seconds));
  const auto& r = s->ranks.at(static_cast<size_t>(s->slowest_rank));
  return fmt::format(
      "simulated under the machine's noise: each rank's bursts at a quantile drawn per burst, its in-core work "
      "stretched, not its traffic: {}  [rank {}: calc {}, wait {}, comm {}]\n",
      quantity(*e.time_s, Dimension::Seconds), s->slowest_rank, seconds_text(r.calc_s), seconds_text(r.wait_s),
      seconds_text(r.comm_s));
}

// An estimate no line below knows: its time and slowest rank, or why not.
std::string generic_text(const Estimate& e) {
  if (!e.time_s) return fmt::format("{}: not available: {}\n", e.name, e.unavailable);
  std::string rank = e.slowest_rank ? fmt::format("  [rank {}]", *e.slowest_rank) : "";
  return fmt::format("{}: {}{}\n", e.name, quantity(*e.time_s, Dimension::Seconds), rank);
}

// The line(s) of one estimate, with the detail its own method gives.
std::string estimate_text(const Estimate& e, const PredictionView& view, const PredictionContext& context) {
  const auto& p = view.prediction;
  if (e.name == "formula") return formula_text(p, context);
  if (e.name == "mca") return mca_text(p);
  if (e.name == "footprint") return footprint_text(p);
  if (e.name == "refined") return refined_text(p, view.machine);
  if (e.name == "noisy") return noisy_text(p);
  if (e.name == "simulated") return simulated_text(e, view.simulated, view.baseline_simulated);
  if (e.name == "simulated-noisy") return simulated_noisy_text(e, view);
  return generic_text(e);
}

}  // namespace

std::vector<std::string> prediction_warnings(const PredictionView& view, const PredictionContext& context) {
  std::vector<std::string> out = placement_warnings(view.prediction.placement, {context.unused_network_overrides});
  for (auto& w : physics_warnings(view.machine)) out.push_back(std::move(w));
  // In-core cycles are the scheduling model's of the model's mca.cpu: priced
  // for another CPU than the machine's, they are that CPU's (a divider-bound
  // loop can take twice the cycles on one as on another).
  const std::string& priced_for = view.model.mca_cpu;
  for (const auto& g : view.machine.groups)
    if (!priced_for.empty() && !g.cpu.empty() && g.cpu != priced_for)
      out.push_back(fmt::format(
          "in-core cycles were priced for {} (the model's mca.cpu), the machine's CPU is {} (node{}.cpu): analyse the "
          "program with --machine {} to price them for it",
          priced_for, g.cpu, g.name.empty() ? "" : " group '" + g.name + "'",
          context.machine_file.empty() ? view.machine.name : context.machine_file));
  // OpenMP regions, whose team size the analyser names omp.threads
  // (docs/program-model.md, "OpenMP regions"): counted right, priced on one
  // core (the machine model has no threads per rank).
  const char* omp_threads = "omp.threads";
  if (std::any_of(view.model.parameters.begin(), view.model.parameters.end(),
                  [&](const model::Parameter& p) { return p.name == omp_threads; }))
    out.push_back(fmt::format(
        "the model has OpenMP parallel regions ({}): their counts are the rank's, all its threads together, but the "
        "time prices them on one core, as if the threads ran one after another (the machine model has no threads per "
        "rank yet): the regions' part of the time is the serial time, not the parallel one",
        omp_threads));
  // Calls inside polling loops: one pass each, their trips being timing.
  double most_timing_dependent = 0;
  for (const auto& r : view.prediction.ranks)
    most_timing_dependent = std::max(most_timing_dependent, r.counts.mpi_calls_timing_dependent);
  if (most_timing_dependent > 0) {
    std::string where;
    if (view.model.coverage)
      for (const auto& l : view.model.coverage->polling_loops)
        where += fmt::format("{}{} at {}", where.empty() ? " (" : ", ", l.call, l.site);
    if (!where.empty()) where += ")";
    out.push_back(fmt::format(
        "up to {} MPI calls a rank ('≥' in the table, timing_dependent in --json) are made inside loops that poll "
        "for a completion{}: each loop is counted at the one pass that finds it, a lower bound, since how many passes "
        "it makes is timing, not the input; the time prices the wait at the request's completion",
        count(most_timing_dependent), where));
  }
  if (!view.model.coverage || view.model.coverage->guesses() == 0) return out;
  const model::Coverage& c = *view.model.coverage;
  // An indirect call a probe run bound is counted (at its measured targets).
  const auto unbound = std::count_if(c.unresolved_calls.begin(), c.unresolved_calls.end(),
                                     [](const model::Coverage::Call& k) { return k.probe_targets.empty(); });
  out.push_back(fmt::format(
      "the prediction rests on what the analyser could not follow: {} unresolved calls (their work is not counted), "
      "{} branches at a guessed probability, {} loops of unknown trip count (priced at their parameters' values); "
      "{:.1f} % of the reachable IR instructions are priced. 'perfcast model show {}' lists them",
      unbound, c.guessed_branches.size(), c.unknown_loops.size(), 100.0 * c.priced_share(), context.model_file));
  if (!c.probe_run.empty()) {
    int loops = 0, branches = 0, calls = 0, not_reached = 0;
    for (const auto& l : c.unknown_loops) loops += l.probe_trips.has_value(), not_reached += l.probe_not_reached;
    for (const auto& b : c.guessed_branches)
      branches += b.probe_probability.has_value(), not_reached += b.probe_not_reached;
    for (const auto& k : c.unresolved_calls) calls += !k.probe_targets.empty(), not_reached += k.probe_not_reached;
    out.push_back(fmt::format(
        "{} loop trip counts, {} branch probabilities and the targets of {} indirect calls (and the parameters marked "
        "'probe run') were measured by the probe run {}, at that input: they may not hold at another; {} sites were "
        "not reached by it",
        loops, branches, calls, c.probe_run, not_reached));
  }
  return out;
}

nlohmann::json prediction_json(const PredictionView& view, const PredictionContext& context) {
  const auto& p = view.prediction;
  nlohmann::json ranks = nlohmann::json::array();
  for (const auto& r : p.ranks) ranks.push_back(rank_json(r, p.mca_available, p.footprint_available));
  nlohmann::json estimates = nlohmann::json::array();
  const auto listed = prediction_estimates(p, view.simulated, view.baseline_simulated, view.simulated_noisy,
                                           view.baseline_simulated_noisy);
  for (const auto& e : listed) estimates.push_back(estimate_json(e));
  nlohmann::json j = {{"program", view.model.program},
                      {"model_origin", view.model.origin},
                      {"machine", view.machine.name},
                      {"np", p.np},
                      {"placement", placement_json(p.placement, {context.unused_network_overrides})},
                      {"parameters", context.parameters},
                      {"memory_level", context.memory_level},
                      {"predicted_time_s", p.predicted_time_s},
                      {"slowest_rank", p.slowest_rank},
                      {"time_s_if_all_in", p.time_s_if_all_in},
                      {"ranks", ranks},
                      {"estimate", first_estimate_json(first_estimate(listed, p))},
                      {"estimates", estimates}};
  // The estimates' figures as they were first written, one field each, kept
  // for the scripts that read them (docs/json.md); new estimates appear only
  // in "estimates".
  j["mca_time_s"] = p.mca_available ? nlohmann::json(p.mca_time_s) : nlohmann::json(nullptr);
  j["mca_cpu"] = p.mca_cpu;
  j["mca_loops"] = p.mca_loops;
  if (!p.mca_note.empty()) j["mca_note"] = p.mca_note;
  j["footprint_time_s"] = p.footprint_available ? nlohmann::json(p.footprint_time_s) : nlohmann::json(nullptr);
  if (!p.footprint_note.empty()) j["footprint_note"] = p.footprint_note;
  j["refined_time_s"] = p.refined_time_s;
  j["refined_slowest_rank"] = p.refined_slowest_rank;
  j["noise_stretch"] = p.noise_available ? nlohmann::json(p.noise_stretch) : nlohmann::json(nullptr);
  j["noisy_time_s"] = p.noise_available ? nlohmann::json(p.noisy_time_s) : nlohmann::json(nullptr);
  j["noisy_slowest_state_time_s"] =
      p.noise_available ? nlohmann::json(p.noisy_slowest_state_time_s) : nlohmann::json(nullptr);
  j["noise_off_ports_priced"] = p.noise_off_ports_priced;
  // The simulated block has the schema of `perfcast simulate --json`, its machine warnings included.
  const nlohmann::json machine_warnings = physics_warnings(view.machine);
  if (view.simulated) {
    j["simulated"] = sim_result_json(*view.simulated, context.include_wall, {context.unused_network_overrides});
    j["simulated"]["warnings"]["machine"] = machine_warnings;
  }
  // A timed part: the baseline it subtracts; "ranks" and "estimates" are of the difference.
  if (!context.baseline_parameters.empty()) j["baseline_parameters"] = context.baseline_parameters;
  if (view.baseline_simulated)
    j["baseline_simulated"] =
        sim_result_json(*view.baseline_simulated, context.include_wall, {context.unused_network_overrides});
  if (view.baseline_simulated) j["baseline_simulated"]["warnings"]["machine"] = machine_warnings;
  j["warnings"] = prediction_warnings(view, context);
  if (const auto& c = view.model.coverage)
    j["coverage"] = {{"unresolved_calls", c->unresolved_calls.size()},
                     {"guessed_branches", c->guessed_branches.size()},
                     {"unknown_loops", c->unknown_loops.size()},
                     {"polling_loops", c->polling_loops.size()},
                     {"priced_share", c->priced_share()}};
  else
    j["coverage"] = nullptr;
  return j;
}

std::string prediction_text(const PredictionView& view, const PredictionContext& context) {
  const auto& p = view.prediction;
  const auto& m = view.model;
  std::string params;
  for (const auto& s : context.parameters) params += " " + s;
  std::string out = fmt::format("{} on {} ({} ranks){}; model: {} ({})\n",
                                m.program.empty() ? context.model_file : m.program, view.machine.name, p.np, params,
                                context.model_file, m.origin.empty() ? "unknown origin" : m.origin);
  out += placement_text(p.placement) + "\n";
  if (!context.baseline_parameters.empty()) {
    std::string baseline;
    for (const auto& b : context.baseline_parameters) baseline += " " + b;
    out += fmt::format("timed part: the run minus the baseline ({}): every count and time below is of the work "
                       "between them\n\n",
                       baseline.substr(1));
  }
  // The estimate to read first, then the ranks, the analytic estimates, the
  // breakdown by site they share, and what ran on the simulator.
  auto estimates = prediction_estimates(p, view.simulated, view.baseline_simulated, view.simulated_noisy,
                                        view.baseline_simulated_noisy);
  out += first_estimate_text(first_estimate(estimates, p)) + "\n";
  out += rank_table(p, context);
  for (const auto& e : estimates)
    if (e.engine == Estimate::Engine::Formula) out += estimate_text(e, view, context);
  out += sites_text(p.ranks[static_cast<size_t>(p.refined_slowest_rank)], p.mca_available);
  if (!context.all_ranks && p.ranks.size() > 16) out += "(--all-ranks lists every rank; --json gives them all)\n";
  for (const auto& e : estimates)
    if (e.engine == Estimate::Engine::Simulator) out += estimate_text(e, view, context);
  return out;
}

}  // namespace perfcast::report
