// The output-file contract: a file is replaced whole or not at all, no
// temporary is left behind, and an output that is one of the inputs is refused.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "support/error.h"
#include "support/output_file.h"
#include "directory_fixture.h"

namespace perfcast {
namespace {

namespace fs = std::filesystem;

class OutputFile : public testing::DirectoryTest {
 protected:
  OutputFile() : DirectoryTest("perfcast_output_file") {}
};

TEST_F(OutputFile, WritesANewFileAndLeavesNothingElse) {
  write_file_atomically(dir_ / "out.json", "{}\n");
  EXPECT_EQ(read(dir_ / "out.json"), "{}\n");
  EXPECT_EQ(names(), std::vector<std::string>{"out.json"});
}

TEST_F(OutputFile, ReplacesAnOldFileKeepingItsPermissions) {
  write(dir_ / "out.toml", "old\n");
  fs::permissions(dir_ / "out.toml", fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  write_file_atomically(dir_ / "out.toml", "new\n");
  EXPECT_EQ(read(dir_ / "out.toml"), "new\n");
  EXPECT_EQ(fs::status(dir_ / "out.toml").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(names(), std::vector<std::string>{"out.toml"});
}

TEST_F(OutputFile, NotCommittedLeavesTheOldFileAndNoTemporary) {
  write(dir_ / "timeline.json", "old\n");
  {
    AtomicFile out(dir_ / "timeline.json");
    std::fputs("{\"traceEvents\":[", out.file());
    out.stream() << "half";
    EXPECT_TRUE(fs::exists(out.temporary()));
    EXPECT_EQ(out.temporary().parent_path(), dir_) << "the temporary must be on the target's filesystem";
  }
  EXPECT_EQ(read(dir_ / "timeline.json"), "old\n");
  EXPECT_EQ(names(), std::vector<std::string>{"timeline.json"});
}

TEST_F(OutputFile, StreamAndFileWriteInOrder) {
  AtomicFile out(dir_ / "mixed.txt");
  out.stream() << "a" << 1;
  std::fputs("b", out.file());
  out.stream() << 2 << "\n";
  out.commit();
  EXPECT_EQ(read(dir_ / "mixed.txt"), "a1b2\n");
}

// A disk that fills part-way (a file size limit has the same effect: write
// fails with EFBIG): the error names the file, the old one is intact.
TEST_F(OutputFile, AFailedWriteLeavesTheOldFile) {
  write(dir_ / "model.json", "old\n");
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto previous_handler = ::signal(SIGXFSZ, SIG_IGN);
  rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string error;
  try {
    write_file_atomically(dir_ / "model.json", std::string(1 << 20, 'x'));
  } catch (const UserError& e) {
    error = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &saved);
  ::signal(SIGXFSZ, previous_handler);
  EXPECT_NE(error.find("model.json"), std::string::npos) << "no error, or one not naming the file: " << error;
  EXPECT_EQ(read(dir_ / "model.json"), "old\n");
  EXPECT_EQ(names(), std::vector<std::string>{"model.json"});
}

// The rename fails (the target is a directory): nothing changes, nothing is left.
TEST_F(OutputFile, AFailedRenameLeavesNoTemporary) {
  fs::create_directory(dir_ / "taken");
  write(dir_ / "taken" / "inside", "kept");
  EXPECT_THROW(write_file_atomically(dir_ / "taken", "text"), UserError);
  EXPECT_EQ(read(dir_ / "taken" / "inside"), "kept");
  EXPECT_EQ(names(), std::vector<std::string>{"taken"});
}

TEST_F(OutputFile, AMissingDirectoryIsAnErrorNamingTheFile) {
  try {
    write_file_atomically(dir_ / "no-such-dir" / "out.json", "{}");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-dir/out.json"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(names().empty());
}

// A symbolic link keeps pointing where it did; the file it names is replaced.
TEST_F(OutputFile, FollowsASymbolicLink) {
  write(dir_ / "real.toml", "old");
  fs::create_symlink("real.toml", dir_ / "link.toml");
  write_file_atomically(dir_ / "link.toml", "new");
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.toml"));
  EXPECT_EQ(read(dir_ / "real.toml"), "new");
  EXPECT_EQ(names(), (std::vector<std::string>{"link.toml", "real.toml"}));
}

TEST_F(OutputFile, RefusesAnOutputThatIsAnInput) {
  write(dir_ / "victim.c", "int main() {}\n");
  fs::create_hard_link(dir_ / "victim.c", dir_ / "hard.c");
  fs::create_symlink("victim.c", dir_ / "soft.c");
  fs::create_directory(dir_ / "sub");
  for (const fs::path& output : {dir_ / "victim.c", dir_ / "sub" / ".." / "victim.c", dir_ / "hard.c",
                                 dir_ / "soft.c"}) {
    try {
      refuse_output_over_inputs(output, {dir_ / "other.c", dir_ / "victim.c"}, "-o");
      ADD_FAILURE() << output << " was not refused";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("-o"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("victim.c"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(read(dir_ / "victim.c"), "int main() {}\n");
  // Other files, and outputs that do not exist yet, are fine.
  write(dir_ / "model.json", "{}");
  EXPECT_NO_THROW(refuse_output_over_inputs(dir_ / "model.json", {dir_ / "victim.c"}, "-o"));
  EXPECT_NO_THROW(refuse_output_over_inputs(dir_ / "new.json", {dir_ / "victim.c"}, "-o"));
  EXPECT_NO_THROW(refuse_output_over_inputs(dir_ / "model.json", {dir_ / "missing.c", ""}, "-o"));
}

// A directory written as a whole (a trace) replaces what it holds.
TEST_F(OutputFile, RefusesAnOutputDirectoryHoldingAnInput) {
  fs::create_directories(dir_ / "trace" / "models");
  write(dir_ / "trace" / "models" / "app.json", "{}");
  EXPECT_THROW(refuse_output_over_inputs(dir_ / "trace", {dir_ / "trace" / "models" / "app.json"}, "-o"), UserError);
  fs::create_directory(dir_ / "trace2");
  EXPECT_NO_THROW(refuse_output_over_inputs(dir_ / "trace2", {dir_ / "trace" / "models" / "app.json"}, "-o"));
}

}  // namespace
}  // namespace perfcast
