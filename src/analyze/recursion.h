// Internal: recursion in a module's call graph. A function in a cycle of
// direct calls (one that calls itself, or a strongly connected component of
// several) runs several times per call from outside the cycle, each time
// with its own arguments. The analyser counts such a function's body as a
// mean over its invocations times a parameter, its invocations per entry
// from outside (docs/program-model.md, "Recursion"), so an argument the
// recursion passes changed (a level's size halved) is not a value the body
// can be priced at: it stands for no one number.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "analyze/program_tree.h"

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
//
// A recursion by levels: a function that calls only itself, at one site,
// passing one integer argument changed, divided there by a constant (n / 2,
// n >> 1), and its other integers through unchanged (pointers may move). Its k-th invocation from an
// outside call on n works on floordiv(n, factor^k): that argument, the size,
// keeps its name in the body, which is counted level by level (by_levels).
struct RecursiveFunction {
  int cycle = 0;
  std::set<unsigned> varying_arguments;
  std::optional<unsigned> size_argument;  // a recursion by levels: the argument divided
  std::int64_t shrink_factor = 0;         // what each call back divides it by (>= 2)
};
using RecursiveFunctions = std::map<const llvm::Function*, RecursiveFunction>;
RecursiveFunctions find_recursive_functions(llvm::Module& m);

// The loop of a recursion by levels around `body`, the function's body with
// its call back left out (the compute node marked `recursion`): one iteration
// a level, `level_var` its number (0 for the outside call's), every
// expression of the body with `size` at that level, floordiv(size,
// factor^level). Its trips are the invocations per outside call: 1 + the
// levels, from the first, whose path to the call back holds, where every
// branch on that path has a condition the model states (the size test that
// stops the recursion); else none (the caller counts them by a parameter).
struct LevelLoop {
  std::unique_ptr<Node> loop;
  bool levels_known = false;
};
LevelLoop by_levels(Items body, const std::string& size, std::int64_t factor, const std::string& level_var);

}  // namespace perfcast::analyze::detail
