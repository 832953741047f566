// Internal: what every part of one function's analysis shares: the function,
// the model being made of it, LLVM's analyses of it, the module's context, and
// the small services all parts use (source locations, parameter descriptions).
#pragma once

#include <optional>
#include <set>
#include <string>

#include "analyze/module_context.h"
#include "support/expr.h"

namespace llvm {
class DebugLoc;
class DominatorTree;
class LoopInfo;
class PostDominatorTree;
class ScalarEvolution;
}  // namespace llvm

namespace perfcast::analyze::detail {

// A source location as the model states it.
struct Where {
  int line = 0, column = 0;
  std::string file, origin, note;  // origin: the function the code was written in
  // The linkage name of `origin` when the code was inlined from it into
  // another function ("" otherwise): a probe run records a template's loops
  // under the instance they were written in, before inlining.
  std::string instance;
};

// "file.c:12" (the file's name without its directories), as the model's
// coverage lists sites and --branch-probability takes them.
std::string site_of(const Where& w);

struct FunctionScope {
  FunctionScope(ModuleContext& ctx, llvm::Function& f, FunctionModel& out);

  ModuleContext& ctx;
  llvm::Function& f;
  FunctionModel& out;
  const llvm::DataLayout& dl;
  llvm::LoopInfo& li;
  llvm::ScalarEvolution& se;
  llvm::DominatorTree& dt;
  llvm::PostDominatorTree& pdt;
  bool entry;                       // main: its names are the program's, unprefixed
  std::set<std::string> arguments;  // the names of the function's integer arguments

  // The line, file and origin of `dl`; a note when it was inlined from elsewhere.
  Where where(const llvm::DebugLoc& dl) const;
  // Whether the code at `dl` was inlined from a library function the table
  // leaves out (a std::map's node search in the program's set-up): left out
  // with it, as its out-of-line copy is with all it inlines.
  bool inlined_from_ignored(const llvm::DebugLoc& dl) const;
  // A --branch-probability given for the branch at `w`.
  std::optional<double> probability_override(const Where& w) const;
  // A name of this function's source variable: prefixed with the function's
  // source name (function_source_name) except in the entry function.
  std::string local_name(const std::string& source_name) const;
  // Describes parameter `name` unless an earlier use did.
  void describe(const std::string& name, const std::string& description,
                std::optional<std::string> default_value = std::nullopt);
  // Whether `e` names only the model's parameters (a parameter's default can
  // use it): no loop index, no argument of a function other than the entry,
  // no OpenMP thread or team size.
  bool model_wide(const expr::Expr& e) const;
};

}  // namespace perfcast::analyze::detail
