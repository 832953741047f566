// --set KEY=VALUE: applied before validation, so overridden values are checked
// like written ones; unknown keys are refused.
#include <gtest/gtest.h>

#include "machine/machine_io.h"
#include "machine/test_util.h"
#include "support/error.h"

namespace perfcast::machine {
namespace {

std::string error_of(const std::vector<std::string>& overrides, const std::string& machine = "") {
  try {
    if (machine.empty())
      testing::minimal(overrides);
    else
      load_machine_file(testing::source_path("machines/" + machine + ".toml"), overrides);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(MachineOverrides, ChangeValues) {
  Machine m = testing::minimal({"network.bandwidth=\"20 GB/s\"", "node.cores=32", "name = other"});
  EXPECT_DOUBLE_EQ(m.network.bandwidth_Bps, 20e9);
  EXPECT_EQ(m.groups[0].cores, 32);
  EXPECT_EQ(m.name, "other");  // a bare word is a string
}

TEST(MachineOverrides, UnquotedQuantityIsAString) {
  Machine m = testing::minimal({"network.latency=2 us", "network.topology=torus3d", "network.torus=[2, 2, 1]"});
  EXPECT_DOUBLE_EQ(m.network.latency_s, 2e-6);
  EXPECT_EQ(m.network.topology.kind, TopologyKind::Torus3D);
  EXPECT_EQ(m.network.topology.torus, (std::array<int, 3>{2, 2, 1}));
}

TEST(MachineOverrides, AddKeysAndTablesTheFileLacks) {
  Machine m = testing::minimal({"math.sin=33", "mapping.policy=round_robin", "memory.L2={ size = \"1 MiB\", bandwidth = \"5 GB/s\" }"});
  EXPECT_DOUBLE_EQ(m.groups[0].math.flops("sin", Precision::Double), 33);
  EXPECT_EQ(m.mapping.policy, MappingPolicy::RoundRobin);
  ASSERT_EQ(m.groups[0].memory.size(), 3u);
  EXPECT_EQ(m.groups[0].memory[1].name, "L2");
}

TEST(MachineOverrides, IndexArrays) {
  Machine m = load_machine_file(testing::source_path("machines/hetero-example.toml"),
                                {"node_group.1.cores=8", "node_group.0.memory.DRAM.node_bandwidth=\"100 GB/s\"",
                                 "collective.0.time_s.0.0=5e-7", "collective.0.procs.2=16"});
  EXPECT_EQ(m.groups[1].cores, 8);
  EXPECT_EQ(m.groups[0].cores, 32);
  EXPECT_DOUBLE_EQ(*m.groups[0].memory.back().node_bandwidth_Bps, 100e9);
  EXPECT_DOUBLE_EQ(m.collectives[0].time_s[0][0], 5e-7);
  EXPECT_EQ(m.collectives[0].procs[2], 16);
}

TEST(MachineOverrides, LaterOverridesWin) {
  Machine m = testing::minimal({"node.count=8", "node.count=2"});
  EXPECT_EQ(m.node_count(), 2);
}

TEST(MachineOverrides, Refused) {
  EXPECT_NE(error_of({"network.bandwith=1"}).find("unknown key 'network.bandwith'; did you mean 'network.bandwidth'?"),
            std::string::npos);
  EXPECT_NE(error_of({"nodes.cores=3"}).find("unknown key 'nodes'; did you mean 'node'?"), std::string::npos);
  EXPECT_NE(error_of({"network.latency"}).find("expected KEY=VALUE"), std::string::npos);
  EXPECT_NE(error_of({"network..latency=1"}).find("not a dotted key"), std::string::npos);
  EXPECT_NE(error_of({"node_group.2.cores=4"}, "hetero-example").find("'node_group' has 2 entries; index 2 is out of range"),
            std::string::npos);
  EXPECT_NE(error_of({"node_group.x.cores=4"}, "hetero-example").find("unknown key 'node_group.x'"), std::string::npos);
  EXPECT_NE(error_of({"collective.0.op=allreduce"}).find("'collective' is not in the file"), std::string::npos);
  EXPECT_NE(error_of({"name.x=1"}).find("unknown key 'name.x'"), std::string::npos);
}

TEST(MachineOverrides, BadValuesAreValidatedLikeTheFile) {
  std::string e = error_of({"network.bandwidth=10 parsecs"});
  EXPECT_NE(e.find("'network.bandwidth': unknown unit 'parsecs'"), std::string::npos) << e;
  EXPECT_NE(e.find("(value given with --set)"), std::string::npos) << e;
  e = error_of({"node.cores=0"});
  EXPECT_NE(e.find("'node.cores': is 0; expected an integer >= 1 (value given with --set)"), std::string::npos) << e;
  e = error_of({"network.torus=[4,4,4]", "network.topology=torus3d"});
  EXPECT_NE(e.find("= 64 nodes but the machine has 4 nodes"), std::string::npos) << e;
}

}  // namespace
}  // namespace perfcast::machine
