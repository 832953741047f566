// Internal: the in-core cost of loop bodies from LLVM's machine-code analyser
// (the MCA library behind llvm-mca), as Kerncraft and OSACA price loop kernels.
// The optimised module is compiled for its target (the code the user's build
// runs), each loop's own machine blocks (those of no subloop: the whole body of
// an innermost loop) are cut from the assembly, and MCA simulates them on one
// CPU's scheduling model.
//
// Includes no LLVM header (the caller forward-declares nothing but Module);
// mca.cpp is compiled -fno-rtti like the rest of the LLVM-facing code.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "analyze/analyze.h"

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace perfcast::analyze::detail {

struct LoopCycles {
  double cycles_per_iteration = 0;  // steady state: (C(2N) - C(N)) / N over N iterations
  // The resource bound alone (llvm-mca's Block RThroughput): the busiest
  // processor resource's cycles per iteration, or micro-ops / dispatch width.
  // What the body costs when nothing but the core's units limits it (the
  // chains of successive runs overlap); cycles_per_iteration >= it.
  double rthroughput = 0;
  // The busiest processor resource of the scheduling model (its cycles per
  // iteration over its units), e.g. Zn3FPFMul or Zn3FPFDiv: what bounds the
  // loop when its chains overlap; empty when the dispatch width does (the
  // cycles are then micro-ops over the width).
  std::string busiest_resource;
  double busiest_resource_cycles = 0;
  // Divisions and square roots (opcodes named DIV or SQRT; not the
  // approximations RSQRT and RCP): they keep a divider busy for many cycles,
  // a unit a co-tenant on the same physical core rarely uses, so they feel its
  // noise far less than the pipelined ports do (bench_noise_by_kernel).
  int divides = 0;
  // The resource bound of the body without them: what the ports alone need.
  double rthroughput_without_divides = 0;
  // The host's divider, where the machine file measured its issue intervals:
  // the body's divides and square roots one after another at those intervals
  // (a packed one at its lanes' share: two doubles as one scalar, four as
  // two), since they share one unpipelined divider on current x86 cores. A
  // floor under cycles_per_iteration, for scheduling models that book a
  // divide on a port for one cycle and so hold no divider to stretch. 0: not
  // measured, or no divides.
  double divider_cycles = 0;
  // The share of the steady-state cycles the pipelined ports do not explain:
  // 1 - rthroughput_without_divides / cycles_per_iteration. Cycles spent on
  // the divider or waiting along a dependency chain; a co-tenant on the
  // ports hardly lengthens them (bench_noise_by_kernel: a divider quantum
  // 1.07, a latency-bound chain 1.04, while a port-bound one is 1.53).
  double off_ports_share() const;
  int micro_ops = 0;              // per iteration, as the scheduling model splits the instructions
  std::vector<std::string> code;  // the instructions priced (AT&T), in block order
  int instructions = 0;           // machine instructions in the body
  int blocks = 0;                 // machine blocks (more than one: every block priced each iteration)
  // Machine instructions per iteration that read / write the stack (register
  // spills and reloads) or the constant pool: accesses only the machine code
  // has (calls left out).
  int loads = 0, stores = 0;
};

struct LoopCyclesResult {
  std::string cpu;      // the scheduling model used
  std::string cpu_why;  // why, when it stands in for a host the LLVM release does not know
  // What the host's measured instruction cycles changed in the scheduling
  // model, one line per class ("FP add latency 3 -> 2 cycles"); empty: none given.
  std::vector<std::string> host_cycles_applied;
  // Micro-ops the out-of-order window holds (the reorder buffer MCA models:
  // the model's ReorderBufferSize, else its MicroOpBufferSize); 0 in order.
  int window_micro_ops = 0;
  // By the IR name of the loop's header block: the loop's own blocks (all of
  // an innermost loop's; those outside its subloops for the others).
  std::map<std::string, LoopCycles> loops;
  std::vector<std::string> warnings;  // loops that could not be priced, and why
};

// A function of the verbose assembly the code generator writes: its machine
// blocks, each with the innermost machine loop it belongs to.
struct AsmBlock {
  int number = -1;
  std::string ir_name;   // "" when the IR block had no name
  int loop_header = -1;  // number of the innermost machine loop's header; -1 outside loops
  std::vector<std::string> instructions;
};

struct AsmFunction {
  std::string name;
  std::vector<AsmBlock> blocks;
};

// The CPU MCA schedules for when the user names none: the host's, as LLVM
// knows it, or where it does not (it says "generic") the nearest model it has
// (nearest_mca_cpu); `why` then says so, for the model and the user.
struct DefaultMcaCpu {
  std::string cpu;
  std::string why;  // empty when LLVM knows the host
};
DefaultMcaCpu default_mca_cpu();

// The scheduling model for an x86 host of `vendor` (CPUID's, e.g.
// "AuthenticAMD") and `family` (CPUID's, extended family added) that LLVM
// names `llvm_name`. LLVM calls an AMD CPU newer than itself "generic", whose
// model priced a divide at 11 cycles and a 3-D stencil 80 % over on a Zen 5
// (LLVM 14), while its newest AMD model then, znver3, was within 16 %
// (throughput-bound) and 24 % (chains) (bench/mca_accuracy.py). So AMD families
// after the newest LLVM 19 knows (Zen 5, 0x1a, named znver5: Zen 4's
// scheduling model) take znver5; any other host keeps LLVM's name.
std::string nearest_mca_cpu(const std::string& vendor, int family, const std::string& llvm_name);

// Prices every loop whose header block is named `<prefix><anything>` in
// `module` (left unchanged: a copy is compiled): its own blocks, straight-line. `tm` gives the target, CPU
// and features the code is generated for; `mcpu` the scheduling model. Throws
// UserError for an unknown CPU or one without a scheduling model.
//
// `host`, when not empty, puts a machine's measured cycles into the model:
// each FP add/sub, multiply, divide and square root instruction's latency
// moves by the host's scalar latency minus the model's (its register form's),
// and the divider's cycles of a divide or square root scale by the host's
// issue interval over the model's. For a CPU priced on an older model (a
// Zen 5 on znver3: FP add 3 -> 2 cycles, divide every 5 -> 4).
LoopCyclesResult loop_cycles(const llvm::Module& module, const llvm::TargetMachine& tm, const std::string& mcpu,
                             const std::string& prefix, const analyze::HostInstructionCycles& host = {});

// For tests that check the pricing against MCA run on other code (a loop's
// runs in a row): the functions of an assembly text, and the steady state of
// `lines` (AT&T, code for this host) repeated back to back, on `mcpu`.
std::vector<AsmFunction> parse_assembly(const std::string& text);
LoopCycles price_sequence(const std::vector<std::string>& lines, const std::string& mcpu,
                          const analyze::HostInstructionCycles& host = {}, bool rbp_frame_pointer = true);
// Whether the function keeps its frame in %rbp (`movq %rsp, %rbp`, x86-64):
// only then are its accesses through %rbp the stack's.
bool sets_frame_pointer(const AsmFunction& fn);

}  // namespace perfcast::analyze::detail
