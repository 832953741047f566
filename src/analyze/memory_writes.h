// Internal: which instructions of a function may write given bytes of memory
// (a local, a struct field, an array element), and which write a read finds:
// the queries that tell a value read from memory apart from one that changes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "analyze/function_scope.h"

namespace llvm {
class Argument;
class BasicBlock;
class CallBase;
class Function;
class GlobalVariable;
class Instruction;
class Loop;
class Value;
}  // namespace llvm

namespace perfcast::analyze::detail {

// The `bits`-wide integer at `offset` of a constant global's initialiser.
std::optional<expr::Expr> constant_in(const llvm::Value* global, int64_t offset, unsigned bits,
                                      const llvm::DataLayout& dl);

class MemoryWrites {
 public:
  explicit MemoryWrites(FunctionScope& scope) : s_(scope) {}

  // Whether `i` may write the byte at `offset` of `base`, looking `depth`
  // calls deep into callees defined here.
  bool writes_at(const llvm::Instruction& i, const llvm::Value* base, int64_t offset, int depth);
  // Whether code inside `loop` may write the byte at `offset` of `base`.
  bool written_in_loop(const llvm::Loop* loop, const llvm::Value* base, int64_t offset);
  // Every instruction of the function that may write the byte; nothing when
  // the address itself is stored in memory (here, or by a function called here).
  std::optional<std::vector<const llvm::Instruction*>> writers(const llvm::Value* base, int64_t offset);
  // The one write whose value `at` reads there (nullptr: none reaches `at`;
  // nothing: no one write is known to be the last).
  std::optional<const llvm::Instruction*> last_writer(const llvm::Value* base, int64_t offset,
                                                      const llvm::Instruction* at);
  // Whether a loop around `at` (in this function) may write the global `g`,
  // itself or in a function it calls: then a read of `g` at `at` changes
  // from one iteration to the next (a step counter a callee increments).
  bool global_changes_around(const llvm::GlobalVariable& g, const llvm::Instruction& at);
  // Whether some path runs from `from` to `to`.
  bool reaches(const llvm::Instruction* from, const llvm::Instruction* to);

 private:
  bool keeps_address(const llvm::CallBase& call, const llvm::Value* base) const;
  bool keeps_argument(const llvm::Function* f, unsigned argument, int depth) const;
  std::optional<bool> mpi_writes(const llvm::CallBase& call, const llvm::Value* base, int64_t offset) const;
  bool may_write(const llvm::Argument& p, int64_t offset, int depth);
  bool stores_global(const llvm::Function& f, const llvm::GlobalVariable& g, int depth);
  std::optional<bool> mem_intrinsic_writes(const llvm::CallBase* call, const llvm::Value* base, int64_t offset);

  FunctionScope& s_;
  std::map<std::tuple<const llvm::Loop*, const llvm::Value*, int64_t>, bool> written_in_loop_;
  std::map<const llvm::BasicBlock*, std::set<const llvm::BasicBlock*>> reachable_;  // reaches()
};

}  // namespace perfcast::analyze::detail
