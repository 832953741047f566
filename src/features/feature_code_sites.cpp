// The sites and loop-exit facts the probes are named by (feature_code_sites.h).
#include "features/feature_code_sites.h"

#include <llvm/ADT/STLExtras.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Support/Path.h>

using namespace llvm;

namespace perfcast::features {

namespace {

bool system_path(const llvm::DIScope& scope) {
  llvm::SmallString<256> path(scope.getFilename());
  if (!llvm::sys::path::is_absolute(path)) {
    path = scope.getDirectory();
    llvm::sys::path::append(path, scope.getFilename());
  }
  return llvm::StringRef(path).starts_with("/usr/");
}

}  // namespace

bool from_system_header(const llvm::Function& f) {
  const llvm::DISubprogram* sp = f.getSubprogram();
  return sp && system_path(*sp);
}

bool in_system_header(const llvm::DebugLoc& loc) {
  return loc && system_path(*llvm::cast<llvm::DIScope>(loc.getScope()));
}

double function_id(StringRef linkage_name) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : linkage_name) h = (h ^ c) * 1099511628211ull;
  return static_cast<double>(h & ((1ull << 53) - 1));
}

std::string file_line(const DebugLoc& loc, const Module& m) {
  if (loc) {
    auto* scope = cast<DIScope>(loc.getScope());
    return (sys::path::filename(scope->getFilename()) + ":" + Twine(loc.getLine())).str();
  }
  return (sys::path::filename(m.getSourceFileName()) + ":0").str();
}

std::set<std::string> lines_with_code(const Function& f, const Module& m) {
  std::set<std::string> lines;
  for (const Instruction& i : instructions(f)) {
    const auto* br = dyn_cast<BranchInst>(&i);
    if (i.getDebugLoc() && !(br && br->isUnconditional()) && !isa<DbgInfoIntrinsic>(i))
      lines.insert(file_line(i.getDebugLoc(), m));
  }
  return lines;
}

bool tested_first(const Loop& l, const BasicBlock& exiting, const Module& m) {
  // The loop statement's own test: the front end evaluates the whole
  // condition before it, whatever lines the condition's operands are on.
  if (const DebugLoc start = l.getStartLoc(); start && exiting.getTerminator()->getDebugLoc() == start) return true;
  const std::string statement = file_line(l.getStartLoc(), m), test = file_line(exiting.getTerminator()->getDebugLoc(), m);
  auto own = [&](const BasicBlock& b) {
    for (const Instruction& i : b) {
      const auto* br = dyn_cast<BranchInst>(&i);
      if (!i.getDebugLoc() || isa<DbgInfoIntrinsic>(i) || (br && br->isUnconditional())) continue;
      const std::string at = file_line(i.getDebugLoc(), m);
      if (at != statement && at != test) return false;
    }
    return true;
  };
  SmallPtrSet<const BasicBlock*, 8> seen;
  SmallVector<const BasicBlock*, 8> work = {l.getHeader()};
  while (!work.empty()) {
    const BasicBlock* b = work.pop_back_val();
    if (b == &exiting) return true;
    if (!l.contains(b) || !seen.insert(b).second || !own(*b)) continue;
    for (const BasicBlock* s : successors(b)) work.push_back(s);
  }
  return false;
}

std::string loop_site(const Loop& l, const std::set<std::string>& code_lines, const Module& m) {
  const std::string start = file_line(l.getStartLoc(), m);
  if (MDNode* id = l.getLoopID())
    for (unsigned i = 1; i < id->getNumOperands(); ++i)
      if (isa<DILocation>(id->getOperand(i))) return start;
  if (code_lines.count(start)) return start;
  for (const Instruction& i : *l.getHeader())
    if (i.getDebugLoc() && !isa<PHINode>(i) && !isa<DbgInfoIntrinsic>(i)) return file_line(i.getDebugLoc(), m);
  if (l.getStartLoc() && l.getStartLoc().getLine()) return start;
  // A loop whose code has no line (a front-end helper's, inlined): as the
  // analyser names it (loop_source_loc), the first line its code has (its
  // function's own before an inlined one's), else the last line of the code
  // that leads to it (the statement that called the helper), else its outer
  // loop's.
  auto usable = [](const Instruction& i, bool inlined) {
    const DebugLoc& dl = i.getDebugLoc();
    return dl && dl.getLine() && (inlined || !dl.getInlinedAt()) && !isa<DbgInfoIntrinsic>(i);
  };
  for (bool inlined : {false, true})
    for (const BasicBlock* bb : l.blocks())
      for (const Instruction& i : *bb)
        if (usable(i, inlined)) return file_line(i.getDebugLoc(), m);
  const BasicBlock* before = l.getLoopPredecessor();
  for (int steps = 0; before && steps < 16; ++steps, before = before->getSinglePredecessor())
    for (const Instruction& i : reverse(*before))
      if (usable(i, true)) return file_line(i.getDebugLoc(), m);
  if (const Loop* parent = l.getParentLoop()) return loop_site(*parent, code_lines, m);
  return start;
}

unsigned side_line(const Instruction& br, unsigned succ, const Loop* loop) {
  const DILocation* at = br.getDebugLoc().get();
  if (!at) return 0;
  const DISubprogram* own = at->getScope()->getSubprogram();
  const BasicBlock* b = br.getSuccessor(succ);
  SmallPtrSet<const BasicBlock*, 8> seen;
  for (; b && seen.insert(b).second; b = b->getSingleSuccessor()) {
    if (loop && (b == loop->getHeader() || loop->isLoopLatch(b))) return 0;
    for (const Instruction& i : *b) {
      if (isa<PHINode>(i) || isa<DbgInfoIntrinsic>(i)) continue;
      if (auto* jump = dyn_cast<BranchInst>(&i); jump && jump->isUnconditional()) continue;
      for (const DILocation* loc = i.getDebugLoc().get(); loc; loc = loc->getInlinedAt())
        if (loc->getLine() != 0 && loc->getScope()->getSubprogram() == own &&
            loc->getInlinedAt() == at->getInlinedAt())
          return loc->getLine();
      if (i.isTerminator()) return 0;  // a side that branches on: its first line was the test's
    }
  }
  return 0;
}

bool empty_side(const BranchInst& br, unsigned succ, const PostDominatorTree& post_dominators) {
  const DomTreeNode* node = post_dominators.getNode(br.getParent());
  const BasicBlock* join = node && node->getIDom() ? node->getIDom()->getBlock() : nullptr;  // none: several exits
  auto works = [](const Instruction& i) {
    if (isa<DbgInfoIntrinsic>(i) || i.isLifetimeStartOrEnd()) return false;
    if (auto* store = dyn_cast<StoreInst>(&i))  // a local's value, which the optimiser keeps in a register
      return store->isVolatile() || !isa<AllocaInst>(getUnderlyingObject(store->getPointerOperand()));
    return isa<CallBase>(i) || i.mayWriteToMemory() || i.getType()->isFPOrFPVectorTy();
  };
  SmallPtrSet<const BasicBlock*, 8> seen;
  for (const BasicBlock* b = br.getSuccessor(succ); b && seen.insert(b).second; b = b->getSingleSuccessor()) {
    if (b == join) return true;
    if (llvm::any_of(*b, works)) return false;
    if (isa<ReturnInst>(b->getTerminator())) return true;
  }
  return false;
}

SmallVector<BasicBlock*, 2> exits_after_work(Loop& l, const DominatorTree& dominators) {
  SmallVector<BasicBlock*, 2> late;
  SmallVector<BasicBlock*, 4> exiting;
  l.getExitingBlocks(exiting);
  auto works = [](const BasicBlock* bb) {
    return llvm::any_of(*bb, [](const Instruction& i) {
      if (isa<DbgInfoIntrinsic>(i)) return false;
      return isa<CallBase>(i) || i.getType()->isFPOrFPVectorTy();
    });
  };
  for (BasicBlock* e : exiting) {
    if (e == l.getHeader() || l.isLoopLatch(e) || !isa<BranchInst>(e->getTerminator())) continue;
    bool work_after = false;
    for (BasicBlock* bb : l.blocks())
      if (bb != e && dominators.dominates(e, bb) && works(bb)) work_after = true;
    if (!work_after) late.push_back(e);
  }
  return late;
}

namespace {

// The object a pointer is into, through a function's own stack slots of its
// arguments (where they are kept at the start of the pipeline).
const Value* object_through_slots(const Value* p) {
  const Value* o = getUnderlyingObject(p);
  if (const auto* reload = dyn_cast<LoadInst>(o))
    if (const auto* slot = dyn_cast<AllocaInst>(reload->getPointerOperand())) {
      const Value* kept = nullptr;
      int spills = 0;
      for (const User* u : slot->users())
        if (const auto* spill = dyn_cast<StoreInst>(u); spill && spill->getPointerOperand() == slot)
          kept = spill->getValueOperand(), ++spills;
      if (spills == 1 && isa<Argument>(kept)) return kept;
    }
  return o;
}

}  // namespace

std::optional<uint64_t> fill_bytes(const llvm::Loop& loop, const llvm::DataLayout& layout, llvm::DebugLoc* store_at,
                                   const CopyAssignments* assignments) {
  using namespace llvm;
  if (!loop.isInnermost()) return std::nullopt;
  // At the start of the pipeline a C or C++ loop still keeps its index and
  // other scalar locals in their own stack slots (SROA comes later): stores to
  // a scalar local the loop does not index are those variables, not memory it
  // fills, and the slots' lifetime markers are no calls.
  auto scalar_local = [](const StoreInst& store) {
    auto* slot = dyn_cast<AllocaInst>(store.getPointerOperand()->stripPointerCasts());
    return slot && !slot->isArrayAllocation() && !slot->getAllocatedType()->isAggregateType() &&
           !slot->getAllocatedType()->isVectorTy();
  };
  SmallPtrSet<const Value*, 4> written_locals;
  for (const BasicBlock* bb : loop.blocks())
    for (const Instruction& inst : *bb)
      if (auto* store = dyn_cast<StoreInst>(&inst); store && scalar_local(*store))
        written_locals.insert(store->getPointerOperand()->stripPointerCasts());
  // The value the loop stores in every iteration: a constant, or one it only
  // reads (an argument, a value from before the loop, a local's slot it never
  // writes: `std::fill`'s `__tmp`), a constant once the function is inlined.
  auto invariant = [&](const Value* v) {
    if (isa<Constant>(v) || isa<Argument>(v)) return true;
    const auto* def = dyn_cast<Instruction>(v);
    if (!def || !loop.contains(def)) return true;
    const auto* load = dyn_cast<LoadInst>(def);
    if (!load || load->isVolatile()) return false;
    const Value* slot = load->getPointerOperand()->stripPointerCasts();
    return isa<AllocaInst>(slot) && !written_locals.contains(slot);
  };
  const StoreInst* fill = nullptr;
  const CallBase* assignment = nullptr;
  for (const BasicBlock* bb : loop.blocks())
    for (const Instruction& inst : *bb) {
      if (auto* store = dyn_cast<StoreInst>(&inst)) {
        if (!store->isVolatile() && scalar_local(*store)) continue;
        if (fill || assignment || store->isVolatile() || !invariant(store->getValueOperand())) return std::nullopt;
        fill = store;
      } else if (auto* call = dyn_cast<CallBase>(&inst)) {
        if (isa<DbgInfoIntrinsic>(inst) || inst.isLifetimeStartOrEnd()) continue;
        if (fill || assignment || call->arg_size() == 0) return std::nullopt;
        for (unsigned k = 1; k < call->arg_size(); ++k)
          if (!invariant(call->getArgOperand(k))) return std::nullopt;
        assignment = call;
      } else if (inst.mayWriteToMemory()) {
        return std::nullopt;
      }
    }
  if (fill) {
    if (store_at) *store_at = fill->getDebugLoc();
    return layout.getTypeStoreSize(fill->getValueOperand()->getType()).getFixedValue();
  }
  const Function* callee = assignment ? assignment->getCalledFunction() : nullptr;
  auto copy = callee && assignments ? assignments->find(callee) : CopyAssignments::const_iterator();
  if (!callee || !assignments || copy == assignments->end()) return std::nullopt;
  if (store_at) *store_at = copy->second.first_store;
  return copy->second.bytes;
}

CopyAssignments copy_assignments(const Module& m) {
  CopyAssignments found;
  for (const Function& f : m) {
    if (f.isDeclaration() || f.size() != 1 || f.arg_size() == 0) continue;
    CopyAssignment copy;
    bool ok = true;
    for (const Instruction& inst : f.front()) {
      if (auto* store = dyn_cast<StoreInst>(&inst)) {
        const Value* into = object_through_slots(store->getPointerOperand());
        if (isa<AllocaInst>(into) && isa<Argument>(store->getValueOperand())) continue;  // an argument's slot
        const Value* value = store->getValueOperand();
        const auto* read = dyn_cast<LoadInst>(value);
        const Value* from = read ? object_through_slots(read->getPointerOperand()) : nullptr;
        if (store->isVolatile() || into != f.getArg(0) ||
            !(isa<Constant>(value) || isa<Argument>(value) || (from && isa<Argument>(from) && from != into))) {
          ok = false;
          break;
        }
        if (copy.bytes == 0) copy.first_store = store->getDebugLoc();
        copy.bytes += m.getDataLayout().getTypeStoreSize(value->getType()).getFixedValue();
      } else if (isa<CallBase>(inst) ? !isa<DbgInfoIntrinsic>(inst) && !inst.isLifetimeStartOrEnd()
                                     : inst.mayWriteToMemory()) {
        ok = false;
        break;
      }
    }
    if (ok && copy.bytes > 0) found[&f] = copy;
  }
  return found;
}

std::string fill_line_fact(const std::string& site, const llvm::DebugLoc& store_at, const llvm::Module& m) {
  const std::string at = file_line(store_at, m);
  const std::string file = at.substr(0, at.rfind(':'));
  return file == site.substr(0, site.rfind(':')) ? ".fill_line" : ".fill_line:" + file;
}

}  // namespace perfcast::features
