#include "analyze/recursion.h"

#include <llvm/ADT/SCCIterator.h>
#include <llvm/Analysis/CallGraph.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <vector>

namespace perfcast::analyze::detail {

void find_size_argument(const llvm::Function& f, RecursiveFunction& r);

RecursiveFunctions find_recursive_functions(llvm::Module& m) {
  using namespace llvm;
  RecursiveFunctions out;
  CallGraph graph(m);
  int cycle = 0;
  for (auto scc = scc_begin(&graph); !scc.isAtEnd(); ++scc) {
    if (!scc.hasCycle()) continue;
    std::set<const Function*> members;
    for (const CallGraphNode* node : *scc)
      if (const Function* f = node->getFunction(); f && !f->isDeclaration()) members.insert(f);
    ++cycle;
    for (const Function* f : members) out[f].cycle = cycle;
    for (const Function* caller : members)
      for (const Instruction& inst : instructions(*caller)) {
        const auto* call = dyn_cast<CallBase>(&inst);
        const Function* callee = call ? call->getCalledFunction() : nullptr;
        if (!callee || !members.count(callee)) continue;
        for (unsigned a = 0; a < callee->arg_size() && a < call->arg_size(); ++a)
          if (callee != caller || call->getArgOperand(a) != callee->getArg(a)) out[callee].varying_arguments.insert(a);
      }
    if (members.size() == 1) find_size_argument(**members.begin(), out[*members.begin()]);
  }
  return out;
}

namespace {

// What `v` divides argument `a` of its function by: a udiv or sdiv by a
// constant >= 2, or a shift right by 1 to 62 bits; 0 when it is no such division.
std::int64_t divisor_of(const llvm::Value* v, const llvm::Argument& a) {
  using namespace llvm;
  const auto* op = dyn_cast<BinaryOperator>(v);
  if (!op || op->getOperand(0) != &a) return 0;
  const auto* c = dyn_cast<ConstantInt>(op->getOperand(1));
  if (!c || c->getBitWidth() > 64) return 0;
  const std::int64_t k = c->getSExtValue();
  switch (op->getOpcode()) {
    case Instruction::UDiv:
    case Instruction::SDiv:
      return k >= 2 ? k : 0;
    case Instruction::LShr:
    case Instruction::AShr:
      return k >= 1 && k <= 62 ? std::int64_t{1} << k : 0;
    default:
      return 0;
  }
}

}  // namespace

void find_size_argument(const llvm::Function& f, RecursiveFunction& r) {
  using namespace llvm;
  // Pointers the recursion moves (to a level's arrays) are no counts: the one
  // integer it changes is the size.
  std::optional<unsigned> size;
  for (unsigned a : r.varying_arguments)
    if (a < f.arg_size() && f.getArg(a)->getType()->isIntegerTy()) {
      if (size) return;
      size = a;
    }
  if (!size) return;
  const unsigned a = *size;
  std::int64_t factor = 0;
  int calls_back = 0;
  for (const Instruction& inst : instructions(f)) {
    const auto* call = dyn_cast<CallBase>(&inst);
    if (!call || call->getCalledFunction() != &f) continue;
    ++calls_back;
    if (a >= call->arg_size()) return;
    factor = divisor_of(call->getArgOperand(a), *f.getArg(a));
  }
  if (calls_back != 1 || factor == 0) return;
  r.size_argument = a;
  r.shrink_factor = factor;
}

namespace {

namespace ex = perfcast::expr;
using ex::Expr;

// The condition under which the path from `items` reaches the call back (a
// product of 0/1 factors), or none where a branch on it is a guess or a share,
// where the call back sits in a loop, or where there is none.
std::optional<Expr> path_to_call_back(const Items& items) {
  for (const auto& n : items) {
    if (n->kind == Node::Compute && n->recursion) return Expr(1);
    if (n->kind == Node::Loop) {
      if (path_to_call_back(n->body)) return std::nullopt;  // a call back per iteration: no chain of levels
      continue;
    }
    if (n->kind != Node::Branch) continue;
    for (bool then_side : {true, false}) {
      auto inner = path_to_call_back(then_side ? n->then_items : n->else_items);
      if (!inner) continue;
      if (!n->condition) return std::nullopt;
      const Expr taken =
          then_side ? ex::select(*n->condition, Expr(1), Expr(0)) : ex::select(*n->condition, Expr(0), Expr(1));
      return taken * *inner;
    }
  }
  return std::nullopt;
}

}  // namespace

LevelLoop by_levels(Items body, const std::string& size, std::int64_t factor, const std::string& level_var) {
  // A size divided 63 times by 2 or more is 0 for every 64-bit value: no
  // recursion whose test stops it runs more levels.
  constexpr std::int64_t kMaxLevels = 64;
  auto at_level = [&](const Expr& level) { return ex::floordiv(ex::var(size), ex::pow(Expr(factor), level)); };
  LevelLoop out;
  out.loop = std::make_unique<Node>();
  Node& loop = *out.loop;
  loop.kind = Node::Loop;
  loop.var = level_var;
  loop.levels = true;
  if (auto reach = path_to_call_back(body)) {
    // Invocation k + 1 runs where levels 0 .. k all took the path to the call
    // back: 1 + the first level that does not (the least of k where the path
    // fails, kMaxLevels - 1 where it holds), one evaluation of the path a level.
    std::vector<Expr> stops;
    for (std::int64_t k = 0; k < kMaxLevels - 1; ++k)
      stops.push_back(ex::select(ex::substitute(*reach, {{size, at_level(Expr(k))}}), Expr(kMaxLevels - 1), Expr(k)));
    loop.trip_count = Expr(1) + ex::minimum(std::move(stops));
    out.levels_known = true;
  }
  const ex::Substitution sized{{size, at_level(ex::var(level_var))}};
  rewrite_expressions(body, [&](Expr& e) { e = ex::substitute(e, sized); });
  loop.body = std::move(body);
  return out;
}

}  // namespace perfcast::analyze::detail
