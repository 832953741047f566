#pragma once

#include <filesystem>
#include <string>

#include "machine/machine_io.h"

namespace perfcast::machine::testing {

inline std::filesystem::path source_path(const std::string& relative) {
  return std::filesystem::path(PERFCAST_SOURCE_DIR) / relative;
}

inline Machine bundled(const std::string& name) {
  return load_machine_file(source_path("machines/" + name + ".toml"));
}

inline Machine minimal(const std::vector<std::string>& overrides = {}) {
  return load_machine_file(source_path("tests/machine/data/minimal.toml"), overrides);
}

}  // namespace perfcast::machine::testing
