#include "report/placement.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace perfcast::report {

namespace {

std::string per_node(const machine::Placement& p) {
  if (p.min_ranks_per_node == p.max_ranks_per_node) return fmt::format("{} a node", p.max_ranks_per_node);
  return fmt::format("{} to {} a node", p.min_ranks_per_node, p.max_ranks_per_node);
}

}  // namespace

std::vector<std::string> placement_warnings(const machine::Placement& p, const PlacementContext& context) {
  std::vector<std::string> out;
  if (p.oversubscribed())
    out.push_back(fmt::format(
        "oversubscribed: {} ranks on the {} cores of {} node{}, up to {:.4g} ranks a core: ranks beyond a node's "
        "cores time-share them, so each rank's compute and memory time is priced ranks/cores times as long{}",
        p.ranks, p.cores, p.nodes, p.nodes == 1 ? "" : "s", p.ranks_per_core,
        context.given_seconds ? " (bursts of given seconds, traced or BSIM_Add_time, are taken as given)" : ""));
  const auto& unused = context.unused_network_overrides;
  if (p.nodes == 1 && !unused.empty())
    out.push_back(fmt::format(
        "--set {}: all {} ranks sit on node {} of the machine's {}, so no message crosses the network: "
        "every message, point-to-point or a collective's, takes the intra-node figures, which {} not "
        "change{}",
        fmt::join(unused, ", --set "), p.ranks, p.first_node, p.machine_nodes,
        unused.size() == 1 ? "this does" : "these do",
        p.machine_nodes > 1 ? "; spread the ranks with --set mapping.ranks_per_node=N or mapping.policy=round_robin"
                            : ""));
  return out;
}

nlohmann::json placement_json(const machine::Placement& p, const PlacementContext& context) {
  return {{"ranks", p.ranks},
          {"nodes", p.nodes},
          {"machine_nodes", p.machine_nodes},
          {"first_node", p.first_node},
          {"one_node_of_many", p.one_node_of_many()},
          {"cores", p.cores},
          {"ranks_per_node", {{"min", p.min_ranks_per_node}, {"max", p.max_ranks_per_node}}},
          {"oversubscribed", p.oversubscribed()},
          {"oversubscribed_nodes", p.oversubscribed_nodes},
          {"ranks_per_core", p.ranks_per_core},
          {"warnings", placement_warnings(p, context)}};
}

std::string placement_text(const machine::Placement& p) {
  return fmt::format("placement: {} rank{} on {} of {} node{} ({}), {} cores{}{}\n", p.ranks, p.ranks == 1 ? "" : "s",
                     p.nodes, p.machine_nodes, p.machine_nodes == 1 ? "" : "s", per_node(p), p.cores,
                     p.one_node_of_many()
                         ? fmt::format(": all on node {}, no message crosses the network", p.first_node)
                         : "",
                     p.oversubscribed() ? fmt::format("; oversubscribed: up to {:.4g} ranks a core time-share it",
                                                      p.ranks_per_core)
                                        : "");
}

}  // namespace perfcast::report
