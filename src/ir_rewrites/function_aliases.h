// Calls of a module's own function aliases as calls of the functions they
// name, in the analyser's linked program and in each unit the probes' plugin
// instruments alike.
#pragma once

namespace llvm {
class Module;
}  // namespace llvm

namespace perfcast::ir_rewrites {

// Every use of an alias of `m` whose target no other definition may replace
// (not weak: a weak alias may be overridden by another definition) names the
// function instead. clang emits a C++ class's complete-object constructor and
// destructor (C1, D1) as aliases of the base-object ones (C2, D2), so `new
// Grid(n)` in one unit calls `_ZN4GridC1El`, an alias of `_ZN4GridC2El` in
// another: the analysis then prices the call, a vtable's slot names its
// override and the constants the callee proves reach its callers; a tree's
// destructor deleting its children calls D1, which is D2 calling itself, a
// recursion whose entries and calls back the probes count only where the
// call graph sees the cycle. The program runs the same code; the aliases stay
// defined, unused, for the other units.
void call_aliased_functions_directly(llvm::Module& m);

}  // namespace perfcast::ir_rewrites
