// Internal: the memory side of loop items: an innermost loop's address
// streams and their offsets, and every loop's footprint (distinct bytes one
// run touches) from footprint.h's analysis, in the model's names.
#pragma once

#include <map>
#include <vector>

#include "analyze/footprint.h"
#include "analyze/function_scope.h"
#include "analyze/loop_counts.h"
#include "analyze/program_tree.h"
#include "analyze/scev_to_expr.h"
#include "analyze/source_names.h"

namespace llvm {
class Loop;
}  // namespace llvm

namespace perfcast::analyze::detail {

class LoopFootprints {
 public:
  LoopFootprints(FunctionScope& scope, SourceNames& names, ScevToExpr& exprs, LoopCounts& counts)
      : s_(scope), names_(names), exprs_(exprs), counts_(counts) {}

  // Sets `n`'s streams and stream offsets for the innermost loop `l`.
  void add_streams(Node& n, const llvm::Loop* l);
  // Sets the footprint of every loop item that can be bounded.
  void add_footprints(const std::map<const llvm::Loop*, Node*>& loop_nodes);

 private:
  expr::Expr runs_in(const CountedAccess& access, const llvm::Loop* l);
  std::vector<bool> add_shared_streams(const std::vector<CountedAccess>& counted, const llvm::Loop* l,
                                       expr::Expr& bytes, expr::Expr& load_bytes, expr::Expr& store_bytes);

  FunctionScope& s_;
  SourceNames& names_;
  ScevToExpr& exprs_;
  LoopCounts& counts_;
};

}  // namespace perfcast::analyze::detail
