// The machine file a calibration becomes: calibrate returns the model, the
// machine file's one writer writes it, and it loads to the model a file written
// by calibrate's former writer of its own loads to.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "calibrate/sample_calibration.h"
#include "machine/calibrate/machine_model.h"
#include "machine/calibrate/writer.h"
#include "machine/machine_io.h"

namespace perfcast::calibrate {
namespace {

namespace fs = std::filesystem;

const fs::path kBefore = fs::path(PERFCAST_SOURCE_DIR) / "tests/calibrate/data/calibrated_before.toml";

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// calibrated_before.toml is what `perfcast calibrate` wrote for
// sample_calibration() with its own TOML writer, before the machine file had
// one writer: the same calibration written now must load to the same model.
TEST(CalibratedMachineFile, LoadsToTheModelTheFormerWriterGave) {
  const Calibration cal = sample_calibration();
  const machine::Machine before = machine::load_machine_file(kBefore);
  const machine::Machine& model = cal.machine;
  EXPECT_EQ(model, before) << "the model calibrate returns is not what its file loaded to";
  const std::string now = machine::to_toml(model, {}, machine_file_comments(cal));
  const machine::Machine reloaded = machine::load_machine_string(now, "written now");
  EXPECT_EQ(reloaded, before) << now;
  // Part by part, so that a difference says where it is.
  ASSERT_EQ(reloaded.groups.size(), 1u);
  EXPECT_EQ(reloaded.groups[0].memory, before.groups[0].memory);
  EXPECT_EQ(reloaded.groups[0].math, before.groups[0].math);
  EXPECT_EQ(reloaded.groups[0].noise, before.groups[0].noise);
  EXPECT_EQ(reloaded.groups[0].instruction_cycles, before.groups[0].instruction_cycles);
  EXPECT_EQ(reloaded.network, before.network);
  EXPECT_EQ(reloaded.collectives, before.collectives);
}

TEST(CalibratedMachineFile, KeepsItsComments) {
  const Calibration cal = sample_calibration();
  const std::string now = machine::to_toml(cal.machine, {}, machine_file_comments(cal));
  const std::string before = read(kBefore);
  EXPECT_EQ(now.substr(0, now.find('\n')), before.substr(0, before.find('\n')));
  // The raw measurements, line for line as the former writer put them.
  const std::string raw = "\n# ---- Raw measurements";
  ASSERT_NE(before.find(raw), std::string::npos);
  ASSERT_NE(now.find(raw), std::string::npos) << now;
  EXPECT_EQ(now.substr(now.find(raw)), before.substr(before.find(raw)));
}

// --network-only's figures are the full calibration's: the same network and
// collective tables, with no made-up node around them.
TEST(CalibratedMachineFile, NetworkAloneIsTheFullCalibrationsNetwork) {
  const Calibration cal = sample_calibration();
  const machine::Machine before = machine::load_machine_file(kBefore);
  const NetworkModel network = network_model(cal.mpi);
  EXPECT_EQ(network.network, before.network);
  EXPECT_EQ(network.collectives, before.collectives);
}

TEST(CalibratedMachineFile, WrittenWholeWithItsComments) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("perfcast_calibrated_file_{}", ::getpid());
  fs::create_directories(dir);
  const Calibration cal = sample_calibration();
  const fs::path file = dir / "here.toml";
  machine::write_machine_file(cal.machine, file, machine_file_comments(cal));
  EXPECT_EQ(machine::load_machine_file(file), machine::load_machine_file(kBefore));
  EXPECT_NE(read(file).find("\n# Launch: mpirun.openmpi"), std::string::npos) << read(file);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1) << "a temporary was left";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace perfcast::calibrate

namespace perfcast::calibrate {
namespace {

// What calibrate measured of the node's sharing becomes the file's
// bandwidth_by_cores (3 significant digits, as every bandwidth) and
// busy_slowdown (the clock alone over busy; a busy node measured faster than
// one core is noise: 1), and its raw figures the file's comments.
TEST(CalibratedMachineFile, SharingBecomesTheTablesAndTheSlowdown) {
  Calibration cal = sample_calibration();
  cal.sharing.levels = {{"L3", 1.5e6, {1, 2}, {31.23456e9, 27.65432e9}}, {"DRAM", 67108864, {1, 2}, {14.8765e9, 9.87654e9}}};
  cal.sharing.notes = {"L4: an example note"};
  cal.sharing.busy_cores = 2;
  cal.sharing.clock_alone_Hz = 3.0e9;
  cal.sharing.clock_busy_Hz = 2.8e9;
  const machine::Machine m = machine_model(cal);
  const auto& g = m.groups[0];
  EXPECT_EQ(g.memory[2].sharing_cores, (std::vector<int>{1, 2}));
  EXPECT_DOUBLE_EQ(g.memory[2].sharing_per_core_Bps[1], 27.7e9);
  EXPECT_DOUBLE_EQ(g.memory.back().sharing_per_core_Bps[1], 9.88e9);
  EXPECT_FALSE(g.memory[1].sharing_measured()) << "L2 is private";
  ASSERT_TRUE(g.busy_slowdown);
  EXPECT_DOUBLE_EQ(*g.busy_slowdown, 1.07);
  const std::string text = machine::to_toml(m, {}, machine_file_comments(cal));
  EXPECT_EQ(machine::load_machine_string(text, "written now"), m) << text;
  EXPECT_NE(text.find("# Sharing, DRAM at 64 MiB per core"), std::string::npos) << text;
  EXPECT_NE(text.find("# Sharing, L4: an example note"), std::string::npos) << text;
  EXPECT_NE(text.find("-> busy_slowdown 1.071"), std::string::npos) << text;

  cal.sharing.clock_busy_Hz = 3.1e9;
  EXPECT_EQ(machine_model(cal).groups[0].busy_slowdown, 1.0);
}

}  // namespace
}  // namespace perfcast::calibrate

namespace perfcast::calibrate {
namespace {

// The CPU's LLVM name calibrate is given (the analyser's name for the host)
// becomes the file's node.cpu, written and read back, and its JSON's `cpu`;
// a calibration without one writes no key, which reads back as not known.
TEST(CalibratedMachineFile, TheCpuNameIsWrittenAndReadBack) {
  Calibration cal = sample_calibration();
  cal.cpu = "sapphirerapids";
  const machine::Machine m = machine_model(cal);
  ASSERT_EQ(m.groups.size(), 1u);
  EXPECT_EQ(m.groups[0].cpu, "sapphirerapids");
  const std::string text = machine::to_toml(m, {}, machine_file_comments(cal));
  EXPECT_NE(text.find("\ncpu = \"sapphirerapids\"\n"), std::string::npos) << text;
  const machine::Machine reloaded = machine::load_machine_string(text, "written now");
  EXPECT_EQ(reloaded.groups[0].cpu, "sapphirerapids");
  EXPECT_EQ(reloaded, m);
  EXPECT_EQ(calibration_json(cal)["cpu"], "sapphirerapids");
  EXPECT_TRUE(calibration_json(cal)["cpu_chosen"].is_null());

  cal.cpu = "znver5";
  cal.cpu_why = "LLVM 19 does not know this host and calls it 'generic'; priced on 'znver5'";
  EXPECT_EQ(calibration_json(cal)["cpu_chosen"], cal.cpu_why);

  const Calibration unnamed = sample_calibration();
  const std::string plain = machine::to_toml(machine_model(unnamed), {}, machine_file_comments(unnamed));
  EXPECT_EQ(plain.find("\ncpu = "), std::string::npos) << plain;
  EXPECT_TRUE(machine::load_machine_string(plain, "written now").groups[0].cpu.empty());
}

}  // namespace
}  // namespace perfcast::calibrate
