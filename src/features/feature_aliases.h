// Calls of a module's own function aliases as calls of the functions they
// name, as the analyser reads the linked program (analyze/ir_analysis.cpp).
#pragma once

namespace llvm {
class Module;
}  // namespace llvm

namespace perfcast::features {

// Every use of an alias of `m` whose target no other definition may replace
// (not weak) names the function instead. clang emits a C++ class's
// complete-object constructor and destructor (C1, D1) as aliases of the
// base-object ones (C2, D2): a tree's destructor deleting its children calls
// D1, which is D2 calling itself, a recursion whose entries and calls back
// the probes count only where the call graph sees the cycle. The program
// runs the same code; the aliases stay defined for the other units.
void call_aliased_functions_directly(llvm::Module& m);

}  // namespace perfcast::features
