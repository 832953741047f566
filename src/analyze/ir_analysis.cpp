// LLVM IR -> program model. Optimises each module in-process (after telling LLVM
// what MPI functions may touch), links them, propagates the constants the
// whole program proves (functions' constant returns), then walks every
// defined function: loops from LoopInfo with trip counts from ScalarEvolution,
// branches as conditions or probabilities, counted work per block, MPI calls
// and calls between functions (function_analyser.h and the parts it
// composes); prices loops with MCA
// (mca_pricing.h) and gives the program model's own items (to_model.h).
//
// Compiled with LLVM's own flags (-fno-rtti where LLVM was built without RTTI). Exceptions are thrown only from our own
// frames (LLVM calls none of our code back), never through LLVM's.
#include <fnmatch.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <llvm/Demangle/Demangle.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/GlobalAlias.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/IPO/SCCP.h>
#include <llvm/Transforms/Utils/Mem2Reg.h>

#include "analyze/ir_analysis.h"
#include "analyze/fortran_bindings.h"
#include "analyze/mca.h"
#include "analyze/mca_pricing.h"
#include "analyze/module_context.h"
#include "analyze/program_tree.h"
#include "analyze/range_exits.h"
#include "analyze/to_model.h"
#include "analyze/variable_reads.h"
#include "ir_rewrites/function_aliases.h"
#include "ir_rewrites/lineless_helpers.h"
#include "support/error.h"
#include "support/toolchain.h"

namespace perfcast::analyze::detail {

namespace {

// ---------------------------------------------------------------- optimisation

// MPI functions touch only their arguments and MPI's own state. Said before the
// optimisation, this keeps globals and locals read across MPI calls in registers,
// so loop bounds stay computable. MPI_Wtime/Wtick read a clock: left alone, so
// two calls are never merged.
//
// Fortran's bindings (mpi_send_) take every argument by reference: those the
// C binding takes by value or as a pointer to const (counts, datatypes, peers,
// tags, communicators, send buffers) it only reads, said with readonly so
// that the analysis finds the store before the call as the value it reads,
// not the call itself as a writer.
void annotate_mpi_declarations(llvm::Module& m) {
  for (llvm::Function& f : m) {
    if (!f.isDeclaration()) continue;
    llvm::StringRef n = f.getName();
    const bool fortran = is_fortran_mpi_symbol(n.str());
    if (!n.starts_with("MPI_") && !n.starts_with("PMPI_") && !fortran) continue;
    if (n.ends_with("Wtime") || n.ends_with("Wtick") || n.ends_with("wtime_") || n.ends_with("wtick_")) continue;
    f.setMemoryEffects(llvm::MemoryEffects::inaccessibleOrArgMemOnly());
    f.addFnAttr(llvm::Attribute::NoUnwind);
    if (!n.ends_with("Abort") && !n.ends_with("abort_")) f.addFnAttr(llvm::Attribute::WillReturn);
    if (fortran) {
      std::vector<bool> inputs = fortran_mpi_inputs(n.str());
      for (unsigned a = 0; a < inputs.size() && a < f.arg_size(); ++a)
        if (inputs[a] && f.getArg(a)->getType()->isPointerTy()) f.addParamAttr(a, llvm::Attribute::ReadOnly);
    }
  }
}

std::unique_ptr<llvm::TargetMachine> target_machine(llvm::Module& m) {
  static bool initialised = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialised;
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(m.getTargetTriple(), error);
  if (!target) throw UserError(fmt::format("LLVM has no target for '{}': {}", m.getTargetTriple(), error));
  std::string cpu = "generic", features;
  for (llvm::Function& f : m)
    if (!f.isDeclaration()) {
      if (f.hasFnAttribute("target-cpu")) cpu = f.getFnAttribute("target-cpu").getValueAsString().str();
      if (f.hasFnAttribute("target-features"))
        features = f.getFnAttribute("target-features").getValueAsString().str();
      break;
    }
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      m.getTargetTriple(), cpu, features, llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Default));
}

// LLVM's new pass manager with every analysis registered, for `tm`'s target.
struct PassSetup {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb;
  explicit PassSetup(llvm::TargetMachine* tm) : pb(tm) {
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
  }
};

void optimise(llvm::Module& m, llvm::TargetMachine* tm, const std::string& level) {
  PassSetup p(tm);
  if (level == "0") {
    // -O0 keeps every variable in memory; promote them so loops have trip counts
    // (the counts then miss -O0's spills and reloads).
    llvm::FunctionPassManager fpm;
    fpm.addPass(llvm::PromotePass());
    llvm::ModulePassManager mpm;
    mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
    mpm.run(m, p.mam);
    return;
  }
  llvm::OptimizationLevel ol = level == "1"   ? llvm::OptimizationLevel::O1
                               : level == "3" ? llvm::OptimizationLevel::O3
                               : level == "s" ? llvm::OptimizationLevel::Os
                               : level == "z" ? llvm::OptimizationLevel::Oz
                                              : llvm::OptimizationLevel::O2;
  llvm::ModulePassManager mpm = p.pb.buildPerModuleDefaultPipeline(ol);
  mpm.run(m, p.mam);
}

// A function that calls itself stays a recursion: the optimiser's
// tail-recursion elimination would make its tail call a loop whose iterations
// are invocations, a loop with no line of its own that no probe sees (the
// probes count them as the recursion's entries and calls back), its trips
// asked of the user. Priced as the recursion it is written as, its
// invocations are what the probes count; the program's counts differ by a
// call and a return per invocation.
void keep_self_recursions(llvm::Module& m) {
  for (llvm::Function& f : m)
    for (const llvm::Instruction& i : llvm::instructions(f))
      if (const auto* call = llvm::dyn_cast<llvm::CallBase>(&i); call && call->getCalledFunction() == &f) {
        f.addFnAttr("disable-tail-calls", "true");  // read by TailCallElim
        break;
      }
}

// What holds across the linked program and no unit alone could see: a
// function that returns the same constant on every path (the `return 0` of a
// kernel whose callers check `ierr += kernel(...); if (ierr) return ierr;`)
// makes its callers' checks constant, the check's exit never taken and the
// code after it reached on every run. LLVM's interprocedural SCCP proves it
// for every function with an exact definition (not weak, not an inline
// function's linkonce copy), folds the checks and deletes the blocks no run
// reaches. Function specialisation stays off: its clones would be functions
// of their own, with new names. Linkage is left as the units gave it, so
// arguments of external functions stay unknown: a call's constant argument
// is bound where the analysis prices the call, and the callee keeps its own
// parameters (internal linkage would also let IPSCCP empty every function
// that nothing in the module calls). At -O0 nothing is folded, as the code
// built at -O0 folds nothing either.
void propagate_linked_constants(llvm::Module& m, llvm::TargetMachine* tm, const std::string& level) {
  if (level == "0") return;
  PassSetup p(tm);
  llvm::ModulePassManager mpm;
  mpm.addPass(llvm::IPSCCPPass(llvm::IPSCCPOptions(/*AllowFuncSpec=*/false)));
  mpm.run(m, p.mam);
}

// The defined functions a run may enter from `entry`: those it calls, and
// those whose address reachable code takes (a callback stored in a struct, a
// handler table in a global initialiser), since a call through a pointer may
// land on any of them.
std::set<std::string> reachable_functions(llvm::Module& m, const std::string& entry) {
  std::set<std::string> reached;
  std::vector<const llvm::Function*> todo;
  std::set<const llvm::Value*> seen;
  // Functions inside a constant (an initialiser, a cast, an aggregate).
  std::function<void(const llvm::Value*)> visit = [&](const llvm::Value* v) {
    if (!seen.insert(v).second) return;
    if (auto* f = llvm::dyn_cast<llvm::Function>(v)) {
      if (!f->isDeclaration()) todo.push_back(f);
    } else if (auto* g = llvm::dyn_cast<llvm::GlobalVariable>(v)) {
      if (g->hasInitializer()) visit(g->getInitializer());
    } else if (auto* c = llvm::dyn_cast<llvm::Constant>(v)) {
      for (const llvm::Use& op : c->operands()) visit(op.get());
    }
  };
  if (const llvm::Function* f = m.getFunction(entry); f && !f->isDeclaration()) todo.push_back(f);
  while (!todo.empty()) {
    const llvm::Function* f = todo.back();
    todo.pop_back();
    if (!reached.insert(f->getName().str()).second) continue;
    for (const llvm::BasicBlock& b : *f)
      for (const llvm::Instruction& i : b)
        for (const llvm::Use& op : i.operands())
          if (llvm::isa<llvm::Constant>(op.get())) visit(op.get());
  }
  return reached;
}

// The module's functions whose demangled names match the table's
// "ignore_demangled" globs (the C++ runtime: allocation, streams, static
// initialisation, exceptions, containers' nodes), added to `ignore` by their
// IR names. Those defined in the module (inline library code) are not
// analysed either, nor are the loops of those inlined into the program's
// functions (their subprograms' linkage names are added too; FunctionAnalyser
// leaves out a loop written in one).
void ignore_runtime_functions(const llvm::Module& m, const nlohmann::json& table, std::set<std::string>& ignore) {
  std::vector<std::string> globs;
  for (const auto& g : table.value("ignore_demangled", nlohmann::json::array())) globs.push_back(g.get<std::string>());
  if (globs.empty()) return;
  auto consider = [&](const std::string& name) {
    std::string readable = llvm::demangle(name);
    for (const auto& glob : globs)
      if (fnmatch(glob.c_str(), readable.c_str(), 0) == 0) {
        ignore.insert(name);
        return;
      }
  };
  for (const llvm::Function& f : m) consider(f.getName().str());
  llvm::DebugInfoFinder debug_info;
  debug_info.processModule(m);
  for (const llvm::DISubprogram* sp : debug_info.subprograms())
    if (!sp->getLinkageName().empty()) consider(sp->getLinkageName().str());
}

// The progress line after the functions' analysis: its total and the
// functions whose own analysis took longest, so a slow analysis names where
// its time goes.
std::string slowest_functions(const std::map<std::string, double>& seconds, std::size_t shown) {
  std::vector<std::pair<double, std::string>> by_time;
  double total = 0;
  for (const auto& [name, s] : seconds) by_time.push_back({s, name}), total += s;
  std::sort(by_time.begin(), by_time.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string line = fmt::format("analysed {} functions in {:.2f} s", seconds.size(), total);
  for (std::size_t i = 0; i < by_time.size() && i < shown; ++i)
    line += fmt::format("{} {} {:.2f} s", i == 0 ? "; the slowest:" : ",", by_time[i].second, by_time[i].first);
  return line;
}

}  // namespace

model::ProgramModel analyze_bitcode(const IrInput& input) {
  auto say = [&](const std::string& s) {
    if (input.progress) input.progress(s);
  };
  llvm::LLVMContext context;
  // One description per C++ type across the units (by its mangled name): a
  // unit's declaration of a class becomes the definition another unit has.
  context.enableDebugTypeODRUniquing();
  std::unique_ptr<llvm::Module> program;
  std::unique_ptr<llvm::TargetMachine> tm;
  for (const auto& file : input.bitcode_files) {
    llvm::SMDiagnostic diag;
    std::unique_ptr<llvm::Module> m = llvm::parseIRFile(file.string(), diag, context);
    if (!m) {
      std::string msg;
      llvm::raw_string_ostream os(msg);
      diag.print("perfcast", os);
      throw UserError(fmt::format("cannot read LLVM IR: {}", os.str()));
    }
    if (!tm) tm = target_machine(*m);
    m->setDataLayout(tm->createDataLayout());
    annotate_mpi_declarations(*m);
    ir_rewrites::inline_lineless_helpers(*m);  // their loops at the line of the statement that called them
    keep_self_recursions(*m);
    say(fmt::format("optimising {} (-O{})", m->getSourceFileName(), input.opt_level));
    optimise(*m, tm.get(), input.opt_level);
    if (!program) {
      program = std::move(m);
    } else if (llvm::Linker::linkModules(*program, std::move(m))) {
      throw UserError("the sources define the same symbol twice (LLVM could not link them)");
    }
  }
  ir_rewrites::call_aliased_functions_directly(*program);  // as the probes' plugin reads each unit
  say("propagating constants across the linked program");
  propagate_linked_constants(*program, tm.get(), input.opt_level);
  // The analysis reads source names and values from the debug intrinsics
  // (llvm.dbg.value, llvm.dbg.declare), which LLVM 19 keeps by default as
  // records beside the instructions instead; the passes are done, so the
  // module goes back to intrinsics for the rest of its life.
  program->setIsNewDbgInfoFormat(false);
  for (llvm::Function& f : *program)
    if (!f.isDeclaration()) merge_equal_increments(f);

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm.get());
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);

  ModuleContext ctx;
  ctx.dl = &program->getDataLayout();
  ctx.input = &input;
  ctx.fam = &fam;
  ctx.recursive = find_recursive_functions(*program);
  for (const auto& n : input.library_costs.value("ignore", nlohmann::json::array())) {
    std::string name = n.get<std::string>();
    if (!name.empty() && name.back() == '*') ctx.ignore_prefixes.push_back(name.substr(0, name.size() - 1));
    else ctx.ignore.insert(name);
  }
  ignore_runtime_functions(*program, input.library_costs, ctx.ignore);
  int defined = 0;
  for (llvm::Function& f : *program)
    if (!f.isDeclaration() && !ctx.ignore.count(f.getName().str())) ++defined;
  say(fmt::format("analysing {} functions", defined));
  // A recursion is counted at the function of its cycle the analysis enters
  // first (ModuleContext::count_recursion): from the entry, the one the
  // program calls it at.
  if (llvm::Function* main = program->getFunction("main"); main && !ctx.recursive.empty() && !main->isDeclaration())
    ctx.analyse(*main);
  for (llvm::Function& f : *program)
    if (!f.isDeclaration() && !ctx.ignore.count(f.getName().str())) ctx.analyse(f);
  say(slowest_functions(ctx.analysis_seconds, 5));

  // In-core cycles of the loops (mca.h), on the optimised code: the bodies of
  // innermost loops, the own blocks of the others.
  std::optional<LoopCyclesResult> mca;
  PricedLoops priced{};
  if (input.mca && ctx.mca_loops > 0) {
    say(fmt::format("pricing {} loops with LLVM MCA", ctx.mca_loops));
    try {
      mca = loop_cycles(*program, *tm, input.mcpu, kMcaLoopPrefix, input.host_cycles);
    } catch (const UserError& e) {
      if (input.mcpu_why.empty()) throw;
      throw UserError(fmt::format("{} ({})", e.what(), input.mcpu_why), {},
                      "a machine's node.cpu prices code compiled here only if it is a CPU of this host's "
                      "architecture: name one with --mcpu, or analyse on a host of the machine's architecture");
    }
    if (!input.mcpu_why.empty()) mca->cpu_why = input.mcpu_why;
    if (!mca->cpu_why.empty()) say(fmt::format("MCA: priced on {}: {}", mca->cpu, mca->cpu_why));
    if (!mca->host_cycles_applied.empty())
      say(fmt::format("MCA: {}'s measured cycles on {}: {}", input.host_cycles.source, mca->cpu,
                      fmt::join(mca->host_cycles_applied, ", ")));
    for (const auto& w : mca->warnings) say("MCA: " + w);
    priced = attach_loop_cycles(ctx.functions, *mca, input.debug ? std::function<void(const std::string&)>(say)
                                                                 : std::function<void(const std::string&)>());
  }

  model::ProgramModel model;
  model.program = input.program;
  model.source = input.source;
  model.origin = input.origin;
  if (mca) {
    model.mca_cpu = mca->cpu;
    model::McaRecord& m = model.mca;
    if (!mca->cpu_why.empty()) m.cpu_chosen = mca->cpu_why;
    m.code_for = fmt::format("{} {}", tm->getTargetTriple().str(), tm->getTargetCPU().str());
    m.loops_priced = priced[0];
    m.loops_unpriced = priced[1];
    m.outer_loops_priced = priced[2];
    m.outer_loops_unpriced = priced[3];
    m.window_uops = mca->window_micro_ops;
    if (!mca->host_cycles_applied.empty())
      m.host_cycles = model::McaRecord::HostCycles{input.host_cycles.source, mca->host_cycles_applied};
    m.note = std::string(toolchain::kLlvmName) + " MCA on the cpu's scheduling model (data in L1): cycles_per_iteration of innermost loops "
             "(the steady state of the body's machine code, or, when its chain restarts each run, "
             "max(rthroughput, cpi * T / (T + window_uops / uops)) for T iterations per run), "
             "overhead_cycles_per_iteration of the others (their own blocks, outside their subloops)";
  }
  for (auto& [name, fm] : ctx.functions) prune(fm.body);
  model.parameters = model_parameters(ctx.functions, ctx.descriptions);
  model.entry = ctx.functions.count("main") ? "main" : (ctx.functions.empty() ? "main" : ctx.functions.begin()->first);
  model.functions = model_functions(ctx.functions);
  model.coverage = model_coverage(ctx.functions, model.entry, defined, reachable_functions(*program, model.entry));
  name_variable_reads(model, ctx);
  say(model::coverage_summary(*model.coverage));
  return model;
}

}  // namespace perfcast::analyze::detail
