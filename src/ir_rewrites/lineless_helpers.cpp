// Front-end helpers without a source line inlined into their callers
// (lineless_helpers.h).
#include "ir_rewrites/lineless_helpers.h"

#include <vector>

#include <llvm/ADT/SetVector.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/Cloning.h>

using namespace llvm;

namespace perfcast::ir_rewrites {

namespace {

bool has_lines(const Function& f) {
  for (const Instruction& i : instructions(f))
    if (i.getDebugLoc() && i.getDebugLoc().getLine() && !isa<DbgInfoIntrinsic>(i)) return true;
  return false;
}

// A helper the front end wrote: defined here, its definition the one every
// call reaches (ODR or local), no line in its code, and inlinable.
bool lineless_helper(const Function& f) {
  if (f.isDeclaration() || f.isInterposable() || f.hasFnAttribute(Attribute::NoInline)) return false;
  if (!(f.hasLinkOnceODRLinkage() || f.hasWeakODRLinkage() || f.hasLocalLinkage())) return false;
  if (has_lines(f)) return false;
  for (const Instruction& i : instructions(f))
    if (const auto* call = dyn_cast<CallBase>(&i); call && call->getCalledFunction() == &f) return false;
  return true;
}

}  // namespace

bool inline_lineless_helpers(Module& m) {
  bool changed = false;
  SetVector<Function*> helpers;
  // A helper may call another (inlined in the next round); the rounds are
  // bounded because no helper calls itself and each round inlines one level.
  for (int round = 0; round < 8; ++round) {
    std::vector<CallBase*> calls;
    for (Function& f : m)
      if (!f.isDeclaration() && has_lines(f))
        for (Instruction& i : instructions(f))
          if (auto* call = dyn_cast<CallBase>(&i))
            if (Function* callee = call->getCalledFunction(); callee && callee != &f && lineless_helper(*callee))
              calls.push_back(call);
    bool inlined = false;
    for (CallBase* call : calls) {
      Function* callee = call->getCalledFunction();
      // Without its subprogram, a callee's code takes the call's location
      // where it is inlined (InlineFunction): the statement that called it.
      stripDebugInfo(*callee);
      InlineFunctionInfo info;
      if (!InlineFunction(*call, info).isSuccess()) continue;
      inlined = true;
      helpers.insert(callee);
    }
    if (!inlined) break;
    changed = true;
  }
  for (Function* f : helpers)
    if (f->use_empty() && f->isDiscardableIfUnused()) f->eraseFromParent();
  return changed;
}

}  // namespace perfcast::ir_rewrites
