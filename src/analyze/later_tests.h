// Internal: a branch on `a || b` or `a && b` held as one value in the IR
// (`or i1`, `and i1`, or their `select i1` forms) is two jumps in the machine
// code: x86's instruction selection tests the operands in order and machine
// sinking moves what only the later test (and the side only it reaches) uses
// past the first jump. That arithmetic runs where the first test does not
// decide (for `or`: where it is false; for `and`: where it is true), not every
// time the block runs.
#pragma once

#include <llvm/ADT/SmallPtrSet.h>

namespace llvm {
class BasicBlock;
class BranchInst;
class DominatorTree;
class Instruction;
class Value;
}  // namespace llvm

namespace perfcast::analyze::detail {

struct LaterTest {
  const llvm::BranchInst* branch = nullptr;  // the block's terminator; null: no such split
  const llvm::Value* first = nullptr;        // the earlier test
  bool is_or = false;                        // `a || b`; else `a && b`
  // The instructions of the block that only the later test, and the side of
  // the branch only it reaches, use (its compare among them).
  llvm::SmallPtrSet<const llvm::Instruction*, 16> own;
};

// The later test of `b`'s terminator and its own instructions, when the
// terminator is a conditional branch on such an `or`/`and` of two compares
// that the backend tests apart: the later one needs more than
// kMergedTestInstructions instructions of its own (x86 keeps a cheap second
// test with the first: two set-on-condition and one jump). An empty
// `branch` otherwise.
LaterTest later_test_of(const llvm::BasicBlock& b, const llvm::DominatorTree& dt);

// The instructions a later test may need of its own and still be evaluated
// with the first (LLVM's x86 branch-merging base cost).
constexpr unsigned kMergedTestInstructions = 2;

}  // namespace perfcast::analyze::detail
