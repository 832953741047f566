// The feature probes of the learned models and of `perfcast probe`: an LLVM
// pass plugin for clang's -fpass-plugin= that gives every module a static
// array of feature slots and inserts probes of values assigned to named
// variables and fields (and their reads outside loops, a local's reads after
// several assignments (feature_merged_reads.h), and a callee's reads on
// entry of the object its caller passed: feature_variables.h), branches and
// switches, loops, memory calls, MPI calls that move data, direct calls'
// arguments (feature_arguments.h), calls through pointers
// (feature_indirect_sites.h) and the integer arguments their targets are
// entered with, recursion and virtual functions. docs/learn.md, "Recording features", lists every probe:
// its name, what it counts and its facts of the code.
//
// A second feature of the same kind on the same line is `branch#2`,
// `loop#2`, `MPI_Send#2`, in the order of the code. The instances of a C++
// template (functions defined at one source line) repeat their loops and
// branches so: each of theirs gets, as a fact of the code, `.function`, the
// instance's id (function_id of its linkage name), by which a probe run's
// measures find the instance the analyser's model names.
//
// PERFCAST_FEATURES_KEEP, when set, names a file of the features to keep (a
// learned model file, whose kept columns' inputs are kept, or one name a
// line): other probes are left out, and names are given as without it, so a
// filtered build records the same names. A pair (taken/not_taken, headers/entries,
// calls/bytes) is kept whole when either of its names is listed.
//
// Counts inside a call-free loop nest (a loop whose blocks call nothing but
// LLVM intrinsics, C library functions that return and loop-free functions
// of the module that call nothing else) are kept in the
// function's own variables, which the optimiser holds in registers (a header
// count becomes an induction variable it can drop, a branch count one add),
// and added to the slots where the nest is left: a counter in memory inside
// a kernel's loop would cost the loop its vectorisation and its loads and
// stores every iteration. The slots then show those counts, and their epochs,
// as of the last time the nest was left; nothing can leave it between (no
// call, so no exit, unwinding or longjmp). Loops that call functions count in
// memory, so a run watched while it runs sees them grow.
//
// The pass runs at the start of the pipeline (PipelineStartEP), which clang
// runs at -O0 as well as at -O2: the IR is then the front end's, so loops,
// branches and variables are still the source's (stores to named allocas,
// before SROA turns them into SSA values and the loop passes rotate, unroll
// or delete loops), and the names are the same at every -O level. The
// optimiser then treats the probes as ordinary code. It is marked required so
// that -O0's optnone functions are instrumented too.
#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/DenseSet.h>
#include <llvm/ADT/DepthFirstIterator.h>
#include <llvm/ADT/MapVector.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/ADT/StringSet.h>
#include <llvm/IR/Dominators.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/PassPlugin.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "features/feature_abi.h"
#include "features/feature_arguments.h"
#include "features/feature_call_kinds.h"
#include "features/feature_code_sites.h"
#include "features/feature_first_test.h"
#include "features/feature_indirect_sites.h"
#include "features/feature_keep.h"
#include "features/feature_merged_reads.h"
#include "features/feature_registration.h"
#include "features/feature_call_graph.h"
#include "features/feature_switches.h"
#include "features/feature_variables.h"
#include "ir_rewrites/function_aliases.h"
#include "ir_rewrites/lineless_helpers.h"

using namespace llvm;
using namespace perfcast::features;
namespace {

// An integer a size or a count can be (not a flag).
bool is_integer(Type* t) { return t->isIntegerTy() && t->getIntegerBitWidth() > 1 && t->getIntegerBitWidth() <= 64; }
bool is_scalar(Type* t) { return (t->isIntegerTy() && t->getIntegerBitWidth() <= 64) || t->isFloatingPointTy(); }

class FeatureProbes {
 public:
  FeatureProbes(Module& m, ModuleAnalysisManager& mam) : m_(m), ctx_(m.getContext()) {
    fam_ = &mam.getResult<FunctionAnalysisManagerModuleProxy>(m).getManager();
    i8_ = Type::getInt8Ty(ctx_);
    i32_ = Type::getInt32Ty(ctx_);
    i64_ = Type::getInt64Ty(ctx_);
    double_ = Type::getDoubleTy(ctx_);
    ptr_ = PointerType::getUnqual(ctx_);
    slot_type_ = StructType::get(ctx_, {i64_, double_, i32_, i32_});
    keep_ = keep_list(ctx_);
    // Slots are created once their number is known; probes address this
    // placeholder until then.
    placeholder_ = new GlobalVariable(m_, slot_type_, false, GlobalValue::InternalLinkage,
                                      Constant::getNullValue(slot_type_), "perfcast.features.placeholder");
  }

  bool run() {
    perfcast::ir_rewrites::call_aliased_functions_directly(m_);  // a destructor deleting itself through D1 recurses
    // Their loops are their callers', as the optimiser makes them; what was
    // cached of the functions changed is stale.
    if (perfcast::ir_rewrites::inline_lineless_helpers(m_)) fam_->clear();
    std::vector<Function*> functions, library;  // library: from_system_header (loops, memory calls)
    for (Function& f : m_)
      if (!f.isDeclaration() && !f.getName().starts_with("perfcast.features"))
        (from_system_header(f) ? library : functions).push_back(&f);
    plan_recursion(functions);
    plan_virtual(functions);
    plan_entry_arguments(functions);
    for (const auto* of : {&functions, &library})
      for (Function* f : *of)
        if (const DISubprogram* sp = f->getSubprogram()) ++definitions_at_[{sp->getFilename().str(), sp->getLine()}];
    for (Function& f : m_)
      if (!f.isDeclaration()) returning_leaf(f);
    // The functions a pointer may hold, decided before any probe takes an address.
    std::vector<Function*> targets;
    for (Function& f : m_)
      if (!f.isDeclaration() && !f.getName().starts_with("perfcast.") &&
          (f.hasExternalLinkage() || f.hasAddressTaken(nullptr, /*IgnoreCallbackUses=*/true)))
        targets.push_back(&f);
    // Before any probe: the variables whose stores the probes may not all see.
    // A probed function's call outside loops: the locals it writes through
    // their addresses are read once it returns (instrument), no escape.
    const std::set<const Function*> probed(functions.begin(), functions.end());
    const perfcast::features::EscapedAddresses escaped =
        perfcast::features::escaped_addresses(m_, [&](const CallBase& call) {
          Function* f = const_cast<Function*>(call.getFunction());
          return probed.count(f) && !fam_->getResult<LoopAnalysis>(*f).getLoopFor(call.getParent());
        });
    // Before any probe goes into a callee's entry: the fields it reads there.
    for (Function* f : functions) entry_fields_[f] = perfcast::features::fields_read_at_entry(*f, m_.getDataLayout());
    assignments_ = perfcast::features::copy_assignments(m_);  // the assignments a fill loop may call
    for (Function* f : functions) instrument(*f);
    for (Function* f : library) instrument(*f, /*library=*/true);
    record_escapes(escaped);
    // A variable assigned at several places outside loops (`n = 10; if (...) n = m;`):
    // the mean of its values is no one place's, which the binding must know.
    for (auto [slot, stores] : definitions_)
      if (stores > 1 && has_measures(slot)) add_code(names_[slot] + ".definitions", stores);
    const bool indirect = indirect_.finish(targets);
    if (names_.empty()) {
      placeholder_->eraseFromParent();
      return indirect;
    }
    finish();
    return true;
  }

 private:
  // The name of the next feature of this kind at `site`: #2, #3 on repeats.
  std::string next_name(const std::string& site, const std::string& what) {
    std::string base = site + ":" + what;
    unsigned n = ++repeats_[base];
    return n == 1 ? base : base + "#" + std::to_string(n);
  }
  bool kept(const std::string& name) const { return !keep_ || keep_->contains(name); }
  // A value feature's slot, or nothing when the keep list leaves it out; an
  // integer's is followed by its measures' three slots (has_measures), which a
  // keep list leaves out unless it names them (a learned model never does).
  std::optional<unsigned> add_value(const std::string& site, const std::string& what, bool integer) {
    return add_named_value(next_name(site, what), integer);
  }
  std::optional<unsigned> add_named_value(const std::string& name, bool integer) {
    if (!kept(name)) return std::nullopt;
    names_.push_back(name);
    kinds_.push_back(PERFCAST_FEATURE_VALUE);
    const auto slot = static_cast<unsigned>(names_.size() - 1);
    if (integer && kept(name + ".sum"))
      for (const char* measure : {".assignments", ".sum", ".changes"}) {
        names_.push_back(name + measure);
        kinds_.push_back(PERFCAST_FEATURE_MEASURE);
      }
    return slot;
  }
  bool has_measures(unsigned value_slot) const {
    return value_slot + 1 < kinds_.size() && kinds_[value_slot + 1] == PERFCAST_FEATURE_MEASURE;
  }
  // The first slot of a pair of counts named site:what.first and site:what.second.
  std::optional<unsigned> add_pair(const std::string& site, const std::string& what, const char* first,
                                   const char* second) {
    std::string name = next_name(site, what);
    if (!kept(name + "." + first) && !kept(name + "." + second)) return std::nullopt;
    for (const char* s : {first, second}) {
      names_.push_back(name + "." + s);
      kinds_.push_back(PERFCAST_FEATURE_COUNT);
    }
    return static_cast<unsigned>(names_.size() - 2);
  }

  // The slot of one count named site:what.counted (what#k on repeats).
  std::optional<unsigned> add_one(const std::string& site, const std::string& what, const char* counted) {
    std::string name = next_name(site, what) + "." + counted;
    if (!kept(name)) return std::nullopt;
    names_.push_back(name);
    kinds_.push_back(PERFCAST_FEATURE_COUNT);
    return static_cast<unsigned>(names_.size() - 1);
  }

  // A fact of the code (PERFCAST_FEATURE_CODE): its slot's value is set in
  // the initialiser, so every rank holds it from the start.
  void add_code(const std::string& name, double value) {
    names_.push_back(name);
    kinds_.push_back(PERFCAST_FEATURE_CODE);
    code_values_.emplace_back(static_cast<unsigned>(names_.size() - 1), value);
  }

  Value* field(IRBuilder<>& b, unsigned slot, unsigned member) {
    Value* base = b.CreateConstInBoundsGEP1_32(slot_type_, placeholder_, slot);
    return member == 0 ? base : b.CreateStructGEP(slot_type_, base, member);
  }
  Value* now(IRBuilder<>& b) {
    LoadInst* load = b.CreateLoad(i32_, now_global(), "perfcast.now");
    load->setAtomic(AtomicOrdering::Monotonic);
    load->setAlignment(Align(4));
    return load;
  }
  GlobalVariable* now_global() {
    if (!now_) {
      now_ = new GlobalVariable(m_, i32_, false, GlobalValue::ExternalLinkage, nullptr, PERFCAST_FEATURES_NOW);
      now_->setAlignment(Align(4));
    }
    return now_;
  }
  // count += increment; the epoch stamped when `changed` (or always, when null).
  void add_count(IRBuilder<>& b, unsigned slot, Value* increment, Value* changed, bool stamp = true) {
    Value* count = field(b, slot, 0);
    b.CreateStore(b.CreateAdd(b.CreateLoad(i64_, count), increment), count);
    if (!stamp) return;
    Value* epoch = field(b, slot, 2);
    Value* t = now(b);
    if (changed) t = b.CreateSelect(changed, t, b.CreateLoad(i32_, epoch));
    b.CreateStore(t, epoch);
  }
  void stamp(IRBuilder<>& b, unsigned slot) { b.CreateStore(now(b), field(b, slot, 2)); }

  // A value feature's slot takes `v` as its last value; an integer's measures
  // count it, add it to their sum and count it as a change when it differs
  // from the value before.
  void record_value(IRBuilder<>& b, unsigned slot, Value* v) {
    Type* t = v->getType();
    Value* d = t->isFloatingPointTy() ? b.CreateFPCast(v, double_)
               : t->getIntegerBitWidth() == 1 ? b.CreateUIToFP(v, double_)
                                              : b.CreateSIToFP(v, double_);
    if (has_measures(slot)) {
      // Before the value is replaced: whether this one differs from it.
      Value* before = b.CreateLoad(double_, field(b, slot, 1));
      Value* assigned = b.CreateICmpNE(b.CreateLoad(i32_, field(b, slot, 3)), ConstantInt::get(i32_, 0));
      Value* changed = b.CreateAnd(assigned, b.CreateFCmpUNE(before, d));
      add_count(b, slot + 1, ConstantInt::get(i64_, 1), nullptr, /*stamp=*/false);
      add_count(b, slot + 2, b.CreateSExtOrTrunc(v, i64_), nullptr, /*stamp=*/false);
      add_count(b, slot + 3, b.CreateZExt(changed, i64_), nullptr, /*stamp=*/false);
    }
    b.CreateStore(d, field(b, slot, 1));
    b.CreateStore(ConstantInt::get(i32_, 1), field(b, slot, 3));
    stamp(b, slot);
  }

  // A call of a program's function (outside the call-free nests, whose calls
  // are leaves that size nothing): its count `file:line:call.calls`, by which
  // perfcast probe knows whether the run arrived at a call the model holds on
  // a path of its own (probe_arrivals.h), and each of its integer arguments: a
  // value feature `file:line:call.argN` (N from 1) with an integer's
  // measures; and the fact of the code `file:line:call.callee`, the callee's
  // id, by which perfcast probe finds the call the analyser's parameter names
  // (probe_arguments.h). `#2` on a second call at the line: `call#2.arg1`.
  struct ArgumentPlan {
    CallBase* call;
    std::optional<unsigned> calls;                          // the site's calls
    std::vector<std::pair<ArgumentRead, unsigned>> reads;  // each argument and its slot
  };
  std::optional<ArgumentPlan> plan_arguments(CallBase& call, const TargetLibraryInfo& tli) {
    const Function* callee = call.getCalledFunction();
    LibFunc library_function;
    if (!callee || tli.getLibFunc(*callee, library_function) || from_system_header(*callee) ||
        in_system_header(call.getDebugLoc()) || !perfcast::features::program_callee(call))
      return std::nullopt;
    const std::string base = next_name(file_line(call.getDebugLoc(), m_), "call");
    ArgumentPlan plan{&call, std::nullopt, {}};
    if (kept(base + ".calls")) {
      names_.push_back(base + ".calls");
      kinds_.push_back(PERFCAST_FEATURE_COUNT);
      plan.calls = static_cast<unsigned>(names_.size() - 1);
    }
    for (const ArgumentRead& r : arguments_to_record(call))
      if (auto slot = add_named_value(base + ".arg" + std::to_string(r.position + 1), /*integer=*/true))
        plan.reads.emplace_back(r, *slot);
    if (plan.reads.empty() && !plan.calls) return std::nullopt;
    if (!keep_) add_code(base + ".callee", function_id(callee->getName()));
    return plan;
  }
  // Before the call: its count, and each argument's value, read through a
  // reference only where the reference is not null (an absent OPTIONAL argument).
  void instrument_arguments(const ArgumentPlan& plan) {
    if (plan.calls) {
      IRBuilder<> b(plan.call);
      add_count(b, *plan.calls, ConstantInt::get(i64_, 1), nullptr);
    }
    for (const auto& [read, slot] : plan.reads) {
      Value* passed = plan.call->getArgOperand(read.position);
      if (!read.referenced) {
        IRBuilder<> b(plan.call);
        record_value(b, slot, passed);
        continue;
      }
      IRBuilder<> before(plan.call);
      Instruction* then_term = SplitBlockAndInsertIfThen(before.CreateIsNotNull(passed), plan.call, false);
      IRBuilder<> b(then_term);
      record_value(b, slot, b.CreateLoad(read.referenced, passed));
    }
  }

  // A pair of slots per function in a cycle of direct calls within the unit,
  // and a count of entries per function another unit may call back (a cycle
  // across files: its calls back are the call sites the analyser names),
  // each named at its definition (feature_recursion.h).
  void plan_recursion(const std::vector<Function*>& functions) {
    DenseSet<const Function*> instrumented(functions.begin(), functions.end());
    for (const auto& cycle : perfcast::features::call_cycles(m_)) {
      const unsigned id = ++cycles_;
      for (const Function* f : cycle)
        if (instrumented.contains(f) && f->getSubprogram())
          if (auto slot = add_pair(definition_site(*f), "recursion", "entries", "recursive_calls"))
            recursive_[f] = {id, *slot};
    }
    for (const Function* f : perfcast::features::calling_other_units(m_, functions)) {
      const std::string name = f->getSubprogram() ? definition_site(*f) + ":function.entries" : "";
      if (recursive_.count(f) || name.empty() || !kept(name)) continue;
      names_.push_back(name);
      kinds_.push_back(PERFCAST_FEATURE_COUNT);
      entries_[f] = static_cast<unsigned>(names_.size() - 1);
    }
  }
  static std::string definition_site(const Function& f) {
    const DISubprogram* sp = f.getSubprogram();
    return (sys::path::filename(sp->getFilename()) + ":" + Twine(sp->getLine())).str();
  }

  // `base.function`, the id of `f`, when another function is defined at its line (a template's instances).
  void tag_instance(const Function& f, const std::string& base) {
    const DISubprogram* sp = f.getSubprogram();
    if (!sp || definitions_at_[{sp->getFilename().str(), sp->getLine()}] < 2) return;
    add_code(base + ".function", function_id(f.getName()));
  }

  // A slot per function of `functions` that a vtable of this module holds,
  // named at its definition.
  void plan_virtual(const std::vector<Function*>& functions) {
    const DenseSet<const Function*> in_vtables = perfcast::features::in_vtables(m_);
    for (Function* f : functions) {
      const DISubprogram* sp = f->getSubprogram();
      if (!in_vtables.contains(f) || !sp) continue;
      std::string name = next_name(definition_site(*f), "virtual") + ".entries";
      if (!kept(name)) continue;
      names_.push_back(name);
      kinds_.push_back(PERFCAST_FEATURE_COUNT);
      virtual_[f] = static_cast<unsigned>(names_.size() - 1);
    }
  }
  // The integer arguments (by value) of a function whose address the unit
  // takes, on its entry: `file:line:entry.argN` (N from 1), with an
  // integer's measures, and `.function` where another function is defined
  // at its line: by them perfcast probe binds an argument of a callee that
  // calls through pointers reach, which no call site's probe reads (probe_indirect.h).
  void plan_entry_arguments(const std::vector<Function*>& functions) {
    for (Function* f : functions) {
      if (!f->getSubprogram() || !f->hasAddressTaken(nullptr, /*IgnoreCallbackUses=*/true)) continue;
      const std::string base = next_name(definition_site(*f), "entry");
      for (Argument& a : f->args())
        if (is_integer(a.getType()))
          if (auto slot = add_named_value(base + ".arg" + std::to_string(a.getArgNo() + 1), /*integer=*/true))
            entry_arguments_[f].emplace_back(&a, *slot);
      if (entry_arguments_.count(f)) tag_instance(*f, base);
    }
  }
  void instrument_entry_arguments(Function& f) {
    auto reads = entry_arguments_.find(&f);
    if (reads == entry_arguments_.end()) return;
    IRBuilder<> b(&*f.getEntryBlock().getFirstNonPHIOrDbgOrAlloca());
    for (auto [argument, slot] : reads->second) record_value(b, slot, argument);
  }
  void instrument_virtual(Function& f) {
    auto slot = virtual_.find(&f);
    if (slot == virtual_.end()) return;
    IRBuilder<> b(&*f.getEntryBlock().getFirstNonPHIOrDbgOrAlloca());
    add_count(b, slot->second, ConstantInt::get(i64_, 1), nullptr);
  }

  // A recursive function's entry, and its calls of the functions of its
  // cycle; the entry of one another unit may call back.
  void instrument_recursion(Function& f) {
    if (auto counted = entries_.find(&f); counted != entries_.end()) {
      IRBuilder<> b(&*f.getEntryBlock().getFirstNonPHIOrDbgOrAlloca());
      add_count(b, counted->second, ConstantInt::get(i64_, 1), nullptr);
    }
    auto self = recursive_.find(&f);
    if (self == recursive_.end()) return;
    std::vector<std::pair<CallBase*, unsigned>> calls;
    for (Instruction& inst : instructions(f))
      if (auto* call = dyn_cast<CallBase>(&inst))
        if (auto callee = recursive_.find(call->getCalledFunction());
            callee != recursive_.end() && callee->second.cycle == self->second.cycle)
          calls.emplace_back(call, callee->second.slot);
    for (auto& [call, slot] : calls) {
      IRBuilder<> b(call);
      add_count(b, slot + 1, ConstantInt::get(i64_, 1), nullptr);
    }
    IRBuilder<> b(&*f.getEntryBlock().getFirstNonPHIOrDbgOrAlloca());
    add_count(b, self->second.slot, ConstantInt::get(i64_, 1), nullptr);
  }

  // A call that leaves a loop nest only by returning, soon: an LLVM
  // intrinsic, a C library function LLVM knows that neither unwinds nor is
  // declared not to return (sqrt, memcpy; not exit, abort or longjmp), or a
  // function of this module without loops that makes only such calls (an
  // index helper, before the inliner has put it in its callers' loops).
  bool plain_call(const CallBase& call, const TargetLibraryInfo& tli) {
    if (isa<IntrinsicInst>(call)) return true;
    const Function* callee = call.getCalledFunction();
    if (!callee || call.isInlineAsm()) return false;
    if (!callee->isDeclaration()) return returning_leaf(*callee);
    LibFunc library_function;
    return call.doesNotThrow() && !call.doesNotReturn() && tli.getLibFunc(*callee, library_function);
  }
  // Decided on the function as the front end wrote it (run() asks for every
  // function before any is instrumented; probes add neither loops nor calls
  // that would change the answer). A function being decided counts as not
  // one, so recursion is not.
  bool returning_leaf(const Function& f) {
    if (auto found = leaves_.find(&f); found != leaves_.end()) return found->second;
    leaves_[&f] = false;
    Function& g = const_cast<Function&>(f);
    bool leaf = f.hasExactDefinition() && fam_->getResult<LoopAnalysis>(g).empty();
    const TargetLibraryInfo& tli = fam_->getResult<TargetLibraryAnalysis>(g);
    for (const BasicBlock& bb : f)
      for (const Instruction& inst : bb)
        if (auto* call = dyn_cast<CallBase>(&inst); leaf && call && !plain_call(*call, tli)) leaf = false;
    return leaves_[&f] = leaf;
  }
  bool call_free(const Loop& loop, const TargetLibraryInfo& tli) {
    for (const BasicBlock* bb : loop.blocks())
      for (const Instruction& inst : *bb)
        if (auto* call = dyn_cast<CallBase>(&inst); call && !plain_call(*call, tli)) return false;
    return true;
  }

  // A count kept in a local variable of the function (zero at its entry)
  // inside a call-free nest; `minus`: the slot's count is this one's less
  // that one's (a branch's not-taken count: executions less taken).
  struct LocalCount {
    AllocaInst* local;
    unsigned slot;
    AllocaInst* minus = nullptr;
  };
  AllocaInst* local_count(Function& f) {
    IRBuilder<> b(&*f.getEntryBlock().getFirstInsertionPt());
    AllocaInst* local = b.CreateAlloca(i64_, nullptr, "perfcast.count");
    b.CreateStore(ConstantInt::get(i64_, 0), local);
    return local;
  }
  void add_local(IRBuilder<>& b, AllocaInst* local, Value* increment) {
    b.CreateStore(b.CreateAdd(b.CreateLoad(i64_, local), increment), local);
  }
  // Where a call-free nest is left: each local count added to its slot (the
  // epoch stamped when it grew) and set back to zero.
  void flush(const std::vector<LocalCount>& counts, const SmallVectorImpl<BasicBlock*>& exits) {
    for (BasicBlock* exit : exits) {
      IRBuilder<> b(&*exit->getFirstInsertionPt());
      std::vector<Value*> values;
      for (const LocalCount& c : counts) {
        Value* v = b.CreateLoad(i64_, c.local);
        if (c.minus) v = b.CreateSub(v, b.CreateLoad(i64_, c.minus));
        values.push_back(v);
      }
      for (size_t i = 0; i < counts.size(); ++i)
        add_count(b, counts[i].slot, values[i], b.CreateICmpNE(values[i], ConstantInt::get(i64_, 0)));
      for (const LocalCount& c : counts) b.CreateStore(ConstantInt::get(i64_, 0), c.local);
    }
  }

  void instrument(Function& f, bool library = false) {
    LoopInfo& loops = fam_->getResult<LoopAnalysis>(f);
    const TargetLibraryInfo& tli = fam_->getResult<TargetLibraryAnalysis>(f);
    // The outermost call-free loop around each block: its counts are local.
    region_.clear();
    local_counts_.clear();
    for (Loop* top : loops)
      for (Loop* l : depth_first(top))
        if (!region_.count(l->getHeader()) && call_free(*l, tli))
          for (BasicBlock* bb : l->blocks()) region_[bb] = l;
    // Decide everything on the unchanged function, then insert.
    struct ValueStore { StoreInst* store; unsigned slot; };
    struct WrittenVariable { CallBase* call; Value* variable; Type* type; unsigned slot; };
    struct Branch { BranchInst* branch; unsigned slot; };
    struct SwitchSide { SwitchInst* inst; BasicBlock* dest; unsigned slot; };
    struct MpiCall { CallBase* call; const MpiBinding* binding; unsigned slot; bool fortran; };
    struct MemoryCall { CallBase* call; unsigned slot; };
    struct LoopPlan { Loop* loop; unsigned slot; std::optional<unsigned> exits_slot; SmallVector<BasicBlock*, 2> late; };
    std::vector<ValueStore> stores;
    std::vector<WrittenVariable> written;
    struct FieldLoad { LoadInst* load; unsigned slot; };
    std::vector<FieldLoad> reads;
    std::vector<Branch> branches;
    std::vector<SwitchSide> switch_sides;
    std::vector<MpiCall> calls;
    std::vector<MemoryCall> memory_calls;
    std::vector<LoopPlan> loop_plans;
    std::vector<ArgumentPlan> argument_plans;
    struct EntryRead { CallBase* call; perfcast::features::ArgumentField field; unsigned slot; };
    std::vector<EntryRead> entry_reads;
    const auto indirect_calls = library ? decltype(indirect_.calls_of(f))() : indirect_.calls_of(f);
    const DominatorTree& dominators = fam_->getResult<DominatorTreeAnalysis>(f);
    const PostDominatorTree* post_dominators = nullptr;  // asked for at the first branch probed

    const std::string library_tag =
        library ? "@" + utohexstr(static_cast<std::uint64_t>(function_id(f.getName()))) : "";
    const std::set<std::string> code_lines = lines_with_code(f, m_);
    for (Loop* top : loops)
      for (Loop* l : depth_first(top)) {
        const std::string site = loop_site(*l, code_lines, m_);
        if (auto slot = add_pair(site, "loop" + library_tag, "headers", "entries")) {
          loop_plans.push_back({l, *slot, std::nullopt, exits_after_work(*l, dominators)});
          const std::string base = names_[*slot].substr(0, names_[*slot].size() - std::strlen(".headers"));
          // How deep in loops of its own line (a Fortran array statement's nest), as the analyser's are.
          unsigned depth = 1;
          for (Loop* p = l->getParentLoop(); p; p = p->getParentLoop()) depth += loop_site(*p, code_lines, m_) == site;
          if (depth > 1) add_code(base + ".depth", depth);
          DebugLoc fill_at;
          if (auto bytes = fill_bytes(*l, m_.getDataLayout(), &fill_at, &assignments_)) add_code(base + ".fill_bytes", *bytes);
          if (fill_at && fill_at.getLine() && file_line(fill_at, m_) != site)  // the memset takes its store's line
            add_code(base + fill_line_fact(site, fill_at, m_), fill_at.getLine());
          // Named at its body's first line: the statement's, where the
          // analyser may name it (probe_bind's probe_loop).
          if (const DebugLoc start = l->getStartLoc(); start && start.getLine() && site != file_line(start, m_))
            add_code(base + ".statement_line", start.getLine());
          tag_instance(f, base);
          // A loop left only from its back edges (`do ... while`: the test is at the bottom) runs its
          // header once per iteration, not once more to leave (`while (a && b)` leaves from the block
          // after b's test); so does one never left from its header nor by a test before its body's
          // work (`DO` ... work ... `EXIT`): each iteration it starts runs its header once.
          SmallVector<BasicBlock*, 4> exiting;
          l->getExitingBlocks(exiting);
          if (!exiting.empty() && llvm::all_of(exiting, [&](BasicBlock* bb) { return l->isLoopLatch(bb); }))
            add_code(base + ".tested_at_bottom", 1);
          else if (!exiting.empty() && !l->isLoopExiting(l->getHeader()) &&
                   llvm::none_of(exiting, [&](BasicBlock* bb) { return tested_first(*l, *bb, m_); }))
            add_code(base + ".left_from_body", 1);
          // Left by one test on another line (`DO; stat = next(); IF (stat /= 0) EXIT`): rotated,
          // the optimised loop starts at that test, where the analyser may name it.
          if (exiting.size() == 1)
            if (const DebugLoc test = exiting.front()->getTerminator()->getDebugLoc();
                test && test.getLine() && file_line(test, m_) != site)
              add_code(base + ".exit_line", test.getLine());
          if (!loop_plans.back().late.empty()) {
            loop_plans.back().exits_slot = static_cast<unsigned>(names_.size());
            names_.push_back(base + ".exits_after_work");
            kinds_.push_back(PERFCAST_FEATURE_COUNT);
          }
        }
      }
    for (BasicBlock& bb : f) {
      Loop* loop = loops.getLoopFor(&bb);
      for (Instruction& inst : bb) {
        if (auto* store = dyn_cast<StoreInst>(&inst); store && !loop) {
          if (auto slot = library ? std::nullopt : value_slot(*store)) stores.push_back({store, *slot});
        } else if (auto* load = dyn_cast<LoadInst>(&inst); load && !loop && !library && is_integer(load->getType())) {
          if (auto slot = field_read_slot(*load)) reads.push_back({load, *slot});
          else if (auto global = global_read_slot(*load)) reads.push_back({load, *global});
        } else if (auto* call = dyn_cast<CallBase>(&inst)) {
          if (!loop && !library)
            for (const Use& arg : call->args())
              if (Value* v = perfcast::features::variable_written_by_call(arg)) {
                auto* local = dyn_cast<AllocaInst>(v);
                if (auto slot = local ? local_slot(*local) : global_slot(*cast<GlobalVariable>(v)))
                  written.push_back({call, v, local ? local->getAllocatedType() : cast<GlobalVariable>(v)->getValueType(), *slot});
              }
          Function* callee = call->getCalledFunction();
          if (!callee) continue;
          if (!region_.lookup(&bb) && !library) {
            if (auto plan = plan_arguments(*call, tli)) argument_plans.push_back(std::move(*plan));
            // The fields a callee reads on entry, as the caller's variable's reads (feature_variables.h).
            for (const auto& field : entry_fields_.lookup(callee))
              if (auto read = perfcast::features::field_read_at_call(*call, field, m_.getDataLayout()))
                if (auto slot = field_read_slot(*read)) entry_reads.push_back({call, field, *slot});
          }
          if (const char* kind = memory_call_kind(*call)) {
            if (auto slot = add_pair(file_line(call->getDebugLoc(), m_), kind + library_tag, "calls", "bytes")) {
              memory_calls.push_back({call, *slot});
              tag_instance(f, names_[*slot].substr(0, names_[*slot].size() - std::strlen(".calls")));
            }
            continue;
          }
          if (library) continue;
          bool fortran = false;
          const MpiBinding* binding = mpi_binding(callee->getName(), fortran);
          if (!binding || call->arg_size() <= static_cast<unsigned>(std::max(binding->count, binding->datatype)))
            continue;
          if (auto slot = add_pair(file_line(call->getDebugLoc(), m_), binding->function, "calls", "bytes"))
            calls.push_back({call, binding, *slot, fortran});
        }
      }
      if (library) continue;
      if (auto* sw = dyn_cast<SwitchInst>(bb.getTerminator()); sw && !region_.lookup(&bb)) {
        // A switch: each side's runs (the default first) and its first line.
        SmallPtrSet<BasicBlock*, 8> seen;
        const std::string site = file_line(sw->getDebugLoc(), m_);
        for (unsigned k = 0; k < sw->getNumSuccessors(); ++k) {
          if (!seen.insert(sw->getSuccessor(k)).second) continue;
          auto slot = add_one(site, "switch", "runs");
          if (!slot) continue;
          switch_sides.push_back({sw, sw->getSuccessor(k), *slot});
          const std::string base = names_[*slot].substr(0, names_[*slot].size() - std::strlen(".runs"));
          if (unsigned line = side_line(*sw, k, nullptr)) add_code(base + ".side_line", line);
          tag_instance(f, base);
        }
        continue;
      }
      auto* br = dyn_cast<BranchInst>(bb.getTerminator());
      if (!br || !br->isConditional()) continue;
      if (loop && (loop->isLoopLatch(&bb) || (loop->getHeader() == &bb && loop->isLoopExiting(&bb)))) continue;
      if (auto slot = add_pair(file_line(br->getDebugLoc(), m_), "branch", "taken", "not_taken")) {
        branches.push_back({br, *slot});
        // Where each side starts: `taken` is the condition's true side here,
        // which the optimised code the analyser reads may test the other way.
        std::string base = names_[*slot].substr(0, names_[*slot].size() - std::strlen(".taken"));
        unsigned taken_line = side_line(*br, 0, nullptr), not_taken_line = side_line(*br, 1, nullptr);
        if (taken_line && taken_line == not_taken_line) {  // one side may be the loop's continuation
          taken_line = side_line(*br, 0, loop);
          not_taken_line = side_line(*br, 1, loop);
        }
        if (taken_line) add_code(base + ".taken_line", taken_line);
        if (not_taken_line) add_code(base + ".not_taken_line", not_taken_line);
        // The one side that does nothing (a bare RETURN), which the model's empty side is.
        if (!post_dominators) post_dominators = &fam_->getResult<PostDominatorTreeAnalysis>(f);
        const bool taken_empty = empty_side(*br, 0, *post_dominators),
                   not_taken_empty = empty_side(*br, 1, *post_dominators);
        if (taken_empty != not_taken_empty) add_code(base + (taken_empty ? ".taken_empty" : ".not_taken_empty"), 1);
        tag_instance(f, base);
        Value* first = nullptr;
        bool is_or = false;
        if (logical_operands(br->getCondition(), first, is_or))
          if (auto first_slot = add_pair(file_line(br->getDebugLoc(), m_), "first_test", "decides", "passes_on"))
            br->setMetadata(kFirstTestMetadata,
                            MDNode::get(ctx_, ConstantAsMetadata::get(ConstantInt::get(i64_, *first_slot))));
      }
    }

    // A local assigned at two places or more outside loops (its stores, calls it is handed
    // to): its reads after the merge (feature_merged_reads.h), the value the optimised code
    // holds, and each assignment's line (`n@12`), where the model reads one of them.
    std::vector<AllocaInst*> assigned_locals;
    DenseMap<AllocaInst*, unsigned> assignments_of;
    auto assigned = [&](AllocaInst* local) {
      if (++assignments_of[local] == 2 && is_integer(local->getAllocatedType())) assigned_locals.push_back(local);
    };
    for (auto& s : stores)
      if (auto* local = dyn_cast<AllocaInst>(s.store->getPointerOperand()); local && is_integer(local->getAllocatedType()))
        assigned(local);
    for (auto& w : written)
      if (auto* local = dyn_cast<AllocaInst>(w.variable);
          local && std::none_of(&written.front(), &w, [&](const WrittenVariable& o) { return o.call == w.call && o.variable == local; }))
        assigned(local);
    for (AllocaInst* local : assigned_locals)
      for (LoadInst* load : merged_reads(*local, loops))
        if (auto slot = local_read_slot(*local)) reads.push_back({load, *slot});
    DenseMap<std::pair<AllocaInst*, unsigned>, std::optional<unsigned>> line_slots;
    auto record_line = [&](IRBuilder<>& b, AllocaInst* local, const DebugLoc& at, Value* v) {
      if (!local || assignments_of.lookup(local) < 2 || !at || at.getLine() == 0) return;
      auto [slot, added] = line_slots.try_emplace({local, at.getLine()});
      if (added) slot->second = local_line_slot(*local, at.getLine());
      if (slot->second) record_value(b, *slot->second, v);
    };
    for (auto& s : stores) {
      ++definitions_[s.slot];
      IRBuilder<> b(s.store->getNextNode());
      record_value(b, s.slot, s.store->getValueOperand());
      record_line(b, dyn_cast<AllocaInst>(s.store->getPointerOperand()), s.store->getDebugLoc(), s.store->getValueOperand());
    }
    for (auto& w : written) {  // once the call returns, each local it wrote (a slot once per call)
      if (std::any_of(&written.front(), &w, [&](const WrittenVariable& o) { return o.call == w.call && o.slot == w.slot; }))
        continue;
      ++definitions_[w.slot];
      auto* invoke = dyn_cast<InvokeInst>(w.call);
      IRBuilder<> b(invoke ? &*invoke->getNormalDest()->getFirstInsertionPt() : w.call->getNextNode());
      Value* after = b.CreateLoad(w.type, w.variable);
      record_value(b, w.slot, after);
      record_line(b, dyn_cast<AllocaInst>(w.variable), w.call->getDebugLoc(), after);
    }
    for (auto& r : reads) {
      IRBuilder<> b(r.load->getNextNode());
      record_value(b, r.slot, r.load);
    }
    // The exits of the call-free nests, found before any edge is split.
    DenseMap<Loop*, SmallVector<BasicBlock*, 4>> region_exits;
    for (auto& [bb, region] : region_)
      if (!region_exits.count(region)) region->getUniqueExitBlocks(region_exits[region]);
    for (auto& br : branches) {
      IRBuilder<> b(br.branch);
      Value* taken = br.branch->getCondition();
      if (Loop* region = region_.lookup(br.branch->getParent())) {
        // Executions (an induction variable where the branch runs every
        // iteration), and the taken count: one add in the taken block when
        // only this branch leads there inside the nest, else the condition added.
        AllocaInst* taken_count = local_count(f);
        AllocaInst* executions = local_count(f);
        BasicBlock* taken_block = br.branch->getSuccessor(0);
        if (taken_block->getSinglePredecessor() == br.branch->getParent() && region_.lookup(taken_block) == region) {
          IRBuilder<> t(&*taken_block->getFirstInsertionPt());
          add_local(t, taken_count, ConstantInt::get(i64_, 1));
        } else {
          add_local(b, taken_count, b.CreateZExt(taken, i64_));
        }
        add_local(b, executions, ConstantInt::get(i64_, 1));
        local_counts_[region].push_back({taken_count, br.slot});
        local_counts_[region].push_back({executions, br.slot + 1, taken_count});
        continue;
      }
      Value* not_taken = b.CreateNot(taken);
      add_count(b, br.slot, b.CreateZExt(taken, i64_), taken);
      add_count(b, br.slot + 1, b.CreateZExt(not_taken, i64_), not_taken);
    }
    for (auto& side : switch_sides) {
      IRBuilder<> b(side.inst);
      Value* ran = switch_goes_to(b, *side.inst, side.dest);
      add_count(b, side.slot, b.CreateZExt(ran, i64_), ran);
    }
    for (auto& c : calls) {
      IRBuilder<> b(c.call);
      Value* count = c.call->getArgOperand(c.binding->count);
      Value* datatype = c.call->getArgOperand(c.binding->datatype);
      if (c.fortran) {
        // INTEGER by reference (the default kind, 4 bytes); the handle stays an address.
        if (!count->getType()->isPointerTy() || !datatype->getType()->isPointerTy()) continue;
        count = b.CreateLoad(i32_, count);
      } else if (!count->getType()->isIntegerTy() || !datatype->getType()->isPointerTy()) {
        continue;
      }
      FunctionCallee hook = m_.getOrInsertFunction(c.fortran ? PERFCAST_FEATURES_MPI_FORTRAN : PERFCAST_FEATURES_MPI,
                                                   Type::getVoidTy(ctx_), ptr_, ptr_, i64_, ptr_);
      b.CreateCall(hook, {field(b, c.slot, 0), field(b, c.slot + 1, 0), b.CreateSExtOrTrunc(count, i64_), datatype});
    }
    for (auto& mc : memory_calls) {
      IRBuilder<> b(mc.call);
      add_count(b, mc.slot, ConstantInt::get(i64_, 1), nullptr);
      add_count(b, mc.slot + 1, b.CreateZExtOrTrunc(mc.call->getArgOperand(2), i64_), nullptr, false);
    }
    for (auto& lp : loop_plans) {
      instrument_loop(f, *lp.loop, lp.slot);
      if (lp.exits_slot) count_exits(f, *lp.loop, lp.late, *lp.exits_slot);
    }
    for (auto& [region, counts] : local_counts_) flush(counts, region_exits[region]);
    instrument_recursion(f);
    instrument_virtual(f);
    instrument_entry_arguments(f);
    // Last: the probes split the calls' blocks, which the loops above were planned on.
    for (auto& [call, site] : indirect_calls) indirect_.instrument(*call, site);
    for (const ArgumentPlan& plan : argument_plans) instrument_arguments(plan);
    for (const EntryRead& r : entry_reads) {
      IRBuilder<> b(r.call);
      Value* at = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), r.call->getArgOperand(r.field.position), r.field.offset);
      record_value(b, r.slot, b.CreateLoad(r.field.type, at));
    }
  }

  // Header executions count at the header without an epoch (an atomic load
  // each iteration would cost the loop its optimisations); the header count's
  // epoch is stamped where the loop is left, when that count is final for now.
  // Entries count on the edges from outside the loop. In a call-free nest
  // both count locally, flushed where the nest is left.
  void instrument_loop(Function& f, Loop& loop, unsigned slot) {
    BasicBlock* header = loop.getHeader();
    Loop* region = region_.lookup(header);
    AllocaInst* local_entries = nullptr;
    if (region) {
      AllocaInst* headers = local_count(f);
      IRBuilder<> b(&*header->getFirstInsertionPt());
      add_local(b, headers, ConstantInt::get(i64_, 1));
      local_counts_[region].push_back({headers, slot});
      if (region != &loop) {  // a nested loop is entered from inside the nest
        local_entries = local_count(f);
        local_counts_[region].push_back({local_entries, slot + 1});
      }
    } else {
      IRBuilder<> b(&*header->getFirstInsertionPt());
      add_count(b, slot, ConstantInt::get(i64_, 1), nullptr, /*stamp=*/false);
    }
    SmallVector<BasicBlock*, 4> exits;
    if (!region) loop.getUniqueExitBlocks(exits);
    for (BasicBlock* exit : exits) {
      if (exit->isEHPad()) continue;
      IRBuilder<> b(&*exit->getFirstInsertionPt());
      stamp(b, slot);
    }
    SmallVector<BasicBlock*, 4> outside;
    for (BasicBlock* pred : predecessors(header))
      if (!loop.contains(pred) && std::find(outside.begin(), outside.end(), pred) == outside.end())
        outside.push_back(pred);
    for (BasicBlock* pred : outside) {
      Instruction* term = pred->getTerminator();
      auto* br = dyn_cast<BranchInst>(term);
      IRBuilder<> b(term);
      if (!br || !br->isConditional() || br->getSuccessor(0) == br->getSuccessor(1)) {
        if (!br && !isa<SwitchInst>(term)) continue;  // invoke, callbr: entries are not counted
        if (isa<SwitchInst>(term)) {
          BasicBlock* edge = SplitEdge(pred, header);
          b.SetInsertPoint(edge->getTerminator());
        }
        if (local_entries)
          add_local(b, local_entries, ConstantInt::get(i64_, 1));
        else
          add_count(b, slot + 1, ConstantInt::get(i64_, 1), nullptr);
        continue;
      }
      Value* into = br->getSuccessor(0) == header ? br->getCondition() : b.CreateNot(br->getCondition());
      if (local_entries)
        add_local(b, local_entries, b.CreateZExt(into, i64_));
      else
        add_count(b, slot + 1, b.CreateZExt(into, i64_), into);
    }
  }

  // The exits of `loop` from the blocks `late` (exits_after_work), counted on
  // their edges: in a call-free nest locally, flushed with its other counts.
  void count_exits(Function& f, Loop& loop, const SmallVectorImpl<BasicBlock*>& late, unsigned slot) {
    Loop* region = region_.lookup(loop.getHeader());
    AllocaInst* local = region ? local_count(f) : nullptr;
    if (local) local_counts_[region].push_back({local, slot});
    for (BasicBlock* e : late) {
      auto* br = cast<BranchInst>(e->getTerminator());
      IRBuilder<> b(br);
      Value* leaves = ConstantInt::getTrue(ctx_);
      if (br->isConditional()) {
        const bool first_out = !loop.contains(br->getSuccessor(0)), second_out = !loop.contains(br->getSuccessor(1));
        if (!(first_out && second_out)) leaves = first_out ? br->getCondition() : b.CreateNot(br->getCondition());
      }
      if (local)
        add_local(b, local, b.CreateZExt(leaves, i64_));
      else
        add_count(b, slot, b.CreateZExt(leaves, i64_), leaves);
    }
  }

  std::pair<std::string, std::string> global_site_name(const GlobalVariable& global) const {
    return perfcast::features::global_site_name(global, m_);
  }

  // The slot of a store to a named scalar variable, or nothing.
  std::optional<unsigned> value_slot(StoreInst& store) {
    Type* t = store.getValueOperand()->getType();
    if (!is_scalar(t)) return std::nullopt;
    Value* target = store.getPointerOperand();
    auto found = variable_slots_.find(target);
    if (found != variable_slots_.end()) return found->second;  // named once, kept or not
    if (auto* alloca = dyn_cast<AllocaInst>(target)) {
      if (alloca->getAllocatedType() != t) return field_slot(store);  // the first field of a struct?
      return local_slot(*alloca);
    }
    if (auto* global = dyn_cast<GlobalVariable>(target)) {
      if (global->getName().starts_with("perfcast.")) return std::nullopt;
      if (global->getValueType() != t) return field_slot(store);  // the first field of a struct?
      return global_slot(*global);
    }
    return field_slot(store);
  }
  // The slot of a global's assignments, named at its declaration.
  std::optional<unsigned> global_slot(GlobalVariable& global) {
    auto found = variable_slots_.find(&global);
    if (found != variable_slots_.end()) return found->second;  // named once, kept or not
    auto [site, name] = global_site_name(global);
    std::optional<unsigned> slot = add_value(site, name, is_integer(global.getValueType()));
    // A global's symbol tells it from other variables of its name (a module's `n`).
    if (slot && has_measures(*slot)) add_code(names_[*slot] + ".symbol", function_id(global.getName()));
    variable_slots_[&global] = slot;
    return slot;
  }

  // The slot of a named scalar local, or nothing.
  std::optional<unsigned> local_slot(AllocaInst& alloca) {
    Type* t = alloca.getAllocatedType();
    if (!is_scalar(t)) return std::nullopt;
    auto found = variable_slots_.find(&alloca);
    if (found != variable_slots_.end()) return found->second;  // named once, kept or not
    DILocalVariable* var = variable_of(&alloca);
    if (!var || var->getName().empty()) return std::nullopt;
    std::optional<unsigned> slot =
        add_value((sys::path::filename(var->getFilename()) + ":" + Twine(var->getLine())).str(),
                  var->getName().str(), is_integer(t));
    variable_slots_[&alloca] = slot;
    return slot;
  }

  // The slot of a named integer local's assignments at `line` (`n@12`, at the
  // local's declaration as its own slot), or nothing.
  std::optional<unsigned> local_line_slot(AllocaInst& alloca, unsigned line) {
    DILocalVariable* var = variable_of(&alloca);
    if (!var || var->getName().empty() || !is_integer(alloca.getAllocatedType())) return std::nullopt;
    return add_value((sys::path::filename(var->getFilename()) + ":" + Twine(var->getLine())).str(),
                     (var->getName() + "@" + Twine(line)).str(), true);
  }

  // `.address_escapes` = 1, a fact of the code, for each variable of this
  // unit whose address escapes (feature_variables.h): of its probe where it
  // has one, else named as its probe would be, for a global or a field another
  // unit may store to and probe. A keep list (a learned model) leaves them out.
  void record_escapes(const perfcast::features::EscapedAddresses& escaped) {
    if (keep_) return;
    for (const Value* v : escaped.variables) {
      auto found = variable_slots_.find(const_cast<Value*>(v));
      if (found != variable_slots_.end()) {
        if (found->second && has_measures(*found->second)) add_code(names_[*found->second] + ".address_escapes", 1);
      } else if (auto* global = dyn_cast<GlobalVariable>(v);
                 global && is_integer(global->getValueType()) && !global->getName().starts_with("__")) {  // not `__dso_handle`
        auto [site, name] = global_site_name(*global);
        const std::string probe = next_name(site, name);
        add_code(probe + ".address_escapes", 1);
        add_code(probe + ".symbol", function_id(global->getName()));
      }
    }
    for (const auto& [member, struct_name] : escaped.fields) {
      auto found = field_slots_.find(member);
      if (found == field_slots_.end())
        add_code(next_name(field_site(member), struct_name + "." + member->getName().str()) + ".address_escapes", 1);
      else if (found->second && has_measures(*found->second))
        add_code(names_[*found->second] + ".address_escapes", 1);
    }
  }

  // The slot of a read of a struct variable's field outside loops, one per
  // variable and field (feature_variables.h, field_read): `file:line:var.field.read`.
  // A callee's read on entry is one at its call (field_read_at_call).
  std::optional<unsigned> field_read_slot(LoadInst& load) {
    auto read = field_read(load, m_.getDataLayout());
    return read ? field_read_slot(*read) : std::nullopt;
  }
  std::optional<unsigned> field_read_slot(const perfcast::features::FieldRead& read) {
    auto [it, fresh] = read_slots_.try_emplace(read.site + ":" + read.name);
    if (fresh) it->second = add_value(read.site, read.name + ".read", true);
    return it->second;
  }

  // The slot of a local's reads after several assignments (merged_reads),
  // one per local: `file:line:name.read` at its declaration, as its stores'
  // probe is named with `.read` added.
  std::optional<unsigned> local_read_slot(AllocaInst& local) {
    auto [it, fresh] = local_read_slots_.try_emplace(&local);
    if (fresh) {
      DILocalVariable* var = variable_of(&local);
      if (var && !var->getName().empty())
        it->second = add_value((sys::path::filename(var->getFilename()) + ":" + Twine(var->getLine())).str(),
                               var->getName().str() + ".read", true);
    }
    return it->second;
  }

  // The slot of a read outside loops of an integer global, one per global:
  // `file:line:name.read` at its declaration, its symbol a fact of the code as
  // its stores' probe has. What the program read, where the stores that set it
  // are none the probes see (a Fortran namelist READ writes a module's
  // variables in the runtime) or go through an address that escapes.
  std::optional<unsigned> global_read_slot(LoadInst& load) {
    auto* global = dyn_cast<GlobalVariable>(load.getPointerOperand());
    if (!global || global->isConstant() || global->getValueType() != load.getType() ||
        global->getName().starts_with("perfcast.") || global->getName().starts_with("__"))
      return std::nullopt;
    auto [it, fresh] = read_slots_.try_emplace(("@" + global->getName()).str());
    if (fresh) {
      auto [site, name] = global_site_name(*global);
      it->second = add_value(site, name + ".read", true);
      if (it->second && has_measures(*it->second))
        add_code(names_[*it->second] + ".symbol", function_id(global->getName()));
    }
    return it->second;
  }

  // The slot of a store into a scalar field of a struct whose debug type is
  // known (feature_variables.h, field_at), or nothing.
  std::optional<unsigned> field_slot(StoreInst& store) {
    Type* t = store.getValueOperand()->getType();
    auto field = field_at(store.getPointerOperand(), m_.getDataLayout().getTypeStoreSizeInBits(t), m_.getDataLayout());
    if (!field) return std::nullopt;
    auto found = field_slots_.find(field->member);
    if (found != field_slots_.end()) return found->second;  // named once, kept or not
    std::optional<unsigned> slot = add_value(field_site(field->member), field->struct_name + "." + field->member->getName().str(), is_integer(t));
    field_slots_[field->member] = slot;
    return slot;
  }
  static std::string field_site(const DIDerivedType* member) {
    return (sys::path::filename(member->getFilename()) + ":" + Twine(member->getLine())).str();
  }

  // The slots, the name and kind tables, the descriptor and its constructor.
  void finish() {
    const unsigned n = static_cast<unsigned>(names_.size());
    auto* slots_type = ArrayType::get(slot_type_, n);
    Constant* initial = Constant::getNullValue(slots_type);
    if (!code_values_.empty()) {
      std::vector<Constant*> each(n, Constant::getNullValue(slot_type_));
      for (auto [slot, value] : code_values_)
        each[slot] = ConstantStruct::get(slot_type_, {ConstantInt::get(i64_, 0), ConstantFP::get(double_, value),
                                                      ConstantInt::get(i32_, 0), ConstantInt::get(i32_, 1)});
      initial = ConstantArray::get(slots_type, each);
    }
    auto* slots = new GlobalVariable(m_, slots_type, false, GlobalValue::InternalLinkage, initial,
                                     "perfcast.features.slots");
    slots->setAlignment(Align(64));
    placeholder_->replaceAllUsesWith(slots);
    placeholder_->eraseFromParent();

    std::vector<Constant*> name_constants;
    for (const auto& name : names_) {
      auto* text = ConstantDataArray::getString(ctx_, name);
      auto* g = new GlobalVariable(m_, text->getType(), true, GlobalValue::PrivateLinkage, text, "perfcast.features.name");
      g->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
      name_constants.push_back(g);
    }
    auto* names_type = ArrayType::get(ptr_, n);
    auto* names = new GlobalVariable(m_, names_type, true, GlobalValue::PrivateLinkage,
                                     ConstantArray::get(names_type, name_constants), "perfcast.features.names");
    auto* kinds = new GlobalVariable(m_, ArrayType::get(i8_, n), true, GlobalValue::PrivateLinkage,
                                     ConstantDataArray::get(ctx_, kinds_), "perfcast.features.kinds");
    auto* module_type = StructType::get(ctx_, {ptr_, i32_, ptr_, ptr_, ptr_});
    auto* descriptor = new GlobalVariable(
        m_, module_type, false, GlobalValue::InternalLinkage,
        ConstantStruct::get(module_type, {ConstantPointerNull::get(ptr_), ConstantInt::get(i32_, n), names, kinds, slots}),
        "perfcast.features.module");
    register_in_constructor(m_, PERFCAST_FEATURES_REGISTER, descriptor, "perfcast.features.ctor");
  }

  Module& m_;
  LLVMContext& ctx_;
  FunctionAnalysisManager* fam_ = nullptr;
  Type *i8_, *i32_, *i64_, *double_;
  PointerType* ptr_;
  StructType* slot_type_;
  GlobalVariable* placeholder_;
  GlobalVariable* now_ = nullptr;
  std::vector<std::string> names_;
  std::vector<uint8_t> kinds_;
  std::vector<std::pair<unsigned, double>> code_values_;  // slot, value
  StringMap<unsigned> repeats_;
  DenseMap<Value*, std::optional<unsigned>> variable_slots_;
  std::map<unsigned, unsigned> definitions_;  // value slot -> stores probed
  DenseMap<const DIDerivedType*, std::optional<unsigned>> field_slots_;
  StringMap<std::optional<unsigned>> read_slots_;
  DenseMap<const AllocaInst*, std::optional<unsigned>> local_read_slots_;
  DenseMap<const Function*, std::vector<perfcast::features::ArgumentField>> entry_fields_;
  std::optional<StringSet<>> keep_;
  struct Recursive {
    unsigned cycle, slot;  // the cycle of calls (numbered), the first slot of its pair
  };
  DenseMap<const Function*, Recursive> recursive_;
  DenseMap<const Function*, unsigned> virtual_;  // a virtual function's entries slot
  DenseMap<const Function*, std::vector<std::pair<Argument*, unsigned>>> entry_arguments_;  // and their slots
  DenseMap<const Function*, unsigned> entries_;  // one another unit may call back: its entries slot
  std::map<std::pair<std::string, unsigned>, unsigned> definitions_at_;  // functions per definition file and line
  unsigned cycles_ = 0;
  // Per function: the outermost call-free loop of each block in one, and the counts each keeps locally.
  DenseMap<const BasicBlock*, Loop*> region_;
  MapVector<Loop*, std::vector<LocalCount>> local_counts_;
  DenseMap<const Function*, bool> leaves_;  // returning_leaf's answers
  perfcast::features::IndirectSiteProbes indirect_{m_};
  perfcast::features::CopyAssignments assignments_;  // copy_assignments, before any probe
};

struct FeatureProbesPass : PassInfoMixin<FeatureProbesPass> {
  PreservedAnalyses run(Module& m, ModuleAnalysisManager& mam) {
    return FeatureProbes(m, mam).run() ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

}  // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "perfcast-features", "1", [](PassBuilder& pb) {
            pb.registerPipelineStartEPCallback(
                [](ModulePassManager& mpm, OptimizationLevel) { mpm.addPass(FeatureProbesPass()); });
            pb.registerOptimizerLastEPCallback(
                [](ModulePassManager& mpm, OptimizationLevel) { mpm.addPass(FirstTestCounts()); });
          }};
}
