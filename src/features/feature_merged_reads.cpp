#include "features/feature_merged_reads.h"

#include <llvm/ADT/BitVector.h>
#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/IntrinsicInst.h>

using namespace llvm;

namespace perfcast::features {

std::vector<LoadInst*> merged_reads(AllocaInst& local, const LoopInfo& loops) {
  // The local's definitions, in the order of its uses' discovery, and its reads.
  DenseMap<const Instruction*, unsigned> definition;
  std::vector<LoadInst*> loads;
  for (User* user : local.users()) {
    if (auto* load = dyn_cast<LoadInst>(user)) {
      loads.push_back(load);
    } else if (auto* store = dyn_cast<StoreInst>(user); store && store->getPointerOperand() == &local) {
      definition.try_emplace(store, definition.size());
    } else if (auto* intrinsic = dyn_cast<IntrinsicInst>(user); intrinsic && intrinsic->isLifetimeStartOrEnd()) {
      continue;
    } else if (auto* call = dyn_cast<CallBase>(user); call && !isa<IntrinsicInst>(call)) {
      definition.try_emplace(call, definition.size());
    } else {
      return {};
    }
  }
  if (definition.size() < 2 || loads.empty()) return {};
  const unsigned n = static_cast<unsigned>(definition.size());
  Function& f = *local.getFunction();
  // Each block's last definition (the one that leaves it), and the sets that
  // reach each block's start, to a fixed point in reverse post-order.
  DenseMap<const BasicBlock*, int> last;
  for (BasicBlock& bb : f) {
    int found = -1;
    for (Instruction& inst : bb)
      if (auto d = definition.find(&inst); d != definition.end()) found = static_cast<int>(d->second);
    last[&bb] = found;
  }
  DenseMap<const BasicBlock*, BitVector> in;
  for (BasicBlock& bb : f) in[&bb] = BitVector(n);
  ReversePostOrderTraversal<Function*> order(&f);
  auto out_of = [&](const BasicBlock* bb) {
    if (last[bb] >= 0) {
      BitVector one(n);
      one.set(static_cast<unsigned>(last[bb]));
      return one;
    }
    return in[bb];
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (BasicBlock* bb : order) {
      BitVector reach(n);
      for (BasicBlock* pred : predecessors(bb)) reach |= out_of(pred);
      if (reach != in[bb]) {
        in[bb] = reach;
        changed = true;
      }
    }
  }
  std::vector<LoadInst*> out;
  for (LoadInst* load : loads) {
    if (loops.getLoopFor(load->getParent())) continue;
    BitVector reach = in[load->getParent()];
    for (Instruction& inst : *load->getParent()) {  // a definition earlier in the block is the one that reaches it
      if (&inst == load) break;
      if (auto d = definition.find(&inst); d != definition.end()) {
        reach.reset();
        reach.set(d->second);
      }
    }
    if (reach.all()) out.push_back(load);
    else if (reach.count() >= 2) return {};  // an earlier merge, read too
  }
  return out;
}

}  // namespace perfcast::features
