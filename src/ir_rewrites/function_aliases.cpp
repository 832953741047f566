// Calls of function aliases as calls of the functions they name (function_aliases.h).
#include "ir_rewrites/function_aliases.h"

#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalAlias.h>
#include <llvm/IR/Module.h>

namespace perfcast::ir_rewrites {

void call_aliased_functions_directly(llvm::Module& m) {
  for (llvm::GlobalAlias& alias : m.aliases()) {
    auto* target = llvm::dyn_cast_or_null<llvm::Function>(alias.getAliaseeObject());
    if (!target || alias.isInterposable() || alias.use_empty()) continue;
    alias.replaceAllUsesWith(target);
  }
}

}  // namespace perfcast::ir_rewrites
