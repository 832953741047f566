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

// The keys of the --set overrides that price no point-to-point message of a
// job whose ranks all sit on one node: the network figures only messages
// between nodes use (hop_latency, topology and its shape), and latency or
// bandwidth where the intra-node figure does not follow them (the file gives
// its own: `loaded` and the machine loaded without that override have the
// same one). The placement's warning names them.
std::vector<std::string> network_overrides_unused_on_one_node(const MachineOptions& options,
                                                              const machine::Machine& loaded);

}  // namespace perfcast::cli
