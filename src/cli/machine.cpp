// `perfcast machine show FILE...`: a machine file with the figures derived from
// it; `perfcast machine check FILE...`: its figures against machine/physics.h. The figures are collected once (MachineFigures) and rendered either as
// tables or as JSON, so the two cannot disagree.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/machine_options.h"
#include "machine/machine_io.h"
#include "machine/physics.h"
#include "simgrid/platform.h"
#include "support/output_file.h"
#include "report/table.h"
#include "support/error.h"
#include "support/units.h"

namespace perfcast::cli {

namespace {

using units::Dimension;
using json = nlohmann::json;

struct LevelFigures {
  std::string name;
  std::optional<double> size_bytes;
  bool shared = false;
  std::optional<double> capacity_per_core_all_cores_bytes;  // when every core uses the level
  double bandwidth_one_core_Bps = 0;                        // one core streaming alone
  double bandwidth_per_core_all_cores_Bps = 0;              // each core, all streaming
  double node_bandwidth_Bps = 0;                            // the node, all streaming
  double serial_fraction = 0;                               // of in-core work and transfers (0: none given)
  // overlap_by_streams at core = memory, by stream count (empty: no table).
  std::vector<std::pair<int, double>> serial_fraction_by_streams;
  // bandwidth_by_cores: cores streaming at once -> bandwidth each (empty: not measured).
  std::vector<std::pair<int, double>> bandwidth_by_cores;
};

struct GroupFigures {
  std::string name;
  int nodes = 0;
  int cores = 0;
  double flops_per_core = 0, flops_per_core_single = 0, flops_per_core_scalar = 0, flops_per_core_single_scalar = 0;
  std::optional<double> clock_Hz;
  std::optional<double> busy_slowdown;  // in-core time with all cores busy over one alone
  std::string cpu;                      // node.cpu: LLVM's name of the cores' CPU, or empty
  // node.instruction_cycles in a few words ("FP add 2.05, ..."), or empty.
  std::string instruction_cycles;
  // Noise: one core's mean stretch and the expected slowest of all cores busy.
  std::optional<double> noise_mean_stretch, noise_all_cores_stretch;
  // How long a core's noise state persists (noise.spell); none: no noise, or not measured.
  std::optional<double> noise_spell_s;
  bool has_noise = false;
  double peak_flops_per_node = 0;
  double memory_bandwidth_per_node_Bps = 0;
  double balance_bytes_per_flop = 0;
  std::vector<LevelFigures> memory;
  double math_default_flops_double = 0, math_default_flops_single = 0;
};

struct CollectiveFigures {
  std::string op;
  int procs_min = 0, procs_max = 0;
  std::int64_t bytes_min = 0, bytes_max = 0;
};

struct MachineFigures {
  std::string file, name, description;
  // Figures outside what hardware does (machine/physics.h), one sentence each.
  std::vector<std::string> implausible;
  int nodes = 0, total_cores = 0;
  double peak_flops = 0;
  std::vector<GroupFigures> groups;
  // network
  double latency_s = 0, bandwidth_Bps = 0, hop_latency_s = 0, overhead_s = 0, eager_threshold_bytes = 0;
  double intra_node_latency_s = 0, intra_node_bandwidth_Bps = 0;
  std::string intra_node_one_way;  // the measured curve in a few words, or empty
  std::string intra_node_exchange;  // the same for the exchange step
  std::string topology, topology_shape;
  int diameter_hops = 0;
  double diameter_latency_s = 0;  // between two nodes farthest apart
  std::string mapping;
  std::vector<CollectiveFigures> collectives;
};

MachineFigures collect(const std::string& file, const machine::Machine& m) {
  MachineFigures f;
  f.file = file;
  f.name = m.name;
  f.description = m.description;
  for (const auto& finding : machine::physics_findings(m)) f.implausible.push_back(machine::describe(finding));
  f.nodes = m.node_count();
  f.total_cores = m.total_cores();
  f.peak_flops = m.peak_flops();
  for (const auto& g : m.groups) {
    GroupFigures gf;
    gf.name = g.name;
    gf.nodes = g.count;
    gf.cores = g.cores;
    gf.flops_per_core = g.flops_per_core;
    gf.flops_per_core_single = g.flops_per_core_single;
    gf.flops_per_core_scalar = g.flops_per_core_scalar;
    gf.flops_per_core_single_scalar = g.flops_per_core_single_scalar;
    gf.clock_Hz = g.clock_Hz;
    gf.busy_slowdown = g.busy_slowdown;
    gf.cpu = g.cpu;
    if (const auto& c = g.instruction_cycles; !c.empty()) {
      std::vector<std::string> parts;
      for (const auto& field : machine::instruction_cycle_fields())
        if (c.*field.value > 0) parts.push_back(fmt::format("{} {:.3g}", field.label, c.*field.value));
      gf.instruction_cycles = fmt::format("{} cycles", fmt::join(parts, ", "));
    }
    if (!g.noise.empty()) {
      gf.noise_mean_stretch = g.noise.mean();
      gf.noise_all_cores_stretch =
          machine::expected_slowest_stretch(std::vector<const machine::Noise*>(static_cast<size_t>(g.cores), &g.noise));
      gf.has_noise = true;
      if (g.noise.spell_s > 0) gf.noise_spell_s = g.noise.spell_s;
    }
    gf.peak_flops_per_node = g.peak_flops_per_node();
    gf.memory_bandwidth_per_node_Bps = g.memory_bandwidth_per_node_Bps();
    gf.balance_bytes_per_flop = g.balance_bytes_per_flop();
    for (const auto& level : g.memory) {
      LevelFigures lf{level.name, level.size_bytes, level.shared, level.capacity_per_core_bytes(g.cores),
                      level.bandwidth_Bps, level.bandwidth_per_core_Bps(g.cores), level.node_total_Bps(g.cores),
                      level.serial_fraction, {}, {}};
      for (double s : level.overlap_streams)
        lf.serial_fraction_by_streams.emplace_back(static_cast<int>(s), level.serial_fraction_for(s, 1.0));
      for (size_t i = 0; i < level.sharing_cores.size(); ++i)
        lf.bandwidth_by_cores.emplace_back(level.sharing_cores[i], level.sharing_per_core_Bps[i]);
      gf.memory.push_back(std::move(lf));
    }
    gf.math_default_flops_double = g.math.default_double_flops;
    gf.math_default_flops_single = g.math.default_single_flops;
    f.groups.push_back(std::move(gf));
  }
  const auto& n = m.network;
  f.latency_s = n.latency_s;
  f.bandwidth_Bps = n.bandwidth_Bps;
  f.hop_latency_s = n.hop_latency_s;
  f.overhead_s = n.overhead_s;
  f.eager_threshold_bytes = n.eager_threshold_bytes;
  f.intra_node_latency_s = n.intra_node_latency_s;
  f.intra_node_bandwidth_Bps = n.intra_node_bandwidth_Bps;
  auto curve = [](const machine::MessageTimes& t) {
    if (t.empty()) return std::string();
    return fmt::format("{} sizes, {} in {} .. {} in {}", t.bytes.size(), units::format(t.bytes.front(), Dimension::Bytes),
                       units::format(t.time_s.front(), Dimension::Seconds), units::format(t.bytes.back(), Dimension::Bytes),
                       units::format(t.time_s.back(), Dimension::Seconds));
  };
  f.intra_node_one_way = curve(n.intra_node_one_way);
  f.intra_node_exchange = curve(n.intra_node_exchange);
  f.topology = machine::topology_name(n.topology.kind);
  switch (n.topology.kind) {
    case machine::TopologyKind::Crossbar: f.topology_shape = "one switch"; break;
    case machine::TopologyKind::FatTree:
      f.topology_shape = fmt::format("arity {}, {} levels", n.topology.fat_tree_arity, n.topology.fat_tree_levels);
      break;
    case machine::TopologyKind::Torus3D:
      f.topology_shape = fmt::format("{} x {} x {}", n.topology.torus[0], n.topology.torus[1], n.topology.torus[2]);
      break;
  }
  f.diameter_hops = m.diameter_hops();
  // The diameter's end points: for every topology here, some pair at that
  // distance includes node 0, so scanning node 0's distances is exact.
  f.diameter_latency_s = f.nodes > 1 ? m.network.latency_s : m.network.intra_node_latency_s;
  if (f.nodes > 1) {
    int far = 0;
    for (int node = 1; node < f.nodes && far == 0; ++node)
      if (m.hops(0, node) == f.diameter_hops) far = node;
    f.diameter_latency_s = m.node_latency_s(0, far);
  }
  f.mapping = machine::mapping_policy_name(m.mapping.policy);
  if (m.mapping.ranks_per_node) f.mapping += fmt::format(", {} ranks per node", *m.mapping.ranks_per_node);
  if (m.mapping.policy == machine::MappingPolicy::File)
    f.mapping += fmt::format(" ({}, {} ranks)", m.mapping.file.string(), m.mapping.file_nodes.size());
  for (const auto& c : m.collectives)
    f.collectives.push_back({machine::collective_op_name(c.op), c.procs.front(), c.procs.back(), c.bytes.front(),
                             c.bytes.back()});
  return f;
}

std::string q(double value, Dimension d) { return units::format(value, d); }
std::string q(const std::optional<double>& value, Dimension d) { return value ? units::format(*value, d) : "-"; }
std::string balance(double bytes_per_flop) { return fmt::format("{:.3g}", bytes_per_flop); }

// Descriptions are long single lines in the file (TOML line continuations).
std::string wrap(const std::string& text, size_t width) {
  std::string out, line, word;
  auto flush_word = [&] {
    if (word.empty()) return;
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    word.clear();
  };
  for (char c : text) {
    if (c == '\n') {
      flush_word();
      out += line + "\n";
      line.clear();
    } else if (c == ' ') {
      flush_word();
    } else {
      word += c;
    }
  }
  flush_word();
  if (!line.empty()) out += line + "\n";
  return out;
}

std::string render_text(const MachineFigures& f) {
  using report::Table;
  std::string out = fmt::format("machine {}  ({})\n", f.name, f.file);
  if (!f.description.empty()) out += wrap(f.description, 100);
  for (const auto& finding : f.implausible) out += wrap("implausible: " + finding, 100);
  out += "\n";

  Table summary({"figure", "value"}, {Table::Align::Left, Table::Align::Right});
  summary.add_row({"nodes", std::to_string(f.nodes)});
  summary.add_row({"total cores", std::to_string(f.total_cores)});
  summary.add_row({"peak", q(f.peak_flops, Dimension::FlopsPerSecond)});
  out += summary.render() + "\n";

  Table groups({"node group", "nodes", "cores", "per core", "single", "scalar", "clock", "peak per node",
                "DRAM per node", "balance B/flop", "noise: 1 core | slowest of all"});
  auto noise = [](const GroupFigures& g) {
    return g.noise_mean_stretch ? fmt::format("x{:.3f} | x{:.3f}", *g.noise_mean_stretch, *g.noise_all_cores_stretch)
                                : std::string("-");
  };
  for (const auto& g : f.groups)
    groups.add_row({g.name.empty() ? "node" : g.name, std::to_string(g.nodes), std::to_string(g.cores),
                    q(g.flops_per_core, Dimension::FlopsPerSecond), q(g.flops_per_core_single, Dimension::FlopsPerSecond),
                    q(g.flops_per_core_scalar, Dimension::FlopsPerSecond), q(g.clock_Hz, Dimension::Hertz),
                    q(g.peak_flops_per_node, Dimension::FlopsPerSecond),
                    q(g.memory_bandwidth_per_node_Bps, Dimension::BytesPerSecond), balance(g.balance_bytes_per_flop),
                    noise(g)});
  out += groups.render() + "\n";
  for (const auto& g : f.groups)
    out += fmt::format("in-core slowdown, all cores busy{}: {}\n", g.name.empty() ? "" : " (" + g.name + ")",
                       g.busy_slowdown ? fmt::format("x{:.3f}", *g.busy_slowdown) : "not measured");
  for (const auto& g : f.groups)
    if (g.has_noise)
      out += fmt::format("noise state lasts{}: {}\n", g.name.empty() ? "" : " (" + g.name + ")",
                         g.noise_spell_s ? q(*g.noise_spell_s, Dimension::Seconds)
                                         : "not measured (consecutive quanta taken as independent)");
  for (const auto& g : f.groups)
    out += fmt::format("CPU, as LLVM names it{}: {}\n", g.name.empty() ? "" : " (" + g.name + ")",
                       g.cpu.empty() ? "not given" : g.cpu);
  out += "\n";
  for (const auto& g : f.groups)
    if (!g.instruction_cycles.empty())
      out += fmt::format("instruction cycles{}: {}\n\n", g.name.empty() ? "" : " (" + g.name + ")", g.instruction_cycles);

  for (const auto& g : f.groups) {
    Table memory({"memory" + (g.name.empty() ? std::string() : " (" + g.name + ")"), "size", "shared",
                  "size/core, all busy", "bandwidth, 1 core", "bandwidth/core, all busy", "node, all busy",
                  "serial fraction", "by streams, core = mem", "bandwidth/core by cores streaming"});
    for (const auto& l : g.memory) {
      std::string by_streams;
      for (const auto& [streams, f] : l.serial_fraction_by_streams)
        by_streams += fmt::format("{}{}: {:.2f}", by_streams.empty() ? "" : ", ", streams, f);
      std::string by_cores;
      for (const auto& [cores, bandwidth] : l.bandwidth_by_cores)
        by_cores += fmt::format("{}{}: {}", by_cores.empty() ? "" : ", ", cores, q(bandwidth, Dimension::BytesPerSecond));
      memory.add_row({l.name, q(l.size_bytes, Dimension::Bytes), l.shared ? "yes" : "no",
                      q(l.capacity_per_core_all_cores_bytes, Dimension::Bytes),
                      q(l.bandwidth_one_core_Bps, Dimension::BytesPerSecond),
                      q(l.bandwidth_per_core_all_cores_Bps, Dimension::BytesPerSecond),
                      q(l.node_bandwidth_Bps, Dimension::BytesPerSecond),
                      l.serial_fraction > 0 ? fmt::format("{:.2f}", l.serial_fraction) : "-",
                      by_streams.empty() ? "-" : by_streams, by_cores.empty() ? "not measured" : by_cores});
    }
    out += memory.render() + "\n";
  }

  Table network({"network", "value"}, {Table::Align::Left, Table::Align::Right});
  network.add_row({"latency", q(f.latency_s, Dimension::Seconds)});
  network.add_row({"bandwidth", q(f.bandwidth_Bps, Dimension::BytesPerSecond)});
  network.add_row({"hop latency", q(f.hop_latency_s, Dimension::Seconds)});
  network.add_row({"overhead per message", q(f.overhead_s, Dimension::Seconds)});
  network.add_row({"eager threshold", q(f.eager_threshold_bytes, Dimension::Bytes)});
  network.add_row({"intra-node latency", q(f.intra_node_latency_s, Dimension::Seconds)});
  network.add_row({"intra-node bandwidth", q(f.intra_node_bandwidth_Bps, Dimension::BytesPerSecond)});
  if (!f.intra_node_one_way.empty()) network.add_row({"intra-node messages, measured", f.intra_node_one_way});
  if (!f.intra_node_exchange.empty())
    network.add_row({"intra-node exchange steps, measured", f.intra_node_exchange});
  network.add_row({"topology", f.topology + " (" + f.topology_shape + ")"});
  network.add_row({"diameter", fmt::format("{} hop{}", f.diameter_hops, f.diameter_hops == 1 ? "" : "s")});
  network.add_row({"latency across the diameter", q(f.diameter_latency_s, Dimension::Seconds)});
  network.add_row({"mapping", f.mapping});
  out += network.render();

  if (!f.collectives.empty()) {
    Table collectives({"collective table", "procs", "bytes"});
    for (const auto& c : f.collectives)
      collectives.add_row({c.op, fmt::format("{}..{}", c.procs_min, c.procs_max),
                           fmt::format("{}..{}", c.bytes_min, c.bytes_max)});
    out += "\n" + collectives.render();
  }
  return out;
}

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json render_json(const MachineFigures& f) {
  json groups = json::array();
  for (const auto& g : f.groups) {
    json memory = json::array();
    for (const auto& l : g.memory) {
      json by_streams = json::object();
      for (const auto& [streams, f] : l.serial_fraction_by_streams) by_streams[std::to_string(streams)] = f;
      json by_cores = nullptr;  // not measured
      for (const auto& [cores, bandwidth] : l.bandwidth_by_cores) by_cores[std::to_string(cores)] = bandwidth;
      memory.push_back({{"name", l.name},
                        {"size_bytes", optional_number(l.size_bytes)},
                        {"shared", l.shared},
                        {"capacity_per_core_all_cores_bytes", optional_number(l.capacity_per_core_all_cores_bytes)},
                        {"bandwidth_one_core_Bps", l.bandwidth_one_core_Bps},
                        {"bandwidth_per_core_all_cores_Bps", l.bandwidth_per_core_all_cores_Bps},
                        {"node_bandwidth_Bps", l.node_bandwidth_Bps},
                        {"serial_fraction", l.serial_fraction},
                        {"serial_fraction_by_streams_at_balance", by_streams},
                        {"bandwidth_per_core_by_cores", by_cores}});
    }
    groups.push_back({{"name", g.name},
                      {"nodes", g.nodes},
                      {"cores", g.cores},
                      {"flops_per_core", g.flops_per_core},
                      {"flops_per_core_single", g.flops_per_core_single},
                      {"flops_per_core_scalar", g.flops_per_core_scalar},
                      {"flops_per_core_single_scalar", g.flops_per_core_single_scalar},
                      {"clock_Hz", optional_number(g.clock_Hz)},
                      {"busy_slowdown", optional_number(g.busy_slowdown)},
                      {"cpu", g.cpu.empty() ? json(nullptr) : json(g.cpu)},
                      {"instruction_cycles", g.instruction_cycles.empty() ? json(nullptr) : json(g.instruction_cycles)},
                      {"noise_mean_stretch", optional_number(g.noise_mean_stretch)},
                      {"noise_all_cores_stretch", optional_number(g.noise_all_cores_stretch)},
                      {"noise_spell_s", optional_number(g.noise_spell_s)},
                      {"peak_flops_per_node", g.peak_flops_per_node},
                      {"memory_bandwidth_per_node_Bps", g.memory_bandwidth_per_node_Bps},
                      {"balance_bytes_per_flop", g.balance_bytes_per_flop},
                      {"memory", memory},
                      {"math_default_flops", {{"double", g.math_default_flops_double}, {"single", g.math_default_flops_single}}}});
  }
  json collectives = json::array();
  for (const auto& c : f.collectives)
    collectives.push_back({{"op", c.op},
                           {"procs", {c.procs_min, c.procs_max}},
                           {"bytes", {c.bytes_min, c.bytes_max}}});
  return {{"file", f.file},
          {"name", f.name},
          {"description", f.description},
          {"implausible", f.implausible},
          {"nodes", f.nodes},
          {"total_cores", f.total_cores},
          {"peak_flops", f.peak_flops},
          {"node_groups", groups},
          {"network",
           {{"latency_s", f.latency_s},
            {"bandwidth_Bps", f.bandwidth_Bps},
            {"hop_latency_s", f.hop_latency_s},
            {"overhead_s", f.overhead_s},
            {"eager_threshold_bytes", f.eager_threshold_bytes},
            {"intra_node_latency_s", f.intra_node_latency_s},
            {"intra_node_bandwidth_Bps", f.intra_node_bandwidth_Bps},
            {"intra_node_one_way", f.intra_node_one_way.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.intra_node_one_way)},
            {"intra_node_exchange", f.intra_node_exchange.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.intra_node_exchange)},
            {"topology", f.topology},
            {"topology_shape", f.topology_shape},
            {"diameter_hops", f.diameter_hops},
            {"diameter_latency_s", f.diameter_latency_s}}},
          {"mapping", f.mapping},
          {"collectives", collectives}};
}

struct ShowOptions {
  std::vector<std::string> files;
  std::vector<std::string> overrides;
  bool json = false;
};

void run_show(const ShowOptions& options) {
  std::vector<MachineFigures> figures;
  for (const auto& file : options.files) {
    auto path = machine::find_machine_file(file);
    figures.push_back(collect(path.string(), machine::load_machine_file(path, options.overrides)));
  }
  if (options.json) {
    json machines = json::array();
    for (const auto& f : figures) machines.push_back(render_json(f));
    std::cout << json{{"machines", machines}}.dump(2) << "\n";
    return;
  }
  for (size_t i = 0; i < figures.size(); ++i) std::cout << (i ? "\n" : "") << render_text(figures[i]);
}

// One line per file that passes, one per finding of each that does not.
void run_check(const ShowOptions& options) {
  size_t findings = 0;
  for (const auto& file : options.files) {
    auto path = machine::find_machine_file(file);
    const auto found = machine::physics_findings(machine::load_machine_file(path, options.overrides));
    if (found.empty()) std::cout << fmt::format("{}: every figure within what hardware does\n", path.string());
    for (const auto& f : found) std::cout << fmt::format("{}: {}\n", path.string(), machine::describe(f));
    findings += found.size();
  }
  if (findings > 0)
    throw UserError(fmt::format("{} figure{} outside what hardware does", findings, findings == 1 ? "" : "s"), {},
                    "calibrate the machine again, or correct the figure (--set shows the effect first)");
}

struct SimgridOptions {
  MachineOptions machine;
  int hosts = 0;
  std::string output;
};

void run_simgrid(const SimgridOptions& o) {
  machine::Machine m = load_machine(o.machine);
  simgrid::check_machine_for_smpi(m, o.hosts);
  std::filesystem::create_directories(o.output);
  write_file_atomically(std::filesystem::path(o.output) / "platform.xml", simgrid::platform_xml(m, o.hosts));
  write_file_atomically(std::filesystem::path(o.output) / "smpi_options.txt",
                        fmt::format("{}\n", fmt::join(simgrid::smpi_options(m, simgrid::SmpiUse::Program), "\n")));
  std::cout << fmt::format("wrote {0}/platform.xml ({1} hosts) and {0}/smpi_options.txt\n", o.output, o.hosts);
}

}  // namespace

void add_machine_command(CLI::App& app) {
  auto* machine = app.add_subcommand("machine", "Inspect machine models (docs/machine-format.md)");
  machine->require_subcommand(1);

  auto options = std::make_shared<ShowOptions>();
  auto* show = machine->add_subcommand(
      "show", "Print machine files with derived figures: peak, machine balance, memory sharing, network, topology");
  show->add_option("FILE", options->files,
                   "Machine files, or names of bundled machines (polus, primequest, petascale, generic-cluster, "
                   "hetero-example)")
      ->required();
  add_set_option(*show, options->overrides);
  show->add_flag("--json", options->json, "Print the figures as JSON");
  show->callback([options] { run_show(*options); });

  auto check_options = std::make_shared<ShowOptions>();
  auto* check = machine->add_subcommand(
      "check", "Check machine files' figures against what hardware does (clock, bandwidth order, latencies, flops "
               "per cycle); exit 1 when one is outside");
  check->add_option("FILE", check_options->files, "Machine files, or names of bundled machines")->required();
  add_set_option(*check, check_options->overrides);
  check->callback([check_options] { run_check(*check_options); });

  auto simgrid_options = std::make_shared<SimgridOptions>();
  auto* sg = machine->add_subcommand(
      "simgrid", "Write the SimGrid platform and SMPI options (for smpicc-built programs) under which SMPI prices messages as perfcast does");
  add_machine_options(*sg, simgrid_options->machine);
  sg->add_option("--hosts", simgrid_options->hosts, "Hosts (ranks) of the platform")->required()->check(CLI::Range(1, 1 << 20));
  sg->add_option("-o,--output", simgrid_options->output, "The directory to write")->required();
  sg->callback([simgrid_options] { run_simgrid(*simgrid_options); });
}

}  // namespace perfcast::cli
