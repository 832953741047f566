#include "analyze/memory_writes.h"

#include <algorithm>

#include <llvm/Analysis/ConstantFolding.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Analysis/LoopInfo.h>

#include "analyze/module_context.h"

namespace perfcast::analyze::detail {

namespace ex = perfcast::expr;
using ex::Expr;

// The `bits`-wide integer at `offset` of a constant global's initialiser.
std::optional<Expr> constant_in(const llvm::Value* global, int64_t offset, unsigned bits, const llvm::DataLayout& dl) {
  auto* g = llvm::dyn_cast_or_null<llvm::GlobalVariable>(global);
  if (!g || !g->isConstant() || !g->hasDefinitiveInitializer() || offset < 0) return std::nullopt;
  llvm::Type* type = llvm::IntegerType::get(g->getContext(), bits);
  auto* c = llvm::dyn_cast_or_null<llvm::ConstantInt>(llvm::ConstantFoldLoadFromConstPtr(
      const_cast<llvm::GlobalVariable*>(g), type, llvm::APInt(64, static_cast<uint64_t>(offset)), dl));
  if (!c) return std::nullopt;
  return ex::integer(c->getSExtValue());
}

// Whether `i` may write the byte at `offset` of `base`: a store there (or
// through `base` at an offset not known), a memset/memcpy into `base`, or a
// call that gets a pointer into `base` and may write through it (what the
// callee does, when it is here, `depth` calls deep; what MPI does, for the MPI
// calls whose pointers mpi_writes() knows).
bool MemoryWrites::writes_at(const llvm::Instruction& i, const llvm::Value* base, int64_t offset, int depth) {
  using namespace llvm;
  if (auto* st = dyn_cast<StoreInst>(&i)) {
    int64_t off = 0;
    const Value* p = GetPointerBaseWithConstantOffset(st->getPointerOperand(), off, s_.dl);
    if (p == base)
      return off <= offset &&
             offset < off + static_cast<int64_t>(s_.dl.getTypeStoreSize(st->getValueOperand()->getType()));
    return getUnderlyingObject(st->getPointerOperand()) == base;
  }
  auto* call = dyn_cast<CallBase>(&i);
  if (!call || call->onlyReadsMemory()) return false;
  // A global: also what a function called here stores to it itself.
  if (auto* g = dyn_cast<GlobalVariable>(base))
    if (const Function* callee = call->getCalledFunction();
        callee && !callee->isDeclaration() && stores_global(*callee, *g, 0))
      return true;
  if (auto overlap = mem_intrinsic_writes(call, base, offset)) return *overlap;
  if (auto* ii = dyn_cast<IntrinsicInst>(call)) {
    Intrinsic::ID id = ii->getIntrinsicID();
    if (id != Intrinsic::memset && id != Intrinsic::memcpy && id != Intrinsic::memmove) return false;
  }
  if (auto mpi = mpi_writes(*call, base, offset)) return *mpi;
  for (unsigned a = 0; a < call->arg_size(); ++a) {
    const Value* arg = call->getArgOperand(a);
    if (!arg->getType()->isPointerTy() || getUnderlyingObject(arg) != base) continue;
    if (call->onlyReadsMemory(a)) continue;
    int64_t off = 0;
    Function* callee = call->getCalledFunction();
    if (callee && !callee->isDeclaration() && !callee->isVarArg() && a < callee->arg_size() &&
        GetPointerBaseWithConstantOffset(arg, off, s_.dl) == base &&
        !may_write(*callee->getArg(a), offset - off, depth))
      continue;
    return true;
  }
  return false;
}

// What the MPI calls that take pointers to ranks and grids write through
// them, by the MPI standard (LLVM sees only "argument memory"):
// MPI_Cart_shift writes one int through each of its last two arguments,
// MPI_Cart_create reads dims and periods and writes the new communicator;
// MPI_Init and MPI_Init_thread leave the command line's count and words as
// they are (the launcher passes its own options in the environment: Open MPI
// writes neither), and the latter writes the thread level it provides.
// Nothing for other calls.
std::optional<bool> MemoryWrites::mpi_writes(const llvm::CallBase& call, const llvm::Value* base,
                                             int64_t offset) const {
  using namespace llvm;
  const Function* callee = call.getCalledFunction();
  if (!callee) return std::nullopt;
  StringRef name = callee->getName();
  if (name.starts_with("PMPI_")) name = name.drop_front();
  std::vector<std::pair<unsigned, int64_t>> written;  // argument, bytes (0: any)
  if (name == "MPI_Cart_shift" && call.arg_size() == 5)
    written = {{3, 4}, {4, 4}};
  else if (name == "MPI_Cart_create" && call.arg_size() == 6)
    written = {{5, 0}};
  else if (name == "MPI_Init" && call.arg_size() == 2)
    written = {};
  else if (name == "MPI_Init_thread" && call.arg_size() == 4)
    written = {{3, 4}};
  else
    return std::nullopt;
  for (auto [a, bytes] : written) {
    const Value* arg = call.getArgOperand(a);
    if (getUnderlyingObject(arg) != base) continue;
    int64_t off = 0;
    if (bytes == 0 || GetPointerBaseWithConstantOffset(arg, off, s_.dl) != base ||
        (off <= offset && offset < off + bytes))
      return true;
  }
  return false;
}

// Whether code inside `loop` may write the bytes at `offset` of `base`
// (writes_at). A field the loop does not write holds one value while the
// loop runs.
bool MemoryWrites::written_in_loop(const llvm::Loop* loop, const llvm::Value* base, int64_t offset) {
  auto memo = written_in_loop_.find({loop, base, offset});
  if (memo != written_in_loop_.end()) return memo->second;
  bool& result = written_in_loop_[{loop, base, offset}];
  result = false;
  for (llvm::BasicBlock* b : loop->blocks())
    for (llvm::Instruction& i : *b)
      if (writes_at(i, base, offset, 0)) return result = true;
  return result;
}

// For a memset/memcpy/memmove of a constant length to a constant offset of
// `base` (fields cleared or copied together): whether it covers the byte at
// `offset`. Nothing for other calls.
std::optional<bool> MemoryWrites::mem_intrinsic_writes(const llvm::CallBase* call, const llvm::Value* base,
                                                       int64_t offset) {
  using namespace llvm;
  auto* mi = dyn_cast<MemIntrinsic>(call);
  if (!mi) return std::nullopt;
  auto* len = dyn_cast<ConstantInt>(mi->getLength());
  int64_t off = 0;
  const Value* dest = GetPointerBaseWithConstantOffset(mi->getRawDest(), off, s_.dl);
  if (dest != base) return getUnderlyingObject(mi->getRawDest()) == base;
  if (!len) return true;
  return off <= offset && offset < off + static_cast<int64_t>(len->getZExtValue());
}

// Whether `f` or a function it calls (defined here) stores to `g`.
bool MemoryWrites::stores_global(const llvm::Function& f, const llvm::GlobalVariable& g, int depth) {
  auto key = std::make_pair(&f, &g);
  if (auto memo = s_.ctx.stores_global.find(key); memo != s_.ctx.stores_global.end()) return memo->second;
  // A call cycle or a deep chain: assume a write (the read is then no parameter).
  if (depth > 8) return true;
  s_.ctx.stores_global[key] = false;  // while this function's callees are looked at
  bool stores = false;
  for (const llvm::BasicBlock& b : f) {
    for (const llvm::Instruction& i : b) {
      if (auto* st = llvm::dyn_cast<llvm::StoreInst>(&i)) {
        stores = llvm::getUnderlyingObject(st->getPointerOperand()) == &g;
      } else if (auto* call = llvm::dyn_cast<llvm::CallBase>(&i)) {
        const llvm::Function* callee = call->getCalledFunction();
        stores = callee && !callee->isDeclaration() && stores_global(*callee, g, depth + 1);
      }
      if (stores) break;
    }
    if (stores) break;
  }
  return s_.ctx.stores_global[key] = stores;
}

bool MemoryWrites::global_changes_around(const llvm::GlobalVariable& g, const llvm::Instruction& at) {
  for (const llvm::Loop* l = s_.li.getLoopFor(at.getParent()); l; l = l->getParentLoop())
    for (const llvm::BasicBlock* b : l->blocks())
      for (const llvm::Instruction& i : *b) {
        if (writes_at(i, &g, 0, 0)) return true;
        if (auto* call = llvm::dyn_cast<llvm::CallBase>(&i))
          if (const llvm::Function* callee = call->getCalledFunction();
              callee && !callee->isDeclaration() && stores_global(*callee, g, 0))
            return true;
      }
  return false;
}

// Whether a function may write the byte at `offset` from the pointer argument
// `p` (itself or through the functions it passes `p` on to).
bool MemoryWrites::may_write(const llvm::Argument& p, int64_t offset, int depth) {
  if (depth > 4) return true;
  for (const llvm::BasicBlock& b : *p.getParent())
    for (const llvm::Instruction& i : b)
      if (writes_at(i, &p, offset, depth + 1)) return true;
  return false;
}

// Whether `call` hands `base`'s address to a function of the program that
// keeps it (stores the pointer in memory, itself or in a function it passes
// it on to), so that any later call may write through the copy. Functions
// outside the program (MPI, the language runtimes) are taken to keep nothing.
bool MemoryWrites::keeps_address(const llvm::CallBase& call, const llvm::Value* base) const {
  for (unsigned a = 0; a < call.arg_size(); ++a)
    if (call.getArgOperand(a)->getType()->isPointerTy() && llvm::getUnderlyingObject(call.getArgOperand(a)) == base &&
        keeps_argument(call.getCalledFunction(), a, 0))
      return true;
  return false;
}

bool MemoryWrites::keeps_argument(const llvm::Function* f, unsigned a, int depth) const {
  if (!f || f->isDeclaration() || f->isVarArg() || a >= f->arg_size() || f->getArg(a)->hasNoCaptureAttr()) return false;
  if (depth > 4) return true;
  auto key = std::make_pair(f, a);
  if (auto memo = s_.ctx.keeps_argument.find(key); memo != s_.ctx.keeps_argument.end()) return memo->second;
  s_.ctx.keeps_argument[key] = false;  // while the functions it passes the pointer to are looked at
  const llvm::Argument* p = f->getArg(a);
  bool keeps = false;
  for (const llvm::BasicBlock& b : *f)
    for (const llvm::Instruction& i : b) {
      if (auto* st = llvm::dyn_cast<llvm::StoreInst>(&i); st && st->getValueOperand()->getType()->isPointerTy() &&
                                                          llvm::getUnderlyingObject(st->getValueOperand()) == p)
        keeps = true;
      if (auto* call = llvm::dyn_cast<llvm::CallBase>(&i); call && !keeps)
        for (unsigned k = 0; k < call->arg_size() && !keeps; ++k)
          keeps = call->getArgOperand(k)->getType()->isPointerTy() &&
                  llvm::getUnderlyingObject(call->getArgOperand(k)) == p &&
                  keeps_argument(call->getCalledFunction(), k, depth + 1);
      if (keeps) return s_.ctx.keeps_argument[key] = true;
    }
  return false;
}

// Every instruction of the function that may write the bytes at `offset` of
// `base` (writes_at); nothing when the address is stored in memory, here or
// by a function called here (anything may then write through the copy).
std::optional<std::vector<const llvm::Instruction*>> MemoryWrites::writers(const llvm::Value* base, int64_t offset) {
  std::vector<const llvm::Instruction*> out;
  for (const llvm::Instruction& i : llvm::instructions(s_.f)) {
    if (auto* st = llvm::dyn_cast<llvm::StoreInst>(&i); st && st->getValueOperand()->getType()->isPointerTy() &&
                                                        llvm::getUnderlyingObject(st->getValueOperand()) == base)
      return std::nullopt;
    if (auto* call = llvm::dyn_cast<llvm::CallBase>(&i); call && keeps_address(*call, base)) return std::nullopt;
    if (writes_at(i, base, offset, 0)) out.push_back(&i);
  }
  return out;
}

// Whether some path runs from `from` to `to`. LLVM's isPotentiallyReachable
// gives up (says yes) after 32 blocks, which a long main() exceeds.
bool MemoryWrites::reaches(const llvm::Instruction* from, const llvm::Instruction* to) {
  const llvm::BasicBlock* start = from->getParent();
  if (start == to->getParent() && from->comesBefore(to)) return true;
  auto [it, fresh] = reachable_.try_emplace(start);
  std::set<const llvm::BasicBlock*>& seen = it->second;  // blocks some path enters after `start`
  if (fresh) {
    std::vector<const llvm::BasicBlock*> todo(llvm::succ_begin(start), llvm::succ_end(start));
    while (!todo.empty()) {
      const llvm::BasicBlock* b = todo.back();
      todo.pop_back();
      if (seen.insert(b).second) todo.insert(todo.end(), llvm::succ_begin(b), llvm::succ_end(b));
    }
  }
  return seen.count(to->getParent()) > 0;
}

// The write whose value `at` finds at `offset` of `base`: the last of the
// writes that come before `at` on every path, when no other write can run
// between it and `at` (writes before it are overwritten, writes after `at`
// come too late). nullptr: no write reaches `at`; nothing: no one write is
// known to be the last.
std::optional<const llvm::Instruction*> MemoryWrites::last_writer(const llvm::Value* base, int64_t offset,
                                                                  const llvm::Instruction* at) {
  auto all = writers(base, offset);
  if (!all) return std::nullopt;
  // The writes that dominate `at` are in a chain; the last is dominated by the others.
  const llvm::Instruction* last = nullptr;
  for (const llvm::Instruction* w : *all)
    if (w != at && s_.dt.dominates(w, at) && (!last || s_.dt.dominates(last, w))) last = w;
  if (!last) {
    bool reached = std::any_of(all->begin(), all->end(), [&](auto* w) { return w != at && reaches(w, at); });
    return reached ? std::nullopt : std::optional<const llvm::Instruction*>(nullptr);
  }
  for (const llvm::Instruction* w : *all)
    if (w != last && w != at && reaches(last, w) && reaches(w, at)) return std::nullopt;
  return last;
}

}  // namespace perfcast::analyze::detail
