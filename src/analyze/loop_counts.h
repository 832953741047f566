// Internal: what a loop's runs look like to the model: its trip count as an
// expression (a parameter of its own when the exit depends on data), where the
// source wrote it, whether its carried chains restart each run, and when a
// branch only guards it (its condition is then "the trip count > 0").
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analyze/function_scope.h"
#include "analyze/scev_to_expr.h"

namespace llvm {
class BasicBlock;
class BranchInst;
class DebugLoc;
class Loop;
class Value;
}  // namespace llvm

namespace perfcast::analyze::detail {

class LoopCounts {
 public:
  LoopCounts(FunctionScope& scope, ScevToExpr& exprs) : s_(scope), exprs_(exprs) {}

  expr::Expr trip_count(llvm::Loop* l);
  bool chain_restarts(const llvm::Loop* l);
  llvm::DebugLoc source_loc(const llvm::Loop* l) const;
  std::optional<expr::Expr> loop_guard_condition(const llvm::BranchInst* br);
  // The test before the one iteration left over by a loop unrolled by 2 at run
  // time (`(T & 1) == 0`), as a condition of the source loop's trip-count
  // parameter T; nullopt for any other branch.
  std::optional<expr::Expr> unroll_remainder_condition(const llvm::BranchInst* br);
  // For a loop whose trip count is a parameter (its exit depends on data):
  // the parameter's name, why, and the source loop's site (for the coverage).
  struct UnknownTrips {
    std::string parameter, why, site;
    // The inner loop the optimiser merged into this one
    // (merged_loops.h), "file.c:12", a line of it: its iterations are this
    // loop's passes. "" for other loops.
    std::string merged_site;
  };
  const UnknownTrips* unknown_trips(const llvm::Loop* l) const {
    auto it = unknown_.find(l);
    return it == unknown_.end() ? nullptr : &it->second;
  }
  // For a loop that polls for an MPI completion (polling_loops.h), priced at
  // its one pass that finds it: the MPI function it polls with, the source
  // loop's site and the name the loop's trips would have had.
  struct PollingTrips {
    std::string call, site, loop;
  };
  const PollingTrips* polling_trips(const llvm::Loop* l) const {
    auto it = polling_.find(l);
    return it == polling_.end() ? nullptr : &it->second;
  }

 private:
  unsigned remainder_bits(const llvm::Loop* l);
  std::uint64_t unrolled_sibling_factor(const llvm::Loop* l);
  std::uint64_t vector_width(const llvm::Loop* l);
  const llvm::Loop* vectoriser_sibling(const llvm::Loop* l, bool want_vector_body);
  bool is_remainder_test(const llvm::BranchInst* br, const llvm::Loop* unrolled);
  const llvm::BranchInst* remainder_test_of(const llvm::Loop* unrolled);
  bool fresh_each_run(const llvm::Value* start, const llvm::Loop* l);
  bool reads_the_previous_runs_result(const llvm::Loop* l);
  bool in_left_over_iteration(const llvm::BasicBlock* b, const std::vector<llvm::Loop*>& loops);

  FunctionScope& s_;
  ScevToExpr& exprs_;
  std::map<const llvm::Loop*, expr::Expr> trip_counts_;
  std::map<const llvm::Loop*, UnknownTrips> unknown_;
  std::map<const llvm::Loop*, PollingTrips> polling_;
  // The source loop's trip-count parameter of each loop unrolled by 2 whose
  // left-over iteration sits behind a test (remainder_test_of).
  std::map<const llvm::Loop*, expr::Expr> unrolled_by_two_;
  // The blocks of the function that can still return (blocks_that_return), once asked.
  std::optional<std::set<const llvm::BasicBlock*>> returning_;
};

}  // namespace perfcast::analyze::detail
