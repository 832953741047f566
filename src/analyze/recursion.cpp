#include "analyze/recursion.h"

#include <llvm/ADT/SCCIterator.h>
#include <llvm/Analysis/CallGraph.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

namespace perfcast::analyze::detail {

RecursiveFunctions find_recursive_functions(llvm::Module& m) {
  using namespace llvm;
  RecursiveFunctions out;
  CallGraph graph(m);
  int cycle = 0;
  for (auto scc = scc_begin(&graph); !scc.isAtEnd(); ++scc) {
    if (!scc.hasCycle()) continue;
    std::set<const Function*> members;
    for (const CallGraphNode* node : *scc)
      if (const Function* f = node->getFunction(); f && !f->isDeclaration()) members.insert(f);
    ++cycle;
    for (const Function* f : members) out[f].cycle = cycle;
    for (const Function* caller : members)
      for (const Instruction& inst : instructions(*caller)) {
        const auto* call = dyn_cast<CallBase>(&inst);
        const Function* callee = call ? call->getCalledFunction() : nullptr;
        if (!callee || !members.count(callee)) continue;
        for (unsigned a = 0; a < callee->arg_size() && a < call->arg_size(); ++a)
          if (callee != caller || call->getArgOperand(a) != callee->getArg(a)) out[callee].varying_arguments.insert(a);
      }
  }
  return out;
}

}  // namespace perfcast::analyze::detail
