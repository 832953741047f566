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
void add_analyze_command(CLI::App& app);    // analyze.cpp (built with PERFCAST_WITH_ANALYZE)
void add_model_command(CLI::App& app);      // model.cpp: `model params`
void add_events_command(CLI::App& app);     // events.cpp: `events convert/show/stats`
void add_counts_command(CLI::App& app);     // counts.cpp: exact counts from callgrind

void add_cc_command(CLI::App& app);         // cc.cpp: the skeleton compiler wrapper
void add_mpicc_command(CLI::App& app);      // mpicc.cpp: a build's MPI compilers that also write bitcode (with analyze)
void add_simulate_command(CLI::App& app);   // simulate.cpp: the discrete-event simulator
void add_fit_command(CLI::App& app);         // fit.cpp: compute-time models for skeletons
void add_trace_command(CLI::App& app);       // trace.cpp: the PMPI tracer on real runs
void add_learn_command(CLI::App& app);       // learn.cpp: run time learned from runtime features
void add_probe_command(CLI::App& app);       // probe.cpp: bind a model's unknowns from a probe run
void add_run_command(CLI::App& app);         // run.cpp: an instrumented run appending its feature record
void add_sweep_command(CLI::App& app);       // sweep.cpp: instrumented runs over a grid of parameters
void add_signature_command(CLI::App& app);   // signature.cpp: phases and weights of a traced run
void add_signature_run_command(CLI::App& signature);  // signature_run.cpp: run only the phases, predict the run
void add_validate_command(CLI::App& app);    // validate.cpp: every method against real runs
}  // namespace perfcast::cli
