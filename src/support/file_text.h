// Reading a whole file into a string, for the small files perfcast writes and
// reads back (reports, status files, checksummed records).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace perfcast {

// The file's bytes, unchanged; empty when it is missing or cannot be read.
// Callers for whom a missing file is an error check for it first and say so.
inline std::string read_file_or_empty(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace perfcast
