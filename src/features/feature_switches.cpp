#include "features/feature_switches.h"

namespace perfcast::features {

llvm::Value* switch_goes_to(llvm::IRBuilder<>& b, llvm::SwitchInst& sw, llvm::BasicBlock* dest) {
  const bool is_default = dest == sw.getDefaultDest();
  llvm::Value* goes = is_default ? b.getTrue() : b.getFalse();
  for (auto c : sw.cases()) {
    if (is_default && c.getCaseSuccessor() != dest)
      goes = b.CreateAnd(goes, b.CreateICmpNE(sw.getCondition(), c.getCaseValue()));
    else if (!is_default && c.getCaseSuccessor() == dest)
      goes = b.CreateOr(goes, b.CreateICmpEQ(sw.getCondition(), c.getCaseValue()));
  }
  return goes;
}

}  // namespace perfcast::features
