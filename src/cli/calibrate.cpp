// Placeholder until the calibrate subcommand lands.
#include "cli/commands.h"
namespace perfcast::cli {
void add_calibrate_command(CLI::App& app) { (void)app; }
}  // namespace perfcast::cli
