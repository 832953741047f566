// Internal: LLVM values and ScalarEvolution's expressions as the model's
// symbolic expressions, named after the source (parameters, fields, loop
// indices, rank and size); nothing where a value is not a function of those.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

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
  // How many conversions were made (not looked up): the work, which grows
  // with the values and scopes converted, not with the ways to reach them.
  long long conversions_made() const { return conversions_made_; }

 private:
  // Notes how the model reads the source variable `name` by its value `value`
  // (ModuleContext::variable_reads).
  void note_read(const std::string& name, const llvm::Value& value);
  // The name the model reads `value`, a value of the source variable `name`,
  // by, having noted the read: `name` for a merge of its assignments or a
  // value of no one line, `name.<k>` for its k-th assignment's
  // (variable_reads.h), which a probe run measures apart.
  std::string read_name(const std::string& name, const llvm::Value& value);
  // The field a system header's variable holds (`std::vector`'s `__n` of
  // `v(nump)`: the class's `nump`, read or widened to the size type), which a
  // user knows and a probe run sees read; none for any other value.
  std::optional<perfcast::expr::Expr> library_field(const llvm::Value& value);
  // A conversion is made once per value and scope however many ways the
  // code reaches it (a phi's condition, a chain of selects that each use the
  // last one twice): `memoised` looks it up first. Results are those of
  // walking every way: a conversion the depth limit did not touch is kept
  // with how much deeper than its start it went, and reused from any depth
  // where it stays within the limit; one the limit touched (it failed, or
  // fell back to a source name) is reused only from the same depth.
  struct Converted {
    std::optional<expr::Expr> value;
    int height = 0;  // how much deeper than its start its conversions went
  };
  template <typename Key>
  struct Memo {
    std::map<std::pair<Key, const llvm::Loop*>, Converted> whole;
    std::map<std::tuple<Key, const llvm::Loop*, int>, std::optional<expr::Expr>> cut_at_depth;
  };
  template <typename Key, typename Convert>
  std::optional<expr::Expr> memoised(Memo<Key>& memo, Key key, const llvm::Loop* scope, int depth, Convert convert);
  std::nullopt_t cut_short() {  // the depth limit met
    ++depth_cutoffs_;
    return std::nullopt;
  }
  void reached(int depth) { deepest_ = std::max(deepest_, depth); }
  std::optional<expr::Expr> conv_scev(const llvm::SCEV* s, const llvm::Loop* scope, int depth);
  std::optional<expr::Expr> conv_boolean(const llvm::Value* v, const llvm::Loop* scope, int depth);
  std::optional<expr::Expr> conv_unknown(const llvm::Value* v, const llvm::Loop* scope, int depth);
  std::optional<expr::Expr> conv_opaque(const llvm::Value* v, const llvm::Loop* scope, int depth);
  std::optional<expr::Expr> conv_phi(const llvm::PHINode* phi, const llvm::Loop* scope, int depth);
  std::optional<expr::Expr> conv_join(const std::vector<std::pair<const llvm::Value*, llvm::BasicBlock*>>& in,
                                      llvm::BasicBlock* block, llvm::BasicBlock* d, const llvm::Loop* scope,
                                      int depth, int level);
  std::optional<expr::Expr> unsigned_operand(const llvm::SCEV* s, const llvm::Loop* scope, int depth);

  FunctionScope& s_;
  SourceNames& names_;
  std::map<const llvm::SCEV*, const llvm::Value*> named_scevs_;
  std::set<const llvm::SCEV*> expanding_;  // named sums whose value conv() is computing
  // The conversions made so far (none while a named sum is being expanded:
  // conv() reads named sums differently then); how many times the depth limit
  // cut a conversion short; the deepest depth the one under way reached.
  Memo<const llvm::SCEV*> scev_memo_;
  Memo<const llvm::Value*> bool_memo_, unknown_memo_;
  long long depth_cutoffs_ = 0;
  int deepest_ = 0;
  long long conversions_made_ = 0;
};

}  // namespace perfcast::analyze::detail
