#include "machine/mapping.h"

#include <charconv>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "support/error.h"

namespace perfcast::machine {

const char* mapping_policy_name(MappingPolicy policy) {
  switch (policy) {
    case MappingPolicy::Block: return "block";
    case MappingPolicy::RoundRobin: return "round_robin";
    case MappingPolicy::File: return "file";
  }
  return "?";
}

std::optional<MappingPolicy> parse_mapping_policy(std::string_view name) {
  for (auto p : {MappingPolicy::Block, MappingPolicy::RoundRobin, MappingPolicy::File})
    if (name == mapping_policy_name(p)) return p;
  return std::nullopt;
}

int node_of_rank(const Mapping& mapping, std::span<const NodeSlots> slots, int rank, int nranks) {
  if (nranks < 1 || rank < 0 || rank >= nranks)
    throw UserError(fmt::format("rank {} is outside a job of {} ranks", rank, nranks));
  int node_count = 0;
  long long total_slots = 0;
  for (const auto& s : slots) {
    node_count += s.nodes;
    total_slots += static_cast<long long>(s.nodes) * s.slots_per_node;
  }
  switch (mapping.policy) {
    case MappingPolicy::RoundRobin: return rank % node_count;
    case MappingPolicy::File:
      if (static_cast<size_t>(nranks) > mapping.file_nodes.size())
        throw UserError(fmt::format("the mapping file places {} ranks but the job has {}", mapping.file_nodes.size(),
                                    nranks),
                        {mapping.file.string(), std::nullopt, "mapping.file"},
                        "add a line per rank to the mapping file, or use mapping.policy = \"block\"");
      return mapping.file_nodes[static_cast<size_t>(rank)];
    case MappingPolicy::Block: break;
  }
  long long factor = (nranks + total_slots - 1) / total_slots;
  long long remaining = rank;
  int first_node = 0;
  for (const auto& s : slots) {
    long long per_node = s.slots_per_node * factor;
    long long in_group = per_node * s.nodes;
    if (remaining < in_group) return first_node + static_cast<int>(remaining / per_node);
    remaining -= in_group;
    first_node += s.nodes;
  }
  return node_count - 1;  // unreachable: factor makes the slots hold every rank
}

std::vector<int> read_mapping_file(const std::filesystem::path& file, int node_count) {
  std::ifstream in(file);
  if (!in)
    throw UserError("cannot open the mapping file", {file.string(), std::nullopt, "mapping.file"},
                    "mapping.file is relative to the machine file's folder");
  std::vector<int> nodes;
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    auto last = line.find_last_not_of(" \t\r");
    std::string_view text(line.data() + first, last - first + 1);
    int node = -1;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), node);
    if (ec != std::errc() || end != text.data() + text.size() || node < 0 || node >= node_count)
      throw UserError(fmt::format("'{}' is not a node index; expected an integer from 0 to {}", text, node_count - 1),
                      {file.string(), line_number, ""});
    nodes.push_back(node);
  }
  if (nodes.empty()) throw UserError("the mapping file places no rank", {file.string(), std::nullopt, ""});
  return nodes;
}

}  // namespace perfcast::machine
