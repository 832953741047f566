// Network topologies and hop counts between nodes.
//
// Nodes are numbered 0..count-1 in file order. Hop counts are the number of
// links a message crosses; they price latency (see Network::node_latency_s).
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace perfcast::machine {

enum class TopologyKind { Crossbar, FatTree, Torus3D };

const char* topology_name(TopologyKind kind);  // the spelling in machine files
std::optional<TopologyKind> parse_topology(std::string_view name);

struct Topology {
  TopologyKind kind = TopologyKind::Crossbar;
  // Torus3D: dimensions x, y, z; node n sits at (n % x, (n / x) % y, n / (x * y)).
  std::array<int, 3> torus{0, 0, 0};
  // FatTree: nodes are the leaves; switches at level l join arity^l consecutive nodes.
  int fat_tree_arity = 0;
  int fat_tree_levels = 0;

  // Links crossed between two nodes; 0 when they are the same node.
  int hops(int node_a, int node_b) const;
  // Hops between the two nearest distinct nodes: the distance `latency` is quoted for.
  int min_hops() const;
  // The largest hop count between two of the first `node_count` nodes.
  int diameter(int node_count) const;

  bool operator==(const Topology&) const = default;
};

std::array<int, 3> torus_coordinates(const std::array<int, 3>& dims, int node);

// Smallest number of levels whose top switch reaches `node_count` leaves.
int fat_tree_levels_needed(int arity, int node_count);

}  // namespace perfcast::machine
