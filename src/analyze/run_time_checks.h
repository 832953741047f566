// Internal: the vectoriser's run-time checks (may the arrays overlap, may an
// index wrap), recognised by the shape of the code around them, not by block
// names (the optimiser renames and merges blocks).
#pragma once

#include <optional>

#include "analyze/function_scope.h"

namespace llvm {
class BranchInst;
}  // namespace llvm

namespace perfcast::analyze::detail {

// For a branch whose condition the model cannot state (pointers compared,
// overflow flags): when `br` is such a check, the successor (0 or 1) that
// falls back to the scalar loop. The other side runs the vector loop, after
// which a block (the vectoriser's middle block) either goes on into that same
// scalar fallback for the remainder or jumps to where the scalar loop ends.
// Code that vectorises profitably passes the check: the fallback side is
// taken with probability 0. std::nullopt for every other branch. The
// trip-count test before a vector loop has the same shape but a condition
// the model states: callers keep that condition and never ask.
std::optional<unsigned> run_time_check_fallback(const llvm::BranchInst* br, const FunctionScope& s);

}  // namespace perfcast::analyze::detail
