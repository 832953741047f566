#include "features/feature_indirect_sites.h"

#include <llvm/ADT/Twine.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/Support/Path.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

#include "features/feature_abi.h"
#include "features/feature_registration.h"

using namespace llvm;

namespace perfcast::features {

IndirectSiteProbes::IndirectSiteProbes(Module& m)
    : m_(m), ctx_(m.getContext()), i32_(Type::getInt32Ty(ctx_)), i64_(Type::getInt64Ty(ctx_)),
      ptr_(PointerType::getUnqual(ctx_)) {}

// The calls through pointers of `f` with a source location, each with its
// site record (perfcast_indirect_site), named `file:line:column`.
std::vector<std::pair<CallBase*, GlobalVariable*>> IndirectSiteProbes::calls_of(Function& f) {
  std::vector<std::pair<CallBase*, GlobalVariable*>> out;
  for (Instruction& inst : instructions(f)) {
    auto* call = dyn_cast<CallBase>(&inst);
    // A constant callee (a function, an alias) is no pointer the program chose.
    if (!call || call->isInlineAsm() || isa<Constant>(call->getCalledOperand())) continue;
    const DILocation* loc = call->getDebugLoc().get();
    if (!loc || loc->getLine() == 0) continue;
    std::string name = (sys::path::filename(loc->getFilename()) + ":" + Twine(loc->getLine()) + ":" +
                        Twine(loc->getColumn()))
                           .str();
    auto* text = ConstantDataArray::getString(ctx_, name);
    auto* name_global = new GlobalVariable(m_, text->getType(), true, GlobalValue::PrivateLinkage, text,
                                           "perfcast.features.indirect_name");
    auto* site = new GlobalVariable(
        m_, site_type(), false, GlobalValue::InternalLinkage,
        ConstantStruct::get(site_type(), {name_global, ConstantPointerNull::get(ptr_),
                                          Constant::getNullValue(site_type()->getElementType(2))}),
        "perfcast.features.indirect_site");
    sites_.push_back(site);
    out.emplace_back(call, site);
  }
  return out;
}
// perfcast_indirect_site: its name, the runtime's table, the cache of targets and their calls.
StructType* IndirectSiteProbes::target_type() { return StructType::get(ctx_, {ptr_, i64_}); }
StructType* IndirectSiteProbes::site_type() {
  return StructType::get(ctx_, {ptr_, ptr_, ArrayType::get(target_type(), PERFCAST_INDIRECT_CACHE)});
}

// entry = &site.cache[index(pointer)]; if (entry->target == pointer)
// ++entry->calls; else runtime(site, pointer): a target the cache holds (a
// few that alternate, told apart by a hash of their addresses) costs a compare and an add.
void IndirectSiteProbes::instrument(CallBase& call, GlobalVariable* site) {
  IRBuilder<> b(&call);
  Value* pointer = call.getCalledOperand();
  // PERFCAST_INDIRECT_CACHE_INDEX
  static_assert(PERFCAST_INDIRECT_CACHE == 16, "the index is the product's top 4 bits");
  Value* index = b.CreateLShr(b.CreateMul(b.CreateLShr(b.CreatePtrToInt(pointer, i64_), 4),
                                          ConstantInt::get(i64_, PERFCAST_INDIRECT_HASH)),
                              60);
  Value* entry = b.CreateInBoundsGEP(site_type(), site, {ConstantInt::get(i32_, 0), ConstantInt::get(i32_, 2), index});
  Value* same = b.CreateICmpEQ(b.CreateLoad(ptr_, entry), pointer);
  Instruction *then_term = nullptr, *else_term = nullptr;
  SplitBlockAndInsertIfThenElse(same, &call, &then_term, &else_term, MDBuilder(ctx_).createLikelyBranchWeights());
  IRBuilder<> t(then_term);
  Value* calls = t.CreateStructGEP(target_type(), entry, 1);
  t.CreateStore(t.CreateAdd(t.CreateLoad(i64_, calls), ConstantInt::get(i64_, 1)), calls);
  IRBuilder<> e(else_term);
  FunctionCallee hook =
      m_.getOrInsertFunction(PERFCAST_FEATURES_INDIRECT, Type::getVoidTy(ctx_), ptr_, ptr_);
  e.CreateCall(hook, {site, pointer});
}

// The module's indirect sites and the functions a pointer may hold, with
// the constructor that registers them; false when it has neither.
bool IndirectSiteProbes::finish(const std::vector<Function*>& targets) {
  if (sites_.empty() && targets.empty()) return false;
  const unsigned sites = static_cast<unsigned>(sites_.size());
  auto* sites_type = ArrayType::get(site_type(), sites);
  // The site records become one array: the module's descriptor points at its first.
  std::vector<Constant*> initial;
  for (GlobalVariable* g : sites_) initial.push_back(g->getInitializer());
  auto* site_array = new GlobalVariable(m_, sites_type, false, GlobalValue::InternalLinkage,
                                        ConstantArray::get(sites_type, initial), "perfcast.features.indirect_sites");
  for (unsigned i = 0; i < sites; ++i) {
    Constant* element = ConstantExpr::getInBoundsGetElementPtr(
        sites_type, site_array, ArrayRef<Constant*>{ConstantInt::get(i32_, 0), ConstantInt::get(i32_, i)});
    sites_[i]->replaceAllUsesWith(element);
    sites_[i]->eraseFromParent();
  }
  std::vector<Constant*> addresses, names;
  for (Function* f : targets) {
    addresses.push_back(f);
    auto* text = ConstantDataArray::getString(ctx_, f->getName());
    auto* g = new GlobalVariable(m_, text->getType(), true, GlobalValue::PrivateLinkage, text,
                                 "perfcast.features.function_name");
    g->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
    names.push_back(g);
  }
  auto* list_type = ArrayType::get(ptr_, targets.size());
  auto* address_table = new GlobalVariable(m_, list_type, true, GlobalValue::PrivateLinkage,
                                           ConstantArray::get(list_type, addresses), "perfcast.features.functions");
  auto* name_table = new GlobalVariable(m_, list_type, true, GlobalValue::PrivateLinkage,
                                        ConstantArray::get(list_type, names), "perfcast.features.function_names");
  auto* module_type = StructType::get(ctx_, {ptr_, i32_, i32_, ptr_, ptr_, ptr_});
  auto* descriptor = new GlobalVariable(
      m_, module_type, false, GlobalValue::InternalLinkage,
      ConstantStruct::get(module_type, {ConstantPointerNull::get(ptr_), ConstantInt::get(i32_, sites),
                                        ConstantInt::get(i32_, static_cast<unsigned>(targets.size())), site_array,
                                        address_table, name_table}),
      "perfcast.features.indirect_module");
  register_in_constructor(m_, PERFCAST_FEATURES_REGISTER_INDIRECT, descriptor, "perfcast.features.indirect_ctor");
  return true;
}

}  // namespace perfcast::features
