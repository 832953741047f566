#include "analyze/site_names.h"

#include <algorithm>

#include <fmt/format.h>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>

#include "analyze/module_context.h"
#include "analyze/source_names.h"
#include "analyze/virtual_calls.h"

namespace perfcast::analyze::detail {

namespace {

// `sp`'s name as function_source_name gives it.
std::string subprogram_name(const llvm::DISubprogram* sp, const llvm::Function& f) {
  for (const llvm::Function& g : *f.getParent())
    if (g.getSubprogram() == sp) return function_source_name(g);
  return sanitize(sp->getName().str());
}

// The function the source wrote `loc` in (the innermost inlined one), by name.
std::string origin_of(const llvm::DILocation* loc, const llvm::Function& f) {
  if (loc && loc->getScope())
    if (const llvm::DISubprogram* sp = loc->getScope()->getSubprogram()) return subprogram_name(sp, f);
  return function_source_name(f);
}

std::string callee_kind(const llvm::CallBase& call) {
  const auto* callee = llvm::dyn_cast<llvm::Function>(call.getCalledOperand()->stripPointerCasts());
  if (!callee) return is_virtual_call(call) ? "virtual" : "";
  if (const auto* ii = llvm::dyn_cast<llvm::IntrinsicInst>(&call)) {
    switch (ii->getIntrinsicID()) {
      case llvm::Intrinsic::memcpy: return "memcpy";
      case llvm::Intrinsic::memmove: return "memmove";
      case llvm::Intrinsic::memset: return "memset";
      default: return "";
    }
  }
  return callee->isDeclaration() ? sanitize(callee->getName().str()) : function_source_name(*callee);
}

std::string key(const std::string& origin, const std::string& kind) { return origin + '\x1f' + kind; }

// Every loop and call of the module by origin function and kind: their lines.
void collect_sites(ModuleContext& ctx, const llvm::Module& m) {
  if (ctx.sites_collected) return;
  ctx.sites_collected = true;
  auto add = [&](const std::string& k, unsigned line) {
    auto& lines = ctx.site_lines[k];
    if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
  };
  for (const llvm::Function& cf : m) {
    if (cf.isDeclaration()) continue;
    auto& f = const_cast<llvm::Function&>(cf);
    auto& li = ctx.fam->getResult<llvm::LoopAnalysis>(f);
    for (const llvm::Loop* l : li.getLoopsInPreorder()) {
      llvm::DebugLoc at = loop_source_loc(l);
      add(key(origin_of(at.get(), f), "loop"), at ? at.getLine() : 0);
    }
    for (const llvm::Instruction& i : llvm::instructions(f)) {
      // Calls the inliner replaced by their callee's code.
      for (const llvm::DILocation* at = i.getDebugLoc().get(); at && at->getInlinedAt(); at = at->getInlinedAt())
        if (at->getScope() && at->getScope()->getSubprogram())
          add(key(origin_of(at->getInlinedAt(), f), subprogram_name(at->getScope()->getSubprogram(), f)),
              at->getInlinedAt()->getLine());
      if (const auto* call = llvm::dyn_cast<llvm::CallBase>(&i); call && !llvm::isa<llvm::DbgInfoIntrinsic>(&i))
        if (std::string kind = callee_kind(*call); !kind.empty()) {
          const llvm::DebugLoc& at = call->getDebugLoc();
          add(key(origin_of(at.get(), f), kind), at ? at.getLine() : 0);
        }
    }
  }
  for (auto& [_, lines] : ctx.site_lines) std::sort(lines.begin(), lines.end());
}

std::string site(ModuleContext& ctx, const llvm::Function& f, const llvm::DILocation* at, const std::string& kind) {
  collect_sites(ctx, *f.getParent());
  std::string origin = origin_of(at, f);
  const auto& lines = ctx.site_lines[key(origin, kind)];
  auto it = std::find(lines.begin(), lines.end(), at ? at->getLine() : 0);
  std::size_t ordinal = it == lines.end() ? lines.size() + 1 : static_cast<std::size_t>(it - lines.begin()) + 1;
  return fmt::format("{}.{}{}", origin, kind, ordinal);
}

}  // namespace

namespace {

// The loop ID (`!llvm.loop`) the branches of `l`'s own blocks carry, not its
// subloops', where its latch lost it: a `continue` whose branch kept the ID
// once the optimiser sent it through code shared with the body's end (a
// destructor's) to a latch without one. Null unless exactly one ID is there.
llvm::MDNode* loop_id_off_the_latch(const llvm::Loop* l) {
  llvm::MDNode* found = nullptr;
  for (const llvm::BasicBlock* bb : l->blocks()) {
    if (std::any_of(l->begin(), l->end(), [&](const llvm::Loop* inner) { return inner->contains(bb); })) continue;
    llvm::MDNode* id = bb->getTerminator()->getMetadata(llvm::LLVMContext::MD_loop);
    if (!id) continue;
    if (found && found != id) return nullptr;
    found = id;
  }
  return found;
}

}  // namespace

llvm::DebugLoc loop_source_loc(const llvm::Loop* l) {
  llvm::DebugLoc at = l->getStartLoc();
  llvm::MDNode* id = l->getLoopID();
  if (!id && (id = loop_id_off_the_latch(l)))
    for (unsigned k = 1; k < id->getNumOperands(); ++k)
      if (auto* start = llvm::dyn_cast<llvm::DILocation>(id->getOperand(k))) {
        at = llvm::DebugLoc(start);
        break;
      }
  bool own = false;
  if (id)
    for (unsigned k = 1; k < id->getNumOperands(); ++k) own = own || llvm::isa<llvm::DILocation>(id->getOperand(k));
  // Without a location of its own (flang's loops), the start is the
  // preheader's branch and the back edge's; either may carry a line of the
  // body once the loop is rotated: the back edge that of an EXIT test at the
  // bottom, the preheader that of an inner loop's guard hoisted out. The
  // loop's statement comes before its body, so of the two in one scope the
  // earlier line is taken.
  if (!own)
    if (llvm::BasicBlock* latch = l->getLoopLatch())
      if (llvm::DebugLoc dl = latch->getTerminator()->getDebugLoc(); dl && dl.getLine()) {
        const bool comparable = at && at.getLine() && at->getScope() == dl->getScope() &&
                                at->getInlinedAt() == dl->getInlinedAt();
        if (!comparable || dl.getLine() < at.getLine()) at = dl;
      }
  // Such a start in code inlined into the loop (`std::endl`'s flush ending a
  // `for` body whose latch lost the loop's ID) where the loop's own tests are
  // the function's code: the earliest line of those tests, the loop's
  // statement, where the probes name it.
  if (!own && at && at->getInlinedAt()) {
    const llvm::DISubprogram* own_code = l->getHeader()->getParent()->getSubprogram();
    llvm::SmallVector<llvm::BasicBlock*, 4> exiting;
    l->getExitingBlocks(exiting);
    llvm::DebugLoc test;
    for (const llvm::BasicBlock* e : exiting)
      if (llvm::DebugLoc dl = e->getTerminator()->getDebugLoc();
          dl && dl.getLine() && !dl->getInlinedAt() && dl->getScope()->getSubprogram() == own_code &&
          (!test || dl.getLine() < test.getLine()))
        test = dl;
    if (test) at = test;
  }
  // A loop whose control has no line (flang's loops of MAXVAL, of an array
  // temporary): the first line its code has (its function's own before an
  // inlined one's), else the last line of the code that leads to it (the
  // statement it is part of), else its outer loop's, so that loops without a
  // line are not one site, one parameter for loops at several depths.
  if (at && at.getLine()) return at;
  auto usable = [](const llvm::Instruction& i, bool inlined) {
    const llvm::DebugLoc& dl = i.getDebugLoc();
    return dl && dl.getLine() && (inlined || !dl.getInlinedAt()) && !llvm::isa<llvm::DbgInfoIntrinsic>(i);
  };
  for (bool inlined : {false, true})
    for (const llvm::BasicBlock* bb : l->blocks())
      for (const llvm::Instruction& i : *bb)
        if (usable(i, inlined)) return i.getDebugLoc();
  const llvm::BasicBlock* before = l->getLoopPredecessor();
  for (int steps = 0; before && steps < 16; ++steps, before = before->getSinglePredecessor())
    for (const llvm::Instruction& i : llvm::reverse(*before))
      if (usable(i, true)) return i.getDebugLoc();
  // A loop of a loop without a line (a rank-2 reduction's inner loop): the
  // statement its outer loop was given.
  if (const llvm::Loop* parent = l->getParentLoop())
    if (llvm::DebugLoc outer = loop_source_loc(parent); outer && outer.getLine()) return outer;
  return at;
}

std::string function_source_name(const llvm::Function& f) {
  const llvm::DISubprogram* sp = f.getSubprogram();
  if (!sp || sp->getName().empty()) return sanitize(f.getName().str());
  // flang names the main program's procedure `_QQmain` in the debug info too;
  // it is the program's entry, as C's main is.
  std::string name = sp->getName() == "_QQmain" ? "main" : sanitize(sp->getName().str());
  int k = 0, same = 0;
  for (const llvm::Function& g : *f.getParent()) {
    if (g.isDeclaration() || !g.getSubprogram() || g.getSubprogram()->getName() != sp->getName()) continue;
    ++same;
    if (&g == &f) k = same;
  }
  return same > 1 ? fmt::format("{}_{}", name, k) : name;
}

std::string loop_site(ModuleContext& ctx, const llvm::Function& f, const llvm::Loop* l) {
  std::string name = site(ctx, f, loop_source_loc(l).get(), "loop");
  if (unsigned depth = same_line_depth(l); depth > 1) name += fmt::format("_{}", depth);
  return name;
}

unsigned same_line_depth(const llvm::Loop* l) {
  const llvm::DebugLoc at = loop_source_loc(l);
  auto same = [&](const llvm::DebugLoc& o) {
    return at && o && o.getLine() == at.getLine() && o->getFilename() == at->getFilename();
  };
  unsigned depth = 1;
  for (const llvm::Loop* p = l->getParentLoop(); p; p = p->getParentLoop())
    if (same(loop_source_loc(p))) ++depth;
  return depth;
}

std::string call_site(ModuleContext& ctx, const llvm::Function& f, const llvm::CallBase& call) {
  return site(ctx, f, call.getDebugLoc().get(), callee_kind(call));
}

std::string inlined_site(ModuleContext& ctx, const llvm::Function& f, const llvm::DISubprogram* callee,
                         const llvm::DILocation* call) {
  return site(ctx, f, call, subprogram_name(callee, f));
}

}  // namespace perfcast::analyze::detail
