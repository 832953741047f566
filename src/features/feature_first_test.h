// The second pass of the feature probes: the outcome of the test the
// optimised code makes first at a branch on one `a .OR. b` / `a .AND. b`
// value (`file:line:first_test.decides` and `.passes_on`). The first pass
// (feature_pass.cpp) gives the branch its pair of slots and marks it with
// kFirstTestMetadata; FirstTestCounts, run at the end of the optimiser, where
// the optimiser has ordered the operands as the code generator will test
// them, inserts the counts there and removes the mark.
#ifndef PERFCAST_FEATURES_FEATURE_FIRST_TEST_H
#define PERFCAST_FEATURES_FEATURE_FIRST_TEST_H

#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/Value.h>

namespace perfcast::features {

// The metadata by which the first pass marks a branch on `a .OR. b` for
// FirstTestCounts: the first slot of its `first_test` pair.
inline constexpr const char* kFirstTestMetadata = "perfcast.first_test";

// The operands of a branch condition `a || b` (or `a && b`, `is_or` false)
// held as one value: `or`/`and` of i1 or their `select` forms.
bool logical_operands(llvm::Value* condition, llvm::Value*& first, bool& is_or);

// The end of the optimiser: at each branch the first pass marked that still
// tests one `or`/`and` value, the outcome of its first operand, the test the
// code generator makes first, counted in memory (the slots of the mark).
// A branch the optimiser turned into other code counts nothing.
struct FirstTestCounts : llvm::PassInfoMixin<FirstTestCounts> {
  llvm::PreservedAnalyses run(llvm::Module& m, llvm::ModuleAnalysisManager&);
  static bool isRequired() { return true; }
};

}  // namespace perfcast::features

#endif
