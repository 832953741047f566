#include "machine/schema.h"

#include <algorithm>
#include <cctype>

#include "machine/machine.h"

namespace perfcast::machine::schema {

namespace {

struct Entry {
  const char* key;
  Context kind;
};

const std::vector<Entry>& node_keys() {
  static const std::vector<Entry> keys = {
      {"count", Context::Value},
      {"cores", Context::Value},
      {"flops_per_core", Context::Value},
      {"flops_per_core_single", Context::Value},
      {"flops_per_core_scalar", Context::Value},
      {"flops_per_core_single_scalar", Context::Value},
      {"clock", Context::Value},
      {"cpu", Context::Value},
      {"busy_slowdown", Context::Value},
      {"instruction_cycles", Context::InstructionCycles},
      {"noise", Context::Noise},
  };
  return keys;
}

std::vector<Entry> entries(Context parent) {
  switch (parent) {
    case Context::Root:
      return {{"name", Context::Value},        {"description", Context::Value},
              {"node", Context::Node},         {"memory", Context::Memory},
              {"math", Context::Math},         {"node_group", Context::NodeGroupArray},
              {"network", Context::Network},   {"mapping", Context::Mapping},
              {"collective", Context::CollectiveArray}};
    case Context::Node: return node_keys();
    case Context::NodeGroup: {
      auto keys = node_keys();
      keys.insert(keys.begin(), {"name", Context::Value});
      keys.push_back({"memory", Context::Memory});
      keys.push_back({"math", Context::Math});
      return keys;
    }
    case Context::Memory:
      return {{"L1", Context::MemoryLevel}, {"L2", Context::MemoryLevel}, {"L3", Context::MemoryLevel},
              {"L4", Context::MemoryLevel}, {"DRAM", Context::MemoryLevel}};
    case Context::MemoryLevel:
      return {{"size", Context::Value}, {"bandwidth", Context::Value}, {"shared", Context::Value},
              {"node_bandwidth", Context::Value}, {"serial_fraction", Context::Value},
              {"overlap_by_streams", Context::StreamOverlap}, {"bandwidth_by_cores", Context::CoreSharing}};
    case Context::Math:
    case Context::MathPrecision: {
      std::vector<Entry> keys;
      for (const auto& f : math_function_names()) keys.push_back({f.c_str(), Context::Value});
      keys.push_back({"default", Context::Value});
      if (parent == Context::Math) {
        keys.push_back({"single", Context::MathPrecision});
        keys.push_back({"double", Context::MathPrecision});
      }
      return keys;
    }
    case Context::Network:
      return {{"latency", Context::Value},           {"bandwidth", Context::Value},
              {"topology", Context::Value},          {"hop_latency", Context::Value},
              {"eager_threshold", Context::Value},   {"overhead", Context::Value},
              {"rendezvous_handshakes", Context::Value},
              {"intra_node_latency", Context::Value}, {"intra_node_bandwidth", Context::Value},
              {"intra_node_one_way", Context::MessageTimes}, {"intra_node_exchange", Context::MessageTimes},
              {"torus", Context::ValueArray},        {"fat_tree_arity", Context::Value},
              {"fat_tree_levels", Context::Value},   {"probes", Context::Value}};
    case Context::InstructionCycles: {
      std::vector<Entry> keys;
      for (const auto& f : instruction_cycle_fields()) keys.push_back({f.key, Context::Value});
      return keys;
    }
    case Context::MessageTimes:
      return {{"bytes", Context::ValueArray}, {"time_s", Context::ValueArray}};
    case Context::StreamOverlap:
      return {{"streams", Context::ValueArray}, {"core_over_memory", Context::ValueArray},
              {"serial_fraction", Context::ValueArray}};
    case Context::CoreSharing:
      return {{"cores", Context::ValueArray}, {"per_core", Context::ValueArray}};
    case Context::Noise:
      return {{"quantum", Context::Value}, {"stretch", Context::ValueArray}, {"divider_stretch", Context::ValueArray},
              {"probes", Context::Value}, {"spell", Context::Value}};
    case Context::Mapping:
      return {{"policy", Context::Value}, {"ranks_per_node", Context::Value}, {"file", Context::Value}};
    case Context::Collective:
      return {{"op", Context::Value}, {"procs", Context::ValueArray}, {"bytes", Context::ValueArray},
              {"time_s", Context::ValueArray}};
    default: return {};
  }
}

bool is_index(std::string_view key) {
  return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::optional<Context> child(Context parent, std::string_view key) {
  switch (parent) {
    case Context::NodeGroupArray: return is_index(key) ? std::optional(Context::NodeGroup) : std::nullopt;
    case Context::CollectiveArray: return is_index(key) ? std::optional(Context::Collective) : std::nullopt;
    case Context::ValueArray: return is_index(key) ? std::optional(Context::ValueArray) : std::nullopt;
    default: break;
  }
  for (const auto& e : entries(parent))
    if (key == e.key) return e.kind;
  return std::nullopt;
}

std::vector<std::string> keys_of(Context parent) {
  std::vector<std::string> keys;
  for (const auto& e : entries(parent)) keys.emplace_back(e.key);
  return keys;
}

std::string closest_key(Context parent, std::string_view key) {
  std::string best;
  size_t best_distance = 3;
  for (const auto& e : entries(parent)) {
    size_t d = edit_distance(key, e.key);
    if (d < best_distance) {
      best_distance = d;
      best = e.key;
    }
  }
  return best;
}

}  // namespace perfcast::machine::schema
