// How a module's probes reach the runtime: a constructor, run before main,
// that hands the runtime a descriptor of the module's records.
#pragma once
#include <llvm/ADT/StringRef.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

namespace perfcast::features {

// Adds the internal constructor `name` to `m`, which calls the runtime's
// `hook(descriptor)` (feature_abi.h).
inline void register_in_constructor(llvm::Module& m, llvm::StringRef hook, llvm::GlobalVariable* descriptor,
                                    llvm::StringRef name) {
  llvm::LLVMContext& ctx = m.getContext();
  auto* ctor = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false),
                                      llvm::GlobalValue::InternalLinkage, name, m);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "", ctor));
  llvm::FunctionCallee reg =
      m.getOrInsertFunction(hook, llvm::Type::getVoidTy(ctx), llvm::PointerType::getUnqual(ctx));
  b.CreateCall(reg, {descriptor});
  b.CreateRetVoid();
  llvm::appendToGlobalCtors(m, ctor, 0);
}

}  // namespace perfcast::features
