// Placement of MPI ranks on nodes.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace perfcast::machine {

enum class MappingPolicy { Block, RoundRobin, File };

const char* mapping_policy_name(MappingPolicy policy);  // the spelling in machine files
std::optional<MappingPolicy> parse_mapping_policy(std::string_view name);

struct Mapping {
  MappingPolicy policy = MappingPolicy::Block;
  std::optional<int> ranks_per_node;  // Block only; none: each node's core count
  std::filesystem::path file;         // File only: absolute path of the mapping file
  std::vector<int> file_nodes;        // File only: node of rank r at index r

  bool operator==(const Mapping&) const = default;
};

// How many ranks one node of a group takes under block mapping.
struct NodeSlots {
  int nodes = 0;
  int slots_per_node = 0;
};

// The node rank `rank` of a job of `nranks` runs on. Block fills nodes in order,
// each up to its slots; when the job has more ranks than the machine has slots,
// every node's slots are multiplied by the smallest factor that fits the job, so
// the oversubscription is spread evenly. Throws UserError when rank is outside
// [0, nranks) or a mapping file lists fewer ranks than the job has.
int node_of_rank(const Mapping& mapping, std::span<const NodeSlots> slots, int rank, int nranks);

// Reads a mapping file: one node index per line, the r-th line for rank r;
// blank lines and text after '#' are ignored. Indices must be < node_count.
std::vector<int> read_mapping_file(const std::filesystem::path& file, int node_count);

}  // namespace perfcast::machine
