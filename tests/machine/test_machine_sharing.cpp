// What the cores of a node share: each core's bandwidth from a shared level by
// how many cores stream at once (memory.LEVEL.bandwidth_by_cores) and the
// in-core slowdown with all cores busy (node.busy_slowdown). Both optional: a
// file without them prices as before.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "machine/pricing.h"
#include "machine/test_util.h"
#include "support/error.h"

namespace perfcast::machine {
namespace {

const char* kTable =
    "memory.DRAM.bandwidth_by_cores={ cores = [1, 2, 4, 16], per_core = [\"9 GB/s\", \"8 GB/s\", "
    "\"6 GB/s\", \"3 GB/s\"] }";

Machine sixteen_cores(std::vector<std::string> more = {}) {
  std::vector<std::string> overrides = {"node.cores=16", kTable, "node.busy_slowdown=1.09"};
  overrides.insert(overrides.end(), more.begin(), more.end());
  return testing::minimal(overrides);
}

TEST(MachineSharing, BandwidthByCoresIsTheTableLinearBetweenItsPoints) {
  const Machine m = sixteen_cores();
  const MemoryLevel& dram = m.groups[0].memory.back();
  EXPECT_TRUE(dram.sharing_measured());
  EXPECT_DOUBLE_EQ(dram.bandwidth_per_core_Bps(1), 9e9);
  EXPECT_DOUBLE_EQ(dram.bandwidth_per_core_Bps(4), 6e9);
  EXPECT_DOUBLE_EQ(dram.bandwidth_per_core_Bps(3), 7e9) << "half way between 2 and 4 cores";
  EXPECT_DOUBLE_EQ(dram.bandwidth_per_core_Bps(10), 4.5e9) << "half way between 4 and 16 cores";
  EXPECT_DOUBLE_EQ(dram.bandwidth_per_core_Bps(16), 3e9);
  EXPECT_DOUBLE_EQ(dram.bandwidth_per_core_Bps(40), 3e9) << "beyond the table: its last point";
  EXPECT_DOUBLE_EQ(dram.node_total_Bps(16), 48e9);
}

TEST(MachineSharing, TheTableWinsOverNodeBandwidth) {
  // node_bandwidth alone would give 20 GB/s / 4 = 5 GB/s at 4 cores.
  const Machine m = sixteen_cores({"memory.DRAM.node_bandwidth=\"20 GB/s\""});
  const MemoryLevel& dram = m.groups[0].memory.back();
  EXPECT_DOUBLE_EQ(dram.bandwidth_per_core_Bps(4), 6e9);
}

TEST(MachineSharing, BusySlowdownIsLinearInBusyCoresFromOneToAll) {
  const Machine m = sixteen_cores();
  const NodeGroup& g = m.groups[0];
  EXPECT_DOUBLE_EQ(g.core_slowdown(1), 1.0);
  EXPECT_DOUBLE_EQ(g.core_slowdown(16), 1.09);
  EXPECT_DOUBLE_EQ(g.core_slowdown(6), 1.03) << "5 of 15 steps from 1 to 16 cores";
  EXPECT_DOUBLE_EQ(g.core_slowdown(64), 1.09) << "more ranks than cores: all busy";
}

TEST(MachineSharing, WithoutTheKeysNothingChanges) {
  // Not measured: the old sharing model (node_bandwidth / cores), clock as alone.
  Machine m = testing::minimal({"node.cores=16", "memory.DRAM.node_bandwidth=\"72 GB/s\""});
  const NodeGroup& g = m.groups[0];
  EXPECT_FALSE(g.sharing_measured());
  EXPECT_FALSE(g.busy_slowdown);
  EXPECT_EQ(g.core_slowdown(16), 1.0);
  EXPECT_DOUBLE_EQ(g.memory.back().bandwidth_per_core_Bps(16), 4.5e9);
  EXPECT_DOUBLE_EQ(g.memory.back().bandwidth_per_core_Bps(2), 9e9) << "min(bandwidth, node / 2)";
}

TEST(MachineSharing, RoundTripKeepsTheTableAndTheSlowdown) {
  Machine m =
      sixteen_cores({"memory.L1.bandwidth_by_cores={ cores = [1, 16], per_core = [\"13 GB/s\", \"12.5 GB/s\"] }"});
  auto dir = std::filesystem::temp_directory_path() / ("perfcast_test_sharing_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  write_machine_file(m, dir / "m.toml");
  std::ifstream in(dir / "m.toml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("busy_slowdown = 1.09"), std::string::npos) << text;
  EXPECT_NE(text.find("bandwidth_by_cores = { cores = [1, 2, 4, 16], per_core = [\"9 GB/s\""), std::string::npos)
      << text;
  Machine back = load_machine_file(dir / "m.toml");
  EXPECT_EQ(back, m);
  EXPECT_EQ(back.groups[0].memory.back().sharing_cores, (std::vector<int>{1, 2, 4, 16}));
  std::filesystem::remove_all(dir);
}

TEST(MachineSharing, BadTablesAndSlowdownsNameTheirField) {
  struct Bad {
    std::string override_text;
    const char* field;
    const char* message;
  };
  const std::string table = "memory.DRAM.bandwidth_by_cores=";
  for (const Bad& bad : {
           Bad{table + "{ cores = [1, 4, 2], per_core = [\"9 GB/s\", \"6 GB/s\", \"8 GB/s\"] }",
               "memory.DRAM.bandwidth_by_cores.cores.2", "core counts must increase"},
           Bad{table + "{ cores = [1, 32], per_core = [\"9 GB/s\", \"3 GB/s\"] }",
               "memory.DRAM.bandwidth_by_cores.cores.1", "more than the node's 16 cores"},
           Bad{table + "{ cores = [0, 2], per_core = [\"9 GB/s\", \"3 GB/s\"] }",
               "memory.DRAM.bandwidth_by_cores.cores.0", "expected an integer >= 1"},
           Bad{table + "{ cores = [1, 2], per_core = [\"9 GB/s\"] }", "memory.DRAM.bandwidth_by_cores.per_core",
               "has 1 bandwidths; expected an array of 2"},
           Bad{table + "{ cores = [1, 2], per_core = [\"9 GB/s\", \"0 GB/s\"] }",
               "memory.DRAM.bandwidth_by_cores.per_core.1", "expected more than zero"},
           Bad{table + "{ cores = [1, 2], per_core = [\"9 GB/s\", 3] }", "memory.DRAM.bandwidth_by_cores.per_core.1",
               "expected an array of 2 bandwidths"},
           Bad{table + "{ cores = [1, 2], per_core = [\"9 GB/s\", \"3 parsecs\"] }",
               "memory.DRAM.bandwidth_by_cores.per_core.1", "parsecs"},
           Bad{table + "{ cores = [1, 2] }", "memory.DRAM.bandwidth_by_cores.per_core", "is missing"},
           Bad{table + "{ cores = [1, 2], per_core = [\"9 GB/s\", \"3 GB/s\"], k = 1 }",
               "memory.DRAM.bandwidth_by_cores.k", "unknown key"},
           Bad{"node.busy_slowdown=0.9", "node.busy_slowdown", "expected a number >= 1"},
           Bad{"node.busy_slowdown=\"fast\"", "node.busy_slowdown", "expected a number >= 1"},
       }) {
    try {
      testing::minimal({"node.cores=16", bad.override_text});
      ADD_FAILURE() << bad.override_text;
    } catch (const UserError& e) {
      std::string what = e.what();
      EXPECT_NE(what.find(bad.field), std::string::npos) << bad.override_text << ": " << what;
      EXPECT_NE(what.find(bad.message), std::string::npos) << bad.override_text << ": " << what;
    }
  }
}

TEST(PricingSharing, AMemoryBoundBurstTakesTheTablesBandwidthAtKAndAComputeBoundOneTheClock) {
  Machine m = sixteen_cores();
  const NodeGroup& g = m.groups[0];
  Pricing p(m, 16);
  const double bytes = 3e9, flops = 5.3e9;
  // Memory-bound, 16 ranks on the node computing: 3 GB/s each, exactly.
  EXPECT_DOUBLE_EQ(p.burst_s(0, 0, bytes), bytes / 3e9);
  EXPECT_DOUBLE_EQ(p.burst_s(0, 0, bytes, 16), 1.0);
  EXPECT_DOUBLE_EQ(p.burst_s(0, 0, bytes, 1), bytes / 9e9) << "alone on the node";
  EXPECT_DOUBLE_EQ(p.burst_s(0, 0, bytes, 4), bytes / 6e9);
  // Compute-bound: flops at the core's rate, slowed by the busy clock only.
  EXPECT_DOUBLE_EQ(p.burst_s(0, flops, 1, 16), flops / g.flops_per_core * 1.09);
  EXPECT_DOUBLE_EQ(p.burst_s(0, flops, 1, 1), flops / g.flops_per_core);
  EXPECT_DOUBLE_EQ(Pricing::in_core_s(g, 2.0, Pricing::node_load(g, 16, 16)), 2.18);
}

TEST(PricingSharing, RanksBeyondTheCoresTimeShareThemAndTheTablesStopAtTheCores) {
  Machine m = sixteen_cores({"node.count=1"});
  const NodeGroup& g = m.groups[0];
  // 40 ranks on the 16 cores: the tables see 16, each rank 16/40 of a core.
  const NodeLoad load = Pricing::node_load(g, 40, 40);
  EXPECT_EQ(load.streaming, 16);
  EXPECT_DOUBLE_EQ(load.time_share, 2.5);
  EXPECT_DOUBLE_EQ(Pricing::in_core_s(g, 2.0, load), 2.0 * 1.09 * 2.5);
  EXPECT_DOUBLE_EQ(Pricing::traffic_s(g.outermost_level(), 3e9, load), 2.5);
  // Fewer at work than placed: the tables see those at work, the share the placed.
  const NodeLoad one = Pricing::node_load(g, 1, 32);
  EXPECT_EQ(one.streaming, 1);
  EXPECT_DOUBLE_EQ(one.time_share, 2.0);
  Pricing p(m, 32);
  EXPECT_DOUBLE_EQ(p.burst_s(0, 0, 9e9, 1), 2.0);
  EXPECT_DOUBLE_EQ(p.burst_s(0, 0, 3e9), 2.0) << "every rank at work: 3 GB/s at 16, half the time";
  const Placement placed = p.placement();
  EXPECT_TRUE(placed.oversubscribed());
  EXPECT_EQ(placed.nodes, 1);
  EXPECT_EQ(placed.machine_nodes, 1);
  EXPECT_FALSE(placed.one_node_of_many());
  EXPECT_EQ(placed.max_ranks_per_node, 32);
  EXPECT_DOUBLE_EQ(placed.ranks_per_core, 2.0);
  // Up to the cores nothing is shared in time.
  EXPECT_DOUBLE_EQ(Pricing::node_load(g, 16, 16).time_share, 1.0);
  EXPECT_FALSE(Pricing(m, 16).placement().oversubscribed());
}

}  // namespace
}  // namespace perfcast::machine
