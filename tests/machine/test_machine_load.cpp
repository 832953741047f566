// Bundled machines load with the figures their descriptions cite; defaults are
// resolved as the format says; writing and loading again gives the same model.
#include <gtest/gtest.h>

#include <fstream>
#include <unistd.h>

#include "machine/machine_io.h"
#include "machine/test_util.h"
#include "support/error.h"
#include "support/units.h"

namespace perfcast::machine {
namespace {

using testing::bundled;
using testing::source_path;

const std::vector<std::string> kBundled = {"polus", "primequest", "petascale", "generic-cluster", "hetero-example"};

TEST(MachineLoad, EveryBundledMachineLoads) {
  for (const auto& name : kBundled) {
    SCOPED_TRACE(name);
    Machine m = bundled(name);
    EXPECT_EQ(m.name, name);
    EXPECT_FALSE(m.description.empty()) << "a bundled machine says where its figures come from";
    EXPECT_GT(m.peak_flops(), 0);
  }
  auto names = bundled_machine_names();
  for (const auto& name : kBundled) EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
}

TEST(MachineLoad, PolusHasThePaperFigures) {
  Machine m = bundled("polus");
  ASSERT_EQ(m.groups.size(), 1u);
  const NodeGroup& g = m.groups[0];
  EXPECT_EQ(g.count, 4);
  EXPECT_EQ(g.cores, 20);
  EXPECT_DOUBLE_EQ(g.flops_per_core, 5.3e9);
  ASSERT_EQ(g.memory.size(), 2u);
  EXPECT_EQ(g.memory[0].name, "L1");
  EXPECT_DOUBLE_EQ(*g.memory[0].size_bytes, 64 * 1024);
  EXPECT_DOUBLE_EQ(g.memory[0].bandwidth_Bps, 13000e6);
  EXPECT_EQ(g.memory[1].name, "DRAM");
  EXPECT_FALSE(g.memory[1].size_bytes);
  EXPECT_DOUBLE_EQ(g.memory[1].bandwidth_Bps, 9000e6);
  EXPECT_DOUBLE_EQ(g.math.flops("sin", Precision::Double), 39);
  EXPECT_DOUBLE_EQ(g.math.flops("exp", Precision::Single), 39);
  EXPECT_DOUBLE_EQ(m.network.latency_s, 60e-6);
  EXPECT_DOUBLE_EQ(m.network.bandwidth_Bps, 10000e6);
  EXPECT_EQ(m.network.topology.kind, TopologyKind::Crossbar);
  EXPECT_EQ(m.total_cores(), 80);
  EXPECT_DOUBLE_EQ(g.peak_flops_per_node(), 106e9);
}

TEST(MachineLoad, PetascaleIsTheBsimMachine) {
  Machine m = bundled("petascale");
  EXPECT_EQ(m.node_count(), 4096);
  EXPECT_EQ(m.total_cores(), 4096 * 8);
  EXPECT_DOUBLE_EQ(m.groups[0].peak_flops_per_node(), 512e9);
  EXPECT_EQ(m.network.topology.kind, TopologyKind::Torus3D);
  EXPECT_EQ(m.network.topology.torus, (std::array<int, 3>{16, 16, 16}));
  EXPECT_DOUBLE_EQ(m.network.bandwidth_Bps, 10e9);
  EXPECT_DOUBLE_EQ(m.groups[0].balance_bytes_per_flop(), 0.5);
}

TEST(MachineLoad, DefaultsAreResolved) {
  Machine m = testing::minimal();
  const NodeGroup& g = m.groups[0];
  EXPECT_DOUBLE_EQ(g.flops_per_core_single, 2 * 5.3e9);
  EXPECT_DOUBLE_EQ(g.flops_per_core_scalar, 5.3e9);
  EXPECT_DOUBLE_EQ(g.flops_per_core_single_scalar, 5.3e9);
  EXPECT_FALSE(g.clock_Hz);
  EXPECT_FALSE(g.memory[0].shared);
  EXPECT_TRUE(g.memory[1].shared);
  EXPECT_DOUBLE_EQ(g.math.flops("sin", Precision::Double), 20);
  EXPECT_DOUBLE_EQ(m.network.hop_latency_s, 0);
  EXPECT_DOUBLE_EQ(m.network.eager_threshold_bytes, 64 * 1024);
  EXPECT_DOUBLE_EQ(m.network.overhead_s, 0);
  EXPECT_DOUBLE_EQ(m.network.intra_node_latency_s, 60e-6);
  EXPECT_DOUBLE_EQ(m.network.intra_node_bandwidth_Bps, 10000e6);
  EXPECT_EQ(m.network.topology.kind, TopologyKind::Crossbar);
  EXPECT_EQ(m.mapping.policy, MappingPolicy::Block);
  EXPECT_FALSE(m.mapping.ranks_per_node);
  EXPECT_TRUE(m.collectives.empty());
}

TEST(MachineLoad, HeterogeneousGroupsKeepFileOrder) {
  Machine m = bundled("hetero-example");
  ASSERT_EQ(m.groups.size(), 2u);
  EXPECT_EQ(m.groups[0].name, "fat");
  EXPECT_EQ(m.groups[1].name, "thin");
  EXPECT_EQ(m.node_count(), 10);
  EXPECT_EQ(m.total_cores(), 2 * 32 + 8 * 16);
  EXPECT_EQ(m.group_index_of_node(1), 0u);
  EXPECT_EQ(m.group_index_of_node(2), 1u);
  EXPECT_EQ(m.group_of_node(9).name, "thin");
  EXPECT_THROW(m.group_of_node(10), UserError);
  EXPECT_DOUBLE_EQ(m.groups[0].math.flops("sin", Precision::Double), 20);
  EXPECT_DOUBLE_EQ(m.groups[0].math.flops("sin", Precision::Single), 10);
  EXPECT_DOUBLE_EQ(m.peak_flops(), 2 * 32 * 20e9 + 8 * 16 * 10e9);
}

TEST(MachineLoad, MathCostsPerPrecision) {
  Machine m = load_machine_string(R"(
name = "m"
[node]
count = 1
cores = 1
flops_per_core = "1 Gflop/s"
[memory]
DRAM = { bandwidth = "1 GB/s" }
[math]
sin = 30
default = 25
[math.single]
sin = 12
[math.double]
default = 40
[network]
latency = "1 us"
bandwidth = "1 GB/s"
)",
                                  "inline.toml");
  const MathCosts& math = m.groups[0].math;
  EXPECT_DOUBLE_EQ(math.flops("sin", Precision::Double), 30);
  EXPECT_DOUBLE_EQ(math.flops("sin", Precision::Single), 12);
  EXPECT_DOUBLE_EQ(math.flops("cos", Precision::Double), 40);
  EXPECT_DOUBLE_EQ(math.flops("cos", Precision::Single), 25);
  EXPECT_DOUBLE_EQ(math.flops("not_a_function", Precision::Single), 25);
}

TEST(MachineWrite, QuantitiesAreSpelledExactly) {
  using units::Dimension;
  EXPECT_EQ(exact_quantity(65536, Dimension::Bytes), "64 KiB");
  EXPECT_EQ(exact_quantity(10e9, Dimension::BytesPerSecond), "10 GB/s");
  // What a file says comes back as it was written.
  EXPECT_EQ(exact_quantity(units::parse("60 us", Dimension::Seconds), Dimension::Seconds), "60 us");
  EXPECT_EQ(exact_quantity(units::parse("5.3 Gflop/s", Dimension::FlopsPerSecond), Dimension::FlopsPerSecond),
            "5.3 Gflop/s");
  EXPECT_EQ(exact_quantity(0, Dimension::Seconds), "0 s");
  for (double v : {5.3e9, 13000e6, 1.0 / 3.0 * 1e9, 123456789.123, 6.02e-7, 1e-12}) {
    for (auto d : {Dimension::FlopsPerSecond, Dimension::BytesPerSecond, Dimension::Seconds, Dimension::Bytes}) {
      std::string text = exact_quantity(v, d);
      EXPECT_EQ(units::parse(text, d), v) << text;
    }
  }
}

void expect_round_trip(const Machine& m, const std::filesystem::path& base_dir) {
  std::string text = to_toml(m, base_dir);
  Machine again = load_machine_string(text, "written.toml", base_dir);
  EXPECT_EQ(again, m) << text;
  EXPECT_EQ(to_toml(again, base_dir), text);
}

TEST(MachineWrite, RoundTripGivesTheSameModel) {
  for (const auto& name : kBundled) {
    SCOPED_TRACE(name);
    expect_round_trip(bundled(name), source_path("machines"));
  }
}

TEST(MachineWrite, RoundTripOfEverything) {
  // Every optional key and a mapping file, written to another folder than the
  // machine file's, so the relative mapping path must be rewritten.
  auto m = testing::minimal({"mapping.policy=file", "mapping.file=reverse.map", "node.clock=\"2.5 GHz\"",
                             "math.single.sin=7", "math.double.default=33", "network.hop_latency=\"30 ns\"",
                             "network.topology=fat_tree", "network.rendezvous_handshakes=2", "network.probes=4", "network.fat_tree_arity=2", "network.fat_tree_levels=3",
                             "network.intra_node_one_way={ bytes = [1, 2048, 4096], time_s = [4.3e-7, 6e-7, 3.22e-6] }",
                             "network.intra_node_exchange={ bytes = [1, 4096], time_s = [6.1e-7, 4.5e-6] }",
                             "node.instruction_cycles={ fp_add_latency = 2.0, fp_divide_interval = 3.95 }",
                             "node.cpu=\"sapphirerapids\"",
                             "memory.DRAM.overlap_by_streams={ streams = [3, 7], core_over_memory = [0.8, 2.5], "
                             "serial_fraction = [[0.1, 0.05], [0.7, 0.25]] }",
                             "node.noise={ quantum = \"26.2 us\", stretch = [1.0, 1.003, 2.25], divider_stretch = [1.0, 1.0, 1.1], probes = 3, spell = \"0.25 s\" }",
                             "description=\"line one\\nline \\\"two\\\"\""});
  EXPECT_EQ(m.mapping.file_nodes, (std::vector<int>{3, 2, 1, 0}));
  EXPECT_EQ(m.description, "line one\nline \"two\"");
  EXPECT_EQ(m.network.intra_node_one_way.bytes, (std::vector<double>{1, 2048, 4096}));
  EXPECT_EQ(m.network.intra_node_exchange.time_s, (std::vector<double>{6.1e-7, 4.5e-6}));
  EXPECT_EQ(m.network.probes, 4);
  EXPECT_EQ(m.groups.front().instruction_cycles.fp_divide_interval, 3.95);
  EXPECT_EQ(m.groups.front().instruction_cycles.fp_sqrt_latency, 0) << "not given";
  EXPECT_EQ(m.groups.front().cpu, "sapphirerapids");
  EXPECT_EQ(m.groups.front().noise.stretch, (std::vector<double>{1.0, 1.003, 2.25}));
  EXPECT_DOUBLE_EQ(m.groups.front().noise.quantum_s, 26.2e-6);
  EXPECT_EQ(m.groups.front().noise.divider_stretch, (std::vector<double>{1.0, 1.0, 1.1}));
  EXPECT_EQ(m.groups.front().noise.probes, 3);
  EXPECT_DOUBLE_EQ(m.groups.front().noise.spell_s, 0.25);
  EXPECT_EQ(m.groups.front().memory.back().overlap_fractions[1], (std::vector<double>{0.7, 0.25}));
  auto dir = std::filesystem::temp_directory_path() / ("perfcast_test_machine_write_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "sub");
  write_machine_file(m, dir / "sub" / "m.toml");
  std::ifstream in(dir / "sub" / "m.toml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("file = \"../"), std::string::npos) << text;
  EXPECT_NE(text.find("\ncpu = \"sapphirerapids\"\n"), std::string::npos) << text;
  EXPECT_EQ(load_machine_file(dir / "sub" / "m.toml"), m);
  EXPECT_NE(text.find("spell = \"0.25 s\""), std::string::npos) << text;
  std::filesystem::remove_all(dir);
}

// A noise without a spell loads as 0 (not measured), writes none, and reads back so.
TEST(MachineLoad, ANoiseWithoutASpellKeepsNone) {
  auto m = testing::minimal({"node.noise={ quantum = \"20 us\", stretch = [1.0, 2.0] }"});
  EXPECT_EQ(m.groups.front().noise.spell_s, 0);
  auto dir = std::filesystem::temp_directory_path() / ("perfcast_test_machine_spell_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  write_machine_file(m, dir / "m.toml");
  std::ifstream in(dir / "m.toml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.find("spell"), std::string::npos) << text;
  EXPECT_EQ(load_machine_file(dir / "m.toml"), m);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace perfcast::machine

namespace perfcast::machine {
namespace {

// The doc's examples are part of the format: the smallest file must load.
TEST(MachineLoad, TheDocsSmallestFileLoads) {
  std::ifstream in(testing::source_path("docs/machine-format.md"));
  std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto start = doc.find("```toml\n");
  ASSERT_NE(start, std::string::npos);
  start += 8;
  std::string example = doc.substr(start, doc.find("```", start) - start);
  Machine m = load_machine_string(example, "docs/machine-format.md");
  EXPECT_EQ(m.total_cores(), 80);
  EXPECT_DOUBLE_EQ(m.network.latency_s, 60e-6);
}

}  // namespace
}  // namespace perfcast::machine

// serial_fraction is a number from 0 to 1; anything else names the field.
TEST(MachineLoad, SerialFractionIsAFractionNamedInItsError) {
  const std::string base = "name = \"m\"\n[node]\ncount = 1\ncores = 1\nflops_per_core = \"1 Gflop/s\"\n"
                            "[network]\nlatency = \"1 us\"\nbandwidth = \"1 GB/s\"\n[memory]\n";
  auto ok = perfcast::machine::load_machine_string(base + "DRAM = { bandwidth = \"10 GB/s\", serial_fraction = 0.4 }\n", "m.toml");
  EXPECT_DOUBLE_EQ(ok.groups[0].memory.back().serial_fraction, 0.4);
  for (const char* bad : {"1.5", "-0.1", "\"half\""}) {
    try {
      perfcast::machine::load_machine_string(base + "DRAM = { bandwidth = \"10 GB/s\", serial_fraction = " + bad + " }\n",
                                   "m.toml");
      FAIL() << bad;
    } catch (const perfcast::UserError& e) {
      EXPECT_NE(std::string(e.what()).find("memory.DRAM.serial_fraction"), std::string::npos) << e.what();
    }
  }
}

// overlap_by_streams: a fraction per stream count and in-core over transfer
// time, interpolated between them (in log ratio), the nearest end outside;
// each wrong part named.
TEST(MachineLoad, OverlapByStreamsInterpolatesAndNamesItsErrors) {
  const std::string base = "name = \"m\"\n[node]\ncount = 1\ncores = 1\nflops_per_core = \"1 Gflop/s\"\n"
                           "[network]\nlatency = \"1 us\"\nbandwidth = \"1 GB/s\"\n[memory]\n";
  auto with = [&](const std::string& table) {
    return perfcast::machine::load_machine_string(
        base + "DRAM = { bandwidth = \"10 GB/s\", serial_fraction = 0.05, overlap_by_streams = " + table + " }\n",
        "m.toml");
  };
  auto m = with("{ streams = [3, 7], core_over_memory = [1, 4], serial_fraction = [[0.1, 0.0], [0.8, 0.2]] }");
  const auto& dram = m.groups[0].memory.back();
  EXPECT_DOUBLE_EQ(dram.serial_fraction_for(7, 1), 0.8);
  EXPECT_DOUBLE_EQ(dram.serial_fraction_for(7, 2), 0.5) << "half way in log ratio between 1 and 4";
  EXPECT_DOUBLE_EQ(dram.serial_fraction_for(5, 1), 0.45) << "half way between 3 and 7 streams";
  EXPECT_DOUBLE_EQ(dram.serial_fraction_for(9, 0.5), 0.8) << "outside both axes: the nearest corner";
  EXPECT_DOUBLE_EQ(dram.serial_fraction_for(2, 10), 0.0);
  EXPECT_DOUBLE_EQ(dram.serial_fraction_for(0, 1), 0.05) << "streams unknown: the plain serial_fraction";
  struct Bad {
    const char* table;
    const char* field;
    const char* message;
  };
  for (const Bad& bad : {
           Bad{"{ streams = [7, 3], core_over_memory = [1], serial_fraction = [[0.1], [0.2]] }",
               "memory.DRAM.overlap_by_streams.streams.1", "streams must increase"},
           Bad{"{ streams = [3, 7], core_over_memory = [1, 4], serial_fraction = [[0.1, 0.0]] }",
               "memory.DRAM.overlap_by_streams.serial_fraction", "has 1 rows"},
           Bad{"{ streams = [3], core_over_memory = [1, 4], serial_fraction = [[0.1]] }",
               "memory.DRAM.overlap_by_streams.serial_fraction.0", "one per core_over_memory entry"},
           Bad{"{ streams = [3], core_over_memory = [1], serial_fraction = [[1.5]] }",
               "memory.DRAM.overlap_by_streams.serial_fraction.0.0", "is 1.5; expected a fraction from 0 to 1"},
           Bad{"{ streams = [3], core_over_memory = [0], serial_fraction = [[0.5]] }",
               "memory.DRAM.overlap_by_streams.core_over_memory.0", "is 0; expected ratios"},
           Bad{"{ streams = [3], serial_fraction = [[0.5]] }", "memory.DRAM.overlap_by_streams.core_over_memory",
               "is missing"},
       }) {
    try {
      with(bad.table);
      ADD_FAILURE() << bad.table;
    } catch (const perfcast::UserError& e) {
      std::string what = e.what();
      EXPECT_NE(what.find(bad.field), std::string::npos) << bad.table << ": " << what;
      EXPECT_NE(what.find(bad.message), std::string::npos) << bad.table << ": " << what;
    }
  }
}
