#include "features/feature_call_graph.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/SCCIterator.h>
#include <llvm/Analysis/CallGraph.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/TargetParser/Triple.h>

#include "features/feature_arguments.h"
#include "features/feature_code_sites.h"

using namespace llvm;

namespace perfcast::features {

std::vector<std::vector<const Function*>> call_cycles(Module& m) {
  std::vector<std::vector<const Function*>> cycles;
  CallGraph graph(m);
  for (auto scc = scc_begin(&graph); !scc.isAtEnd(); ++scc) {
    if (!scc.hasCycle()) continue;
    std::vector<const Function*> cycle;
    for (const CallGraphNode* node : *scc)
      if (const Function* f = node->getFunction()) cycle.push_back(f);
    cycles.push_back(std::move(cycle));
  }
  return cycles;
}

std::vector<const Function*> calling_other_units(Module& m, const std::vector<Function*>& functions) {
  TargetLibraryInfoImpl library_impl(Triple(m.getTargetTriple()));
  TargetLibraryInfo library(library_impl);
  // A function under decision counts as not calling out; only a function of
  // a cycle within the unit can be decided so before its turn, and those
  // count their entries as the cycle's (call_cycles) whatever the answer.
  DenseMap<const Function*, bool> decided;
  auto calls_out = [&](auto& self, const Function& f) -> bool {
    if (auto found = decided.find(&f); found != decided.end()) return found->second;
    decided[&f] = false;
    bool out = false;
    for (const Instruction& inst : instructions(f)) {
      const auto* call = dyn_cast<CallBase>(&inst);
      if (!call || !program_callee(*call)) continue;
      const Function* callee = call->getCalledFunction();
      LibFunc known;
      if (callee->isDeclaration()
              ? !library.getLibFunc(*callee, known) && !callee->doesNotReturn()
              : !from_system_header(*callee) && self(self, *callee)) {
        out = true;
        break;
      }
    }
    decided[&f] = out;
    return out;
  };
  std::vector<const Function*> out;
  for (const Function* f : functions)
    if (calls_out(calls_out, *f)) out.push_back(f);
  return out;
}

DenseSet<const Function*> in_vtables(const Module& m) {
  DenseSet<const Function*> held;
  for (const GlobalVariable& g : m.globals()) {
    if (!g.getName().starts_with("_ZTV") || !g.hasInitializer()) continue;
    SmallVector<const Constant*, 16> work = {g.getInitializer()};
    while (!work.empty()) {
      const Constant* c = work.pop_back_val();
      if (auto* f = dyn_cast<Function>(c->stripPointerCasts()))
        held.insert(f);
      else if (isa<ConstantAggregate>(c))
        for (const Use& op : c->operands()) work.push_back(cast<Constant>(op.get()));
    }
  }
  return held;
}

}  // namespace perfcast::features
