// The counts of the first test at a marked `or`/`and` branch
// (feature_first_test.h).
#include "features/feature_first_test.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/PatternMatch.h>

#include <cstdint>
#include <utility>

using namespace llvm;

namespace perfcast::features {

bool logical_operands(Value* condition, Value*& first, bool& is_or) {
  using namespace llvm::PatternMatch;
  Value* later = nullptr;
  if (condition->getType()->isVectorTy()) return false;
  if (match(condition, m_LogicalOr(m_Value(first), m_Value(later)))) return is_or = true;
  if (match(condition, m_LogicalAnd(m_Value(first), m_Value(later)))) return !(is_or = false);
  return false;
}

PreservedAnalyses FirstTestCounts::run(Module& m, ModuleAnalysisManager&) {
  const unsigned kind = m.getContext().getMDKindID(kFirstTestMetadata);
  GlobalVariable* slots = m.getGlobalVariable("perfcast.features.slots", true);
  Type* i64 = Type::getInt64Ty(m.getContext());
  bool changed = false;
  for (Function& f : m)
    for (BasicBlock& bb : f) {
      auto* br = dyn_cast<BranchInst>(bb.getTerminator());
      MDNode* mark = br ? br->getMetadata(kind) : nullptr;
      if (!mark) continue;
      br->setMetadata(kind, nullptr);
      changed = true;
      Value* first = nullptr;
      bool is_or = false;
      if (!slots || !br->isConditional() || !logical_operands(br->getCondition(), first, is_or)) continue;
      const auto slot = mdconst::extract<ConstantInt>(mark->getOperand(0))->getZExtValue();
      IRBuilder<> b(br);
      Value* decides = is_or ? first : b.CreateNot(first);
      const std::pair<std::uint64_t, Value*> counts[] = {{slot, decides}, {slot + 1, b.CreateNot(decides)}};
      for (auto [at, outcome] : counts) {
        Value* count = b.CreateConstInBoundsGEP2_64(slots->getValueType(), slots, 0, at);
        b.CreateStore(b.CreateAdd(b.CreateLoad(i64, count), b.CreateZExt(outcome, i64)), count);
      }
    }
  return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

}  // namespace perfcast::features
