// Internal: one basic block's work as model items: counted compute (flops by
// precision, loads and stores with their bytes, math calls), MPI operations
// with their bytes, peers and roots, calls of functions analysed here, and
// library calls priced from the library-cost table or left as a parameter.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "analyze/function_scope.h"
#include "analyze/program_tree.h"
#include "analyze/ranks.h"
#include "analyze/scev_to_expr.h"

namespace llvm {
class BasicBlock;
class CallBase;
class Function;
class Instruction;
class Loop;
class Value;
}  // namespace llvm

namespace perfcast::analyze::detail {

class BlockEmitter {
 public:
  BlockEmitter(FunctionScope& scope, ScevToExpr& exprs, RankReasoning& ranks)
      : s_(scope), exprs_(exprs), ranks_(ranks) {}

  // Appends the items of `b` to `items`: of its instructions `include`
  // accepts, when given.
  void emit_block(llvm::BasicBlock* b, Items& items,
                  const std::function<bool(const llvm::Instruction&)>& include = nullptr);

 private:
  void emit_call(llvm::CallBase& call, Items& items, const llvm::Loop* scope);
  void emit_defined_call(llvm::CallBase& call, llvm::Function& target, Items& items, const llvm::Loop* scope);
  void emit_virtual_call(llvm::CallBase& call, const std::vector<llvm::Function*>& targets, Items& items,
                         const llvm::Loop* scope);
  // An OpenMP parallel region: its outlined function `region` called once per
  // thread of the team, with the shared integers the fork passes it.
  void emit_fork(llvm::CallBase& fork, llvm::Function& region, Items& items, const llvm::Loop* scope);
  // `by_reference`: a Fortran binding, whose arguments are pointers to the values.
  void emit_mpi(llvm::CallBase& call, const std::string& name, Items& items, const llvm::Loop* scope,
                bool by_reference);
  std::optional<expr::Expr> datatype_bytes(const llvm::Value* dt, const llvm::Loop* scope);
  static std::string neighbour_of(bool receive_only);
  // Marks `peer`, when it is one of the function's arguments, as a peer it hands MPI.
  void note_peer_argument(const expr::Expr& peer, bool receive_only);

  FunctionScope& s_;
  ScevToExpr& exprs_;
  RankReasoning& ranks_;
};

}  // namespace perfcast::analyze::detail
