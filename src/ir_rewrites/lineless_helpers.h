// Helpers the front end writes without a source line, inlined into their
// callers before the analyser optimises a unit and before the probes' plugin
// plans its probes.
//
// flang's simplified intrinsics (`_FortranAAllLogical4x1_simplified` for
// `ALL(done)`, `_FortranASumReal8x4_simplified` for SUM of a rank-4 array) and
// MLIR's integer power (`__mlir_math_ipowi_i32` for `2**n`) are functions
// whose code carries no line. The optimiser would inline them and leave their
// loops without a line, so a loop could only be named by code around it that
// the optimiser may have moved or deleted, and probes named by lines would see
// them nowhere; inlined first, their code takes the line of the statement that
// called them, which no optimisation loses, and the analyser and the probes
// name their loops alike. The program computes the same.
#pragma once

namespace llvm {
class Module;
}  // namespace llvm

namespace perfcast::ir_rewrites {

// Inlines every direct call, from a function whose code has lines, of a
// function defined in `m` whose code has none (ODR or local linkage, not
// recursive, not marked noinline), its code at the call's line, then drops
// the helpers no call is left to. Whether it changed the module.
bool inline_lineless_helpers(llvm::Module& m);

}  // namespace perfcast::ir_rewrites
