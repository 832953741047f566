// Internal: what the driver needs to know of a unit's bitcode before the
// analysis links the units: whether it defines main (a program has one), and
// the optimisation level it was compiled for, when its command line was
// recorded in its debug info (`perfcast mpicc` records it). Free of LLVM's
// headers, so the driver can include it.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace perfcast::analyze::detail {

struct BitcodeFacts {
  std::string source;  // the module's source file name
  bool defines_main = false;
  std::optional<std::string> opt_level;  // from the recorded command line: "0".."3", "s", "z"
};

// Throws UserError naming the file when it is not LLVM bitcode or IR.
BitcodeFacts read_bitcode_facts(const std::filesystem::path& file);

}  // namespace perfcast::analyze::detail
