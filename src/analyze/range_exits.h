// Internal: trip counts of loops whose exit test ScalarEvolution cannot solve
// but whose shape says what it is. Two shapes: a counter stepping down by s,
// tested as an unsigned range, `(X u< C)` with C negative: the form
// InstCombine gives the `count > 0` test of a down-counting loop once it is
// unrolled (flang's DO loops count their trips down so: `do i = 1, n`
// unrolled by 8 leaves by `(count - 9) u< -2`); and a counter stepping up by
// s that leaves when it equals its end, from a start ScalarEvolution cannot
// prove a multiple of s away (a loop unrolled by 2 over a bound read from
// memory, as an OpenMP thread's block of a loop).
#pragma once

#include <optional>

#include "analyze/scev_to_expr.h"
#include "support/expr.h"

namespace llvm {
class Function;
class Loop;
class ScalarEvolution;
}  // namespace llvm

namespace perfcast::analyze::detail {

// Replaces each phi whose incoming values are all the same addition
// (`x + c` computed on each path, as GVN's partial redundancy elimination
// leaves a DO loop's `j + 1` when the inner loop may be skipped) by that one
// addition, so that ScalarEvolution sees the induction variable it is. What
// the code computes is unchanged. Returns the phis replaced.
int merge_equal_increments(llvm::Function& f);

// The iterations of `l` per run, as an expression of the values it starts
// from; nothing for other loops.
std::optional<expr::Expr> range_exit_trip_count(llvm::Loop* l, llvm::ScalarEvolution& se, ScevToExpr& exprs);

}  // namespace perfcast::analyze::detail
