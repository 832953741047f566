// Placeholder until the measure subcommand lands.
#include "cli/commands.h"
namespace perfcast::cli {
void add_measure_command(CLI::App& app) { (void)app; }
}  // namespace perfcast::cli
