// Internal: the analysis of one function into its model: blocks in reverse
// post-order, each placed in the items of its loop under the branches that
// guard it, its work emitted there; loops get their trip counts, streams and
// footprints. The parts it composes each answer one kind of question.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <vector>

#include "analyze/control_flow.h"
#include "analyze/emit.h"
#include "analyze/function_scope.h"
#include "analyze/later_tests.h"
#include "analyze/loop_counts.h"
#include "analyze/loop_footprints.h"
#include "analyze/memory_writes.h"
#include "analyze/ranks.h"
#include "analyze/scev_to_expr.h"
#include "analyze/source_names.h"

namespace llvm {
class BasicBlock;
class Loop;
}  // namespace llvm

namespace perfcast::analyze::detail {

class FunctionAnalyser {
 public:
  FunctionAnalyser(ModuleContext& ctx, llvm::Function& f, FunctionModel& out)
      : s_(ctx, f, out),
        writes_(s_),
        names_(s_, writes_),
        exprs_(s_, names_),
        flow_(s_),
        counts_(s_, exprs_),
        ranks_(s_, names_, writes_, exprs_),
        footprints_(s_, names_, exprs_, counts_),
        emitter_(s_, exprs_, ranks_) {}

  // Fills the function's model (its body and argument names).
  void run();
  // Values converted to expressions while it ran (ScevToExpr::conversions_made).
  long long conversions_made() const { return exprs_.conversions_made(); }

 private:
  Items* container_of_loop(llvm::Loop* l);
  Items* navigate(Items* c, const std::vector<GuardStep>& guard);
  Node* branch_node(Items& c, const GuardStep& step);
  Node& later_test_node(Items& items, const LaterTest& later);
  std::optional<expr::Expr> switch_condition(const GuardStep& step, const llvm::Loop* scope);
  std::optional<expr::Expr> reach_condition(llvm::BasicBlock* b, llvm::BasicBlock* from, const llvm::Loop* region);
  struct Reach {
    expr::Expr condition;
    int longest_edges;  // the longest path from `from`, in edges
  };
  static constexpr int kMaxReachEdges = 33;
  std::optional<Reach> reach(llvm::BasicBlock* b, llvm::BasicBlock* from, const llvm::Loop* region,
                             std::map<const llvm::BasicBlock*, std::optional<Reach>>& memo);
  std::optional<Reach> reach_uncached(llvm::BasicBlock* b, llvm::BasicBlock* from, const llvm::Loop* region,
                                      std::map<const llvm::BasicBlock*, std::optional<Reach>>& memo);

  FunctionScope s_;
  MemoryWrites writes_;
  SourceNames names_;
  ScevToExpr exprs_;
  ControlFlow flow_;
  LoopCounts counts_;
  RankReasoning ranks_;
  LoopFootprints footprints_;
  BlockEmitter emitter_;
  std::map<const llvm::Loop*, Items*> loop_items_;
  std::map<const llvm::Loop*, Node*> loop_nodes_;
  std::set<const llvm::Loop*> dead_loops_;
};

}  // namespace perfcast::analyze::detail
