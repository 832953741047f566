// Internal: trip counts of loops whose exit test ScalarEvolution cannot solve
// but whose shape says what it is. The one shape known: a counter stepping
// down by s, tested as an unsigned range, `(X u< C)` with C negative: the
// form InstCombine gives the `count > 0` test of a down-counting loop once it
// is unrolled (flang's DO loops count their trips down so: `do i = 1, n`
// unrolled by 8 leaves by `(count - 9) u< -2`).
#pragma once

#include <optional>

#include "analyze/scev_to_expr.h"
#include "support/expr.h"

namespace llvm {
class Loop;
class ScalarEvolution;
}  // namespace llvm

namespace perfcast::analyze::detail {

// The iterations of `l` per run, as an expression of the values it starts
// from; nothing for other loops.
std::optional<expr::Expr> range_exit_trip_count(llvm::Loop* l, llvm::ScalarEvolution& se, ScevToExpr& exprs);

}  // namespace perfcast::analyze::detail
