#include "simgrid/platform.h"

#include <fmt/format.h>

#include <set>

#include "sim/collectives.h"
#include "support/error.h"

namespace perfcast::simgrid {

void check_machine_for_smpi(const machine::Machine& machine, int ranks) {
  const std::string where = machine.name.empty() ? "the machine" : fmt::format("machine '{}'", machine.name);
  if (machine.network.topology.kind != machine::TopologyKind::Crossbar)
    throw UserError(fmt::format("{}: SMPI's platform is written for a crossbar only", where),
                    {"", std::nullopt, "network.topology"}, "use topology = \"crossbar\"");
  if (machine.network.overhead_s != 0)
    throw UserError(fmt::format("{}: SMPI's per-message CPU overheads (os/or factors) are not mapped", where),
                    {"", std::nullopt, "network.overhead"}, "set network.overhead = \"0 s\"");
  std::set<int> nodes;
  for (int r = 0; r < ranks; ++r)
    if (!nodes.insert(machine.node_of_rank(r, ranks)).second)
      throw UserError(fmt::format("{}: rank {} shares node {} with another rank, and the within-node figures are "
                                  "not mapped to SimGrid",
                                  where, r, machine.node_of_rank(r, ranks)),
                      {"", std::nullopt, "node.cores"}, fmt::format("give at least {} nodes of one core", ranks));
}

std::string platform_xml(const machine::Machine& machine, int ranks) {
  std::string xml =
      "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<platform version=\"4.1\">\n<zone id=\"crossbar\" routing=\"Cluster\">\n";
  for (int r = 0; r < ranks; ++r)
    xml += fmt::format("  <host id=\"h{}\" speed=\"{:.17g}f\"/>\n", r,
                       machine.group_of_node(machine.node_of_rank(r, ranks)).flops_per_core);
  for (int r = 0; r < ranks; ++r) {
    xml += fmt::format("  <link id=\"l{}\" bandwidth=\"{:.17g}Bps\" latency=\"{:.17g}s\" sharing_policy=\"FATPIPE\"/>\n",
                       r, machine.network.bandwidth_Bps, machine.network.latency_s / 2);
    xml += fmt::format("  <host_link id=\"h{0}\" up=\"l{0}\" down=\"l{0}\"/>\n", r);
  }
  return xml + "</zone>\n</platform>\n";
}

std::vector<std::string> smpi_options(const machine::Machine& machine, SmpiUse use) {
  // perfcast sends eagerly when bytes <= threshold, SMPI when bytes < its threshold.
  const double eager = machine.network.eager_threshold_bytes + 1;
  std::vector<std::string> options = {
      "--cfg=network/model:CM02",  // a flow costs latency + bytes/bandwidth, max-min shared
      "--cfg=network/latency-factor:1", "--cfg=network/bandwidth-factor:1", "--cfg=network/weight-S:0",
      "--cfg=smpi/lat-factor:1", "--cfg=smpi/bw-factor:1",  // no piecewise correction
      "--cfg=network/crosstraffic:0",                          // no reverse (ack) flow eating bandwidth
      "--cfg=network/TCP-gamma:0",                             // no TCP-window bound on bandwidth
      fmt::format("--cfg=smpi/async-small-thresh:{:.17g}", eager),      // eager: starts before the receive
      fmt::format("--cfg=smpi/send-is-detached-thresh:{:.17g}", eager),  // eager: the send returns at once
      "--cfg=smpi/wtime:0", "--cfg=smpi/test:0", "--cfg=smpi/iprobe:0",  // perfcast charges nothing for these
      "--cfg=contexts/stack-size:256",  // KiB per rank (default 8 MiB)
      "--log=root.thres:warning",
  };
  if (use == SmpiUse::Program) {
    // smpi_execute(s) is s seconds on a platform host; the program's own CPU time is not simulated.
    options.push_back(fmt::format("--cfg=smpi/host-speed:{:.17g}f", machine.groups.front().flops_per_core));
    options.push_back("--cfg=smpi/simulate-computation:no");
  } else {
    options.push_back("--log=smpi_replay.thres:info");  // its last line: "Simulation time T"
  }
  return options;
}

std::string allreduce_algorithm(int ranks, double bytes) {
  const std::string_view chosen = sim::choose_collective_algorithm(events::Kind::Allreduce, ranks, bytes).name;
  return chosen == "recursive_doubling_allreduce" ? "rdb" : "lr";
}

}  // namespace perfcast::simgrid
