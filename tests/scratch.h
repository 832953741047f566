// This test process's scratch directory: files the tests write for the code
// under test to read, removed with the directory when the process exits.
#pragma once

#include <filesystem>

#include "support/scratch_directory.h"

namespace perfcast::testing {

inline const std::filesystem::path& scratch() {
  // One per process: ctest -j runs each test in a process of its own, and the
  // tests of other work trees may run at the same time.
  static const ScratchDirectory dir("perfcast-tests");
  return dir.path();
}

}  // namespace perfcast::testing
