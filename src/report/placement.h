// Where a job's ranks sit (machine::Placement), for people and for scripts:
// one rendering shared by `perfcast predict` and `perfcast simulate`, so a job
// that time-shares cores, or never leaves one node of a machine with many,
// says so in the text and in the JSON alike (docs/json.md, "placement").
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "machine/pricing.h"

namespace perfcast::report {

// What the warnings name: the keys of the --set overrides that price no
// point-to-point message when every rank sits on one node (the command tells
// which: cli::network_overrides_unused_on_one_node).
struct PlacementContext {
  std::vector<std::string> unused_network_overrides;
  // The job's bursts may carry their own seconds (a trace, a skeleton's
  // BSIM_Add_time), which the engine takes as given: the warning says so.
  bool given_seconds = false;
};

// One sentence each: the job is oversubscribed (ranks, cores, ranks per
// core); its ranks all sit on one node while --set changed a network figure
// that prices no message there. Empty when neither holds. (One node
// of many without such a --set is said by the placement line, not warned
// of: a small job on a big machine is common and meant.)
std::vector<std::string> placement_warnings(const machine::Placement& placement, const PlacementContext& context);

// {ranks, nodes, machine_nodes, first_node, one_node_of_many, cores,
// ranks_per_node {min, max}, oversubscribed, oversubscribed_nodes,
// ranks_per_core, warnings}.
nlohmann::json placement_json(const machine::Placement& placement, const PlacementContext& context);

// "placement: ..." in one line, newline-terminated: the nodes holding ranks,
// ranks a node, their cores, whether no message crosses the network, whether
// ranks time-share cores. The commands print the warnings on stderr.
std::string placement_text(const machine::Placement& placement);

}  // namespace perfcast::report
