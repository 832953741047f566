// Internal: LLVM values and ScalarEvolution's expressions as the model's
// symbolic expressions, named after the source (parameters, fields, loop
// indices, rank and size); nothing where a value is not a function of those.
#pragma once

#include <map>
#include <optional>
#include <set>

#include "analyze/function_scope.h"
#include "analyze/source_names.h"

namespace llvm {
class Loop;
class PHINode;
class SCEV;
class Value;
}  // namespace llvm

namespace perfcast::analyze::detail {

class ScevToExpr {
 public:
  ScevToExpr(FunctionScope& scope, SourceNames& names) : s_(scope), names_(names) {}

  // Takes note of the sums and products the source named outside loops
  // (lx = n / p + ...), to read them back by their names; after
  // SourceNames::collect().
  void name_scevs();

  // `s` at loop `scope` (nullptr: outside every loop).
  std::optional<expr::Expr> conv(const llvm::SCEV* s, const llvm::Loop* scope, int depth = 0);
  // An integer value at loop `scope`.
  std::optional<expr::Expr> conv_value(const llvm::Value* v, const llvm::Loop* scope, int depth = 0);
  // A boolean (i1) value: a condition, 1 when true.
  std::optional<expr::Expr> conv_bool(const llvm::Value* v, const llvm::Loop* scope, int depth = 0);
  // The function's source names these conversions use.
  SourceNames& names() { return names_; }

 private:
  std::optional<expr::Expr> conv_unknown(const llvm::Value* v, const llvm::Loop* scope, int depth);
  std::optional<expr::Expr> conv_phi(const llvm::PHINode* phi, const llvm::Loop* scope, int depth);
  std::optional<expr::Expr> unsigned_operand(const llvm::SCEV* s, const llvm::Loop* scope, int depth);

  FunctionScope& s_;
  SourceNames& names_;
  std::map<const llvm::SCEV*, const llvm::Value*> named_scevs_;
  std::set<const llvm::SCEV*> expanding_;  // named sums whose value conv() is computing
};

}  // namespace perfcast::analyze::detail
