// Validation of machine files and resolution of their defaults.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "machine/machine_io.h"
#include "machine/schema.h"
#include "support/error.h"
#include "support/toolchain.h"
#include "support/units.h"

namespace perfcast::machine {

namespace fs = std::filesystem;
using schema::Context;
using units::Dimension;

namespace {

std::string describe(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string: return fmt::format("the string \"{}\"", n.as_string()->get());
    case toml::node_type::integer: return fmt::format("the integer {}", n.as_integer()->get());
    case toml::node_type::floating_point: return fmt::format("the number {}", n.as_floating_point()->get());
    case toml::node_type::boolean: return n.as_boolean()->get() ? "true" : "false";
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    default: return "a date/time";
  }
}

std::string join(const std::string& prefix, std::string_view key) {
  return prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
}

std::string list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

class Loader {
 public:
  Loader(std::string source, fs::path base_dir) : source_(std::move(source)), base_dir_(std::move(base_dir)) {}

  Machine load(const toml::table& root) {
    check_keys(root, Context::Root, "");
    Machine m;
    m.name = *string(root, "name", "", true, "a short name such as \"polus\"");
    if (m.name.empty()) fail(root.get("name"), "name", "is empty; expected a short name such as \"polus\"");
    m.description = string(root, "description", "", false).value_or("");

    const toml::node* node = root.get("node");
    const toml::node* groups = root.get("node_group");
    if (node && groups)
      fail(groups, "node_group",
           "is given together with [node]; a machine has either one [node] (with [memory] and [math]) or a list "
           "of [[node_group]]");
    if (groups) {
      for (const char* key : {"memory", "math"})
        if (const toml::node* n = root.get(key))
          fail(n, key,
               fmt::format("is given at the top level of a machine with [[node_group]]; each group has its own "
                           "'{}' table (e.g. node_group.0.{})",
                           key, key));
      const toml::array* array = groups->as_array();
      if (!array || array->empty() || !array->is_array_of_tables())
        fail(groups, "node_group", fmt::format("is {}; expected a list of tables ([[node_group]])", describe(*groups)));
      for (size_t i = 0; i < array->size(); ++i) {
        std::string prefix = fmt::format("node_group.{}", i);
        const toml::table& t = *array->get(i)->as_table();
        check_keys(t, Context::NodeGroup, prefix);
        NodeGroup g = load_group(t, prefix, t.get("memory"), prefix + ".memory", t.get("math"), prefix + ".math");
        g.name = string(t, "name", prefix, false).value_or("");
        m.groups.push_back(std::move(g));
      }
    } else if (node) {
      const toml::table& t = table(node, "node");
      check_keys(t, Context::Node, "node");
      if (!root.get("memory")) fail(&root, "memory", "is missing; expected a [memory] table with at least DRAM");
      m.groups.push_back(load_group(t, "node", root.get("memory"), "memory", root.get("math"), "math"));
    } else {
      fail(&root, "node", "is missing; expected a [node] table (or a list of [[node_group]])");
    }

    long long nodes = 0;
    for (const auto& g : m.groups) nodes += g.count;
    if (nodes > 100'000'000) fail(node ? node : groups, node ? "node.count" : "node_group", "totals more than 10^8 nodes");

    const toml::node* network = root.get("network");
    if (!network) fail(&root, "network", "is missing; expected a [network] table with latency and bandwidth");
    m.network = load_network(table(network, "network"), m.node_count());

    if (const toml::node* mapping = root.get("mapping")) m.mapping = load_mapping(table(mapping, "mapping"), m);

    if (const toml::node* collectives = root.get("collective")) {
      const toml::array* array = collectives->as_array();
      if (!array || !array->is_array_of_tables())
        fail(collectives, "collective", fmt::format("is {}; expected a list of tables ([[collective]])",
                                                    describe(*collectives)));
      for (size_t i = 0; i < array->size(); ++i) {
        CollectiveTable t = load_collective(*array->get(i)->as_table(), fmt::format("collective.{}", i));
        for (const auto& other : m.collectives)
          if (other.op == t.op)
            fail(array->get(i)->as_table()->get("op"), fmt::format("collective.{}.op", i),
                 fmt::format("'{}' has a table already; give one table per operation", collective_op_name(t.op)));
        m.collectives.push_back(std::move(t));
      }
    }
    return m;
  }

 private:
  std::string source_;
  fs::path base_dir_;

  SourceLocation at(const toml::node* n, const std::string& field) const {
    SourceLocation where{source_, std::nullopt, field};
    if (n && n->source().begin.line > 0) where.line = static_cast<int>(n->source().begin.line);
    return where;
  }

  // A value node without a source line was put there by --set: say so, as
  // there is no line to point at.
  [[noreturn]] void fail(const toml::node* n, const std::string& field, std::string message,
                         std::string hint = {}) const {
    if (n && n->source().begin.line == 0 && !n->is_table()) message += " (value given with --set)";
    throw UserError(std::move(message), at(n, field), std::move(hint));
  }

  void check_keys(const toml::table& t, Context context, const std::string& prefix) const {
    for (auto&& [key, value] : t) {
      if (schema::child(context, key.str())) continue;
      std::string field = join(prefix, key.str());
      SourceLocation where{source_, std::nullopt, field};
      if (key.source().begin.line > 0)
        where.line = static_cast<int>(key.source().begin.line);
      else if (value.source().begin.line > 0)
        where.line = static_cast<int>(value.source().begin.line);
      std::string suggestion = schema::closest_key(context, key.str());
      std::string message = "unknown key";
      if (!suggestion.empty()) message += fmt::format("; did you mean '{}'?", join(prefix, suggestion));
      std::string place = prefix.empty() ? "the top level" : "'" + prefix + "'";
      throw UserError(message, where, fmt::format("keys allowed in {}: {}", place, list(schema::keys_of(context))));
    }
  }

  const toml::table& table(const toml::node* n, const std::string& field) const {
    if (!n->is_table()) fail(n, field, fmt::format("is {}; expected a table", describe(*n)));
    return *n->as_table();
  }

  const toml::node* required(const toml::table& t, std::string_view key, const std::string& prefix,
                             const std::string& expected) const {
    const toml::node* n = t.get(key);
    if (!n) fail(&t, join(prefix, key), fmt::format("is missing; expected {}", expected));
    return n;
  }

  std::optional<std::string> string(const toml::table& t, std::string_view key, const std::string& prefix,
                                    bool is_required, const char* expected = "a string") const {
    const toml::node* n = is_required ? required(t, key, prefix, expected) : t.get(key);
    if (!n) return std::nullopt;
    if (!n->is_string()) fail(n, join(prefix, key), fmt::format("is {}; expected a string", describe(*n)));
    return n->as_string()->get();
  }

  std::optional<bool> boolean(const toml::table& t, std::string_view key, const std::string& prefix) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    if (!n->is_boolean()) fail(n, join(prefix, key), fmt::format("is {}; expected true or false", describe(*n)));
    return n->as_boolean()->get();
  }

  int integer_value(const toml::node* n, const std::string& field, long long min) const {
    std::string expected = fmt::format("an integer >= {}", min);
    if (!n->is_integer()) fail(n, field, fmt::format("is {}; expected {}", describe(*n), expected));
    long long v = n->as_integer()->get();
    if (v < min || v > 1'000'000'000) fail(n, field, fmt::format("is {}; expected {}", v, expected));
    return static_cast<int>(v);
  }

  std::optional<int> integer(const toml::table& t, std::string_view key, const std::string& prefix, long long min,
                             bool is_required) const {
    const toml::node* n =
        is_required ? required(t, key, prefix, fmt::format("an integer >= {}", min)) : t.get(key);
    if (!n) return std::nullopt;
    return integer_value(n, join(prefix, key), min);
  }

  double number_value(const toml::node* n, const std::string& field, const char* expected) const {
    if (!n->is_number()) fail(n, field, fmt::format("is {}; expected {}", describe(*n), expected));
    double v = n->value<double>().value_or(0);
    if (!std::isfinite(v) || v < 0) fail(n, field, fmt::format("is {}; expected {}", describe(*n), expected));
    return v;
  }

  // A quantity is a string with a unit; `positive` rejects zero.
  std::optional<double> quantity(const toml::table& t, std::string_view key, const std::string& prefix, Dimension d,
                                 bool is_required, bool positive = true) const {
    std::string expected = fmt::format("{} such as {}", units::dimension_name(d), units::dimension_example(d));
    const toml::node* n = is_required ? required(t, key, prefix, expected) : t.get(key);
    if (!n) return std::nullopt;
    std::string field = join(prefix, key);
    if (!n->is_string()) {
      std::string hint;
      if (n->is_number()) hint = fmt::format("quantities are strings with a unit, e.g. {} = {}", key, units::dimension_example(d));
      fail(n, field, fmt::format("is {}; expected {}", describe(*n), expected), hint);
    }
    double value = 0;
    try {
      value = units::parse(n->as_string()->get(), d);
    } catch (const UserError& e) {
      fail(n, field, e.what());
    }
    if (positive && value <= 0) fail(n, field, fmt::format("is {}; expected more than zero", describe(*n)));
    return value;
  }

  NodeGroup load_group(const toml::table& t, const std::string& prefix, const toml::node* memory,
                       const std::string& memory_prefix, const toml::node* math, const std::string& math_prefix) const {
    NodeGroup g;
    g.count = *integer(t, "count", prefix, 1, true);
    g.cores = *integer(t, "cores", prefix, 1, true);
    g.flops_per_core = *quantity(t, "flops_per_core", prefix, Dimension::FlopsPerSecond, true);
    g.flops_per_core_single =
        quantity(t, "flops_per_core_single", prefix, Dimension::FlopsPerSecond, false).value_or(2 * g.flops_per_core);
    g.flops_per_core_scalar =
        quantity(t, "flops_per_core_scalar", prefix, Dimension::FlopsPerSecond, false).value_or(g.flops_per_core);
    g.flops_per_core_single_scalar = quantity(t, "flops_per_core_single_scalar", prefix, Dimension::FlopsPerSecond,
                                              false)
                                         .value_or(g.flops_per_core_scalar);
    g.clock_Hz = quantity(t, "clock", prefix, Dimension::Hertz, false);
    if (auto cpu = string(t, "cpu", prefix, false)) {
      // An LLVM CPU name: lower-case letters, digits, '-', '_', '.' ("znver5",
      // "x86-64-v4", "pwr8"); whether this LLVM knows it is analyze's to say.
      const bool name = !cpu->empty() && std::all_of(cpu->begin(), cpu->end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
      });
      if (!name)
        fail(t.get("cpu"), join(prefix, "cpu"), fmt::format("is \"{}\"; expected an LLVM CPU name", *cpu),
             fmt::format("e.g. cpu = \"sapphirerapids\" or \"znver5\" (`{} -mcpu=help` lists them); leave it out "
                         "when unknown",
                         toolchain::kLlc));
      g.cpu = *cpu;
    }
    if (const toml::node* b = t.get("busy_slowdown")) {
      std::string field = join(prefix, "busy_slowdown");
      const char* expected = "a number >= 1 (in-core time with all cores busy over one core alone)";
      g.busy_slowdown = number_value(b, field, expected);
      if (*g.busy_slowdown < 1) fail(b, field, fmt::format("is {}; expected {}", *g.busy_slowdown, expected));
    }
    if (const toml::node* cycles = t.get("instruction_cycles"))
      g.instruction_cycles =
          load_instruction_cycles(table(cycles, join(prefix, "instruction_cycles")), join(prefix, "instruction_cycles"));
    if (const toml::node* noise = t.get("noise")) g.noise = load_noise(table(noise, join(prefix, "noise")), join(prefix, "noise"));

    if (!memory)
      fail(&t, memory_prefix, "is missing; expected a memory table with at least DRAM, e.g. memory.DRAM = { bandwidth = \"10 GB/s\" }");
    g.memory = load_memory(table(memory, memory_prefix), memory_prefix, g.cores);
    if (math) g.math = load_math(table(math, math_prefix), math_prefix);
    return g;
  }

  std::vector<MemoryLevel> load_memory(const toml::table& t, const std::string& prefix, int cores) const {
    check_keys(t, Context::Memory, prefix);
    std::vector<MemoryLevel> levels;
    const toml::node* previous_size = nullptr;
    for (const auto& name : schema::keys_of(Context::Memory)) {
      const toml::node* n = t.get(name);
      if (!n) continue;
      std::string level_prefix = join(prefix, name);
      const toml::table& lt = table(n, level_prefix);
      check_keys(lt, Context::MemoryLevel, level_prefix);
      MemoryLevel level;
      level.name = name;
      bool is_dram = name == "DRAM";
      level.size_bytes = quantity(lt, "size", level_prefix, Dimension::Bytes, !is_dram);
      level.bandwidth_Bps = *quantity(lt, "bandwidth", level_prefix, Dimension::BytesPerSecond, true);
      level.shared = boolean(lt, "shared", level_prefix).value_or(name == "L3" || name == "L4" || is_dram);
      level.node_bandwidth_Bps = quantity(lt, "node_bandwidth", level_prefix, Dimension::BytesPerSecond, false);
      if (const toml::node* f = lt.get("serial_fraction")) {
        const char* expected = "a number from 0 (in-core work and transfers overlap) to 1 (they add up)";
        level.serial_fraction = number_value(f, join(level_prefix, "serial_fraction"), expected);
        if (level.serial_fraction > 1)
          fail(f, join(level_prefix, "serial_fraction"), fmt::format("is {}; expected {}", describe(*f), expected));
      }
      if (const toml::node* o = lt.get("overlap_by_streams"))
        load_stream_overlap(table(o, join(level_prefix, "overlap_by_streams")), join(level_prefix, "overlap_by_streams"),
                            level);
      if (const toml::node* b = lt.get("bandwidth_by_cores"))
        load_core_sharing(table(b, join(level_prefix, "bandwidth_by_cores")), join(level_prefix, "bandwidth_by_cores"),
                          cores, level);
      if (level.size_bytes) {
        if (!levels.empty() && !levels.back().size_bytes)
          fail(lt.get("size"), level_prefix + ".size", "follows a level without a size; only the outermost level may be unbounded");
        if (!levels.empty() && *level.size_bytes <= *levels.back().size_bytes)
          fail(lt.get("size"), level_prefix + ".size",
               fmt::format("is {}, not larger than {}.size ({}); sizes must grow outwards",
                           units::format(*level.size_bytes, Dimension::Bytes), levels.back().name,
                           previous_size ? previous_size->as_string()->get() : std::string("?")));
        previous_size = lt.get("size");
      }
      levels.push_back(std::move(level));
    }
    if (levels.empty())
      fail(&t, prefix, "has no level; expected at least DRAM, e.g. DRAM = { bandwidth = \"10 GB/s\" }",
           fmt::format("levels allowed: {}", list(schema::keys_of(Context::Memory))));
    return levels;
  }

  void load_math_costs(const toml::table& t, const std::string& prefix, std::map<std::string, double, std::less<>>& costs,
                       double& default_flops) const {
    for (auto&& [key, value] : t) {
      if (key.str() == "single" || key.str() == "double") continue;  // read by the caller
      double flops = number_value(&value, join(prefix, key.str()), "a number of flops per call (>= 0)");
      if (key.str() == "default")
        default_flops = flops;
      else
        costs[std::string(key.str())] = flops;
    }
  }

  MathCosts load_math(const toml::table& t, const std::string& prefix) const {
    check_keys(t, Context::Math, prefix);
    MathCosts common;
    load_math_costs(t, prefix, common.double_flops, common.default_double_flops);
    common.single_flops = common.double_flops;
    common.default_single_flops = common.default_double_flops;
    MathCosts m = common;
    for (const char* precision : {"double", "single"}) {
      const toml::node* n = t.get(precision);
      if (!n) continue;
      std::string p = join(prefix, precision);
      const toml::table& pt = table(n, p);
      check_keys(pt, Context::MathPrecision, p);
      bool is_double = std::string_view(precision) == "double";
      load_math_costs(pt, p, is_double ? m.double_flops : m.single_flops,
                      is_double ? m.default_double_flops : m.default_single_flops);
    }
    return m;
  }

  Network load_network(const toml::table& t, int node_count) const {
    check_keys(t, Context::Network, "network");
    Network n;
    n.latency_s = *quantity(t, "latency", "network", Dimension::Seconds, true, false);
    n.bandwidth_Bps = *quantity(t, "bandwidth", "network", Dimension::BytesPerSecond, true);
    n.hop_latency_s = quantity(t, "hop_latency", "network", Dimension::Seconds, false, false).value_or(0);
    n.eager_threshold_bytes =
        quantity(t, "eager_threshold", "network", Dimension::Bytes, false, false).value_or(64 * 1024);
    n.overhead_s = quantity(t, "overhead", "network", Dimension::Seconds, false, false).value_or(0);
    if (const toml::node* h = t.get("rendezvous_handshakes"))
      n.rendezvous_handshakes = number_value(h, "network.rendezvous_handshakes",
                                             "a number of one-way latencies, 0 or more (1: a request to send)");
    n.intra_node_latency_s =
        quantity(t, "intra_node_latency", "network", Dimension::Seconds, false, false).value_or(n.latency_s);
    n.intra_node_bandwidth_Bps =
        quantity(t, "intra_node_bandwidth", "network", Dimension::BytesPerSecond, false).value_or(n.bandwidth_Bps);
    if (const toml::node* one_way = t.get("intra_node_one_way"))
      n.intra_node_one_way = load_message_times(table(one_way, "network.intra_node_one_way"),
                                                "network.intra_node_one_way");
    if (const toml::node* exchange = t.get("intra_node_exchange"))
      n.intra_node_exchange = load_message_times(table(exchange, "network.intra_node_exchange"),
                                                 "network.intra_node_exchange");
    n.probes = integer(t, "probes", "network", 1, false).value_or(1);

    if (auto name = string(t, "topology", "network", false)) {
      auto kind = parse_topology(*name);
      if (!kind) fail(t.get("topology"), "network.topology", fmt::format("is \"{}\"; expected \"crossbar\", \"fat_tree\" or \"torus3d\"", *name));
      n.topology.kind = *kind;
    }
    auto only_for = [&](const char* key, TopologyKind kind) {
      if (const toml::node* v = t.get(key); v && n.topology.kind != kind)
        fail(v, join("network", key),
             fmt::format("applies only to topology = \"{}\" (this network is \"{}\")", topology_name(kind),
                         topology_name(n.topology.kind)));
    };
    only_for("torus", TopologyKind::Torus3D);
    only_for("fat_tree_arity", TopologyKind::FatTree);
    only_for("fat_tree_levels", TopologyKind::FatTree);

    if (n.topology.kind == TopologyKind::Torus3D) {
      const toml::node* dims = required(t, "torus", "network", "an array of 3 integers such as [16, 16, 16]");
      const toml::array* a = dims->as_array();
      if (!a || a->size() != 3)
        fail(dims, "network.torus", fmt::format("is {}; expected an array of 3 integers such as [16, 16, 16]", describe(*dims)));
      long long product = 1;
      for (size_t i = 0; i < 3; ++i) {
        n.topology.torus[i] = integer_value(a->get(i), fmt::format("network.torus.{}", i), 1);
        product *= n.topology.torus[i];
      }
      if (product != node_count)
        fail(dims, "network.torus",
             fmt::format("is {} x {} x {} = {} nodes but the machine has {} nodes; their product must equal the "
                         "node count",
                         n.topology.torus[0], n.topology.torus[1], n.topology.torus[2], product, node_count));
    }
    if (n.topology.kind == TopologyKind::FatTree) {
      n.topology.fat_tree_arity = *integer(t, "fat_tree_arity", "network", 2, true);
      int needed = fat_tree_levels_needed(n.topology.fat_tree_arity, node_count);
      n.topology.fat_tree_levels = integer(t, "fat_tree_levels", "network", 1, false).value_or(needed);
      if (n.topology.fat_tree_levels < needed)
        fail(t.get("fat_tree_levels"), "network.fat_tree_levels",
             fmt::format("is {}; {} levels of arity {} reach {} nodes at most, the machine has {} (needs {} levels)",
                         n.topology.fat_tree_levels, n.topology.fat_tree_levels, n.topology.fat_tree_arity,
                         static_cast<long long>(std::pow(n.topology.fat_tree_arity, n.topology.fat_tree_levels)),
                         node_count, needed));
    }
    return n;
  }

  Mapping load_mapping(const toml::table& t, const Machine& m) const {
    check_keys(t, Context::Mapping, "mapping");
    Mapping mapping;
    if (auto name = string(t, "policy", "mapping", false)) {
      auto policy = parse_mapping_policy(*name);
      if (!policy)
        fail(t.get("policy"), "mapping.policy", fmt::format("is \"{}\"; expected \"block\", \"round_robin\" or \"file\"", *name));
      mapping.policy = *policy;
    }
    mapping.ranks_per_node = integer(t, "ranks_per_node", "mapping", 1, false);
    if (mapping.ranks_per_node && mapping.policy != MappingPolicy::Block)
      fail(t.get("ranks_per_node"), "mapping.ranks_per_node", "applies only to policy = \"block\"");
    if (mapping.policy == MappingPolicy::File) {
      std::string file =
          *string(t, "file", "mapping", true, "the path of a file with one node index per rank (relative to the machine file)");
      fs::path path = fs::absolute(base_dir_ / file).lexically_normal();
      try {
        mapping.file_nodes = read_mapping_file(path, m.node_count());
      } catch (const UserError& e) {
        fail(t.get("file"), "mapping.file", e.what());
      }
      mapping.file = path;
    } else if (const toml::node* f = t.get("file")) {
      fail(f, "mapping.file", "applies only to policy = \"file\"");
    }
    return mapping;
  }

  const toml::array& array(const toml::table& t, std::string_view key, const std::string& prefix,
                           const char* expected) const {
    const toml::node* n = required(t, key, prefix, expected);
    if (!n->is_array() || n->as_array()->empty())
      fail(n, join(prefix, key), fmt::format("is {}; expected {}", describe(*n), expected));
    return *n->as_array();
  }

  // { cores = [increasing counts, 1..the node's cores], per_core = [one
  // bandwidth per count, each > 0] }.
  void load_core_sharing(const toml::table& t, const std::string& prefix, int node_cores, MemoryLevel& level) const {
    check_keys(t, Context::CoreSharing, prefix);
    std::string cores_expected =
        fmt::format("an array of increasing core counts from 1 to the node's cores ({}), such as [1, 2, 4]", node_cores);
    const toml::array& cores = array(t, "cores", prefix, cores_expected.c_str());
    for (size_t i = 0; i < cores.size(); ++i) {
      std::string field = fmt::format("{}.cores.{}", prefix, i);
      int k = integer_value(cores.get(i), field, 1);
      if (k > node_cores)
        fail(cores.get(i), field, fmt::format("is {}, more than the node's {} cores; expected {}", k, node_cores,
                                              cores_expected));
      if (!level.sharing_cores.empty() && k <= level.sharing_cores.back())
        fail(cores.get(i), field,
             fmt::format("is {} after {}; core counts must increase", k, level.sharing_cores.back()));
      level.sharing_cores.push_back(k);
    }
    std::string expected = fmt::format("an array of {} bandwidths per core (one per cores entry) such as {}",
                                       level.sharing_cores.size(), units::dimension_example(Dimension::BytesPerSecond));
    const toml::array& per_core = array(t, "per_core", prefix, expected.c_str());
    if (per_core.size() != level.sharing_cores.size())
      fail(t.get("per_core"), join(prefix, "per_core"),
           fmt::format("has {} bandwidths; expected {}", per_core.size(), expected));
    for (size_t i = 0; i < per_core.size(); ++i) {
      std::string field = fmt::format("{}.per_core.{}", prefix, i);
      const toml::node* n = per_core.get(i);
      if (!n->is_string()) fail(n, field, fmt::format("is {}; expected {}", describe(*n), expected));
      double v = 0;
      try {
        v = units::parse(n->as_string()->get(), Dimension::BytesPerSecond);
      } catch (const UserError& e) {
        fail(n, field, e.what());
      }
      if (v <= 0) fail(n, field, fmt::format("is {}; expected more than zero", describe(*n)));
      level.sharing_per_core_Bps.push_back(v);
    }
  }

  // { bytes = [increasing sizes], time_s = [one time per size] }: at least two
  // points, so the table has a slope.
  // { streams = [increasing counts >= 1], core_over_memory = [increasing ratios > 0],
  //   serial_fraction = [per stream count: [per ratio: a fraction in [0, 1]]] }.
  void load_stream_overlap(const toml::table& t, const std::string& prefix, MemoryLevel& level) const {
    check_keys(t, Context::StreamOverlap, prefix);
    auto axis = [&](const char* key, const char* what, double lowest, std::vector<double>& into) {
      std::string expected = fmt::format("an array of increasing {}", what);
      const toml::array& a = array(t, key, prefix, expected.c_str());
      for (size_t i = 0; i < a.size(); ++i) {
        std::string field = fmt::format("{}.{}", join(prefix, key), i);
        double v = number_value(a.get(i), field, what);
        if (v < lowest || (lowest == 0 && v == 0))
          fail(a.get(i), field, fmt::format("is {}; expected {}", v, what));
        if (!into.empty() && v <= into.back())
          fail(a.get(i), field, fmt::format("is {} after {}; {} must increase", v, into.back(), key));
        into.push_back(v);
      }
      if (into.empty()) fail(t.get(key), join(prefix, key), fmt::format("is empty; expected {}", expected));
    };
    axis("streams", "stream counts (>= 1)", 1, level.overlap_streams);
    axis("core_over_memory", "ratios of in-core to transfer time (> 0)", 0, level.overlap_core_over_memory);
    std::string expected = fmt::format("an array of {} arrays (one per stream count) of {} fractions from 0 to 1 "
                                       "(one per core_over_memory entry)",
                                       level.overlap_streams.size(), level.overlap_core_over_memory.size());
    const toml::array& rows = array(t, "serial_fraction", prefix, expected.c_str());
    if (rows.size() != level.overlap_streams.size())
      fail(t.get("serial_fraction"), join(prefix, "serial_fraction"),
           fmt::format("has {} rows; expected {}", rows.size(), expected));
    for (size_t i = 0; i < rows.size(); ++i) {
      std::string row_field = fmt::format("{}.serial_fraction.{}", prefix, i);
      const toml::array* row = rows.get(i)->as_array();
      if (!row || row->size() != level.overlap_core_over_memory.size())
        fail(rows.get(i), row_field, fmt::format("is {}; expected {}", describe(*rows.get(i)), expected));
      std::vector<double> fractions;
      for (size_t j = 0; j < row->size(); ++j) {
        std::string field = fmt::format("{}.{}", row_field, j);
        double v = number_value(row->get(j), field, "a fraction from 0 to 1");
        if (v > 1) fail(row->get(j), field, fmt::format("is {}; expected a fraction from 0 to 1", v));
        fractions.push_back(v);
      }
      level.overlap_fractions.push_back(std::move(fractions));
    }
  }

  MessageTimes load_message_times(const toml::table& t, const std::string& prefix) const {
    check_keys(t, Context::MessageTimes, prefix);
    MessageTimes m;
    const toml::array& bytes = array(t, "bytes", prefix, "an array of at least 2 increasing message sizes in bytes");
    for (size_t i = 0; i < bytes.size(); ++i) {
      std::string field = fmt::format("{}.bytes.{}", prefix, i);
      double v = number_value(bytes.get(i), field, "a number of bytes (>= 0)");
      if (!m.bytes.empty() && v <= m.bytes.back())
        fail(bytes.get(i), field, fmt::format("is {} after {}; message sizes must increase", v, m.bytes.back()));
      m.bytes.push_back(v);
    }
    if (m.bytes.size() < 2)
      fail(t.get("bytes"), join(prefix, "bytes"), "has 1 size; expected at least 2 (the table needs a slope)");
    std::string expected = fmt::format("an array of {} times in seconds (one per bytes entry)", m.bytes.size());
    const toml::array& times = array(t, "time_s", prefix, expected.c_str());
    if (times.size() != m.bytes.size())
      fail(t.get("time_s"), join(prefix, "time_s"), fmt::format("has {} times; expected {}", times.size(), expected));
    for (size_t i = 0; i < times.size(); ++i)
      m.time_s.push_back(number_value(times.get(i), fmt::format("{}.time_s.{}", prefix, i), "a time in seconds (>= 0)"));
    return m;
  }

  // { quantum = "20 us", stretch = [ascending quantiles, the first >= 1],
  //   divider_stretch = [as many, the same rules] (optional) }.
  // Each given figure a number of cycles >= 1 (no FP instruction takes less
  // than a cycle after the one it depends on, nor issues more often).
  InstructionCycles load_instruction_cycles(const toml::table& t, const std::string& prefix) const {
    check_keys(t, Context::InstructionCycles, prefix);
    InstructionCycles c;
    auto read = [&](const char* key, double& into) {
      const toml::node* n = t.get(key);
      if (!n) return;
      std::string field = join(prefix, key);
      into = number_value(n, field, "a number of core cycles (>= 1)");
      if (into < 1) fail(n, field, fmt::format("is {}; expected a number of core cycles, at least 1", into));
    };
    for (const auto& f : instruction_cycle_fields()) read(f.key, c.*f.value);
    return c;
  }

  Noise load_noise(const toml::table& t, const std::string& prefix) const {
    check_keys(t, Context::Noise, prefix);
    Noise noise;
    noise.quantum_s = *quantity(t, "quantum", prefix, Dimension::Seconds, true);
    noise.stretch = load_stretch(t, "stretch", prefix);
    noise.probes = integer(t, "probes", prefix, 1, false).value_or(1);
    // 0: not measured; a negative time is refused by the unit parser.
    noise.spell_s = quantity(t, "spell", prefix, Dimension::Seconds, false, false).value_or(0);
    if (t.contains("divider_stretch")) {
      noise.divider_stretch = load_stretch(t, "divider_stretch", prefix);
      if (noise.divider_stretch.size() != noise.stretch.size())
        fail(t.get("divider_stretch"), join(prefix, "divider_stretch"),
             fmt::format("has {} quantiles and stretch has {}; the two pair quantile by quantile, so give as many",
                         noise.divider_stretch.size(), noise.stretch.size()));
    }
    return noise;
  }

  std::vector<double> load_stretch(const toml::table& t, const char* key, const std::string& prefix) const {
    const char* expected = "a non-empty array of ascending stretches (time over the fastest time), each >= 1";
    const toml::array& stretch = array(t, key, prefix, expected);
    std::vector<double> out;
    for (size_t i = 0; i < stretch.size(); ++i) {
      std::string field = fmt::format("{}.{}.{}", prefix, key, i);
      double v = number_value(stretch.get(i), field, "a stretch (time over the fastest time, >= 1)");
      if (v < 1) fail(stretch.get(i), field, fmt::format("is {}; a stretch is a time over the fastest time, so >= 1", v));
      if (!out.empty() && v < out.back())
        fail(stretch.get(i), field, fmt::format("is {} after {}; the quantiles must ascend", v, out.back()));
      out.push_back(v);
    }
    return out;
  }

  CollectiveTable load_collective(const toml::table& t, const std::string& prefix) const {
    check_keys(t, Context::Collective, prefix);
    CollectiveTable c;
    std::string op = *string(t, "op", prefix, true, "an operation name such as \"allreduce\"");
    auto parsed = parse_collective_op(op);
    if (!parsed) {
      std::vector<std::string> names;
      for (auto o : kAllCollectiveOps) names.emplace_back(collective_op_name(o));
      fail(t.get("op"), join(prefix, "op"), fmt::format("is \"{}\"; expected one of {}", op, list(names)));
    }
    c.op = *parsed;

    const toml::array& procs = array(t, "procs", prefix, "a non-empty array of increasing process counts");
    for (size_t i = 0; i < procs.size(); ++i) {
      std::string field = fmt::format("{}.procs.{}", prefix, i);
      int p = integer_value(procs.get(i), field, 1);
      if (!c.procs.empty() && p <= c.procs.back())
        fail(procs.get(i), field, fmt::format("is {} after {}; process counts must increase", p, c.procs.back()));
      c.procs.push_back(p);
    }
    const toml::array& bytes = array(t, "bytes", prefix, "a non-empty array of increasing message sizes in bytes");
    for (size_t i = 0; i < bytes.size(); ++i) {
      std::string field = fmt::format("{}.bytes.{}", prefix, i);
      const toml::node* b = bytes.get(i);
      if (!b->is_integer() || b->as_integer()->get() < 0)
        fail(b, field, fmt::format("is {}; expected a number of bytes (an integer >= 0)", describe(*b)));
      std::int64_t v = b->as_integer()->get();
      if (!c.bytes.empty() && v <= c.bytes.back())
        fail(b, field, fmt::format("is {} after {}; message sizes must increase", v, c.bytes.back()));
      c.bytes.push_back(v);
    }
    std::string rows_expected =
        fmt::format("an array of {} rows (one per procs entry) of {} times in seconds", c.procs.size(), c.bytes.size());
    const toml::array& rows = array(t, "time_s", prefix, rows_expected.c_str());
    if (rows.size() != c.procs.size())
      fail(t.get("time_s"), join(prefix, "time_s"),
           fmt::format("has {} rows; expected {} (one per procs entry)", rows.size(), c.procs.size()));
    for (size_t r = 0; r < rows.size(); ++r) {
      std::string field = fmt::format("{}.time_s.{}", prefix, r);
      const toml::array* row = rows.get(r)->as_array();
      if (!row || row->size() != c.bytes.size())
        fail(rows.get(r), field,
             fmt::format("is {}{}; expected {} times in seconds (one per bytes entry)", describe(*rows.get(r)),
                         row ? fmt::format(" of {}", row->size()) : "", c.bytes.size()));
      std::vector<double> times;
      for (size_t col = 0; col < row->size(); ++col)
        times.push_back(number_value(row->get(col), fmt::format("{}.{}", field, col), "a time in seconds (>= 0)"));
      c.time_s.push_back(std::move(times));
    }
    return c;
  }
};

}  // namespace

Machine machine_from_toml(const toml::table& root, const std::string& source_name, const fs::path& base_dir) {
  return Loader(source_name, base_dir).load(root);
}

Machine load_machine_string(std::string_view toml_text, const std::string& source_name, const fs::path& base_dir,
                            const std::vector<std::string>& overrides) {
  toml::table root;
  try {
    root = toml::parse(toml_text, source_name);
  } catch (const toml::parse_error& e) {
    std::optional<int> line;
    if (e.source().begin.line > 0) line = static_cast<int>(e.source().begin.line);
    throw UserError(fmt::format("not valid TOML: {}", e.description()), {source_name, line, ""});
  }
  apply_overrides(root, overrides);
  return machine_from_toml(root, source_name, base_dir);
}

Machine load_machine_file(const fs::path& file, const std::vector<std::string>& overrides) {
  std::ifstream in(file, std::ios::binary);
  if (!in || fs::is_directory(file))
    throw UserError("cannot open the machine file", {file.string(), std::nullopt, ""},
                    fmt::format("bundled machines: {}", list(bundled_machine_names())));
  std::stringstream text;
  text << in.rdbuf();
  fs::path base_dir = file.parent_path();
  if (base_dir.empty()) base_dir = ".";
  return load_machine_string(text.str(), file.string(), base_dir, overrides);
}

}  // namespace perfcast::machine
