#include "machine/topology.h"

#include <algorithm>
#include <cstdlib>

namespace perfcast::machine {

const char* topology_name(TopologyKind kind) {
  switch (kind) {
    case TopologyKind::Crossbar: return "crossbar";
    case TopologyKind::FatTree: return "fat_tree";
    case TopologyKind::Torus3D: return "torus3d";
  }
  return "?";
}

std::optional<TopologyKind> parse_topology(std::string_view name) {
  for (auto kind : {TopologyKind::Crossbar, TopologyKind::FatTree, TopologyKind::Torus3D})
    if (name == topology_name(kind)) return kind;
  return std::nullopt;
}

std::array<int, 3> torus_coordinates(const std::array<int, 3>& dims, int node) {
  return {node % dims[0], (node / dims[0]) % dims[1], node / (dims[0] * dims[1])};
}

int fat_tree_levels_needed(int arity, int node_count) {
  int levels = 1;
  long long reach = arity;
  while (reach < node_count) {
    reach *= arity;
    ++levels;
  }
  return levels;
}

namespace {

// Level of the lowest switch above both leaves (1 = the leaves' own switch).
int fat_tree_common_level(int arity, int a, int b) {
  int level = 1;
  a /= arity;
  b /= arity;
  while (a != b) {
    a /= arity;
    b /= arity;
    ++level;
  }
  return level;
}

}  // namespace

int Topology::hops(int node_a, int node_b) const {
  if (node_a == node_b) return 0;
  switch (kind) {
    case TopologyKind::Crossbar: return 1;
    case TopologyKind::FatTree: return 2 * fat_tree_common_level(fat_tree_arity, node_a, node_b);
    case TopologyKind::Torus3D: {
      auto ca = torus_coordinates(torus, node_a);
      auto cb = torus_coordinates(torus, node_b);
      int total = 0;
      for (int d = 0; d < 3; ++d) {
        int straight = std::abs(ca[d] - cb[d]);
        total += std::min(straight, torus[d] - straight);
      }
      return total;
    }
  }
  return 1;
}

int Topology::min_hops() const { return kind == TopologyKind::FatTree ? 2 : 1; }

int Topology::diameter(int node_count) const {
  if (node_count <= 1) return 0;
  switch (kind) {
    case TopologyKind::Crossbar: return 1;
    // Leaves 0 and count-1 have the highest common switch of any pair.
    case TopologyKind::FatTree: return hops(0, node_count - 1);
    case TopologyKind::Torus3D: return torus[0] / 2 + torus[1] / 2 + torus[2] / 2;
  }
  return 1;
}

}  // namespace perfcast::machine
