// Internal: the in-core cost of innermost loop bodies from LLVM's machine-code
// analyser (the MCA library behind llvm-mca), as Kerncraft and OSACA price loop
// kernels. The optimised module is compiled for its target (the code the user's
// build runs), each innermost loop's machine blocks are cut from the assembly,
// and MCA simulates them on one CPU's scheduling model.
//
// Includes no LLVM header (the caller forward-declares nothing but Module);
// mca.cpp is compiled -fno-rtti like the rest of the LLVM-facing code.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace perfcast::analyze::detail {

struct LoopCycles {
  double cycles_per_iteration = 0;  // steady state: (C(2N) - C(N)) / N over N iterations
  int instructions = 0;             // machine instructions in the body
  int blocks = 0;                   // machine blocks (more than one: every block priced each iteration)
  // Machine instructions per iteration that read / write the stack (register
  // spills and reloads) or the constant pool: accesses only the machine code
  // has (calls left out).
  int loads = 0, stores = 0;
};

struct LoopCyclesResult {
  std::string cpu;                         // the scheduling model used
  std::map<std::string, LoopCycles> loops;  // by the IR name of the loop's header block
  std::vector<std::string> warnings;        // loops that could not be priced, and why
};

// The CPU MCA schedules for when the user names none: the host's, as LLVM
// knows it ("generic" on a CPU newer than LLVM 14).
std::string default_mca_cpu();

// Prices every innermost loop whose header block is named `<prefix><anything>`
// in `module` (left unchanged: a copy is compiled). `tm` gives the target, CPU
// and features the code is generated for; `mcpu` the scheduling model. Throws
// UserError for an unknown CPU or one without a scheduling model.
LoopCyclesResult loop_cycles(const llvm::Module& module, const llvm::TargetMachine& tm, const std::string& mcpu,
                             const std::string& prefix);

}  // namespace perfcast::analyze::detail
