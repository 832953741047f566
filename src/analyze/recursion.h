// Internal: recursion in a module's call graph. A function in a cycle of
// direct calls (one that calls itself, or a strongly connected component of
// several) runs several times per call from outside the cycle, each time
// with its own arguments. The analyser counts such a function's body as a
// mean over its invocations times a parameter, its invocations per entry
// from outside (docs/program-model.md, "Recursion"), so an argument the
// recursion passes changed (a level's size halved) is not a value the body
// can be priced at: it stands for no one number.
#pragma once

#include <map>
#include <set>

namespace llvm {
class Function;
class Module;
}  // namespace llvm

namespace perfcast::analyze::detail {

// A function in a recursive cycle of direct calls: the cycle (its strongly
// connected component, numbered), and the positions of the arguments that
// vary from one invocation to the next: all but those every call from inside
// the cycle passes through unchanged (the function's own argument in the same
// position, from a call of itself).
struct RecursiveFunction {
  int cycle = 0;
  std::set<unsigned> varying_arguments;
};
using RecursiveFunctions = std::map<const llvm::Function*, RecursiveFunction>;
RecursiveFunctions find_recursive_functions(llvm::Module& m);

}  // namespace perfcast::analyze::detail
