// Internal: C++ virtual calls, told by their shape (a function pointer loaded
// from a slot of the object's vtable), and the overrides each may land on.
#pragma once

#include <vector>

namespace llvm {
class CallBase;
class Function;
}  // namespace llvm

namespace perfcast::analyze::detail {

// Whether `call` calls through a vtable: its callee is loaded from a constant
// offset of a pointer that was itself loaded as a vtable pointer (clang's
// "vtable pointer" TBAA tag on that load).
bool is_virtual_call(const llvm::CallBase& call);

// The functions defined in the module that a virtual call may land on: the
// entry at the call's slot in every vtable the module defines, at each of the
// vtable's address points (those its constructors store), whose type is the
// call's. The object's static type is not in the IR, so a class outside the
// hierarchy with a function of the same type at the same slot is among them;
// a probe run measures which run. Empty for every other call, and when no
// vtable of the module has such an entry (the object's class is defined in a
// library). Sorted by name, each once.
std::vector<llvm::Function*> virtual_call_targets(const llvm::CallBase& call);

}  // namespace perfcast::analyze::detail
