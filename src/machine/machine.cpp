#include "machine/machine.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "support/error.h"

namespace perfcast::machine {

namespace {

// Where x falls on an increasing axis: the index i of the point at or after it
// (1 <= i < size) and its weight toward point i; clamped at the ends.
std::pair<size_t, double> locate(const std::vector<double>& axis, double x) {
  if (axis.size() < 2 || x <= axis.front()) return {std::min<size_t>(1, axis.size() - 1), 0.0};
  if (x >= axis.back()) return {axis.size() - 1, 1.0};
  size_t i = 1;
  while (axis[i] < x) ++i;
  return {i, (x - axis[i - 1]) / (axis[i] - axis[i - 1])};
}

}  // namespace

double MemoryLevel::bandwidth_per_core_Bps(int active_cores) const {
  active_cores = std::max(active_cores, 1);
  if (!sharing_cores.empty()) {
    // The measured table wins over node_bandwidth: it is the same question
    // answered at each core count, not only with all of them.
    // (No allocation: the simulator asks once per compute burst.)
    if (active_cores <= sharing_cores.front()) return sharing_per_core_Bps.front();
    if (active_cores >= sharing_cores.back()) return sharing_per_core_Bps.back();
    size_t i = 1;
    while (sharing_cores[i] < active_cores) ++i;
    double w = static_cast<double>(active_cores - sharing_cores[i - 1]) / (sharing_cores[i] - sharing_cores[i - 1]);
    return sharing_per_core_Bps[i - 1] + (sharing_per_core_Bps[i] - sharing_per_core_Bps[i - 1]) * w;
  }
  if (!node_bandwidth_Bps) return bandwidth_Bps;
  return std::min(bandwidth_Bps, *node_bandwidth_Bps / active_cores);
}

double MemoryLevel::serial_fraction_for(double streams, double core_over_memory) const {
  if (streams <= 0 || overlap_streams.empty() || !(core_over_memory > 0)) return serial_fraction;
  std::vector<double> log_ratio;
  for (double r : overlap_core_over_memory) log_ratio.push_back(std::log(r));
  auto along_ratio = [&](const std::vector<double>& row) {
    if (row.size() == 1) return row[0];
    auto [j, w] = locate(log_ratio, std::log(core_over_memory));
    return row[j - 1] + (row[j] - row[j - 1]) * w;
  };
  if (overlap_streams.size() == 1) return along_ratio(overlap_fractions[0]);
  auto [i, w] = locate(overlap_streams, streams);
  double lo = along_ratio(overlap_fractions[i - 1]), hi = along_ratio(overlap_fractions[i]);
  return lo + (hi - lo) * w;
}

double MemoryLevel::node_total_Bps(int active_cores) const {
  active_cores = std::max(active_cores, 1);
  return bandwidth_per_core_Bps(active_cores) * active_cores;
}

std::optional<double> MemoryLevel::capacity_per_core_bytes(int active_cores) const {
  if (!size_bytes) return std::nullopt;
  return shared ? *size_bytes / std::max(active_cores, 1) : *size_bytes;
}

const std::vector<std::string>& math_function_names() {
  static const std::vector<std::string> names = {"sin",  "cos",  "tan",  "asin",  "acos", "atan",
                                                 "atan2", "sinh", "cosh", "tanh",  "exp",  "exp2",
                                                 "log",  "log2", "log10", "sqrt", "cbrt", "pow"};
  return names;
}

double MathCosts::flops(std::string_view function, Precision precision) const {
  const auto& table = precision == Precision::Double ? double_flops : single_flops;
  if (auto it = table.find(function); it != table.end()) return it->second;
  return precision == Precision::Double ? default_double_flops : default_single_flops;
}

const std::vector<InstructionCycleField>& instruction_cycle_fields() {
  static const std::vector<InstructionCycleField> fields = {
      {"fp_add_latency", "FP add", &InstructionCycles::fp_add_latency},
      {"fp_multiply_latency", "multiply", &InstructionCycles::fp_multiply_latency},
      {"fp_divide_latency", "divide", &InstructionCycles::fp_divide_latency},
      {"fp_divide_interval", "a divide every", &InstructionCycles::fp_divide_interval},
      {"fp_sqrt_latency", "sqrt", &InstructionCycles::fp_sqrt_latency},
      {"fp_sqrt_interval", "a sqrt every", &InstructionCycles::fp_sqrt_interval}};
  return fields;
}

double NodeGroup::flops_per_core_for(Precision precision, bool simd) const {
  if (precision == Precision::Double) return simd ? flops_per_core : flops_per_core_scalar;
  return simd ? flops_per_core_single : flops_per_core_single_scalar;
}

double NodeGroup::core_slowdown(int busy_cores) const {
  if (!busy_slowdown || cores <= 1 || busy_cores <= 1) return 1.0;
  busy_cores = std::min(busy_cores, cores);
  return 1.0 + (*busy_slowdown - 1.0) * (busy_cores - 1) / (cores - 1);
}

bool NodeGroup::sharing_measured() const {
  if (busy_slowdown) return true;
  for (const auto& level : memory)
    if (level.sharing_measured()) return true;
  return false;
}

double NodeGroup::peak_flops_per_node() const { return cores * flops_per_core; }

double NodeGroup::memory_bandwidth_per_node_Bps() const { return outermost_level().node_total_Bps(cores); }

double NodeGroup::balance_bytes_per_flop() const {
  return memory_bandwidth_per_node_Bps() / peak_flops_per_node();
}

MemoryLookup NodeGroup::memory_level_for(double working_set_bytes, int active_cores) const {
  active_cores = std::clamp(active_cores, 1, cores);
  size_t index = memory.size() - 1;
  for (size_t i = 0; i < memory.size(); ++i) {
    auto capacity = memory[i].capacity_per_core_bytes(active_cores);
    if (!capacity || working_set_bytes <= *capacity) {
      index = i;
      break;
    }
  }
  const MemoryLevel& level = memory[index];
  return {index, &level, level.capacity_per_core_bytes(active_cores), level.bandwidth_per_core_Bps(active_cores)};
}

int Machine::node_count() const {
  int n = 0;
  for (const auto& g : groups) n += g.count;
  return n;
}

int Machine::total_cores() const {
  int n = 0;
  for (const auto& g : groups) n += g.count * g.cores;
  return n;
}

double Machine::peak_flops() const {
  double total = 0;
  for (const auto& g : groups) total += g.count * g.peak_flops_per_node();
  return total;
}

size_t Machine::group_index_of_node(int node) const {
  if (node < 0) throw UserError(fmt::format("node {} does not exist", node));
  int first = 0;
  for (size_t i = 0; i < groups.size(); ++i) {
    if (node < first + groups[i].count) return i;
    first += groups[i].count;
  }
  throw UserError(fmt::format("node {} does not exist; machine '{}' has {} nodes", node, name, first));
}

const NodeGroup& Machine::group_of_node(int node) const { return groups[group_index_of_node(node)]; }

int Machine::node_of_rank(int rank, int nranks) const {
  // Machines have one or two groups: a small array avoids an allocation per call.
  constexpr size_t kInline = 8;
  NodeSlots inline_slots[kInline];
  std::vector<NodeSlots> many;
  std::span<NodeSlots> slots;
  if (groups.size() <= kInline) {
    slots = std::span<NodeSlots>(inline_slots, groups.size());
  } else {
    many.resize(groups.size());
    slots = many;
  }
  for (size_t i = 0; i < groups.size(); ++i)
    slots[i] = {groups[i].count, mapping.ranks_per_node.value_or(groups[i].cores)};
  return machine::node_of_rank(mapping, slots, rank, nranks);
}

int Machine::hops(int node_a, int node_b) const { return network.topology.hops(node_a, node_b); }

int Machine::diameter_hops() const { return network.topology.diameter(node_count()); }

double Machine::node_latency_s(int node_a, int node_b) const {
  int h = hops(node_a, node_b);
  if (h == 0) return network.intra_node_latency_s;
  return network.latency_s + (h - network.topology.min_hops()) * network.hop_latency_s;
}

double Machine::node_bandwidth_Bps(int node_a, int node_b) const {
  return node_a == node_b ? network.intra_node_bandwidth_Bps : network.bandwidth_Bps;
}

namespace {
double mean_of(const std::vector<double>& v) {
  if (v.empty()) return 1;
  double sum = 0;
  for (double s : v) sum += s;
  return sum / static_cast<double>(v.size());
}
}  // namespace

double Noise::mean() const { return mean_of(stretch); }

double Noise::divider_mean() const { return mean_of(divider_stretch); }

bool Noise::pairs_with(size_t quantiles, size_t divider_quantiles) const {
  return empty() || (stretch.size() == quantiles && divider_stretch.size() == divider_quantiles);
}

std::vector<double> Noise::stretch_of(double off_ports_share) const {
  if (off_ports_share <= 0 || divider_stretch.size() != stretch.size()) return stretch;
  std::vector<double> out(stretch.size());
  for (size_t q = 0; q < stretch.size(); ++q)
    out[q] = std::max((1 - std::min(off_ports_share, 1.0)) * stretch[q], divider_stretch[q]);
  return out;
}

Noise accumulate_noise(const Noise& history, const Noise& measured) {
  if (history.empty()) return measured;
  if (!history.pairs_with(measured.stretch.size(), measured.divider_stretch.size()))
    throw UserError(fmt::format("the machine file's noise ({} quantiles, {} divider quantiles) does not pair with the "
                                "measurement ({} and {})",
                                history.stretch.size(), history.divider_stretch.size(), measured.stretch.size(),
                                measured.divider_stretch.size()),
                    {}, "measure afresh without --accumulate, then accumulate onto that");
  const double w = history.probes, total = history.probes + measured.probes;
  auto average = [&](const std::vector<double>& a, const std::vector<double>& b) {
    std::vector<double> out(a.size());
    for (size_t q = 0; q < a.size(); ++q) out[q] = (w * a[q] + measured.probes * b[q]) / total;
    return out;  // averages of ascending quantiles ascend
  };
  Noise out;
  out.quantum_s = (w * history.quantum_s + measured.probes * measured.quantum_s) / total;
  out.stretch = average(history.stretch, measured.stretch);
  out.divider_stretch = average(history.divider_stretch, measured.divider_stretch);
  out.probes = history.probes + measured.probes;
  // A spell unknown on one side is not averaged as if it were 0: the known one stands.
  if (history.spell_s > 0 && measured.spell_s > 0)
    out.spell_s = (w * history.spell_s + measured.probes * measured.spell_s) / total;
  else
    out.spell_s = std::max(history.spell_s, measured.spell_s);
  return out;
}

double noise_narrowing(const Noise& noise, double span_s) {
  // A spell shorter than the quantum says no more than the quantum does: the
  // quanta are the samples then.
  const double sample_s = std::max(noise.quantum_s, noise.spell_s);
  if (!(sample_s > 0) || !(span_s > sample_s)) return 1;
  return 1 / std::sqrt(span_s / sample_s);
}

Noise noise_over_span(const Noise& noise, double span_s) {
  const double narrowing = noise_narrowing(noise, span_s);
  if (noise.empty() || narrowing == 1) return noise;
  auto towards_mean = [&](std::vector<double>& quantiles) {
    if (quantiles.empty()) return;
    double mean = 0;
    for (double q : quantiles) mean += q;
    mean /= static_cast<double>(quantiles.size());
    // Each moves towards the mean by the same factor: the order holds.
    for (double& q : quantiles) q = mean + (q - mean) * narrowing;
  };
  Noise out = noise;
  towards_mean(out.stretch);
  towards_mean(out.divider_stretch);
  return out;
}

double expected_slowest_stretch(const std::vector<const Noise*>& per_rank) {
  // Each distinct noise is a step CDF over its quantiles (each equally likely);
  // the slowest of independent ranks has the product of their CDFs, raised to
  // the number of ranks sharing one. Ranks are grouped by their quantiles, not
  // by object: predict gives each rank its own mix, and the ranks of an SPMD
  // job mostly share one. An empty noise is a point mass at 1.
  std::map<std::vector<double>, int> ranks_of;
  for (const Noise* n : per_rank) ++ranks_of[n && !n->empty() ? n->stretch : std::vector<double>{1.0}];
  if (ranks_of.empty()) return 1;
  std::vector<double> support;
  for (const auto& [stretch, _] : ranks_of) support.insert(support.end(), stretch.begin(), stretch.end());
  std::sort(support.begin(), support.end());
  support.erase(std::unique(support.begin(), support.end()), support.end());
  double expected = 0, below = 0;
  for (double x : support) {
    double cdf = 1;
    for (const auto& [stretch, count] : ranks_of) {
      auto at_or_below = std::upper_bound(stretch.begin(), stretch.end(), x) - stretch.begin();
      cdf *= std::pow(static_cast<double>(at_or_below) / static_cast<double>(stretch.size()), count);
    }
    expected += x * (cdf - below);
    below = cdf;
  }
  return expected;
}

double MessageTimes::time_at(double message_bytes, double beyond_Bps) const {
  if (bytes.empty()) return 0;
  if (message_bytes <= bytes.front()) return time_s.front();
  if (message_bytes >= bytes.back())
    return time_s.back() + (beyond_Bps > 0 ? (message_bytes - bytes.back()) / beyond_Bps : 0);
  size_t i = static_cast<size_t>(std::upper_bound(bytes.begin(), bytes.end(), message_bytes) - bytes.begin()) - 1;
  double t = (message_bytes - bytes[i]) / (bytes[i + 1] - bytes[i]);
  return time_s[i] + t * (time_s[i + 1] - time_s[i]);
}

double Machine::latency_s(int rank_a, int rank_b, int nranks) const {
  return node_latency_s(node_of_rank(rank_a, nranks), node_of_rank(rank_b, nranks));
}

double Machine::bandwidth_Bps(int rank_a, int rank_b, int nranks) const {
  return node_bandwidth_Bps(node_of_rank(rank_a, nranks), node_of_rank(rank_b, nranks));
}

const CollectiveTable* Machine::collective_table(CollectiveOp op) const {
  for (const auto& t : collectives)
    if (t.op == op) return &t;
  return nullptr;
}

std::optional<double> Machine::collective_time_s(CollectiveOp op, int procs, double bytes) const {
  const CollectiveTable* table = collective_table(op);
  if (!table) return std::nullopt;
  // A communicator of one moves nothing: a table measured from 2 ranks up is
  // not extrapolated down to it (one with a row for 1 rank says otherwise).
  if (procs == 1 && table->procs.front() > 1) return 0.0;
  return table->time_at(procs, bytes);
}

}  // namespace perfcast::machine
