// perfcast's commands keep the output-file contract (support/output_file.h):
// an output that is one of the inputs is refused before anything is written,
// and a command that fails part-way leaves the old output as it was.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "perfcast_cli.h"
#include "directory_fixture.h"

namespace perfcast {
namespace {

namespace fs = std::filesystem;
using testing::perfcast_run;

class OutputCommands : public testing::DirectoryTest {
 protected:
  OutputCommands() : DirectoryTest("perfcast_output_commands") {}
  void SetUp() override {
    DirectoryTest::SetUp();
    fs::copy_file(fs::path(PERFCAST_SOURCE_DIR) / "machines/polus.toml", dir_ / "machine.toml");
  }
};

// Two ranks that exchange a message after some compute; and two that each
// wait for the other first: the simulation stops at a deadlock, after the
// timeline has its first spans.
const char* kExchange = "# perfcast events 1\nrank 0\ncompute 1e-3\nsend peer=1 tag=1 bytes=8\n"
                        "rank 1\ncompute 2e-3\nrecv peer=0 tag=1 bytes=8\n";
const char* kDeadlock = "# perfcast events 1\nrank 0\ncompute 1e-3\nrecv peer=1 tag=1 bytes=8\n"
                        "rank 1\ncompute 2e-3\nrecv peer=0 tag=1 bytes=8\n";

TEST_F(OutputCommands, AnalyzeRefusesToWriteOverItsSource) {
  const std::string source = "int main(void) { return 0; }\n";
  write(dir_ / "victim.c", source);
  fs::create_directory(dir_ / "sub");
  for (const fs::path& output : {dir_ / "victim.c", dir_ / "sub" / ".." / "victim.c"}) {
    auto r = perfcast_run({"analyze", (dir_ / "victim.c").string(), "-o", output.string()});
    EXPECT_NE(r.exit_code, 0) << output;
    EXPECT_NE(r.stderr_text.find("would overwrite the input"), std::string::npos) << r.stderr_text;
    EXPECT_EQ(read(dir_ / "victim.c"), source) << "the source was overwritten";
  }
  EXPECT_EQ(names(), (std::vector<std::string>{"machine.toml", "sub", "victim.c"}));
}

TEST_F(OutputCommands, SimulateRefusesATimelineOverItsMachineFile) {
  write(dir_ / "job.txt", kExchange);
  const std::string machine = read(dir_ / "machine.toml");
  auto r = perfcast_run({"simulate", "--machine", (dir_ / "machine.toml").string(), (dir_ / "job.txt").string(),
                         "--timeline", (dir_ / "machine.toml").string()});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.stderr_text.find("--timeline"), std::string::npos) << r.stderr_text;
  EXPECT_EQ(read(dir_ / "machine.toml"), machine) << "the machine file was overwritten";
}

TEST_F(OutputCommands, ModelEventsRefusesATraceOverItsModel) {
  fs::create_directories(dir_ / "trace");
  fs::copy_file(fs::path(PERFCAST_SOURCE_DIR) / "apps/wave3d/wave3d.model.json", dir_ / "trace" / "model.json");
  auto r = perfcast_run({"model", "events", (dir_ / "trace" / "model.json").string(), "--np", "2", "-o",
                         (dir_ / "trace").string()});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.stderr_text.find("would overwrite the input"), std::string::npos) << r.stderr_text;
  EXPECT_TRUE(fs::exists(dir_ / "trace" / "model.json"));
}

TEST_F(OutputCommands, SimulateWritesItsTimelineWhole) {
  write(dir_ / "job.txt", kExchange);
  write(dir_ / "timeline.json", "old");
  auto r = perfcast_run({"simulate", "--machine", (dir_ / "machine.toml").string(), (dir_ / "job.txt").string(),
                         "--timeline", (dir_ / "timeline.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  auto timeline = nlohmann::json::parse(read(dir_ / "timeline.json"));
  EXPECT_GE(timeline.at("traceEvents").size(), 4u);
  EXPECT_EQ(names(), (std::vector<std::string>{"job.txt", "machine.toml", "timeline.json"}));
}

TEST_F(OutputCommands, SimulateFailingPartWayLeavesTheOldTimeline) {
  write(dir_ / "job.txt", kDeadlock);
  write(dir_ / "timeline.json", "{\"old\": true}\n");
  auto r = perfcast_run({"simulate", "--machine", (dir_ / "machine.toml").string(), (dir_ / "job.txt").string(),
                         "--timeline", (dir_ / "timeline.json").string()});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.stderr_text.find("deadlock"), std::string::npos) << r.stderr_text;
  EXPECT_EQ(read(dir_ / "timeline.json"), "{\"old\": true}\n");
  EXPECT_EQ(names(), (std::vector<std::string>{"job.txt", "machine.toml", "timeline.json"})) << "a temporary was left";
}

}  // namespace
}  // namespace perfcast
