// `perfcast predict`: a program model's counts per rank, priced on a machine.
#include <algorithm>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/count_checks.h"
#include "cli/commands.h"
#include "cli/machine_options.h"
#include "cli/parameters.h"
#include "cli/progress_line.h"
#include "modelsim/model_simulation.h"
#include "model/predict.h"
#include "report/table.h"
#include "sim/sim_report.h"
#include "support/units.h"

namespace perfcast::cli {

namespace {

using units::Dimension;

struct PredictArgs {
  std::string model_file;
  MachineOptions machine;
  int np = 1;
  std::vector<std::string> params;
  std::string memory = "auto";
  bool scalar = false;
  bool json = false;
  bool all_ranks = false;
  bool simulate = false;
  std::uint64_t max_events = 50'000'000;
};

std::string quantity(double v, Dimension d) { return units::format(v, d, 4); }
std::string count(double v) { return v >= 1e5 ? fmt::format("{:.4g}", v) : fmt::format("{:.0f}", v); }

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
          {"math_calls", c.math_calls},
          {"loads", c.loads},
          {"stores", c.stores},
          {"load_bytes", c.load_bytes},
          {"store_bytes", c.store_bytes},
          {"mpi_calls", c.mpi_calls},
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
  nlohmann::json sites = nlohmann::json::array();
  for (const auto& s : r.sites) {
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
                           {"off_ports_s", s.off_ports_s}};
    if (!s.note.empty()) site["note"] = s.note;
    if (s.streams > 0) site["streams"] = s.streams, site["effective_streams"] = s.effective_streams;
    sites.push_back(std::move(site));
  }
  j["sites"] = std::move(sites);
  return j;
}

// "main:177 leapfrog_step": the site's function and loop line, and the source
// function its code was inlined from, when the analyser noted one.
std::string site_label(const model::SitePrediction& s) {
  std::string label = s.line > 0 ? fmt::format("{}:{}", s.function, s.line) : s.function + " (rest)";
  const std::string from = "inlined from ";
  if (s.note.rfind(from, 0) == 0) label += " " + s.note.substr(from.size(), s.note.find(' ', from.size()) - from.size());
  return label;
}

// The overlap refinement: the model's calls on the engine (modelsim).
nlohmann::json simulated_json(const sim::SimResult& s) {
  nlohmann::json ranks = nlohmann::json::array();
  for (size_t r = 0; r < s.ranks.size(); ++r)
    ranks.push_back({{"rank", r}, {"calc_s", s.ranks[r].calc_s}, {"wait_s", s.ranks[r].wait_s},
                     {"comm_s", s.ranks[r].comm_s}, {"time_s", s.ranks[r].end_s}});
  return {{"predicted_time_s", s.predicted_time_s}, {"events", s.events}, {"mpi_calls", s.mpi_calls},
          {"wall_s", s.wall_s}, {"slowest_rank", s.slowest_rank}, {"slowest_component", s.slowest_component},
          {"ranks", ranks}};
}

nlohmann::json prediction_json(const model::Prediction& p, const model::ProgramModel& m,
                               const machine::Machine& machine, const PredictArgs& a) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const auto& r : p.ranks) ranks.push_back(rank_json(r, p.mca_available, p.footprint_available));
  nlohmann::json j = {{"program", m.program},
          {"model_origin", m.origin},
          {"machine", machine.name},
          {"np", p.np},
          {"parameters", a.params},
          {"memory_level", a.memory},
          {"predicted_time_s", p.predicted_time_s},
          {"slowest_rank", p.slowest_rank},
          {"time_s_if_all_in", p.time_s_if_all_in},
          {"ranks", ranks}};
  // The MCA refinement beside the plain formula; null with a note when unavailable.
  j["mca_time_s"] = p.mca_available ? nlohmann::json(p.mca_time_s) : nlohmann::json(nullptr);
  j["mca_cpu"] = p.mca_cpu;
  j["mca_loops"] = p.mca_loops;
  if (!p.mca_note.empty()) j["mca_note"] = p.mca_note;
  // The footprint refinement; null when no loop the entry runs carries a footprint.
  j["footprint_time_s"] = p.footprint_available ? nlohmann::json(p.footprint_time_s) : nlohmann::json(nullptr);
  if (!p.footprint_note.empty()) j["footprint_note"] = p.footprint_note;
  // The refined prediction: per site, every refinement available, summed.
  j["refined_time_s"] = p.refined_time_s;
  j["refined_slowest_rank"] = p.refined_slowest_rank;
  // Under the machine's measured noise; null when its nodes have none.
  j["noise_stretch"] = p.noise_available ? nlohmann::json(p.noise_stretch) : nlohmann::json(nullptr);
  j["noisy_time_s"] = p.noise_available ? nlohmann::json(p.noisy_time_s) : nlohmann::json(nullptr);
  j["noise_off_ports_priced"] = p.noise_off_ports_priced;
  return j;
}

void add_rank_row(report::Table& t, const model::RankPrediction& r, const std::string& label, bool mca) {
  const auto& c = r.counts;
  std::vector<std::string> row = {label, std::to_string(r.node), quantity(r.flops, Dimension::Flops),
             quantity(c.load_bytes + c.store_bytes, Dimension::Bytes), count(c.mpi_calls),
             quantity(c.sent_bytes, Dimension::Bytes), quantity(r.compute_s, Dimension::Seconds),
             quantity(r.memory_s, Dimension::Seconds), quantity(r.overhead_s + r.latency_s + r.transfer_s, Dimension::Seconds),
             quantity(r.time_s, Dimension::Seconds), r.memory_bound ? "memory" : "compute"};
  if (mca) {
    row.push_back(quantity(r.in_core_s, Dimension::Seconds));
    row.push_back(quantity(r.mca_time_s, Dimension::Seconds));
  }
  t.add_row(row);
}

// The breakdown by site (loop nest) of one rank, costliest first: which nest
// is compute- or memory-bound under the plain formula, and what the refined
// prediction charges it.
void print_sites(const model::RankPrediction& r, bool mca) {
  std::vector<const model::SitePrediction*> order;
  double total = 0;
  for (const auto& s : r.sites) {
    if (s.refined_s <= 0 && s.time_s <= 0) continue;
    order.push_back(&s);
    total += s.refined_s;
  }
  if (order.empty()) return;
  std::stable_sort(order.begin(), order.end(), [](auto* x, auto* y) { return x->refined_s > y->refined_s; });
  constexpr size_t kShown = 8;
  std::vector<std::string> header = {"site (loop nest)", "flops", "bytes", "compute", "memory", "bound"};
  if (mca) header.push_back("in-core (MCA)");
  header.insert(header.end(), {"L1 accesses", "traffic", "refined", "share"});
  report::Table t(header);
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
  std::cout << fmt::format("\nby site, rank {} (the refined prediction's slowest; --json lists every site of every rank):\n",
                           r.counts.rank)
            << t.render();
}

void print_table(const model::Prediction& p, const model::ProgramModel& m, const machine::Machine& machine,
                 const PredictArgs& a) {
  std::string params;
  for (const auto& s : a.params) params += " " + s;
  std::cout << fmt::format("{} on {} ({} ranks){}; model: {} ({})\n\n", m.program.empty() ? a.model_file : m.program,
                           machine.name, p.np, params, a.model_file, m.origin.empty() ? "unknown origin" : m.origin);
  std::vector<std::string> header = {"rank", "node", "flops", "mem bytes", "MPI calls", "sent", "compute", "memory",
                                     "comm", "time", "bound"};
  bool mca = p.mca_available;
  if (mca) header.insert(header.end(), {"in-core (MCA)", "time (MCA)"});
  report::Table t(header);
  if (a.all_ranks || p.ranks.size() <= 16) {
    for (const auto& r : p.ranks) add_rank_row(t, r, std::to_string(r.counts.rank), mca);
  } else {
    // Many ranks: the first, the last and the slowest tell the story.
    add_rank_row(t, p.ranks.front(), "0 (first)", mca);
    add_rank_row(t, p.ranks[static_cast<size_t>(p.slowest_rank)], fmt::format("{} (slowest)", p.slowest_rank), mca);
    add_rank_row(t, p.ranks.back(), fmt::format("{} (last)", p.ranks.back().counts.rank), mca);
  }
  std::cout << t.render();
  std::cout << fmt::format("\npredicted time: {} (rank {}, {}-bound; memory level: {})\n",
                           quantity(p.predicted_time_s, Dimension::Seconds), p.slowest_rank,
                           p.ranks[static_cast<size_t>(p.slowest_rank)].memory_bound ? "memory" : "compute",
                           a.memory == "auto" ? "by working set" : a.memory);
  std::cout << "plain formula with every byte from one level:";
  for (const auto& level : p.level_names)
    if (p.time_s_if_all_in.count(level))
      std::cout << fmt::format("  all-{} {}", level, quantity(p.time_s_if_all_in.at(level), Dimension::Seconds));
  std::cout << "\n";
  if (mca)
    std::cout << fmt::format("refined: in-core time of {} loops from LLVM MCA ({} scheduling model): {}\n",
                             p.mca_loops, p.mca_cpu.empty() ? "unknown" : p.mca_cpu,
                             quantity(p.mca_time_s, Dimension::Seconds));
  else if (p.mca_loops > 0)
    std::cout << "refined (MCA): not available: " << p.mca_note << " (e.g. --set node.clock=\"2.1 GHz\")\n";
  if (!p.footprint_note.empty()) std::cout << "refined (footprints): not available: " << p.footprint_note << "\n";
  if (p.footprint_available) {
    const auto& r = p.ranks[static_cast<size_t>(p.slowest_rank)];
    std::cout << fmt::format(
        "refined: loop footprints (distinct bytes from the level they fit in, every access at L1{}): {}"
        "  [rank {}: core {}, L1 accesses {}, traffic {}]\n",
        mca ? ", in-core from MCA" : "", quantity(p.footprint_time_s, Dimension::Seconds), r.counts.rank,
        quantity(mca ? r.in_core_s : r.compute_s, Dimension::Seconds), quantity(r.l1_access_s, Dimension::Seconds),
        quantity(r.traffic_s, Dimension::Seconds));
  }
  {
    const auto& r = p.ranks[static_cast<size_t>(p.refined_slowest_rank)];
    bool measured_overlap = false, by_streams = false;
    for (const auto& g : machine.groups)
      for (const auto& l : g.memory) {
        measured_overlap |= l.serial_fraction > 0 || !l.overlap_streams.empty();
        by_streams |= !l.overlap_streams.empty();
      }
    std::cout << fmt::format(
        "refined: per site, {} against {}, {}, summed: {}  [rank {}: sites {}, comm {} ({}{})]\n",
        mca ? "in-core time (MCA)" : "flops / peak", p.footprint_available ? "footprint traffic" : "memory traffic",
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
  if (p.noise_available)
    std::cout << fmt::format(
        "refined under the machine's noise: {} (x {:.3f}, the expected slowest of {} ranks' stretches; each "
        "loop's in-core work stretched, not the memory traffic it waits for, {}; measured when the machine file "
        "was: a shared host's noise changes by the minute)\n",
        quantity(p.noisy_time_s, Dimension::Seconds), p.noise_stretch, p.np,
        p.noise_off_ports_priced ? "its cycles off the ports (divider, dependency chains) at the divider's noise, "
                                   "the rest at the ports'"
                                 : "all at the ports' noise (no cycles off the ports, or no divider_stretch in "
                                   "the machine file)");
  else
    std::cout << "refined under noise: not available: the machine file has no node.noise (perfcast calibrate "
                 "measures it; --noise-only refreshes it)\n";
  print_sites(p.ranks[static_cast<size_t>(p.refined_slowest_rank)], mca);
  if (!a.all_ranks && p.ranks.size() > 16) std::cout << "(--all-ranks lists every rank; --json gives them all)\n";
}

}  // namespace

void add_predict_command(CLI::App& app) {
  auto a = std::make_shared<PredictArgs>();
  CLI::App* cmd = app.add_subcommand(
      "predict",
      "Predict time and counts per rank from a program model (docs/program-model.md) and a machine model: "
      "T_rank = max(flops/peak, bytes/bandwidth) + messages*latency + bytes/net_bandwidth, T = max over ranks, "
      "with memory levels chosen by working set where the model gives one.");
  cmd->add_option("model", a->model_file, "Program model (JSON), e.g. apps/wave3d/wave3d.model.json")
      ->required()
      ->check(CLI::ExistingFile);
  add_machine_options(*cmd, a->machine);
  cmd->add_option("-n,--np", a->np, "Number of MPI ranks")->required()->check(kPositiveCount);
  add_parameter_option(*cmd, a->params);
  cmd->add_option("--memory", a->memory,
                  "Memory level for all traffic (L1, L2, L3, DRAM), or 'auto': by each loop's working set, "
                  "the outermost level where the model gives none")
      ->capture_default_str();
  cmd->add_flag("--scalar", a->scalar, "Price flops at the scalar (non-SIMD) rate");
  cmd->add_flag("--all-ranks", a->all_ranks, "List every rank in the table");
  cmd->add_flag("--simulate", a->simulate,
                 "Also run the model's calls on the simulator (the overlap refinement): messages travel while "
                 "the compute between their post and their wait runs, ranks wait for their partners; "
                 "bursts are priced as the refined prediction prices their loop nests; reports the simulated time and calc/wait/comm per rank beside the formula");
  cmd->add_option("--max-events", a->max_events,
                  "With --simulate: refuse to make more events than this over all ranks (a guard against a runaway "
                  "loop bound; the events stream into the simulator, so memory stays flat; about 2 M events a second "
                  "on a 2-core Zen 3 VM)")
      ->capture_default_str();
  cmd->add_flag("--json", a->json, "Print the figures as JSON");
  cmd->footer(
      "Example: perfcast predict apps/wave3d/wave3d.model.json --machine polus --np 4 --param n=128 "
      "--param steps=100");

  cmd->callback([a] {
    model::ProgramModel m = model::load_program_model(a->model_file);
    machine::Machine machine = load_machine(a->machine);
    model::SymbolicCosts costs = model::symbolic_costs(m);
    model::PredictOptions options{.memory_level = a->memory, .simd = !a->scalar};
    auto parameters = bind_parameters(m, a->params);
    model::Prediction p = model::predict(m, costs, machine, a->np, parameters, options);
    std::optional<sim::SimResult> simulated;
    if (a->simulate) {
      ProgressLine progress(!a->json);
      simulated = modelsim::simulate_model(m, machine, a->np, parameters, options, a->max_events,
                                           [&](const sim::SimProgress& sp) { progress.show(sim::progress_text(sp)); });
    }
    if (a->json) {
      nlohmann::json j = prediction_json(p, m, machine, *a);
      if (simulated) j["simulated"] = simulated_json(*simulated);
      std::cout << j.dump(2) << "\n";
      return;
    }
    print_table(p, m, machine, *a);
    if (simulated) {
      const auto& s = *simulated;
      const auto& r = s.ranks.at(static_cast<size_t>(s.slowest_rank));
      std::cout << fmt::format(
          "refined + simulated: the sites' refined times as bursts between the model's calls on the simulator (overlap, waits): {}  [rank {}: calc {}, wait {}, comm {}; "
          "{} events]\n",
          quantity(s.predicted_time_s, Dimension::Seconds), s.slowest_rank, sim::seconds_text(r.calc_s),
          sim::seconds_text(r.wait_s), sim::seconds_text(r.comm_s), s.events);
    }
  });
}

}  // namespace perfcast::cli
