// `--machine FILE` and `--set KEY=VALUE` for every command that prices work on
// a machine, so they are spelled and documented the same everywhere.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "machine/machine.h"

namespace perfcast::cli {

struct MachineOptions {
  std::string file;                    // a path, or the name of a bundled machine
  std::vector<std::string> overrides;  // KEY=VALUE, applied in order
};

// Adds --set KEY=VALUE (repeatable, one pair per occurrence).
CLI::Option* add_set_option(CLI::App& command, std::vector<std::string>& overrides);

// Adds --machine FILE and --set. `options` must outlive parsing (keep it in a
// shared_ptr captured by the callback, or a static).
void add_machine_options(CLI::App& command, MachineOptions& options, bool required = true);

// Finds (bundled names too) and loads the machine; throws UserError.
machine::Machine load_machine(const MachineOptions& options);

}  // namespace perfcast::cli
