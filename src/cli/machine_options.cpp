#include "cli/machine_options.h"

#include "machine/machine_io.h"

namespace perfcast::cli {

CLI::Option* add_set_option(CLI::App& command, std::vector<std::string>& overrides) {
  return command
      .add_option("--set", overrides,
                  "Override a key of the machine file, e.g. --set network.bandwidth=\"20 GB/s\" or "
                  "--set node_group.1.cores=32 (VALUE is a TOML value; a bare word is a string). Repeatable.")
      ->type_name("KEY=VALUE")
      // One pair per --set, so a following positional argument is not taken as a pair.
      ->allow_extra_args(false);
}

void add_machine_options(CLI::App& command, MachineOptions& options, bool required) {
  auto* machine = command.add_option("--machine", options.file,
                                     "Machine file (docs/machine-format.md), or the name of a bundled machine "
                                     "such as polus, primequest, petascale, generic-cluster")
                      ->type_name("FILE");
  if (required) machine->required();
  add_set_option(command, options.overrides);
}

machine::Machine load_machine(const MachineOptions& options) {
  return machine::load_machine_file(machine::find_machine_file(options.file), options.overrides);
}

std::vector<std::string> network_overrides_unused_on_one_node(const MachineOptions& options,
                                                              const machine::Machine& loaded) {
  std::vector<std::string> unused;
  for (size_t i = 0; i < options.overrides.size(); ++i) {
    const std::string key = options.overrides[i].substr(0, options.overrides[i].find('='));
    auto is = [&](const char* k) { return key == k || key.rfind(std::string(k) + ".", 0) == 0; };
    if (is("network.hop_latency") || is("network.topology") || is("network.torus") ||
        is("network.fat_tree_arity") || is("network.fat_tree_levels")) {
      unused.push_back(key);
    } else if (is("network.latency") || is("network.bandwidth")) {
      MachineOptions without = options;
      without.overrides.erase(without.overrides.begin() + static_cast<std::ptrdiff_t>(i));
      const machine::Machine other = load_machine(without);
      if (other.network.intra_node_latency_s == loaded.network.intra_node_latency_s &&
          other.network.intra_node_bandwidth_Bps == loaded.network.intra_node_bandwidth_Bps)
        unused.push_back(key);
    }
  }
  return unused;
}

}  // namespace perfcast::cli
