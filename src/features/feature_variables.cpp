#include "features/feature_variables.h"

#include <llvm/ADT/APInt.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Support/Path.h>

#include <algorithm>

using namespace llvm;

namespace perfcast::features {

// From its dbg.declare, or, where clang tracks assignments (-O1 and up with
// -g, set up before the probes' pass runs), from the dbg.assign markers
// linked to the alloca; in either form of debug info LLVM 19 keeps in memory
// (intrinsics or records).
DILocalVariable* variable_of(AllocaInst* alloca) {
  for (auto* declare : findDbgDeclares(alloca)) return declare->getVariable();
  for (auto* record : findDVRDeclares(alloca)) return record->getVariable();
  for (auto* marker : at::getAssignmentMarkers(alloca)) return marker->getVariable();
  for (auto* record : at::getDVRAssignmentMarkers(alloca)) return record->getVariable();
  return nullptr;
}

// The pointer variable's slot whose value `alloca` holds a copy of: itself
// where it is a variable's, else the one variable slot its only store copies
// (clang's OpenMP code copies a reference it captures into a slot of its
// own); none otherwise.
static AllocaInst* pointer_slot(AllocaInst* alloca) {
  if (!alloca || variable_of(alloca)) return alloca;
  StoreInst* only = nullptr;
  for (User* u : alloca->users())
    if (auto* store = dyn_cast<StoreInst>(u); store && store->getPointerOperand() == alloca) {
      if (only) return nullptr;
      only = store;
    }
  auto* copied = only ? dyn_cast<LoadInst>(only->getValueOperand()) : nullptr;
  auto* from = copied ? dyn_cast<AllocaInst>(copied->getPointerOperand()) : nullptr;
  return from && variable_of(from) ? from : nullptr;
}

std::pair<DIType*, std::string> strip_qualifiers(DIType* type) {
  std::string typedef_name;
  while (auto* derived = dyn_cast_or_null<DIDerivedType>(type)) {
    unsigned tag = derived->getTag();
    if (tag == dwarf::DW_TAG_typedef) typedef_name = derived->getName().str();
    else if (tag != dwarf::DW_TAG_const_type && tag != dwarf::DW_TAG_volatile_type) break;
    type = derived->getBaseType();
  }
  return {type, typedef_name};
}

namespace {

DIType* global_type(GlobalVariable* global) {
  SmallVector<DIGlobalVariableExpression*, 1> info;
  global->getDebugInfo(info);
  return info.empty() ? nullptr : info.front()->getVariable()->getType();
}

// The debug type of the object at `base`: a struct variable's, or the
// pointee of the pointer (or C++ reference) variable `base` was loaded from.
DIType* object_type(Value* base) {
  if (auto* load = dyn_cast<LoadInst>(base)) {
    DIType* pointer = nullptr;
    if (auto* alloca = pointer_slot(dyn_cast<AllocaInst>(load->getPointerOperand()))) {
      if (DILocalVariable* var = variable_of(alloca)) pointer = var->getType();
    } else if (auto* global = dyn_cast<GlobalVariable>(load->getPointerOperand())) {
      pointer = global_type(global);
    }
    auto* derived = dyn_cast_or_null<DIDerivedType>(strip_qualifiers(pointer).first);
    if (!derived || (derived->getTag() != dwarf::DW_TAG_pointer_type && derived->getTag() != dwarf::DW_TAG_reference_type &&
                     derived->getTag() != dwarf::DW_TAG_rvalue_reference_type))
      return nullptr;
    return derived->getBaseType();
  }
  if (auto* alloca = dyn_cast<AllocaInst>(base)) {
    DILocalVariable* var = variable_of(alloca);
    return var ? var->getType() : nullptr;
  }
  if (auto* global = dyn_cast<GlobalVariable>(base))
    return global->getName().starts_with("perfcast.") ? nullptr : global_type(global);
  return nullptr;
}

bool scalar_member(const DIDerivedType* member) {
  DIType* type = strip_qualifiers(member->getBaseType()).first;
  auto* enumeration = dyn_cast_or_null<DICompositeType>(type);
  return isa_and_nonnull<DIBasicType>(type) || (enumeration && enumeration->getTag() == dwarf::DW_TAG_enumeration_type);
}

// field_at of the address `offset` bytes past `base`.
std::optional<FieldAt> field_at_offset(Value* base, std::int64_t offset, std::uint64_t size_bits) {
  if (offset < 0) return std::nullopt;
  uint64_t offset_bits = static_cast<uint64_t>(offset) * 8;
  const DIDerivedType* member = nullptr;
  std::string struct_name;
  // Descend through nested structs to the innermost member at the offset.
  for (auto [stripped, typedef_name] = strip_qualifiers(object_type(base)); stripped;) {
    auto* composite = dyn_cast<DICompositeType>(stripped);
    // A struct or a class: a C++ class's fields are recorded as a struct's.
    if (!composite || (composite->getTag() != dwarf::DW_TAG_structure_type &&
                       composite->getTag() != dwarf::DW_TAG_class_type))
      break;
    const DIDerivedType* found = nullptr;
    for (DINode* element : composite->getElements()) {
      auto* m = dyn_cast_or_null<DIDerivedType>(element);
      if (!m || m->getTag() != dwarf::DW_TAG_member || m->isBitField() || m->isStaticMember()) continue;
      if (offset_bits >= m->getOffsetInBits() && offset_bits < m->getOffsetInBits() + std::max<uint64_t>(m->getSizeInBits(), 1)) {
        found = m;
        break;
      }
    }
    if (!found) break;
    member = found;
    struct_name = !composite->getName().empty() ? composite->getName().str() : typedef_name;
    offset_bits -= found->getOffsetInBits();
    auto next = strip_qualifiers(found->getBaseType());
    stripped = next.first;
    typedef_name = next.second;
  }
  if (!member || offset_bits != 0 || (size_bits && member->getSizeInBits() != size_bits) || struct_name.empty() ||
      member->getName().empty() || !scalar_member(member))
    return std::nullopt;
  return FieldAt{member, struct_name};
}

// The base of `pointer` and its constant offset in bytes from it.
std::pair<Value*, std::int64_t> base_and_offset(Value* pointer, const DataLayout& dl) {
  APInt offset(dl.getIndexTypeSizeInBits(pointer->getType()), 0);
  Value* base = pointer->stripAndAccumulateConstantOffsets(dl, offset, /*AllowNonInbounds=*/true);
  return {base, offset.getSExtValue()};
}

}  // namespace

std::optional<FieldAt> field_at(Value* pointer, std::uint64_t size_bits, const DataLayout& dl) {
  auto [base, offset] = base_and_offset(pointer, dl);
  return field_at_offset(base, offset, size_bits);
}

std::optional<FieldRead> field_read(LoadInst& load, const DataLayout& dl) {
  auto [base, offset] = base_and_offset(load.getPointerOperand(), dl);
  return field_read_at(base, offset, dl.getTypeStoreSizeInBits(load.getType()));
}

std::optional<FieldRead> field_read_at(Value* base, std::int64_t offset, std::uint64_t size_bits) {
  auto field = field_at_offset(base, offset, size_bits);
  if (!field) return std::nullopt;
  // The variable: the struct itself, or the pointer to it loaded from it.
  auto* alloca = dyn_cast<AllocaInst>(base);
  if (auto* pointer = dyn_cast<LoadInst>(base)) alloca = pointer_slot(dyn_cast<AllocaInst>(pointer->getPointerOperand()));
  DILocalVariable* var = alloca ? variable_of(alloca) : nullptr;
  if (!var || var->getName().empty()) return std::nullopt;
  // Only the variable's own struct's member: the analyser names a nested
  // field by its whole path.
  auto* own = dyn_cast_or_null<DICompositeType>(strip_qualifiers(object_type(base)).first);
  if (!own || llvm::find(own->getElements(), field->member) == own->getElements().end()) return std::nullopt;
  // A method's `this` has no line: its function's, as the analyser names it.
  const DISubprogram* sp = var->getScope() ? var->getScope()->getSubprogram() : nullptr;
  const bool declared = var->getLine() != 0 || !sp;
  // A method's `this` (the compiler's variable) is its class, as the analyser names it: `Atom.nlocal`.
  const std::string root =
      var->isArtificial() && var->getName() == "this" && !own->getName().empty() ? own->getName().str()
                                                                                  : var->getName().str();
  return FieldRead{(sys::path::filename(declared ? var->getFilename() : sp->getFilename()) + ":" +
                    Twine(declared ? var->getLine() : sp->getLine()))
                       .str(),
                   root + "." + field->member->getName().str()};
}

namespace {

// Whether the use of an address lets memory be written through it other than
// by a store the probes see: a load, a store into it, a comparison, a copy's
// source and a call that only reads it do not; a derived address (a GEP or a
// cast) is judged at its own uses.
bool escapes(const Use& use) {
  const auto* user = cast<Instruction>(use.getUser());
  if (isa<LoadInst, GetElementPtrInst, CastInst, CmpInst>(user) && !isa<PtrToIntInst>(user)) return false;
  if (isa<StoreInst>(user)) return use.getOperandNo() != StoreInst::getPointerOperandIndex();
  if (const auto* call = dyn_cast<CallBase>(user)) {
    if (isa<DbgInfoIntrinsic>(call) || call->isLifetimeStartOrEnd() || isa<PseudoProbeInst>(call)) return false;
    if (isa<MemTransferInst>(call)) return use.getOperandNo() == 0;
    if (!call->isArgOperand(&use)) return !call->isBundleOperand(&use) || !call->onlyReadsMemory();
    const unsigned arg = call->getArgOperandNo(&use);
    return !call->onlyReadsMemory(arg) && !call->onlyReadsMemory();
  }
  return true;  // stored as a value's part, converted to an integer, returned, merged in a phi or select
}

}  // namespace

Value* variable_written_by_call(const Use& use) {
  const auto* call = dyn_cast<CallBase>(use.getUser());
  if (!call || !call->isArgOperand(&use) || isa<IntrinsicInst>(call) || !escapes(use)) return nullptr;
  Value* variable = use.get()->stripPointerCasts();
  auto* alloca = dyn_cast<AllocaInst>(variable);
  auto* global = dyn_cast<GlobalVariable>(variable);
  Type* t = alloca ? alloca->getAllocatedType() : global ? global->getValueType() : nullptr;
  if (!t || !((t->isIntegerTy() && t->getIntegerBitWidth() <= 64) || t->isFloatingPointTy())) return nullptr;
  if (const auto* invoke = dyn_cast<InvokeInst>(call); invoke && !invoke->getNormalDest()->getSinglePredecessor())
    return nullptr;
  if (global) {  // the program's own: with its debug description, not the runtime's or the probes'
    SmallVector<DIGlobalVariableExpression*, 1> info;
    global->getDebugInfo(info);
    return !global->isConstant() && !info.empty() ? global : nullptr;
  }
  DILocalVariable* var = variable_of(alloca);
  return var && !var->getName().empty() ? alloca : nullptr;
}

std::pair<std::string, std::string> global_site_name(const GlobalVariable& global, const Module& m) {
  SmallVector<DIGlobalVariableExpression*, 1> info;
  global.getDebugInfo(info);
  if (info.empty()) return {(sys::path::filename(m.getSourceFileName()) + ":0").str(), global.getName().str()};
  DIGlobalVariable* var = info.front()->getVariable();
  return {(sys::path::filename(var->getFilename()) + ":" + Twine(var->getLine())).str(), var->getName().str()};
}

std::vector<ArgumentField> fields_read_at_entry(Function& f, const DataLayout& dl) {
  std::vector<ArgumentField> out;
  if (f.isDeclaration()) return out;
  // Each pointer argument, and the slot clang keeps it in before SROA runs.
  DenseMap<const Value*, unsigned> positions;
  for (Argument& a : f.args())
    if (a.getType()->isPointerTy()) positions[&a] = a.getArgNo();
  for (Instruction& inst : f.getEntryBlock()) {
    if (auto* store = dyn_cast<StoreInst>(&inst)) {
      auto* slot = dyn_cast<AllocaInst>(store->getPointerOperand());
      if (!slot) break;  // memory the caller may see: a field read after it may be this store's
      if (auto found = positions.find(store->getValueOperand()); found != positions.end())
        positions[slot] = found->second;
      else
        positions.erase(slot);  // the slot holds another pointer from here on
      continue;
    }
    if (auto* call = dyn_cast<CallBase>(&inst)) {
      if (isa<DbgInfoIntrinsic>(call) || call->isLifetimeStartOrEnd()) continue;
      break;  // a call may write the fields
    }
    auto* load = dyn_cast<LoadInst>(&inst);
    if (!load || !load->getType()->isIntegerTy()) continue;
    auto [base, offset] = base_and_offset(load->getPointerOperand(), dl);
    if (auto* through = dyn_cast<LoadInst>(base)) base = through->getPointerOperand();  // the argument's slot
    else if (!isa<Argument>(base)) continue;
    auto position = positions.find(base);
    if (position == positions.end() || offset < 0) continue;
    const ArgumentField field{position->second, offset, load->getType()};
    if (llvm::none_of(out, [&](const ArgumentField& o) { return o.position == field.position && o.offset == offset; }))
      out.push_back(field);
  }
  return out;
}

std::optional<FieldRead> field_read_at_call(const CallBase& call, const ArgumentField& field, const DataLayout& dl) {
  if (field.position >= call.arg_size()) return std::nullopt;
  auto [base, offset] = base_and_offset(call.getArgOperand(field.position), dl);
  const std::uint64_t bytes = dl.getTypeStoreSize(field.type);
  // Only where the object is there to read: a struct variable of the
  // caller's, or one a C++ reference promises (`dereferenceable`).
  const bool present = isa<AllocaInst>(base) ||
                       call.getParamDereferenceableBytes(field.position) >= static_cast<std::uint64_t>(field.offset) + bytes;
  if (!present) return std::nullopt;
  return field_read_at(base, offset + field.offset, bytes * 8);
}

EscapedAddresses escaped_addresses(Module& m, const std::function<bool(const CallBase&)>& read_after) {
  EscapedAddresses out;
  const DataLayout& dl = m.getDataLayout();
  for (Function& f : m) {
    for (Instruction& inst : instructions(f)) {
      for (const Use& use : inst.operands()) {
        Value* address = use.get();
        if (!address->getType()->isPointerTy() || isa<Function>(address) || isa<ConstantPointerNull>(address) ||
            !escapes(use))
          continue;
        if (variable_written_by_call(use) && read_after(cast<CallBase>(inst))) continue;
        const Value* object = getUnderlyingObject(address);
        const Value* own = address->stripPointerCasts();
        if (auto* alloca = dyn_cast<AllocaInst>(object); alloca && !alloca->getAllocatedType()->isAggregateType())
          out.variables.insert(alloca);
        else if (auto* global = dyn_cast<GlobalVariable>(object); global && !global->getValueType()->isAggregateType())
          out.variables.insert(global);
        if (own == object) continue;  // a whole object's address (a struct variable, a pointer to one)
        if (auto field = field_at(address, 0, dl)) out.fields.emplace(field->member, field->struct_name);
      }
    }
  }
  return out;
}

}  // namespace perfcast::features
