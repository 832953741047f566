#include "analyze/merged_loops.h"

#include <vector>

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/IntrinsicInst.h>

namespace perfcast::analyze::detail {

namespace {

// The location of the first located instruction of `bb`, or null.
const llvm::DILocation* first_location(const llvm::BasicBlock& bb) {
  for (const llvm::Instruction& i : bb)
    if (!llvm::isa<llvm::DbgInfoIntrinsic>(i))
      if (const llvm::DILocation* at = i.getDebugLoc().get(); at && at->getLine()) return at;
  return nullptr;
}

// A region of the source: the code inlined through the call `context` (a
// DILocation every location of that code names among its inlinedAt; null:
// the function's own code), or, with `block`, that code's part inside the
// compound statement `block`.
struct Region {
  const llvm::DILocation* context = nullptr;
  const llvm::DILocalScope* block = nullptr;

  bool holds(const llvm::DILocation* at) const {
    // `at` as the code of `context` sees it: itself, or the call it was inlined through.
    const llvm::DILocation* seen = at;
    while (seen && seen->getInlinedAt() != context) seen = seen->getInlinedAt();
    if (!seen) return false;
    if (!block) return context != nullptr;
    for (const llvm::DIScope* s = seen->getScope(); s && !llvm::isa<llvm::DISubprogram>(s); s = s->getScope())
      if (s == block) return true;
    return false;
  }
};

enum class Owner { Inside, Outside, None };

// Whether `bb` is code of `r`: inside where each located instruction is,
// outside where some is not, neither where none is located.
Owner owner(const llvm::BasicBlock& bb, const Region& r) {
  bool located = false;
  for (const llvm::Instruction& i : bb) {
    if (llvm::isa<llvm::DbgInfoIntrinsic>(i)) continue;
    const llvm::DILocation* at = i.getDebugLoc().get();
    if (!at || !at->getLine()) continue;
    if (!r.holds(at)) return Owner::Outside;
    located = true;
  }
  return located ? Owner::Inside : Owner::None;
}

// The regions the header's first location is in, the innermost first: at
// each level of inlining, its compound statements, then the inlined call.
std::vector<Region> regions_of(const llvm::DILocation* head) {
  std::vector<Region> out;
  for (const llvm::DILocation* at = head; at; at = at->getInlinedAt()) {
    for (const llvm::DIScope* s = at->getScope(); s && !llvm::isa<llvm::DISubprogram>(s); s = s->getScope())
      if (auto* block = llvm::dyn_cast<llvm::DILexicalBlock>(s)) out.push_back({at->getInlinedAt(), block});
    if (at->getInlinedAt()) out.push_back({at->getInlinedAt(), nullptr});
  }
  return out;
}

}  // namespace

const llvm::DILocation* merged_inner_loop(const llvm::Loop& l) {
  const llvm::BasicBlock* header = l.getHeader();
  const llvm::DILocation* head = first_location(*header);
  if (!head) return nullptr;
  for (const Region& r : regions_of(head)) {
    if (owner(*header, r) != Owner::Inside) continue;
    llvm::SmallPtrSet<const llvm::BasicBlock*, 16> inside;
    bool outside = false;
    for (const llvm::BasicBlock* bb : l.blocks()) {
      Owner o = owner(*bb, r);
      if (o == Owner::Inside) inside.insert(bb);
      outside = outside || o == Owner::Outside;
    }
    if (!outside) return nullptr;  // the region's own loop, or one inside it
    // A way from the header back to it through the region's code alone.
    llvm::SmallVector<const llvm::BasicBlock*, 16> work{header};
    llvm::SmallPtrSet<const llvm::BasicBlock*, 16> seen;
    while (!work.empty()) {
      const llvm::BasicBlock* bb = work.pop_back_val();
      for (const llvm::BasicBlock* next : llvm::successors(bb)) {
        if (next == header) return head;
        if (inside.count(next) && seen.insert(next).second) work.push_back(next);
      }
    }
  }
  return nullptr;
}

}  // namespace perfcast::analyze::detail
