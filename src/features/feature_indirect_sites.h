// The probes of calls through pointers (feature_abi.h, perfcast_indirect_site):
// a record per call site, named `file:line:column`, whose cache counts the
// targets it holds with a compare and an add, and a module descriptor whose
// constructor registers the sites and the names of the functions a pointer
// may hold with the runtime (feature_indirect.c), which names each target.
#pragma once
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/InstrTypes.h>
#include <llvm/IR/Module.h>

#include <utility>
#include <vector>

namespace perfcast::features {

class IndirectSiteProbes {
 public:
  explicit IndirectSiteProbes(llvm::Module& m);

  // The calls through pointers of `f` with a source location, each with its
  // site record (a constant callee, a function or an alias, is no pointer the
  // program chose). Before any probe is inserted in `f`.
  std::vector<std::pair<llvm::CallBase*, llvm::GlobalVariable*>> calls_of(llvm::Function& f);

  // Counts `call`'s target in its site's record.
  void instrument(llvm::CallBase& call, llvm::GlobalVariable* site);

  // Makes the sites one array and registers it with `targets` (the functions
  // a pointer may hold, chosen before any probe took an address); false when
  // the module has neither.
  bool finish(const std::vector<llvm::Function*>& targets);

 private:
  llvm::StructType* target_type();
  llvm::StructType* site_type();

  llvm::Module& m_;
  llvm::LLVMContext& ctx_;
  llvm::Type *i32_, *i64_;
  llvm::PointerType* ptr_;
  std::vector<llvm::GlobalVariable*> sites_;  // each site's record until finish makes them one array
};

}  // namespace perfcast::features
