// The static analyser: C/C++ and Fortran sources -> LLVM IR (clang-19 and flang-19, support/toolchain.h;
// the user's optimisation level) -> a program model (docs/program-model.md) whose costs are
// symbolic in the program's parameters, named after its source variables.
//
// This header is free of LLVM on purpose: the files that include LLVM's headers
// are compiled with LLVM's own flags inside perfcast_analyze (-fno-rtti where
// LLVM was built without RTTI; Debian's LLVM 19 has it), and nothing else in
// perfcast has to be.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/toolchain.h"

// Declared only: the callers that need no model do not pay for its headers.
namespace perfcast::model {
struct ProgramModel;
}  // namespace perfcast::model

namespace perfcast::analyze {

// A machine's measured cycles of scalar double FP instructions (a machine
// file's node.instruction_cycles, docs/machine-format.md), put into the
// scheduling model MCA prices loops on: for a host newer than the LLVM release,
// whose stand-in model is a generation old. 0: not given. (The machine library's figures,
// copied so that the analyser's options do not depend on the machine's types.)
struct HostInstructionCycles {
  double fp_add_latency = 0;
  double fp_multiply_latency = 0;
  double fp_divide_latency = 0;
  double fp_divide_interval = 0;
  double fp_sqrt_latency = 0;
  double fp_sqrt_interval = 0;
  std::string source;  // where they come from (the machine file), for the model's record
  bool empty() const {
    return fp_add_latency == 0 && fp_multiply_latency == 0 && fp_divide_latency == 0 && fp_divide_interval == 0 &&
           fp_sqrt_latency == 0 && fp_sqrt_interval == 0;
  }
};

// One translation unit as the program's build compiles it (compile_commands.h
// reads them from a build; `sources` with `compile_flags` make them alike).
struct CompileUnit {
  std::filesystem::path source;            // absolute, or relative to this process's directory
  std::vector<std::string> flags;          // front-end flags only (build_command.h), paths absolute
  bool cxx = false;                        // compiled by the C++ driver of `clang`
  std::string origin;                      // where it was read, for messages ("compile_commands.json entry 3")
};

struct AnalyzeOptions {
  // What to analyse, one of three: sources compiled alike, a build's units
  // each with its own flags, or bitcode a build already wrote (`perfcast mpicc`).
  std::vector<std::filesystem::path> sources;
  std::vector<std::string> compile_flags;  // after `--`: -D, -I, -std=... (for `sources`, and added to `units`)
  std::vector<CompileUnit> units;
  std::vector<std::filesystem::path> bitcode;
  std::string opt_level = "2";             // 0 1 2 3 s z, as the user builds
  // Of several units that define main, the one that is the program (a path or
  // a path suffix); the others are left out. Empty: several mains are an error.
  std::string main_unit;
  // Probability that the condition of the branch at FILE:LINE is true, keyed
  // "wave3d.c:176" (a file name or a path suffix).
  std::map<std::string, double> branch_probabilities;
  std::vector<std::filesystem::path> library_cost_files;  // added to the bundled table
  std::string program;                                   // model name; default: first source's stem
  // The analyser's compiler; C++ units use its C++ driver (cxx_driver_of).
  std::string clang = toolchain::kClang;
  std::string flang = toolchain::kFlang;  // Fortran sources (.f, .f90, .F90, ...)
  std::string mpicc = "mpicc.openmpi";    // asked for C units' MPI flags (--showme:compile)
  std::string mpicxx = "mpicxx.openmpi";  // and C++ units'
  std::function<void(const std::string&)> progress;  // one line per step; may be empty
  // Price each innermost loop body with LLVM's machine-code analyser (MCA):
  // cycles per iteration on the scheduling model of `mcpu` (empty: the host's).
  bool mca = true;
  std::string mcpu;
  // Why `mcpu`, where the user did not name it (a machine file's node.cpu:
  // "the machine file m.toml names it (node.cpu)"): recorded as the model's
  // mca.cpu_chosen, and said where LLVM cannot price on it. Empty: --mcpu.
  std::string mcpu_why;
  HostInstructionCycles host_cycles;
  // Also report on `progress` the analysis's reasoning: loops without a trip
  // count and why, fields that are no parameters, each priced loop's code,
  // and each function's analysis time and value conversions.
  bool debug = false;
};

// The program model (model/program_model.h). Throws UserError when a source
// does not compile (with clang's message) or an input file is unreadable.
model::ProgramModel analyze_model(const AnalyzeOptions& options);

// The same model as JSON, written by the model's one writer
// (model::program_model_json; model::load_program_model reads it back).
nlohmann::ordered_json analyze(const AnalyzeOptions& options);

// The one optimisation level bitcode files were compiled for, as recorded in
// them (`perfcast mpicc` records it). Throws UserError when one has no record
// or they disagree, asking for -O.
std::string bitcode_opt_level(const std::vector<std::filesystem::path>& bitcode);

// The bundled library-cost table (library_costs.json, compiled in).
const char* bundled_library_costs();

// The CPU whose scheduling model prices in-core work when none is named: this
// host's as LLVM names it, or, where LLVM does not know it ("generic"), the
// nearest model it has, `why` then saying so (empty when LLVM knows the host).
// What `perfcast calibrate` writes as node.cpu.
struct HostCpu {
  std::string cpu;
  std::string why;
};
HostCpu host_cpu();

}  // namespace perfcast::analyze
