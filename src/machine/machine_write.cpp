// Machine -> machine file. Every default is written out, so a file written by
// `perfcast calibrate` says everything the engines will use.
#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "machine/machine_io.h"
#include "support/error.h"
#include "support/output_file.h"
#include "support/units.h"

namespace perfcast::machine {

namespace fs = std::filesystem;
using units::Dimension;

std::string exact_quantity(double value, Dimension dimension) {
  struct Unit {
    const char* text;
    double scale;
  };
  static const std::vector<Unit> seconds = {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
  static const std::vector<Unit> bytes = {{"TiB", 1099511627776.0}, {"GiB", 1073741824.0}, {"MiB", 1048576.0},
                                          {"KiB", 1024.0},          {"TB", 1e12},           {"GB", 1e9},
                                          {"MB", 1e6},              {"kB", 1e3},            {"B", 1}};
  static const std::vector<Unit> bandwidth = {{"TB/s", 1e12}, {"GB/s", 1e9}, {"MB/s", 1e6}, {"kB/s", 1e3},
                                              {"GiB/s", 1073741824.0}, {"MiB/s", 1048576.0}, {"B/s", 1}};
  static const std::vector<Unit> flop_rate = {{"Pflop/s", 1e15}, {"Tflop/s", 1e12}, {"Gflop/s", 1e9},
                                              {"Mflop/s", 1e6},  {"kflop/s", 1e3},  {"flop/s", 1}};
  static const std::vector<Unit> flops = {{"Gflop", 1e9}, {"Mflop", 1e6}, {"kflop", 1e3}, {"flop", 1}};
  static const std::vector<Unit> hertz = {{"GHz", 1e9}, {"MHz", 1e6}, {"kHz", 1e3}, {"Hz", 1}};
  const std::vector<Unit>* units_for = nullptr;
  switch (dimension) {
    case Dimension::Seconds: units_for = &seconds; break;
    case Dimension::Bytes: units_for = &bytes; break;
    case Dimension::BytesPerSecond: units_for = &bandwidth; break;
    case Dimension::FlopsPerSecond: units_for = &flop_rate; break;
    case Dimension::Flops: units_for = &flops; break;
    case Dimension::Hertz: units_for = &hertz; break;
    case Dimension::Count: return fmt::format("{}", value);
  }
  // Shortest spelling that parses back to the same double. The base unit
  // always does, since fmt's "{}" is the shortest round-tripping decimal; a
  // prefixed spelling may not ("60 us" parses to 60 * 1e-6, not to 6e-05), so
  // each is checked.
  std::string best;
  for (const auto& u : *units_for)
    if (u.scale == 1) best = fmt::format("{} {}", value, u.text);
  for (const auto& u : *units_for) {
    if (value != 0 && value < u.scale) continue;
    for (int digits = 1; digits <= 17; ++digits) {
      // Rounded to `digits` significant digits, then spelled shortest ("60", not "6e+01").
      double rounded = std::strtod(fmt::format("{:.{}g}", value / u.scale, digits).c_str(), nullptr);
      std::string candidate = fmt::format("{} {}", rounded, u.text);
      if (candidate.size() >= best.size()) continue;
      try {
        if (units::parse(candidate, dimension) == value) {
          best = candidate;
          break;
        }
      } catch (const UserError&) {
      }
    }
  }
  return best;
}

namespace {

std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
          out += fmt::format("\\u{:04X}", static_cast<unsigned char>(c));
        else
          out += c;
    }
  }
  return out + "\"";
}

std::string q(double value, Dimension d) { return toml_string(exact_quantity(value, d)); }

std::string number(double v) { return fmt::format("{}", v); }

std::string memory_level(const MemoryLevel& level) {
  std::string out = "{ ";
  if (level.size_bytes) out += "size = " + q(*level.size_bytes, Dimension::Bytes) + ", ";
  out += "bandwidth = " + q(level.bandwidth_Bps, Dimension::BytesPerSecond);
  out += fmt::format(", shared = {}", level.shared);
  if (level.node_bandwidth_Bps) out += ", node_bandwidth = " + q(*level.node_bandwidth_Bps, Dimension::BytesPerSecond);
  if (level.serial_fraction > 0) out += ", serial_fraction = " + number(level.serial_fraction);
  if (!level.overlap_streams.empty()) {
    auto list = [](const std::vector<double>& v) {
      std::string s = "[";
      for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + number(v[i]);
      return s + "]";
    };
    std::string rows = "[";
    for (size_t i = 0; i < level.overlap_fractions.size(); ++i) rows += (i ? ", " : "") + list(level.overlap_fractions[i]);
    out += ", overlap_by_streams = { streams = " + list(level.overlap_streams) +
           ", core_over_memory = " + list(level.overlap_core_over_memory) + ", serial_fraction = " + rows + "] }";
  }
  if (level.sharing_measured()) {
    std::vector<std::string> cores, per_core;
    for (int k : level.sharing_cores) cores.push_back(fmt::format("{}", k));
    for (double b : level.sharing_per_core_Bps) per_core.push_back(q(b, Dimension::BytesPerSecond));
    out += fmt::format(", bandwidth_by_cores = {{ cores = [{}], per_core = [{}] }}", fmt::join(cores, ", "),
                       fmt::join(per_core, ", "));
  }
  return out + " }";
}

std::string math_inline(const std::map<std::string, double, std::less<>>& costs, double default_flops) {
  std::string out = "{ default = " + number(default_flops);
  for (const auto& [name, flops] : costs) out += fmt::format(", {} = {}", name, number(flops));
  return out + " }";
}

// `prefix` is "" for [node] (tables follow as [memory], [math]) and the dotted
// form for [[node_group]] entries (memory.L1 = ...).
void write_group(std::string& out, const NodeGroup& g, bool in_array) {
  if (in_array && !g.name.empty()) out += "name = " + toml_string(g.name) + "\n";
  out += fmt::format("count = {}\ncores = {}\n", g.count, g.cores);
  out += "flops_per_core = " + q(g.flops_per_core, Dimension::FlopsPerSecond) + "\n";
  out += "flops_per_core_single = " + q(g.flops_per_core_single, Dimension::FlopsPerSecond) + "\n";
  out += "flops_per_core_scalar = " + q(g.flops_per_core_scalar, Dimension::FlopsPerSecond) + "\n";
  out += "flops_per_core_single_scalar = " + q(g.flops_per_core_single_scalar, Dimension::FlopsPerSecond) + "\n";
  if (g.clock_Hz) out += "clock = " + q(*g.clock_Hz, Dimension::Hertz) + "\n";
  if (!g.cpu.empty()) out += "cpu = " + toml_string(g.cpu) + "\n";
  if (g.busy_slowdown) out += "busy_slowdown = " + number(*g.busy_slowdown) + "\n";
  if (const auto& c = g.instruction_cycles; !c.empty()) {
    std::vector<std::string> fields;
    for (const auto& f : instruction_cycle_fields())
      if (c.*f.value > 0) fields.push_back(fmt::format("{} = {}", f.key, number(c.*f.value)));
    out += fmt::format("instruction_cycles = {{ {} }}\n", fmt::join(fields, ", "));
  }
  if (!g.noise.empty()) {
    auto numbers = [&](const std::vector<double>& values) {
      std::vector<std::string> out;
      for (double v : values) out.push_back(number(v));
      return fmt::format("{}", fmt::join(out, ", "));
    };
    std::string divider;
    if (!g.noise.divider_stretch.empty()) divider = ", divider_stretch = [ " + numbers(g.noise.divider_stretch) + " ]";
    std::string probes = g.noise.probes > 1 ? fmt::format(", probes = {}", g.noise.probes) : "";
    std::string spell = g.noise.spell_s > 0 ? ", spell = " + q(g.noise.spell_s, Dimension::Seconds) : "";
    out += fmt::format("noise = {{ quantum = {}, stretch = [ {} ]{}{}{} }}\n", q(g.noise.quantum_s, Dimension::Seconds),
                       numbers(g.noise.stretch), divider, probes, spell);
  }
  std::string memory_prefix = in_array ? "memory." : "";
  std::string math_prefix = in_array ? "math." : "";
  if (!in_array) out += "\n[memory]\n";
  for (const auto& level : g.memory) out += memory_prefix + level.name + " = " + memory_level(level) + "\n";
  if (!in_array) out += "\n[math]\n";
  const MathCosts& m = g.math;
  if (m.double_flops == m.single_flops && m.default_double_flops == m.default_single_flops) {
    out += math_prefix + "default = " + number(m.default_double_flops) + "\n";
    for (const auto& [name, flops] : m.double_flops) out += math_prefix + name + " = " + number(flops) + "\n";
  } else {
    out += math_prefix + "double = " + math_inline(m.double_flops, m.default_double_flops) + "\n";
    out += math_prefix + "single = " + math_inline(m.single_flops, m.default_single_flops) + "\n";
  }
}

// Each line as a TOML comment, an empty one as a bare "#"; a line break
// within a line starts another comment line, so no text escapes into TOML.
std::string comment_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& text : lines) {
    size_t start = 0;
    do {
      size_t end = std::min(text.find('\n', start), text.size());
      std::string_view line(text.data() + start, end - start);
      out += line.empty() ? "#\n" : fmt::format("# {}\n", line);
      start = end + 1;
    } while (start <= text.size());
  }
  return out;
}

template <typename T>
std::string array_text(const std::vector<T>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + fmt::format("{}", values[i]);
  return out + "]";
}

// `name = { bytes = [...], time_s = [...] }`, or nothing for a table not measured.
std::string message_times_line(const char* name, const MessageTimes& t) {
  if (t.empty()) return "";
  std::vector<std::string> bytes, times;
  for (double b : t.bytes) bytes.push_back(number(b));
  for (double s : t.time_s) times.push_back(number(s));
  return fmt::format("{} = {{ bytes = [ {} ], time_s = [ {} ] }}\n", name, fmt::join(bytes, ", "), fmt::join(times, ", "));
}

}  // namespace

std::string to_toml(const Machine& m, const fs::path& base_dir, const MachineFileComments& comments) {
  std::string out = comment_lines(comments.header);
  out += "name = " + toml_string(m.name) + "\n";
  if (!m.description.empty()) out += "description = " + toml_string(m.description) + "\n";

  bool homogeneous = m.groups.size() == 1 && m.groups[0].name.empty();
  if (homogeneous) {
    out += "\n[node]\n";
    write_group(out, m.groups[0], false);
  } else {
    for (const auto& g : m.groups) {
      out += "\n[[node_group]]\n";
      write_group(out, g, true);
    }
  }

  const Network& n = m.network;
  out += "\n[network]\n";
  out += "latency = " + q(n.latency_s, Dimension::Seconds) + "\n";
  out += "bandwidth = " + q(n.bandwidth_Bps, Dimension::BytesPerSecond) + "\n";
  out += "hop_latency = " + q(n.hop_latency_s, Dimension::Seconds) + "\n";
  out += "eager_threshold = " + q(n.eager_threshold_bytes, Dimension::Bytes) + "\n";
  out += "overhead = " + q(n.overhead_s, Dimension::Seconds) + "\n";
  out += fmt::format("rendezvous_handshakes = {}\n", n.rendezvous_handshakes);
  out += "intra_node_latency = " + q(n.intra_node_latency_s, Dimension::Seconds) + "\n";
  out += "intra_node_bandwidth = " + q(n.intra_node_bandwidth_Bps, Dimension::BytesPerSecond) + "\n";
  out += message_times_line("intra_node_one_way", n.intra_node_one_way);
  out += message_times_line("intra_node_exchange", n.intra_node_exchange);
  if (n.probes > 1) out += fmt::format("probes = {}\n", n.probes);
  out += fmt::format("topology = \"{}\"\n", topology_name(n.topology.kind));
  if (n.topology.kind == TopologyKind::Torus3D)
    out += fmt::format("torus = [{}, {}, {}]\n", n.topology.torus[0], n.topology.torus[1], n.topology.torus[2]);
  if (n.topology.kind == TopologyKind::FatTree)
    out += fmt::format("fat_tree_arity = {}\nfat_tree_levels = {}\n", n.topology.fat_tree_arity,
                       n.topology.fat_tree_levels);

  out += "\n[mapping]\n";
  out += fmt::format("policy = \"{}\"\n", mapping_policy_name(m.mapping.policy));
  if (m.mapping.ranks_per_node) out += fmt::format("ranks_per_node = {}\n", *m.mapping.ranks_per_node);
  if (m.mapping.policy == MappingPolicy::File) {
    fs::path file = m.mapping.file;
    if (!base_dir.empty()) file = fs::relative(file, fs::absolute(base_dir));
    out += "file = " + toml_string(file.generic_string()) + "\n";
  }

  for (const auto& c : m.collectives) {
    out += "\n[[collective]]\n";
    out += fmt::format("op = \"{}\"\n", collective_op_name(c.op));
    out += "procs = " + array_text(c.procs) + "\n";
    out += "bytes = " + array_text(c.bytes) + "\n";
    out += "time_s = [";
    for (size_t r = 0; r < c.time_s.size(); ++r) out += (r ? ",\n          " : "") + array_text(c.time_s[r]);
    out += "]\n";
  }
  if (!comments.trailer.empty()) out += "\n" + comment_lines(comments.trailer);
  return out;
}

void write_machine_file(const Machine& machine, const fs::path& file, const MachineFileComments& comments) {
  fs::path dir = file.parent_path();
  write_file_atomically(file, to_toml(machine, dir.empty() ? fs::path(".") : dir, comments));
}

namespace {

std::vector<fs::path> bundled_dirs() {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("PERFCAST_MACHINES"); env && *env) dirs.emplace_back(env);
#ifdef PERFCAST_MACHINES_DIR
  dirs.emplace_back(PERFCAST_MACHINES_DIR);
#endif
  return dirs;
}

}  // namespace

std::vector<std::string> bundled_machine_names() {
  std::vector<std::string> names;
  for (const auto& dir : bundled_dirs()) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.path().extension() == ".toml") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

fs::path find_machine_file(const std::string& name_or_path) {
  fs::path given(name_or_path);
  if (fs::exists(given)) return given;
  if (given.has_parent_path()) return given;  // a path: loading reports that it cannot be opened
  for (const auto& dir : bundled_dirs()) {
    for (const fs::path& candidate : {dir / given, dir / (name_or_path + ".toml")})
      if (fs::is_regular_file(candidate)) return candidate;
  }
  return given;
}

}  // namespace perfcast::machine
