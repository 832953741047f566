#include "analyze/polling_loops.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <vector>

namespace perfcast::analyze::detail {

namespace {

// A test or probe call: its C name and the 0-based positions of the
// arguments through which it says whether something completed (the same in
// the Fortran binding, where every argument is passed by reference).
struct TestSpec {
  const char* c_name;
  std::vector<unsigned> written;
  std::vector<unsigned> requests;  // of them, the requests (null once complete); the others are non-zero then
  std::vector<unsigned> arrays;    // of them, arrays: written anywhere in them
  std::vector<unsigned> statuses;  // the status (or statuses) of what completed or arrived, written anywhere in it
};

// By the binding's name in lower case, without a `p` of the profiling
// interface or Fortran's trailing underscores.
const TestSpec* test_spec(std::string name) {
  static const std::map<std::string, TestSpec> specs = {
      {"mpi_test", {"MPI_Test", {0, 1}, {0}, {}, {2}}},                 // request, flag; status
      {"mpi_testall", {"MPI_Testall", {1, 2}, {1}, {1}, {3}}},          // requests, flag; statuses
      {"mpi_testany", {"MPI_Testany", {1, 2, 3}, {1}, {1}, {4}}},       // requests, index, flag; status
      {"mpi_testsome", {"MPI_Testsome", {1, 2, 3}, {1}, {1, 3}, {4}}},  // requests, outcount, indices; statuses
      {"mpi_iprobe", {"MPI_Iprobe", {3}, {}, {}, {4}}},                 // flag; status
      {"mpi_improbe", {"MPI_Improbe", {3, 4}, {}, {}, {5}}},            // flag, message; status
  };
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  while (!name.empty() && name.back() == '_') name.pop_back();
  if (name.rfind("pmpi_", 0) == 0) name.erase(0, 1);
  auto it = specs.find(name);
  return it == specs.end() ? nullptr : &it->second;
}

// The object a pointer addresses: its underlying object, and through the
// loads of a base address (a Fortran array descriptor's) the object holding it.
const llvm::Value* root_object(const llvm::Value* v) {
  const llvm::Value* u = llvm::getUnderlyingObject(v);
  for (int hops = 0; hops < 2; ++hops)
    if (auto* load = llvm::dyn_cast<llvm::LoadInst>(u)) u = llvm::getUnderlyingObject(load->getPointerOperand());
  return u;
}

// Where a pointer points: its root object and, where every step from it is a
// constant, the byte offset into it; none: an element chosen at run time
// (a Fortran `reqs(cor)`), or the whole object (an array of requests).
struct Place {
  const llvm::Value* root = nullptr;
  std::optional<std::int64_t> offset;
};

Place place_of(const llvm::Value* pointer, const llvm::DataLayout& dl) {
  std::int64_t offset = 0;
  const llvm::Value* base = llvm::GetPointerBaseWithConstantOffset(pointer, offset, dl);
  const llvm::Value* root = root_object(pointer);
  return base == root ? Place{root, offset} : Place{root, std::nullopt};
}

// What a test call writes through one argument: the call, and whether it is
// a request (MPI_REQUEST_NULL once complete) or a flag or count (non-zero
// then), or a status: what completed or arrived (its source, tag), which a
// loop's exit may depend on but which says nothing of whether it completed.
struct Written {
  std::string call;
  bool request = false;
  bool status = false;
};

// An argument of a function through which it writes a completion state, at
// `offset` bytes into what the argument points to (none: anywhere in it).
struct ArgumentWrite {
  unsigned position = 0;
  Written what;
  std::optional<std::int64_t> offset;
};
using Summary = std::vector<ArgumentWrite>;

Summary spec_summary(const TestSpec& spec) {
  Summary out;
  auto among = [](const std::vector<unsigned>& v, unsigned p) { return std::find(v.begin(), v.end(), p) != v.end(); };
  for (unsigned p : spec.written)
    out.push_back({p, Written{spec.c_name, among(spec.requests, p)},
                   among(spec.arrays, p) ? std::nullopt : std::optional<std::int64_t>(0)});
  for (unsigned p : spec.statuses) out.push_back({p, Written{spec.c_name, false, true}, std::nullopt});
  return out;
}

// Where the argument passed at `call`'s position writes: the write's offset
// within the argument added to the pointer's own.
Place written_place(const llvm::CallBase& call, const ArgumentWrite& w) {
  Place at = place_of(call.getArgOperand(w.position), call.getModule()->getDataLayout());
  if (!w.offset || !at.offset)
    at.offset.reset();
  else
    *at.offset += *w.offset;
  return at;
}

const Summary& summary(const llvm::Function& f, std::map<const llvm::Function*, Summary>& memo, int depth);

// What a call writes through its arguments, if it is a test or probe, or a
// function of the program that passes them on to one.
Summary call_writes(const llvm::CallBase& call, std::map<const llvm::Function*, Summary>& memo, int depth) {
  const llvm::Function* callee = call.getCalledFunction();
  if (!callee) return {};
  if (const TestSpec* spec = test_spec(callee->getName().str())) return spec_summary(*spec);
  if (callee->isDeclaration() || callee == call.getFunction()) return {};
  return summary(*callee, memo, depth + 1);
}

// A place a call (a test or probe call, or a function of the program that
// passes it on to one) writes its completion state into.
struct Completion {
  Place at;
  Written what;
  const llvm::CallBase* call = nullptr;
};
using Places = std::vector<Completion>;

// Whether a read at `read` reads what was written at `at`: the same object,
// at the same offset where both are known.
bool same_place(const Place& at, const Place& read) {
  return at.root == read.root && (!at.offset || !read.offset || *at.offset == *read.offset);
}

// The places the calls in `blocks` write their completion state into. None
// at a null pointer: MPI_STATUS_IGNORE, which no read reaches.
template <typename Blocks>
Places completion_places(const Blocks& blocks, std::map<const llvm::Function*, Summary>& memo, int depth) {
  Places written;
  for (const llvm::BasicBlock* b : blocks)
    for (const llvm::Instruction& i : *b)
      if (auto* call = llvm::dyn_cast<llvm::CallBase>(&i))
        for (const ArgumentWrite& w : call_writes(*call, memo, depth))
          if (w.position < call->arg_size()) {
            Place at = written_place(*call, w);
            if (!llvm::isa<llvm::ConstantPointerNull>(at.root)) written.push_back({at, w.what, call});
          }
  return written;
}

// What the read at `pointer` reads of a completion state, if anything: the
// same object, at the same offset where both are known (a flag or request
// before a status written at the same place).
const Written* completion_read(const Places& written, const llvm::Value* pointer, const llvm::DataLayout& dl,
                               bool statuses = true) {
  Place read = place_of(pointer, dl);
  const Written* found = nullptr;
  for (const Completion& c : written)
    if (same_place(c.at, read) && (statuses || !c.what.status) && (!found || found->status)) found = &c.what;
  return found;
}

// The arguments of `f` that reach a completion argument of a test or probe
// call in `f` or in the functions it calls (a wrapper's `req` passed on to
// MPI_Test), a few calls deep; and those `f` copies a completion state into
// (hypre's `hypre_MPI_Test` tests into a local `int` and stores it, widened,
// through its `HYPRE_Int *flag`): the value stored a load of what a call in
// `f` wrote, through casts only, so a request copied stays a request.
const Summary& summary(const llvm::Function& f, std::map<const llvm::Function*, Summary>& memo, int depth) {
  if (auto it = memo.find(&f); it != memo.end()) return it->second;
  memo[&f];  // empty while under way: a recursion reaches nothing more
  Summary out;
  if (depth <= 3 && !f.isDeclaration()) {
    std::vector<const llvm::BasicBlock*> blocks;
    for (const llvm::BasicBlock& b : f) blocks.push_back(&b);
    const Places written = completion_places(blocks, memo, depth);
    const llvm::DataLayout& dl = f.getParent()->getDataLayout();
    for (const Completion& c : written)
      if (auto* a = llvm::dyn_cast<llvm::Argument>(c.at.root)) out.push_back({a->getArgNo(), c.what, c.at.offset});
    for (const llvm::BasicBlock* b : blocks)
      for (const llvm::Instruction& i : *b) {
        auto* store = llvm::dyn_cast<llvm::StoreInst>(&i);
        if (!store) continue;
        Place to = place_of(store->getPointerOperand(), dl);
        auto* a = llvm::dyn_cast<llvm::Argument>(to.root);
        if (!a) continue;
        const llvm::Value* v = store->getValueOperand();
        while (auto* cast = llvm::dyn_cast<llvm::CastInst>(v)) v = cast->getOperand(0);
        if (auto* load = llvm::dyn_cast<llvm::LoadInst>(v))
          if (const Written* what = completion_read(written, load->getPointerOperand(), dl))
            out.push_back({a->getArgNo(), *what, to.offset});
      }
  }
  return memo[&f] = std::move(out);
}

// The places a test or probe call in the loop (or a function it calls)
// writes its completion state into.
Places completion_places(const llvm::Loop& l) {
  std::map<const llvm::Function*, Summary> memo;
  return completion_places(l.blocks(), memo, 0);
}

}  // namespace

std::optional<std::string> polling_call(const llvm::Loop& l) {
  using namespace llvm;
  const Places written = completion_places(l);
  if (written.empty()) return std::nullopt;
  const DataLayout& dl = l.getHeader()->getModule()->getDataLayout();

  // What the loop's exits test, followed back through the loop's values, the
  // stores into memory the slice reads, and the branches in the loop that
  // decide whether a store, an exit or a phi's incoming edge is reached.
  std::vector<const Value*> work;
  std::set<const Value*> seen;
  auto condition = [&](const BasicBlock* p) {
    const Instruction* t = p->getTerminator();
    if (auto* br = dyn_cast<BranchInst>(t); br && br->isConditional())
      work.push_back(br->getCondition());
    else if (auto* sw = dyn_cast<SwitchInst>(t))
      work.push_back(sw->getCondition());
  };
  // The branches `b` is control dependent on within one pass (a successor
  // leads to `b` on every path to the pass's end, the other may not), and
  // theirs in turn. A pass ends where the loop exits or goes back to its
  // header: over whole runs a loop's one way out post-dominates all of it,
  // but which branches a pass takes to reach it is what decides its trips.
  // Not the blocks merely before `b`: a store after the join of
  // `if (flag)` runs whatever the flag says, and one nested in
  // `if (rank == 0)` inside `if (flag)` runs only when the flag is set.
  const BasicBlock* header = l.getHeader();
  auto in_pass = [&](const BasicBlock* s) { return s != header && l.contains(s); };
  std::set<const BasicBlock*> controlled;
  std::function<void(const BasicBlock*)> control = [&](const BasicBlock* b) {
    if (!controlled.insert(b).second) return;
    // The blocks that can end the pass without passing through `b`.
    std::set<const BasicBlock*> avoid;
    std::vector<const BasicBlock*> todo;
    for (const BasicBlock* p : l.blocks())
      if (p != b && any_of(successors(p), [&](const BasicBlock* s) { return !in_pass(s); })) todo.push_back(p);
    while (!todo.empty()) {
      const BasicBlock* x = todo.back();
      todo.pop_back();
      if (!avoid.insert(x).second || x == header) continue;
      for (const BasicBlock* p : predecessors(x))
        if (p != b && l.contains(p)) todo.push_back(p);
    }
    for (const BasicBlock* p : l.blocks()) {
      if (p->getTerminator()->getNumSuccessors() < 2 || (p != b && !avoid.count(p))) continue;
      if (any_of(successors(p), [&](const BasicBlock* s) { return in_pass(s) && (s == b || !avoid.count(s)); })) {
        condition(p);
        control(p);
      }
    }
  };
  SmallVector<BasicBlock*, 4> exiting;
  l.getExitingBlocks(exiting);
  for (const BasicBlock* e : exiting) {
    condition(e);
    control(e);
  }
  // Memory the slice reads (a load's, or an address it passes on: an
  // array's descriptor handed to ANY): what the loop stores there is read too.
  std::set<const Value*> objects_followed;
  auto reads = [&](const Value* pointer) -> std::optional<std::string> {
    if (const Written* w = completion_read(written, pointer, dl)) return w->call;
    const Value* object = root_object(pointer);
    if (!objects_followed.insert(object).second) return std::nullopt;
    for (const BasicBlock* b : l.blocks())
      for (const Instruction& i : *b)
        if (auto* store = dyn_cast<StoreInst>(&i); store && root_object(store->getPointerOperand()) == object) {
          work.push_back(store->getValueOperand());
          control(store->getParent());
        }
    return std::nullopt;
  };
  while (!work.empty()) {
    const Value* v = work.back();
    work.pop_back();
    if (!seen.insert(v).second) continue;
    if (v->getType()->isPointerTy())
      if (auto call = reads(v)) return call;
    auto* inst = dyn_cast<Instruction>(v);
    if (!inst || !l.contains(inst)) continue;
    if (auto* load = dyn_cast<LoadInst>(inst)) {
      if (auto call = reads(load->getPointerOperand())) return call;
      continue;
    }
    if (auto* phi = dyn_cast<PHINode>(inst)) {
      // Which value the phi takes: the edge it comes in by, decided by the
      // branch that ends the incoming block and those that block depends on.
      for (unsigned k = 0; k < phi->getNumIncomingValues(); ++k) {
        work.push_back(phi->getIncomingValue(k));
        const BasicBlock* from = phi->getIncomingBlock(k);
        if (!l.contains(from)) continue;
        condition(from);
        control(from);
      }
      continue;
    }
    for (const Value* op : inst->operands()) work.push_back(op);
  }
  return std::nullopt;
}

std::optional<unsigned> completion_successor(const llvm::BranchInst& br, const llvm::Loop& l) {
  using namespace llvm;
  if (!br.isConditional()) return std::nullopt;
  // `cond` true means complete: a flag or count read as a truth value, or a
  // comparison of one with zero, of a request with MPI_REQUEST_NULL.
  const Value* v = br.getCondition();
  bool negated = false;
  for (;;) {
    if (auto* x = dyn_cast<BinaryOperator>(v); x && x->getOpcode() == Instruction::Xor)
      if (auto* one = dyn_cast<ConstantInt>(x->getOperand(1)); one && one->isOne()) {
        negated = !negated, v = x->getOperand(0);
        continue;
      }
    break;
  }
  auto strip = [](const Value* x) {
    while (isa<CastInst>(x) || (isa<BinaryOperator>(x) && cast<BinaryOperator>(x)->getOpcode() == Instruction::And &&
                                isa<ConstantInt>(cast<BinaryOperator>(x)->getOperand(1))))
      x = cast<Instruction>(x)->getOperand(0);
    return x;
  };
  const Places written = completion_places(l);
  const DataLayout& dl = l.getHeader()->getModule()->getDataLayout();
  // Whether the pass has called what writes the place `load` reads on every
  // path from the header to it: the state this pass's test found. A read
  // some path reaches first reads the state an earlier pass left, which
  // chooses a phase of the loop (`if (!sent) { MPI_Testall(..., &sent, ...);
  // ... } else { MPI_Test(...); }`): the pass priced is not one of them
  // alone, so such a branch is left to be priced as any other.
  auto found_this_pass = [&](const LoadInst* load) {
    const Place read = place_of(load->getPointerOperand(), dl);
    auto writes = [&](const Instruction& i) {
      return any_of(written, [&](const Completion& c) { return c.call == &i && same_place(c.at, read); });
    };
    std::set<const BasicBlock*> visited;
    std::vector<const BasicBlock*> todo = {l.getHeader()};
    while (!todo.empty()) {
      const BasicBlock* b = todo.back();
      todo.pop_back();
      if (!visited.insert(b).second) continue;
      bool passed = false;
      for (const Instruction& i : *b) {
        if (writes(i)) {
          passed = true;
          break;
        }
        if (&i == load) return false;
      }
      if (passed) continue;
      for (const BasicBlock* s : successors(b))
        if (s != l.getHeader() && l.contains(s)) todo.push_back(s);
    }
    return true;
  };
  auto completion = [&](const Value* x) -> const Written* {
    auto* load = dyn_cast<LoadInst>(strip(x));
    if (!load || !l.contains(load)) return nullptr;
    const Written* w = completion_read(written, load->getPointerOperand(), dl, false);
    return w && found_this_pass(load) ? w : nullptr;
  };
  std::optional<bool> complete_when_true;
  if (const Written* w = completion(v); w && !w->request) {
    complete_when_true = true;
  } else if (auto* cmp = dyn_cast<ICmpInst>(v); cmp && cmp->isEquality()) {
    const Written* w = completion(cmp->getOperand(0));
    const Value* other = cmp->getOperand(1);
    if (!w) w = completion(cmp->getOperand(1)), other = cmp->getOperand(0);
    if (w) {
      const bool eq = cmp->getPredicate() == ICmpInst::ICMP_EQ;
      // A request compared with MPI_REQUEST_NULL (a global in C, an integer
      // constant in Fortran); a flag or count compared with zero.
      if (w->request && isa<Constant>(other))
        complete_when_true = eq;
      else if (auto* c = dyn_cast<ConstantInt>(other); c && c->isZero())
        complete_when_true = !eq;
    }
  }
  if (!complete_when_true) return std::nullopt;
  return (*complete_when_true != negated) ? 0u : 1u;
}

}  // namespace perfcast::analyze::detail
