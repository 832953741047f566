// Each file in tests/machine/malformed/ is wrong in one way; the error must
// name the file, the line and the key, and say what was expected.
#include <gtest/gtest.h>

#include "machine/machine_io.h"
#include "machine/test_util.h"
#include "support/error.h"

namespace perfcast::machine {
namespace {

struct Malformed {
  const char* file;
  int line;
  const char* field;  // "" when the error is not about one key
  const char* message;
};

const Malformed kMalformed[] = {
    {"unknown_key.toml", 11, "network.bandwith", "unknown key; did you mean 'network.bandwidth'?"},
    {"bad_unit.toml", 11, "network.bandwidth", "unknown unit 'parsecs'"},
    {"wrong_dimension.toml", 10, "network.latency", "'10 GB/s' is a bandwidth, expected a time"},
    {"sizes_shrink.toml", 8, "memory.L2.size", "not larger than L1.size (64 KiB); sizes must grow outwards"},
    {"missing_name.toml", 1, "name", "is missing; expected a short name"},
    {"cores_zero.toml", 4, "node.cores", "is 0; expected an integer >= 1"},
    {"number_not_quantity.toml", 5, "node.flops_per_core", "is the number 5.3; expected a flop rate"},
    {"bad_topology.toml", 12, "network.topology", "is \"ring\"; expected \"crossbar\", \"fat_tree\" or \"torus3d\""},
    {"torus_product.toml", 13, "network.torus", "= 64 nodes but the machine has 4 nodes"},
    {"torus_not_torus.toml", 12, "network.torus", "applies only to topology = \"torus3d\""},
    {"fat_tree_no_arity.toml", 9, "network.fat_tree_arity", "is missing; expected an integer >= 2"},
    {"level_without_size.toml", 7, "memory.L1.size", "is missing; expected a size in bytes"},
    {"shared_not_bool.toml", 7, "memory.L1.shared", "expected true or false"},
    {"handshakes_negative.toml", 12, "network.rendezvous_handshakes", "expected a number of one-way latencies, 0 or more"},
    {"node_and_groups.toml", 12, "node_group", "is given together with [node]"},
    {"one_way_sizes_order.toml", 12, "network.intra_node_one_way.bytes.2", "is 1024 after 4096; message sizes must increase"},
    {"one_way_one_size.toml", 12, "network.intra_node_one_way.bytes", "has 1 size; expected at least 2"},
    {"one_way_lengths.toml", 12, "network.intra_node_one_way.time_s", "has 2 times; expected an array of 3 times"},
    {"noise_below_one.toml", 5, "node.noise.stretch.0", "is 0.9; a stretch is a time over the fastest time, so >= 1"},
    {"noise_descending.toml", 5, "node.noise.stretch.2", "is 1.5 after 2; the quantiles must ascend"},
    {"noise_no_quantum.toml", 5, "node.noise.quantum", "is missing; expected a time"},
    {"noise_divider_count.toml", 5, "node.noise.divider_stretch",
     "has 2 quantiles and stretch has 3; the two pair quantile by quantile, so give as many"},
    {"noise_no_probes.toml", 5, "node.noise.probes", "is 0; expected an integer >= 1"},
    {"noise_spell_negative.toml", 5, "node.noise.spell", "'-0.2 s' is negative"},
    {"noise_spell_not_time.toml", 5, "node.noise.spell", "expected a time"},
    {"network_no_probes.toml", 11, "network.probes", "is 0; expected an integer >= 1"},
    {"noise_divider_descending.toml", 5, "node.noise.divider_stretch.1", "is 1 after 1.2; the quantiles must ascend"},
    {"cycles_below_one.toml", 5, "node.instruction_cycles.fp_divide_interval", "is 0.5; expected a number of core cycles, at least 1"},
    {"cpu_not_a_name.toml", 5, "node.cpu", "is \"Sapphire Rapids\"; expected an LLVM CPU name"},
    {"cycles_unknown_key.toml", 5, "node.instruction_cycles.fp_divide_intervals", "unknown key; did you mean 'node.instruction_cycles.fp_divide_interval'?"},
    {"collective_rows.toml", 16, "collective.0.time_s", "has 2 rows; expected 3"},
    {"collective_procs_order.toml", 14, "collective.0.procs.1", "is 2 after 4; process counts must increase"},
    {"collective_duplicate.toml", 18, "collective.1.op", "'allreduce' has a table already"},
    {"collective_bad_op.toml", 13, "collective.0.op", "is \"allsum\"; expected one of barrier"},
    {"mapping_no_file.toml", 12, "mapping.file", "is missing; expected the path of a file"},
    {"mapping_bad_node.toml", 14, "mapping.file", "bad_nodes.map:4: '7' is not a node index; expected an integer from 0 to 3"},
    {"bad_toml.toml", 12, "", "not valid TOML"},
};

TEST(MachineMalformed, EachFileGivesItsError) {
  for (const auto& m : kMalformed) {
    SCOPED_TRACE(m.file);
    auto path = testing::source_path(std::string("tests/machine/malformed/") + m.file);
    try {
      load_machine_file(path);
      ADD_FAILURE() << "loaded without error";
    } catch (const UserError& e) {
      EXPECT_EQ(e.where().file, path.string());
      EXPECT_EQ(e.where().line, m.line) << e.what();
      EXPECT_EQ(e.where().field, m.field) << e.what();
      EXPECT_NE(std::string(e.what()).find(m.message), std::string::npos) << e.what();
      // What people read starts with file:line:.
      EXPECT_EQ(std::string(e.what()).rfind(path.string() + ":" + std::to_string(m.line) + ": ", 0), 0u) << e.what();
    }
  }
}

TEST(MachineMalformed, EveryFileInTheFolderIsInTheTable) {
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(testing::source_path("tests/machine/malformed"))) {
    if (entry.path().extension() != ".toml") continue;
    ++files;
    bool listed = false;
    for (const auto& m : kMalformed) listed |= entry.path().filename() == m.file;
    EXPECT_TRUE(listed) << entry.path();
  }
  EXPECT_EQ(files, std::size(kMalformed));
}

TEST(MachineMalformed, MissingFileNamesTheBundledMachines) {
  try {
    load_machine_file("no/such/machine.toml");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open the machine file"), std::string::npos);
    EXPECT_NE(e.hint().find("polus"), std::string::npos);
  }
}

std::string error_of(const std::string& text) {
  try {
    load_machine_string(text, "inline.toml");
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(MachineMalformed, SmallerMistakes) {
  const std::string node = "name = \"m\"\n[node]\ncount = 1\ncores = 1\nflops_per_core = \"1 Gflop/s\"\n";
  const std::string network = "[network]\nlatency = \"1 us\"\nbandwidth = \"1 GB/s\"\n";
  EXPECT_NE(error_of(node + network).find("'memory': is missing"), std::string::npos);
  EXPECT_NE(error_of(node + "[memory]\n" + network).find("'memory': has no level"), std::string::npos);
  EXPECT_NE(error_of(node + "[memory]\nL5 = {}\n" + network).find("'memory.L5': unknown key"), std::string::npos);
  EXPECT_NE(error_of(node + "[memory]\nDRAM = { bandwidth = \"1 GB/s\" }\n[math]\nsin = -1\n" + network)
                .find("inline.toml:9: 'math.sin': is the integer -1"),
            std::string::npos);
  EXPECT_NE(error_of(node + "[memory]\nDRAM = { bandwidth = \"1 GB/s\" }\n").find("'network': is missing"),
            std::string::npos);
  EXPECT_NE(error_of(node + "[memory]\nDRAM = { bandwidth = \"0 GB/s\" }\n" + network).find("expected more than zero"),
            std::string::npos);
  std::string fat = "[network]\nlatency = \"1 us\"\nbandwidth = \"1 GB/s\"\ntopology = \"fat_tree\"\n"
                    "fat_tree_arity = 2\nfat_tree_levels = 2\n";
  std::string eight = "name = \"m\"\n[node]\ncount = 8\ncores = 1\nflops_per_core = \"1 Gflop/s\"\n"
                      "[memory]\nDRAM = { bandwidth = \"1 GB/s\" }\n";
  EXPECT_NE(error_of(eight + fat).find("'network.fat_tree_levels': is 2; 2 levels of arity 2 reach 4 nodes at most"),
            std::string::npos);
  EXPECT_NE(error_of("name = \"m\"\n[[node_group]]\ncount = 1\ncores = 1\nflops_per_core = \"1 Gflop/s\"\n"
                     "[memory]\nDRAM = { bandwidth = \"1 GB/s\" }\n" + network)
                .find("'memory': is given at the top level of a machine with [[node_group]]"),
            std::string::npos);
  EXPECT_NE(error_of("name = \"m\"\n[[node_group]]\ncount = 1\ncores = 1\nflops_per_core = \"1 Gflop/s\"\n"
                     "memory.DRAM = { bandwidth = \"1 GB/s\" }\nmemory.L1 = { bandwidth = \"1 GB/s\" }\n" + network)
                .find("inline.toml:7: 'node_group.0.memory.L1.size': is missing"),
            std::string::npos);
}

}  // namespace
}  // namespace perfcast::machine
