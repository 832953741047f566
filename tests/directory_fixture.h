// A test that writes files: a fresh directory of its own per test (removed
// after), and the few file helpers its checks use.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace perfcast::testing {

class DirectoryTest : public ::testing::Test {
 protected:
  explicit DirectoryTest(std::string prefix) : prefix_(std::move(prefix)) {}

  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           fmt::format("{}_{}_{}", prefix_, ::getpid(), ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static std::string read(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  static void write(const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; }
  // Every name in the directory: a temporary left behind shows here.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dir_)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

  std::filesystem::path dir_;

 private:
  std::string prefix_;
};

}  // namespace perfcast::testing
