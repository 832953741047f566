#include "analyze/function_analyser.h"

#include "analyze/fortran_arguments.h"
#include "analyze/later_tests.h"
#include "analyze/openmp_runtime.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include <fmt/format.h>

#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Support/Path.h>

#include "analyze/polling_loops.h"
#include "analyze/run_time_checks.h"
#include "analyze/site_names.h"
#include "model/later_test.h"

namespace perfcast::analyze::detail {

namespace ex = perfcast::expr;
using ex::Expr;

FunctionModel& ModuleContext::analyse(llvm::Function& f) {
  FunctionModel& m = functions[f.getName().str()];
  if (m.done) return m;
  m.name = f.getName().str();
  in_progress.insert(m.name);
  const auto start = std::chrono::steady_clock::now();
  const double outer_nested = std::exchange(nested_seconds, 0.0);
  FunctionAnalyser analyser(*this, f, m);
  analyser.run();
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  analysis_seconds[m.name] = total - nested_seconds;
  nested_seconds = outer_nested + total;
  if (debugging())
    input->progress(fmt::format("analysed {} in {:.3f} s (its callees' analyses apart): {} value conversions", m.name,
                                analysis_seconds[m.name], analyser.conversions_made()));
  in_progress.erase(m.name);
  m.done = true;
  if (auto back = recursive_calls.find(m.name); back != recursive_calls.end()) count_recursion(f, m, back->second);
  // Parameters: the integer arguments the costs use.
  std::set<std::string> used;
  for_each_expression(
      m.body,
      [&](const Expr& e) {
        auto names = ex::free_names(e);
        used.insert(names.begin(), names.end());
      },
      false);
  if (f.getName() != "main") {
    for (const std::string& a : m.all_arguments)
      if (!a.empty() && used.count(a)) m.parameters.push_back(a);
    // The OpenMP thread and team the code runs in, passed on at each call.
    for (const char* implicit : {kOmpThread, kOmpTeam})
      if (used.count(implicit) && std::find(m.parameters.begin(), m.parameters.end(), implicit) == m.parameters.end())
        m.parameters.push_back(implicit);
  }
  return m;
}

// A function called back while its analysis was under way (by itself, or by
// a function its calls reach): its body, with those calls left out, is what
// one invocation does on average, and it runs `<function>.calls_per_entry`
// times per call from outside the recursion, a loop around the body whose
// trips the coverage lists as unknown (docs/program-model.md, "Recursion").
// A recursion by levels (recursion.h) is a loop of levels instead, at each
// level's size, whose trips are known where the path to the call back is.
void ModuleContext::count_recursion(const llvm::Function& f, FunctionModel& m, const std::vector<std::string>& back) {
  const std::string name = function_source_name(f) + ".calls_per_entry";
  Where w;
  if (const llvm::DISubprogram* sp = f.getSubprogram()) w.file = sp->getFilename().str(), w.line = static_cast<int>(sp->getLine());
  std::string sites;
  for (const std::string& s : back) sites += (sites.empty() ? "" : ", ") + s;
  const std::string why = fmt::format("a recursion: invocations per call from outside it (called back at {})", sites);
  // A recursion by levels (recursion.h): the body at each level's size, its
  // levels counted from the size test where the model states it.
  std::unique_ptr<Node> loop;
  const auto r = recursive.find(&f);
  const std::string size = r != recursive.end() && r->second.size_argument &&
                                   *r->second.size_argument < m.all_arguments.size()
                               ? m.all_arguments[*r->second.size_argument]
                               : std::string();
  if (!size.empty()) {
    const std::string level = function_source_name(f) + ".level";
    LevelLoop levels = by_levels(std::move(m.body), size, r->second.shrink_factor, level);
    m.loop_vars.insert(level);
    loop = std::move(levels.loop);
    loop->line = m.line;
    loop->note = fmt::format("the levels of recursive {}: its body at each level's {}, divided by {} from one to the next",
                             function_source_name(f), size, r->second.shrink_factor);
    if (levels.levels_known) {
      m.body.clear();
      m.body.push_back(std::move(loop));
      return;
    }
  } else {
    loop = std::make_unique<Node>();
    loop->kind = Node::Loop;
    loop->line = m.line;
    loop->note =
        fmt::format("the invocations of recursive {} per call from outside its recursion", function_source_name(f));
    loop->body = std::move(m.body);
  }
  if (!descriptions.count(name))
    descriptions[name] = {fmt::format("invocations of the recursive function {} ({}) per call from outside its "
                                      "recursion (called back at {}); {}",
                                      function_source_name(f), site_of(w), sites,
                                      size.empty() ? "its body counts a mean invocation"
                                                   : "its body is counted at each level's " + size),
                          std::nullopt};
  loop->trip_count = ex::var(name);
  loop->unknown_trips = name;
  loop->recursion = true;
  for (const std::string& s : back)
    if (std::find(loop->called_back_at.begin(), loop->called_back_at.end(), s) == loop->called_back_at.end())
      loop->called_back_at.push_back(s);
  loop->guess = why;
  loop->site = site_of(w);
  m.body.clear();
  m.body.push_back(std::move(loop));
}

void FunctionAnalyser::run() {
  using namespace llvm;
  for (Argument& a : s_.f.args()) {
    std::string name;
    if (a.getType()->isIntegerTy())
      name = sanitize(a.hasName() ? a.getName().str() : fmt::format("arg{}", a.getArgNo()));
    s_.out.all_arguments.push_back(name);
    if (!name.empty()) s_.arguments.insert(name);
  }
  // dbg.value users of arguments are metadata uses, not IR users: find them here.
  names_.collect();
  for (Argument& a : s_.f.args())
    if (a.getType()->isIntegerTy())
      if (auto dn = names_.debug_names().find(&a); dn != names_.debug_names().end() && !s_.entry)
        s_.out.all_arguments[a.getArgNo()] = dn->second.name, s_.arguments.insert(dn->second.name);
  // Fortran's integer dummies are pointers to the caller's values: parameters
  // too, bound at each call to the value passed (fortran_arguments.h).
  if (!s_.entry)
    for (Argument& a : s_.f.args())
      if (std::string name = reference_argument_name(names_, a); !name.empty() && !s_.arguments.count(name))
        s_.out.all_arguments[a.getArgNo()] = name, s_.arguments.insert(name);
  // A parallel region's outlined function: its first argument is the
  // thread's number, the integers it shares with its caller are parameters
  // bound at the fork (openmp_runtime.h).
  if (in_parallel_region(s_))
    for (Argument& a : s_.f.args()) {
      std::string name = a.getArgNo() == 0 ? kOmpThread : shared_integer_name(names_, a);
      if (!name.empty() && !s_.arguments.count(name))
        s_.out.all_arguments[a.getArgNo()] = name, s_.arguments.insert(name);
    }
  // A recursion passes some arguments changed (a level's size halved): in
  // the body, counted as a mean over the invocations, they stand for no one
  // value, so what depends on them is unknown (a loop's trips a parameter the
  // probe run measures as that mean) rather than the outside call's value.
  // A recursion by levels keeps its size's name: the body is counted at each
  // level's value of it (recursion.h).
  if (auto r = s_.ctx.recursive.find(&s_.f); r != s_.ctx.recursive.end() && !s_.entry)
    for (unsigned a : r->second.varying_arguments)
      if (a < s_.out.all_arguments.size() && !s_.out.all_arguments[a].empty() && r->second.size_argument != a) {
        s_.arguments.erase(s_.out.all_arguments[a]);
        s_.out.all_arguments[a].clear();
      }
  exprs_.name_scevs();
  if (DISubprogram* sp = s_.f.getSubprogram()) {
    s_.out.line = static_cast<int>(sp->getLine());
    s_.out.file = llvm::sys::path::filename(sp->getFilename()).str();
  }

  // The coverage's share: instructions in the blocks placed in the model
  // (those on error paths and in dead loops are not priced).
  auto instructions = [](const BasicBlock& b) {
    long long n = 0;
    for (const Instruction& i : b) n += !isa<DbgInfoIntrinsic>(&i);
    return n;
  };
  for (const BasicBlock& b : s_.f) s_.out.instructions += instructions(b);
  ReversePostOrderTraversal<Function*> rpo(&s_.f);
  for (BasicBlock* b : rpo) {
    Loop* l = s_.li.getLoopFor(b);
    Items* c = container_of_loop(l);
    if (!c) continue;
    std::vector<GuardStep> guard;
    if (!flow_.guard_of(b, l, guard)) continue;
    Items& items = *navigate(c, guard);
    LaterTest later = later_test_of(*b, s_.dt);
    if (!later.branch) {
      emitter_.emit_block(b, items);
    } else {
      emitter_.emit_block(b, items, [&](const Instruction& i) { return !later.own.count(&i); });
      Node& n = later_test_node(items, later);
      emitter_.emit_block(b, n.then_items, [&](const Instruction& i) { return later.own.count(&i) > 0; });
    }
    s_.out.instructions_priced += instructions(*b);
  }
  footprints_.add_footprints(loop_nodes_);
}

// The branch around a later test's own arithmetic (later_tests.h): taken
// where the earlier test does not decide, a condition where the model can
// state the earlier test, else a guess a probe run binds (`first_test`).
Node& FunctionAnalyser::later_test_node(Items& items, const LaterTest& later) {
  auto n = std::make_unique<Node>();
  n->kind = Node::Branch;
  Where w = s_.where(later.branch->getDebugLoc());
  n->line = w.line;
  n->note = w.note.empty() ? model::kLaterTestWhy : w.note + "; " + model::kLaterTestWhy;
  const llvm::Loop* scope = s_.li.getLoopFor(later.branch->getParent());
  if (auto first = exprs_.conv_bool(later.first, scope)) {
    n->condition = ex::simplify(later.is_or ? Expr(1) - *first : *first);
  } else {
    n->probability = 0.5;
    n->guess = model::kLaterTestWhy;
    n->site = site_of(w);
  }
  items.push_back(std::move(n));
  return *items.back();
}

Items* FunctionAnalyser::container_of_loop(llvm::Loop* l) {
  if (!l) return &s_.out.body;
  if (dead_loops_.count(l)) return nullptr;
  auto it = loop_items_.find(l);
  if (it != loop_items_.end()) return it->second;
  // A loop inlined from library code the table leaves out: left out with it,
  // rather than a trip count for the user to bind. Its header's first located
  // instruction says what it was inlined from (the loop's start location may
  // be its preheader's, in the caller).
  for (const llvm::Instruction& i : *l->getHeader())
    if (i.getDebugLoc()) {
      if (s_.inlined_from_ignored(i.getDebugLoc())) {
        dead_loops_.insert(l);
        return nullptr;
      }
      break;
    }
  Items* parent = container_of_loop(l->getParentLoop());
  std::vector<GuardStep> guard;
  if (!parent || !flow_.guard_of(l->getHeader(), l->getParentLoop(), guard)) {
    dead_loops_.insert(l);
    return nullptr;
  }
  Items* c = navigate(parent, guard);
  auto n = std::make_unique<Node>();
  n->kind = Node::Loop;
  // The line its site is named after (site_names): the one a probe run's
  // loop at that line is matched by.
  Where w = s_.where(counts_.source_loc(l));
  n->line = w.line;
  n->note = w.note;
  n->var = names_.loop_var(l);
  n->trip_count = counts_.trip_count(l);
  if (const LoopCounts::UnknownTrips* u = counts_.unknown_trips(l)) {
    n->unknown_trips = u->parameter;
    n->guess = u->why;
    n->site = u->site;
    n->instance = w.instance;
    n->merged_site = u->merged_site;
  }
  if (const LoopCounts::PollingTrips* p = counts_.polling_trips(l)) {
    n->polls = p->call;
    n->site = p->site;
    n->unknown_trips = "";
    n->note = (n->note.empty() ? "" : n->note + "; ") +
              fmt::format("polls with {}: its trips are timing, priced at the one pass that finds the completion",
                          p->call);
    n->polls_loop = p->loop;
  }
  if (s_.ctx.input->mca) {
    l->getHeader()->setName(fmt::format("{}{}", kMcaLoopPrefix, s_.ctx.mca_loops++));
    n->mca_header = l->getHeader()->getName().str();
    n->innermost = l->getSubLoops().empty();
    if (n->innermost) n->chain_restarts = counts_.chain_restarts(l);
    if (n->innermost)
      for (const llvm::BasicBlock* b : l->blocks())
        for (const llvm::Instruction& i : *b)
          if (const llvm::Value* at = llvm::getLoadStorePointerOperand(&i);
              at && llvm::isa<llvm::AllocaInst>(llvm::getUnderlyingObject(at)))
            ++(llvm::isa<llvm::LoadInst>(&i) ? n->stack_loads : n->stack_stores);
  }
  if (l->getSubLoops().empty()) footprints_.add_streams(*n, l);
  c->push_back(std::move(n));
  loop_items_[l] = &c->back()->body;
  loop_nodes_[l] = c->back().get();
  return &c->back()->body;
}

Items* FunctionAnalyser::navigate(Items* c, const std::vector<GuardStep>& guard) {
  for (const GuardStep& s : guard) {
    Node* b = branch_node(*c, s);
    bool two_way = llvm::isa<llvm::BranchInst>(s.term) && s.succ != UINT_MAX && !s.after_exit_of;
    c = (two_way && s.succ == 1) ? &b->else_items : &b->then_items;
  }
  return c;
}

namespace {

// The source line the block `b` a terminator leads to starts at (side_line:
// the side `succ` of a conditional branch), seen in the terminator's own
// function (code inlined there counts at its call's line): that of the first
// located instruction of the block, or of the blocks it goes on to unconditionally (a jump's own location says nothing of the side);
// 0 when none says, and, with `loop`, for a side that goes on to the next
// iteration of the terminator's loop (its latch or header: `CYCLE`; asked only
// where both sides would start on one line). The feature probes
// record the same of the code as written
// (side_line in src/features/feature_code_sites.cpp), where the optimiser has not
// yet inverted a test or swapped its successors: the binding of a probe run's
// taken fraction matches the two (model/probe_bind.h).
int block_line(const llvm::Instruction& term, const llvm::BasicBlock* b, const llvm::Loop* loop) {
  using namespace llvm;
  const DILocation* at = term.getDebugLoc().get();
  if (!at) return 0;
  const DISubprogram* own = at->getScope()->getSubprogram();
  SmallPtrSet<const BasicBlock*, 8> seen;
  for (; b && seen.insert(b).second; b = b->getSingleSuccessor()) {
    if (loop && (b == loop->getHeader() || loop->isLoopLatch(b))) return 0;
    for (const Instruction& i : *b) {
      if (isa<PHINode>(i) || isa<DbgInfoIntrinsic>(i)) continue;
      if (auto* jump = dyn_cast<BranchInst>(&i); jump && jump->isUnconditional()) continue;
      for (const DILocation* loc = i.getDebugLoc().get(); loc; loc = loc->getInlinedAt())
        if (loc->getLine() != 0 && loc->getScope()->getSubprogram() == own &&
            loc->getInlinedAt() == at->getInlinedAt())
          return static_cast<int>(loc->getLine());
      if (i.isTerminator()) return 0;
    }
  }
  return 0;
}
int side_line(const llvm::BranchInst& br, unsigned succ, const llvm::Loop* loop) {
  return block_line(br, br.getSuccessor(succ), loop);
}

// Where a branch is: its own location, or, for a lane of the vectoriser's
// masked code (a branch on one element of a vector compare, around that
// lane's store), the compare's: the statement tested, where the branch of
// the first lane carries the loop's line and the probes see no test.
llvm::DebugLoc tested_location(const llvm::Instruction& term) {
  using namespace llvm;
  if (auto* br = dyn_cast<BranchInst>(&term); br && br->isConditional()) {
    const Value* c = br->getCondition();
    if (auto* frozen = dyn_cast<FreezeInst>(c)) c = frozen->getOperand(0);
    if (auto* lane = dyn_cast<ExtractElementInst>(c))
      if (auto* cmp = dyn_cast<CmpInst>(lane->getVectorOperand()); cmp && cmp->getDebugLoc() && cmp->getDebugLoc().getLine())
        return cmp->getDebugLoc();
  }
  return term.getDebugLoc();
}

}  // namespace

namespace {
// The prefix of reach_condition's names for conditions the model cannot state.
constexpr const char* kUndecided = "perfcast_undecided_";
}  // namespace

Node* FunctionAnalyser::branch_node(Items& c, const GuardStep& step) {
  using namespace llvm;
  bool two_way = isa<BranchInst>(step.term) && step.succ != UINT_MAX && !step.after_exit_of;
  for (auto it = c.rbegin(); it != c.rend(); ++it)
    if ((*it)->kind == Node::Branch && (*it)->key == step.term && (two_way || (*it)->key_succ == step.succ) &&
        (*it)->key_target == step.target)
      return it->get();
  auto n = std::make_unique<Node>();
  n->kind = Node::Branch;
  n->key = step.term;
  n->key_succ = step.succ;
  n->key_target = step.target;
  Where w = s_.where(tested_location(*step.term));
  n->line = w.line;
  n->note = w.note;
  const Loop* scope = s_.li.getLoopFor(step.term->getParent());
  if (step.after_exit_of) {
    // All but the last of the T iterations the loop starts: (T - 1) / T.
    const ex::Expr trips = counts_.trip_count(const_cast<Loop*>(step.after_exit_of));
    n->share = ex::simplify(ex::maximum({trips - ex::Expr(1), ex::Expr(0)}) / ex::maximum({trips, ex::Expr(1)}));
    n->note = (n->note.empty() ? "" : n->note + "; ") + "after the loop's exit: all its iterations but the last";
  } else if (two_way) {
    auto* br = cast<BranchInst>(step.term);
    // A test of the completion state inside a polling loop: the one pass the
    // model prices is the one that finds it, whatever fraction of a run's
    // passes (timing) did.
    std::optional<unsigned> found;
    for (const Loop* p = scope; p && !found; p = p->getParentLoop())
      if (counts_.polling_trips(p)) found = completion_successor(*br, *p);
    if (auto p = s_.probability_override(w)) {
      n->probability = *p;
    } else if (found) {
      n->probability = *found == 0 ? 1.0 : 0.0;
      n->note = (n->note.empty() ? "" : n->note + "; ") +
                "tests the completion a polling loop waits for: the pass priced is the one that finds it";
    } else if (auto cond = exprs_.conv_bool(br->getCondition(), scope)) {
      n->condition = ex::simplify(*cond);
      // Where its sides start: a probe run prices the test by its measure
      // where no value it reads could be bound (probe_unbound_tests.h).
      n->then_line = side_line(*br, 0, nullptr);
      n->else_line = side_line(*br, 1, nullptr);
      if (n->then_line && n->then_line == n->else_line) {
        n->then_line = side_line(*br, 0, scope);
        n->else_line = side_line(*br, 1, scope);
      }
    } else {
      // The vectoriser's run-time checks (aliasing, wrapping) pass in any code
      // that vectorises profitably: the vector path is taken.
      if (auto fallback = run_time_check_fallback(br, s_)) {
        n->probability = *fallback == 0 ? 0.0 : 1.0;
        n->note = (n->note.empty() ? "" : n->note + "; ") + "vectoriser run-time check assumed to pass";
      } else if (auto odd = counts_.unroll_remainder_condition(br)) {
        n->condition = ex::simplify(*odd);
        n->note = (n->note.empty() ? "" : n->note + "; ") + "the iteration a loop unrolled by 2 leaves when its count is odd";
      } else if (auto guard = counts_.loop_guard_condition(br)) {
        n->condition = ex::simplify(*guard);
        n->note = (n->note.empty() ? "" : n->note + "; ") + "guard of the loop after it: its trip count > 0";
      } else if (auto skip = flow_.skips_the_work(br)) {
        n->probability = *skip == 0 ? 0.0 : 1.0;
        n->note = (n->note.empty() ? "" : n->note + "; ") + "a check that would skip the work to the end: passes";
      } else {
        n->note = (n->note.empty() ? "" : n->note + "; ") + "data-dependent condition";
        n->guess = "data-dependent condition";
        n->then_line = side_line(*br, 0, nullptr);
        n->else_line = side_line(*br, 1, nullptr);
        if (n->then_line && n->then_line == n->else_line) {  // one side may be the loop's continuation
          n->then_line = side_line(*br, 0, scope);
          n->else_line = side_line(*br, 1, scope);
        }
      }
    }
  } else if (auto cases = switch_condition(step, scope)) {
    n->condition = ex::simplify(*cases);
  } else if (auto reach = step.target ? reach_condition(step.target, const_cast<BasicBlock*>(step.term->getParent()),
                                                        scope)
                                      : std::nullopt) {
    n->condition = ex::simplify(*reach);
    n->note = (n->note.empty() ? "" : n->note + "; ") + "condition of the paths that reach it";
  } else {
    unsigned ways = step.term->getNumSuccessors();
    n->probability = step.succ == UINT_MAX ? 0.5 : 1.0 / ways;
    std::string why = step.succ == UINT_MAX ? "reached on some paths" : fmt::format("one of {} switch cases", ways);
    if (auto p = s_.probability_override(w)) n->probability = *p;
    else n->guess = why;
    // The code reached on some paths (the `then` of `a || b` kept as two
    // tests) starts where a probe run counts its arrivals (model/probe_arrivals.h).
    if (step.succ == UINT_MAX && step.target) n->then_line = block_line(*step.term, step.target, nullptr);
    // A case's code starts where the probes count the arrivals into it: the
    // side of the source's test that picks it, where the optimiser made a
    // chain of tests one switch (model/probe_arrivals.h).
    if (step.succ != UINT_MAX && step.succ < ways)
      n->then_line = block_line(*step.term, step.term->getSuccessor(step.succ), nullptr);
    n->note = (n->note.empty() ? "" : n->note + "; ") + why;
  }
  if (!n->guess.empty()) n->site = site_of(w);
  c.push_back(std::move(n));
  return c.back().get();
}

// The condition that a switch takes the side `step` names, when its value is
// known (the way an OpenMP reduction is combined): that case's value, or for
// the default none of them.
std::optional<Expr> FunctionAnalyser::switch_condition(const GuardStep& step, const llvm::Loop* scope) {
  auto* sw = llvm::dyn_cast<llvm::SwitchInst>(step.term);
  if (!sw || step.succ == UINT_MAX) return std::nullopt;
  auto value = exprs_.conv_value(sw->getCondition(), scope);
  if (!value) return std::nullopt;
  auto case_value = [](const llvm::ConstantInt* c) { return ex::integer(c->getSExtValue()); };
  if (step.succ > 0) {
    for (const auto& c : sw->cases())
      if (c.getSuccessorIndex() == step.succ)
        return ex::compare(ex::Comparison::Eq, *value, case_value(c.getCaseValue()));
    return std::nullopt;
  }
  Expr none = 1;
  for (const auto& c : sw->cases()) none = none * ex::compare(ex::Comparison::Ne, *value, case_value(c.getCaseValue()));
  return none;
}

// The condition under which the program, at `from`, goes on to reach `b`: a
// sum over b's incoming edges (one execution arrives by exactly one), each the
// condition of reaching its source times the edge's branch condition. Loops
// in between count as reached once entered; run-time checks as passing. A
// condition the model cannot state stands as an undecided name while the
// sum is built: both sides of an if/else that meet again add up to 1 and it
// cancels (the join after an `if (data) {...} else {...}` whose sides call
// functions that may throw, so that it does not post-dominate the test);
// where it does not cancel, `b` is reached on some paths only. None also
// when a path from `from` to `b` is longer than kMaxReachEdges edges.
std::optional<Expr> FunctionAnalyser::reach_condition(llvm::BasicBlock* b, llvm::BasicBlock* from,
                                                      const llvm::Loop* region) {
  std::map<const llvm::BasicBlock*, std::optional<Reach>> memo;
  auto reached = reach(b, from, region, memo);
  if (!reached) return std::nullopt;
  Expr r = ex::simplify(reached->condition);
  for (const std::string& name : ex::free_names(r))
    if (name.rfind(kUndecided, 0) == 0) return std::nullopt;
  return r;
}

// reach_condition() of `b`, each block's condition computed once however
// many paths lead through it (`memo`: a block's entry is empty while its
// predecessors are being walked, so a cycle among them, which no loop
// accounts for, fails). With the longest path's length in edges, so the
// length limit holds for every path, as walking each path would find.
std::optional<FunctionAnalyser::Reach> FunctionAnalyser::reach(
    llvm::BasicBlock* b, llvm::BasicBlock* from, const llvm::Loop* region,
    std::map<const llvm::BasicBlock*, std::optional<Reach>>& memo) {
  if (auto it = memo.find(b); it != memo.end()) return it->second;
  memo.emplace(b, std::nullopt);
  std::optional<Reach> r = reach_uncached(b, from, region, memo);
  if (r && r->longest_edges > kMaxReachEdges) r.reset();
  return memo[b] = r;
}

std::optional<FunctionAnalyser::Reach> FunctionAnalyser::reach_uncached(
    llvm::BasicBlock* b, llvm::BasicBlock* from, const llvm::Loop* region,
    std::map<const llvm::BasicBlock*, std::optional<Reach>>& memo) {
  using namespace llvm;
  if (b == from) return Reach{Expr(1), 0};
  if (!s_.dt.dominates(from, b)) return std::nullopt;
  // Edges into b; an edge out of a loop inside the region stands for the edges
  // into that loop's header from outside it.
  std::vector<std::pair<BasicBlock*, BasicBlock*>> edges;
  for (BasicBlock* p : predecessors(b)) {
    Loop* pl = s_.li.getLoopFor(p);
    if (pl == region) {
      edges.emplace_back(p, b);
      continue;
    }
    if (!pl || (region && !region->contains(pl))) return std::nullopt;
    while (pl->getParentLoop() != region) pl = pl->getParentLoop();
    if (pl->contains(b) || pl->getExitBlock() != b) return std::nullopt;
    for (BasicBlock* q : predecessors(pl->getHeader()))
      if (!pl->contains(q)) edges.emplace_back(q, pl->getHeader());
  }
  std::vector<Expr> terms;
  int longest = 0;
  bool never_taken = false;  // an edge left out as one a run never takes
  for (auto [p, to] : edges) {
    // A call that may throw: its normal edge is taken whenever the block is
    // reached, its unwind edge never (the unwind side is priced at 0).
    if (auto* invoke = dyn_cast<InvokeInst>(p->getTerminator())) {
      if (invoke->getUnwindDest() == to) {
        never_taken = true;
        continue;
      }
      auto r = reach(p, from, region, memo);
      if (!r) return std::nullopt;
      terms.push_back(r->condition);
      longest = std::max(longest, r->longest_edges + 1);
      continue;
    }
    auto r = reach(p, from, region, memo);
    if (!r) return std::nullopt;
    longest = std::max(longest, r->longest_edges + 1);
    auto* br = dyn_cast<BranchInst>(p->getTerminator());
    if (!br) return std::nullopt;
    Expr edge = 1;
    if (br->isConditional() && br->getSuccessor(0) != br->getSuccessor(1)) {
      bool taken_if_true = br->getSuccessor(0) == to;
      if (auto c = exprs_.conv_bool(br->getCondition(), region)) {
        edge = taken_if_true ? *c : Expr(1) - *c;
      } else if (auto fallback = run_time_check_fallback(br, s_)) {
        if (br->getSuccessor(*fallback) == to) {  // the check passes: never taken
          never_taken = true;
          continue;
        }
      } else {
        Expr undecided = ex::var(fmt::format("{}{:x}", kUndecided, reinterpret_cast<std::uintptr_t>(br)));
        edge = taken_if_true ? undecided : Expr(1) - undecided;
      }
    }
    terms.push_back(r->condition * edge);
  }
  // Reached only by edges a run never takes (a landing pad: unwinding): never.
  if (terms.empty()) return never_taken ? std::optional<Reach>(Reach{Expr(0), longest}) : std::nullopt;
  return Reach{ex::add(terms), longest};
}

}  // namespace perfcast::analyze::detail
