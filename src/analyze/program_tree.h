// Internal: the analyser's tree of one function's model (items nested as the
// code is: compute, loops, branches, calls, MPI operations), built by the
// function analysis and turned into the program model's items at the end
// (to_model.h). It keeps what the analysis needs on the way: the IR that made
// a branch, loops' MCA figures before they are rounded.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analyze/mca.h"
#include "support/expr.h"
#include "support/mpi_op.h"

namespace llvm {
class Instruction;
}  // namespace llvm

namespace perfcast::analyze::detail {

struct Node;
using Items = std::vector<std::unique_ptr<Node>>;

struct Node {
  enum Kind { Compute, Loop, Branch, Call, Mpi } kind = Compute;
  int line = 0;
  std::string note;
  // compute
  expr::Expr flops_double, flops_single, loads, stores, load_bytes, store_bytes;
  std::map<std::string, expr::Expr> math;
  // loop
  std::string var;
  expr::Expr trip_count;
  // branch
  std::optional<expr::Expr> condition;
  std::optional<expr::Expr> share;  // the share of runs taking `then` (model::BranchItem::share)
  double probability = 0.5;
  int then_line = 0, else_line = 0;  // a two-way branch's sides' first source lines (side_line)
  const llvm::Instruction* key = nullptr;
  unsigned key_succ = 0;
  const void* key_target = nullptr;
  // branch: why its probability is a guess (none given with --branch-probability,
  // none derived), "" when it is not; loop: the parameter its unknown trip count
  // stands for, and why. `site` is "file.c:line" for the model's coverage.
  std::string guess, unknown_trips, site;
  // loop: the template instance its code was inlined from (Where::instance).
  std::string instance;
  // loop: the inner loop merged into it (LoopCounts::UnknownTrips::merged_site).
  std::string merged_site;
  // loop: the MPI function it polls for a completion with (polling_loops.h),
  // its trips timing; "" for other loops. `site` is then its coverage site.
  std::string polls, polls_loop;  // and the loop's site name (`main.loop2`)
  // loop: a recursive function's invocations per call from outside, around its
  // body; compute: the call back into the recursion, left out (its note says so)
  bool recursion = false;
  // loop of a recursion: the sites ("file.c:line", each once) of its calls
  // back, whose calls a probe run counts as those made within the recursion
  std::vector<std::string> called_back_at;
  // loop: each iteration is one level of a recursion by levels (recursion.h),
  // its memory priced at that level's own working sets (model::LoopItem::levels)
  bool levels = false;
  // loop: the share of a virtual call's calls that land on the override it
  // calls; the call's site ("file.c:line"); `site` is the override's definition
  std::string virtual_call;
  // call
  std::string callee;
  std::vector<std::pair<std::string, expr::Expr>> args;
  // an indirect call (callee ""): priced by nothing until a probe run binds
  // its targets; `site` is then "file.c:line:column", as the probes name it,
  // and its integer arguments by position (none where not expressible).
  bool indirect = false;
  std::vector<std::optional<expr::Expr>> positional_args;
  // mpi
  mpi::Op op = mpi::Op::Barrier;
  expr::Expr bytes;
  std::optional<expr::Expr> peer, root;
  std::optional<expr::Expr> level;  // MPI_Pcontrol's level: 1 starts the timed region, 0 ends it
  Items body, then_items, else_items;
  // loop: its IR header's name for the MCA pricing, and the result: for an
  // innermost loop the cycles of its body (an expression of its trip count
  // when successive runs overlap, see body_cycles()), for a loop with subloops
  // the cycles of its own blocks; `machine` keeps MCA's plain figures.
  std::string mca_header;
  bool innermost = false;
  bool chain_restarts = false;  // innermost: no loop-carried value flows from one run of the loop to the next
  // innermost: the IR's loads and stores per iteration of the function's own
  // stack variables (a scalar kept in memory because its address is passed
  // on): counted by the IR already, so not among the machine code's extra
  // stack accesses.
  int stack_loads = 0, stack_stores = 0;
  std::optional<LoopCycles> machine;
  std::optional<expr::Expr> cycles_per_iteration;
  std::optional<double> overhead_cycles_per_iteration;
  // loop: distinct bytes one run touches (all, loaded, stored); see footprint.h
  std::optional<std::array<expr::Expr, 3>> footprint;
  int streams = 0;  // innermost loop: its address streams (footprint.h); 0: none counted
  // Per base with several streams, each stream's byte offset from the first's.
  std::vector<std::vector<expr::Expr>> stream_offsets;

  bool empty_compute() const;
};

// A call the analysis could not follow (the model's coverage): through a
// pointer, of an external function without a known cost, or into a recursion
// at a function whose calls back were left out in another's analysis.
struct UnresolvedCall {
  std::string kind, callee, site;
};

struct FunctionModel {
  std::string name;
  int line = 0;
  std::string file;  // of its definition, without the directory
  std::vector<std::string> parameters;  // integer arguments the costs use
  std::vector<std::string> all_arguments;  // integer arguments by position ("" for others)
  // Positions of the MPI datatypes it is handed: all_arguments names the
  // bytes of one element, which each call binds to what it passes.
  std::set<unsigned> datatype_arguments;
  // The integer arguments it hands MPI as a peer, each true where only
  // receives take it: a call passing a value read from memory gets the
  // direct call's default neighbour.
  std::map<std::string, bool> peer_arguments;
  std::set<std::string> loop_vars;
  Items body;
  bool done = false;
  std::vector<UnresolvedCall> unresolved_calls;
  bool calls_back = false;  // a call back into a function under analysis was left out (recursion)
  long long instructions = 0;         // IR instructions (debug intrinsics aside)
  long long instructions_priced = 0;  // those in the blocks placed in the model
};

// Calls `use` on every expression of the items and of the items nested in
// them: counts, trip counts, conditions, ranks, call arguments, and, when
// `with_footprints`, loops' footprints and stream offsets.
void for_each_expression(const Items& items, const std::function<void(const expr::Expr&)>& use,
                         bool with_footprints);

// Rewrites in place every expression of the items and of the items nested in
// them, footprints, stream offsets and cycles included: what a substitution
// of one name must reach (a recursion's size at its level, recursion.h).
void rewrite_expressions(Items& items, const std::function<void(expr::Expr&)>& rewrite);

// Drops empty branches (both sides without items) left by blocks that only
// branch, and merges neighbouring compute items of one origin (the blocks of
// one straight-line stretch of source).
void prune(Items& items);

}  // namespace perfcast::analyze::detail
