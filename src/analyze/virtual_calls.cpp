#include "analyze/virtual_calls.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>

#include <algorithm>
#include <cstdint>
#include <optional>

namespace perfcast::analyze::detail {

namespace {

// The load of a vtable pointer: clang tags it with the TBAA type "vtable pointer".
bool loads_a_vtable_pointer(const llvm::Value* v) {
  const auto* load = llvm::dyn_cast<llvm::LoadInst>(v);
  if (!load) return false;
  const llvm::MDNode* tag = load->getMetadata(llvm::LLVMContext::MD_tbaa);
  if (!tag || tag->getNumOperands() < 2) return false;
  const auto* type = llvm::dyn_cast<llvm::MDNode>(tag->getOperand(1));
  if (!type || type->getNumOperands() < 1) return false;
  const auto* name = llvm::dyn_cast<llvm::MDString>(type->getOperand(0));
  return name && name->getString() == "vtable pointer";
}

// The byte offset into its vtable of the slot `call` loads its callee from.
std::optional<std::int64_t> slot_offset(const llvm::CallBase& call) {
  if (call.isInlineAsm() || call.getCalledFunction()) return std::nullopt;
  const auto* load = llvm::dyn_cast<llvm::LoadInst>(call.getCalledOperand());
  if (!load) return std::nullopt;
  const llvm::DataLayout& dl = call.getModule()->getDataLayout();
  llvm::APInt offset(dl.getIndexTypeSizeInBits(load->getPointerOperandType()), 0);
  const llvm::Value* base = load->getPointerOperand()->stripAndAccumulateConstantOffsets(dl, offset, true);
  if (!loads_a_vtable_pointer(base)) return std::nullopt;
  return offset.getSExtValue();
}

// The constant at byte `offset` of `c` (a vtable's initialiser: a struct of
// arrays of pointers), or null.
const llvm::Constant* constant_at(const llvm::Constant* c, std::int64_t offset, const llvm::DataLayout& dl) {
  while (c) {
    if (offset == 0 && c->getType()->isPointerTy()) return c;
    if (auto* s = llvm::dyn_cast<llvm::ConstantStruct>(c)) {
      const llvm::StructLayout* layout = dl.getStructLayout(s->getType());
      if (offset < 0 || static_cast<std::uint64_t>(offset) >= layout->getSizeInBytes()) return nullptr;
      unsigned k = layout->getElementContainingOffset(static_cast<std::uint64_t>(offset));
      offset -= static_cast<std::int64_t>(layout->getElementOffset(k));
      c = s->getOperand(k);
    } else if (auto* a = llvm::dyn_cast<llvm::ConstantArray>(c)) {
      const auto size = static_cast<std::int64_t>(dl.getTypeAllocSize(a->getType()->getElementType()));
      if (offset < 0 || size == 0 || offset / size >= static_cast<std::int64_t>(a->getNumOperands())) return nullptr;
      c = a->getOperand(static_cast<unsigned>(offset / size));
      offset %= size;
    } else {
      return nullptr;
    }
  }
  return nullptr;
}

// The byte offsets of a vtable's address points: the constant offsets at
// which the module uses it (constructors store them into objects; a VTT holds them).
std::vector<std::int64_t> address_points(const llvm::GlobalVariable& vtable, const llvm::DataLayout& dl) {
  std::vector<std::int64_t> out;
  for (const llvm::User* u : vtable.users()) {
    const auto* gep = llvm::dyn_cast<llvm::GEPOperator>(u);
    if (!gep || gep->getPointerOperand() != &vtable) continue;
    llvm::APInt offset(dl.getIndexTypeSizeInBits(gep->getType()), 0);
    if (gep->accumulateConstantOffset(dl, offset)) out.push_back(offset.getSExtValue());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

bool is_virtual_call(const llvm::CallBase& call) { return slot_offset(call).has_value(); }

std::vector<llvm::Function*> virtual_call_targets(const llvm::CallBase& call) {
  std::vector<llvm::Function*> out;
  auto slot = slot_offset(call);
  if (!slot) return out;
  const llvm::Module& m = *call.getModule();
  const llvm::DataLayout& dl = m.getDataLayout();
  for (const llvm::GlobalVariable& g : m.globals()) {
    // Itanium C++ ABI vtables: _ZTV<class>.
    if (!g.getName().starts_with("_ZTV") || !g.hasDefinitiveInitializer()) continue;
    for (std::int64_t point : address_points(g, dl)) {
      const llvm::Constant* entry = constant_at(g.getInitializer(), point + *slot, dl);
      auto* f =
          entry ? const_cast<llvm::Function*>(llvm::dyn_cast<llvm::Function>(entry->stripPointerCasts())) : nullptr;
      if (!f || f->isDeclaration() || f->getFunctionType() != call.getFunctionType()) continue;
      if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
    }
  }
  std::sort(out.begin(), out.end(),
            [](const llvm::Function* a, const llvm::Function* b) { return a->getName() < b->getName(); });
  return out;
}

}  // namespace perfcast::analyze::detail
