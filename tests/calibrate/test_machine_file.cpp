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
