// Placeholder until the machine subcommand lands.
#include "cli/commands.h"
namespace perfcast::cli {
void add_machine_command(CLI::App& app) { (void)app; }
}  // namespace perfcast::cli
