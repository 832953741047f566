// The perfcast driver: parses the command line, runs one subcommand, and is the
// one place that prints errors. Exit codes: 0 success, 1 user error (bad input
// file, failed run), 2 usage error (unknown flag, missing argument).
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "support/error.h"

#ifndef PERFCAST_VERSION
#define PERFCAST_VERSION "unknown"
#endif

int main(int argc, char** argv) {
  CLI::App app{
      "perfcast predicts how an MPI program will perform on a machine, at a scale or with an input "
      "you have not run: its time and the counts behind it (flops, memory traffic, messages), per rank."};
  app.set_version_flag("--version", std::string("perfcast ") + PERFCAST_VERSION);
  app.require_subcommand(1);
  app.footer("Run 'perfcast <command> --help' for the options of a command.");

  perfcast::cli::add_machine_command(app);
  perfcast::cli::add_measure_command(app);
  perfcast::cli::add_calibrate_command(app);
  perfcast::cli::add_predict_command(app);
#ifdef PERFCAST_WITH_ANALYZE
  perfcast::cli::add_analyze_command(app);
  perfcast::cli::add_mpicc_command(app);
#endif
  perfcast::cli::add_model_command(app);
  perfcast::cli::add_events_command(app);
  perfcast::cli::add_counts_command(app);
  perfcast::cli::add_cc_command(app);
  perfcast::cli::add_simulate_command(app);
  perfcast::cli::add_fit_command(app);
  perfcast::cli::add_trace_command(app);
  perfcast::cli::add_learn_command(app);
  perfcast::cli::add_run_command(app);
  perfcast::cli::add_probe_command(app);
  perfcast::cli::add_sweep_command(app);
  perfcast::cli::add_signature_command(app);
  perfcast::cli::add_validate_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  } catch (const perfcast::UserError& e) {
    std::cerr << "perfcast: error: " << e.what() << "\n";
    if (!e.hint().empty()) std::cerr << "perfcast: hint: " << e.hint() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "perfcast: internal error: " << e.what() << "\n";
    return 3;
  }
  return 0;
}
