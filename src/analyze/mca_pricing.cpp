#include "analyze/mca_pricing.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>

#include <fmt/format.h>

namespace perfcast::analyze::detail {

namespace ex = perfcast::expr;
using ex::Expr;

double hundredths(double x) { return std::round(x * 100) / 100; }

namespace {

// The accesses an innermost loop's machine code makes that its IR does not:
// register reloads and spills (nbody's pair loop reloads a value from the
// stack each pair) and reads of the constant pool (mca.h). Only for bodies of
// straight-line compute items; 8 bytes each, what x86-64 spills (a double or
// a pointer).
void add_machine_accesses(Node& loop, const LoopCycles& machine) {
  for (const auto& c : loop.body)
    if (c->kind != Node::Compute) return;
  // The IR's own accesses to stack variables are among the machine code's
  // stack accesses: counted once, by the IR.
  std::int64_t more_loads = std::max(0, machine.loads - loop.stack_loads);
  std::int64_t more_stores = std::max(0, machine.stores - loop.stack_stores);
  if (more_loads <= 0 && more_stores <= 0) return;
  auto n = std::make_unique<Node>();
  n->kind = Node::Compute;
  n->line = loop.line;
  n->note = fmt::format("machine code: {} loads and {} stores per iteration of the stack or constant pool "
                        "(register reloads and spills, constants), not in the IR; 8 bytes each",
                        more_loads, more_stores);
  if (more_loads > 0) n->loads = Expr(more_loads), n->load_bytes = Expr(8 * more_loads);
  if (more_stores > 0) n->stores = Expr(more_stores), n->store_bytes = Expr(8 * more_stores);
  loop.body.push_back(std::move(n));
}

// Cycles per iteration of an innermost loop's body as an expression of its
// trip count T per run (docs/program-model.md, "Short loops"). MCA's steady
// state `cpi` repeats the body forever: with a value carried from iteration
// to iteration (a sum) it is that chain's latency per iteration. When the
// chain restarts at every run of the loop, the out-of-order window of W
// micro-ops also holds the W/u iterations that follow a run (u micro-ops per
// iteration: the next runs), and they execute in the shadow of its chain:
// T + W/u iterations complete per T x cpi cycles. Never faster than the
// core's resources allow (rt, the body's resource bound):
//     max(rt, cpi * T / (T + W/u))
// T >> W/u keeps cpi (a dot product over 1024 elements); a few iterations per
// run fall to rt (a CSR row of 7 entries). MCA run on runs in a row agrees
// within ~10 % (tests/analyze/test_mca.cpp); a carried chain keeps cpi.
Expr body_cycles(const Node& loop, const LoopCycles& machine, int window_micro_ops) {
  double cpi = hundredths(machine.cycles_per_iteration), rt = hundredths(machine.rthroughput);
  if (!loop.chain_restarts || window_micro_ops <= 0 || machine.micro_ops <= 0 || cpi <= rt) return ex::real(cpi);
  double shadow = hundredths(static_cast<double>(window_micro_ops) / machine.micro_ops);
  Expr trips = ex::simplify(loop.trip_count);
  Expr overlapped = ex::maximum({ex::real(rt), ex::real(cpi) * trips / (trips + ex::real(shadow))});
  if (trips.is_constant()) return ex::real(hundredths(ex::evaluate(overlapped, {}).real()));
  return overlapped;
}

}  // namespace

PricedLoops attach_loop_cycles(std::map<std::string, FunctionModel>& functions, const LoopCyclesResult& mca,
                               const std::function<void(const std::string&)>& debug) {
  PricedLoops priced{};
  std::function<void(Items&)> attach = [&](Items& items) {
    for (auto& n : items) {
      if (!n->mca_header.empty()) {
        auto it = mca.loops.find(n->mca_header);
        bool found = it != mca.loops.end();
        ++priced[(n->innermost ? 0 : 2) + (found ? 0 : 1)];
        if (found && debug) {
          std::string code;
          for (const auto& line : it->second.code) code += "\n    " + line;
          debug(fmt::format("MCA: loop at line {} ({}): {} cycles/iteration, rthroughput {}, {} uops:{}", n->line,
                            n->innermost ? "body" : "own blocks", it->second.cycles_per_iteration,
                            it->second.rthroughput, it->second.micro_ops, code));
        }
        if (found) {
          n->machine = it->second;
          if (n->innermost) {
            n->cycles_per_iteration = body_cycles(*n, it->second, mca.window_micro_ops);
            add_machine_accesses(*n, it->second);
          } else {
            n->overhead_cycles_per_iteration = hundredths(it->second.cycles_per_iteration);
          }
        }
      }
      attach(n->body), attach(n->then_items), attach(n->else_items);
    }
  };
  for (auto& [name, fm] : functions) attach(fm.body);
  return priced;
}

}  // namespace perfcast::analyze::detail
