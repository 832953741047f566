// Which source variable an address names, for the feature probes
// (feature_pass.cpp): a local by its alloca's debug variable, a struct's
// scalar field by the struct's debug type; and the variables whose address
// escapes, whose stores the probes may not all see.
#pragma once
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace perfcast::features {

// The source variable an alloca holds, or null.
llvm::DILocalVariable* variable_of(llvm::AllocaInst* alloca);

// A type without typedefs, const and volatile, and the last typedef's name
// (the name of an anonymous struct declared through a typedef).
std::pair<llvm::DIType*, std::string> strip_qualifiers(llvm::DIType* type);

struct FieldAt {
  const llvm::DIDerivedType* member;
  std::string struct_name;
};

// The scalar field (an integer, floating-point or enumeration member, no bit
// field) that `pointer` addresses: a base and a constant byte offset, the
// base a struct variable (alloca or global) or a pointer or C++ reference
// loaded from a variable, the member the innermost at that offset whose size
// is `size_bits` (any size when 0). Nothing when the debug types do not say.
std::optional<FieldAt> field_at(llvm::Value* pointer, std::uint64_t size_bits, const llvm::DataLayout& dl);

// A read of a struct variable's field by the variable's name (`A->ncols`
// through a pointer `A`, `s.n` of a struct `s`): the variable's declaration
// (`file.c:LINE`, where the analyser describes it; a method's `this`, which
// has no line, its function's) and `var.field` (through `this`, the class's
// name: `Atom.nlocal`), the analyser's name for the value. Nothing for a field of a nested struct, or
// where debug info does not name the variable.
struct FieldRead {
  std::string site, name;
};
std::optional<FieldRead> field_read(llvm::LoadInst& load, const llvm::DataLayout& dl);

// The same for the scalar field `offset` bytes past `base`, `size_bits` wide.
std::optional<FieldRead> field_read_at(llvm::Value* base, std::int64_t offset, std::uint64_t size_bits);

// A scalar field a function reads through one of its pointer (or C++
// reference) arguments on entry: in its entry block, before any call or any
// store other than into its own stack slots, so the value its caller's object
// holds at the call. An inline helper's reads (`ZeroVector(Vector& v)`
// reading `v.localLength`), which the optimiser moves into its callers, where
// the analyser names them by the caller's variable (`x.localLength`).
struct ArgumentField {
  unsigned position;
  std::int64_t offset;  // bytes past the address passed
  llvm::Type* type;     // the integer read
};
std::vector<ArgumentField> fields_read_at_entry(llvm::Function& f, const llvm::DataLayout& dl);

// That read named by the caller's variable at `call` (field_read_at of the
// argument's base), where the object is sure to be there before the call:
// the caller's struct variable, or an object a C++ reference argument
// promises (`dereferenceable`). Nothing otherwise.
std::optional<FieldRead> field_read_at_call(const llvm::CallBase& call, const ArgumentField& field,
                                            const llvm::DataLayout& dl);

// The variables of a module whose address escapes: passed to a call that may
// write through it (`MPI_Comm_rank(..., &rank)`, `f(int& n)` given `s.n`),
// stored into memory, converted to an integer or returned. A scalar local or
// global by its alloca or global; a struct's field by its member, when the
// escaping address is the field's own (an address of the whole struct passed
// on is not: the callee's stores name the field through the struct's type).
// Stores through an escaped address are stores the probes cannot attribute.
// A call that `read_after` accepts (the probes read, once it returns, each
// scalar variable it was handed the address of: variable_written_by_call) lets
// no variable escape through that address.
struct EscapedAddresses {
  llvm::SmallPtrSet<const llvm::Value*, 16> variables;
  std::map<const llvm::DIDerivedType*, std::string> fields;  // the member, its struct's name
};
EscapedAddresses escaped_addresses(llvm::Module& m, const std::function<bool(const llvm::CallBase&)>& read_after);

// The named scalar local or global whose address `use` hands a call that may
// write through it (`get_range(&lo, &hi)`, Fortran's `CALL MPI_COMM_RANK(comm,
// sproc, ierr)` of a module's `sproc`): what it holds once the call returns is
// an assignment, which the probes read there. Null for any other use, and for
// an invoke whose normal destination other edges reach too.
llvm::Value* variable_written_by_call(const llvm::Use& use);

// The declaration's file:line and the name of a global's probe (the unit's
// file and its symbol without debug information).
std::pair<std::string, std::string> global_site_name(const llvm::GlobalVariable& global, const llvm::Module& m);

}  // namespace perfcast::features
