// The perfcast subcommands, one file each (src/cli/<name>.cpp). Each adds
// itself to the application with its options and a callback; the callback
// throws perfcast::UserError for user errors, which main() prints once.
#pragma once

#include <CLI/CLI.hpp>

namespace perfcast::cli {

void add_machine_command(CLI::App& app);    // machine.cpp: `machine show`
void add_measure_command(CLI::App& app);    // measure.cpp
void add_calibrate_command(CLI::App& app);  // calibrate.cpp
void add_predict_command(CLI::App& app);    // predict.cpp

}  // namespace perfcast::cli
