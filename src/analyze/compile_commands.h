// A build's compile_commands.json (as CMake's CMAKE_EXPORT_COMPILE_COMMANDS or
// Bear writes it) read into the units the analyser compiles, each with its own
// front-end flags (build_command.h). No LLVM here.
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "analyze/analyze.h"

namespace perfcast::analyze {

struct BuildUnits {
  std::filesystem::path file;  // the compile_commands.json read
  std::vector<CompileUnit> units;
  // The entries' optimisation levels (an entry without -O compiles at 0, as
  // the compilers do): one level when they agree.
  std::set<std::string> opt_levels;
  // Lines for the progress channel: entries left out and why.
  std::vector<std::string> notes;
};

// Reads `path` (the JSON, or a build directory holding compile_commands.json).
// Each entry needs "directory", "file" and "arguments" (an array of words) or
// "command" (one shell-quoted string). Entries whose file matches one of the
// `exclude` globs (fnmatch on the path as written and as resolved, and on its
// file name) are left out, so are those that compile no C or C++ (assembly,
// Fortran); the same file twice with the same flags is one unit, with other
// flags the first entry's flags are taken and a note says so. Throws
// UserError naming the file, the entry index and the field for JSON that is
// not valid or an entry without what it needs.
BuildUnits read_compile_commands(const std::filesystem::path& path, const std::vector<std::string>& exclude);

}  // namespace perfcast::analyze
