// Helpers the front end writes without a source line, inlined into their
// callers before the probes are planned.
//
// flang's simplified intrinsics (`_FortranAAllLogical4x1_simplified` for
// `ALL(done)`, `_FortranAMaxvalReal8x2_contract_simplified` for MAXVAL of a
// rank-2 array) and MLIR's integer power (`__mlir_math_ipowi_i32` for `2**n`)
// are functions whose code carries no line. The optimiser inlines them, so the
// analyser sees their loops in the caller at the statement that called them;
// probes named by lines would see them nowhere. Inlined first, their code
// takes the line of the call (the statement that asked for ALL or MAXVAL), as
// the analyser inlines them before optimising (analyze/ir_analysis.cpp), so
// their loops are the caller's and are named where the analyser names them.
// The program computes the same.
#pragma once

#include <llvm/IR/Module.h>

namespace perfcast::features {

// Inlines every direct call, from a function whose code has lines, of a
// function defined here whose code has none (front-end helpers: ODR or local
// linkage, not recursive, not marked noinline), its code at the call's line,
// then drops the helpers no call is left to. Whether it changed the module.
bool inline_lineless_helpers(llvm::Module& m);

}  // namespace perfcast::features
