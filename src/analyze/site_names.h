// Internal: names of source sites (loops, calls) that stay put when lines move.
// A site is named by the function the source wrote it in and its ordinal among
// the sites of its kind in that function: `parse_args.loop1`,
// `main.MPI_Sendrecv2`, `exchange.memcpy1`. The ordinal counts distinct source
// lines of that kind in that function over the whole module (every inlined
// copy), in line order, so an edit outside the function renames nothing.
#pragma once

#include <string>

namespace llvm {
class CallBase;
class DebugLoc;
class DILocation;
class DISubprogram;
class Function;
class Loop;
}  // namespace llvm

namespace perfcast::analyze::detail {

struct ModuleContext;

// The source loop's location: the loop's own when LLVM kept it, else its back
// edge's (the `for` statement's), else, for a loop whose control has no line,
// the first line of its code.
llvm::DebugLoc loop_source_loc(const llvm::Loop* l);
// The name of function `f` in parameter names: its source name (demangled, no
// signature), with `_<k>` when k > 1 defined functions share it (overloads,
// statics of several files), k counting them in module order.
std::string function_source_name(const llvm::Function& f);
// `<function>.loop<k>` for loop `l` of `f`; `<function>.loop<k>_<d>` for a
// loop inside d - 1 loops of the same line (a Fortran array statement's
// nest, `for (...) for (...)` on one line), which are other source loops:
// the loops an unrolled or vectorised source loop becomes are siblings.
std::string loop_site(ModuleContext& ctx, const llvm::Function& f, const llvm::Loop* l);
// 1 + the loops around `l` that start at its source line (its file and line).
unsigned same_line_depth(const llvm::Loop* l);
// `<function>.<callee><k>` for `call` (memcpy, memmove, memset for the intrinsics).
std::string call_site(ModuleContext& ctx, const llvm::Function& f, const llvm::CallBase& call);
// `<function>.<callee><k>` for the call at `call` that the inliner replaced by
// `callee`'s code (a DILocation's inlinedAt).
std::string inlined_site(ModuleContext& ctx, const llvm::Function& f, const llvm::DISubprogram* callee,
                         const llvm::DILocation* call);

}  // namespace perfcast::analyze::detail
