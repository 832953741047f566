// In-core cycles per iteration of loops, from LLVM's MCA library.
//
// How a loop's machine code is found: the analyser names the IR header block of
// every loop it models (`perfcast.loop.N`); a copy of the optimised module is
// compiled to verbose assembly, in which the code generator writes, for every
// machine block, the IR block it came from ("# %perfcast.loop.3") and the
// innermost machine loop it belongs to ("=>This Inner Loop Header", "in Loop:
// Header=BB0_5"). The blocks whose innermost machine loop is headed by the
// block that came from the IR header are the loop's own code: the whole body
// of an innermost loop, the blocks outside the subloops of an outer one (index
// updates, the subloops' guards and set-up, stores after them). Their
// instructions are parsed back into MCInsts with the target's assembly parser
// and run through MCA's default pipeline, as llvm-mca does with one code
// region (llvm/tools/llvm-mca/llvm-mca.cpp).
//
// Steady state: MCA runs the body N and 2N times; (C(2N) - C(N)) / N removes
// the pipeline's fill and drain, which a loop of thousands of iterations does
// not pay per iteration.
#include "analyze/mca.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <iterator>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <variant>

#include <fmt/format.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/MCAsmBackend.h>
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstrAnalysis.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCObjectFileInfo.h>
#include <llvm/MC/MCParser/MCAsmParser.h>
#include <llvm/MC/MCParser/MCTargetAsmParser.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCStreamer.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/MCA/Context.h>
#include <llvm/MCA/CustomBehaviour.h>
#include <llvm/MCA/InstrBuilder.h>
#include <llvm/MCA/Instruction.h>
#include <llvm/MCA/Pipeline.h>
#include <llvm/MCA/SourceMgr.h>
#include <llvm/MCA/Support.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include "support/error.h"
#include "support/toolchain.h"

namespace perfcast::analyze::detail {

namespace {

constexpr unsigned kIterations = 100;
// The latency MCA gives a call (llvm-mca's -call-latency default); calls are
// taken out of the priced code, so it only matters to a target's own model.
constexpr unsigned kCallLatency = 100;

void initialise_target() {
  static bool done = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    return true;
  }();
  (void)done;
}

// ---------------------------------------------------------------- assembly text

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// The number after the last '_' of "BB0_12" / ".LBB0_12", or after "bb." of "%bb.12".
int block_number(const std::string& label) {
  size_t p = label.find_last_of("_.");
  if (p == std::string::npos) return -1;
  try {
    return std::stoi(label.substr(p + 1));
  } catch (...) {
    return -1;
  }
}

// Reads the verbose assembly the code generator writes (AT&T syntax, the
// comments of AsmPrinter::emitBasicBlockStart and its loop comments).
std::vector<AsmFunction> read_assembly(const std::string& text) {
  std::vector<AsmFunction> functions;
  std::istringstream in(text);
  AsmFunction* fn = nullptr;
  AsmBlock* block = nullptr;
  auto comment_of = [](const std::string& line) -> std::string {
    size_t h = line.find('#');
    return h == std::string::npos ? "" : trim(line.substr(h + 1));
  };
  auto read_loop_comment = [&](std::string c) {
    if (!block) return;
    // A nested loop's header reads "=>  This Inner Loop Header: Depth=3": the
    // arrow is indented by depth, after its parents' "Parent Loop" lines.
    if (c.rfind("=>", 0) == 0) c = "=>" + trim(c.substr(2));
    if (c.rfind("=>This Inner Loop Header", 0) == 0 || c.rfind("=>This Loop Header", 0) == 0) {
      block->loop_header = block->number;
    } else if (c.rfind("in Loop: Header=", 0) == 0) {
      std::string h = c.substr(std::string("in Loop: Header=").size());
      block->loop_header = block_number(h.substr(0, h.find(' ')));
    } else if (!c.empty() && c[0] == '%' && block->ir_name.empty()) {
      block->ir_name = c.substr(1);
    }
  };
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    bool indented = line[0] == ' ' || line[0] == '\t';
    std::string t = trim(line);
    if (t.empty()) continue;
    if (!indented && t[0] != '.' && t[0] != '#' && t.find(':') != std::string::npos) {
      // A function's symbol ("main:  # @main").
      functions.push_back({t.substr(0, t.find(':')), {}});
      fn = &functions.back();
      block = nullptr;
      continue;
    }
    if (!fn) continue;
    bool labelled = t.rfind(".LBB", 0) == 0 && t.find(':') != std::string::npos;
    bool unlabelled = t.rfind("# %bb.", 0) == 0;
    if (labelled || unlabelled) {
      std::string label = labelled ? t.substr(0, t.find(':')) : t.substr(2, t.find(':') - 2);
      fn->blocks.push_back({});
      block = &fn->blocks.back();
      block->number = block_number(label);
      std::string rest = t.substr(t.find(':') + 1);
      read_loop_comment(comment_of(rest));
      continue;
    }
    if (t.rfind(".Lfunc_end", 0) == 0) {
      fn = nullptr, block = nullptr;
      continue;
    }
    if (t[0] == '#') {
      read_loop_comment(comment_of(t));
      continue;
    }
    if (!block || t[0] == '.') continue;  // directives, local labels of data
    size_t h = t.find('#');
    std::string inst = trim(h == std::string::npos ? t : t.substr(0, h));
    if (!inst.empty() && inst.back() != ':') block->instructions.push_back(inst);
  }
  return functions;
}

// sqrt() with errno (C's default on Linux) becomes a square-root instruction
// and, for negative arguments only, a call to the library's sqrt that sets
// errno (LLVM's PartiallyInlineLibCalls). The call's block is the rare path:
// priced as if it ran every iteration it cost nbody's pair loop ~2x (the call
// alone counts 100 cycles in MCA).
bool is_sqrt_instruction(const std::string& inst) {
  std::string op = inst.substr(0, inst.find_first_of(" \t"));
  return op.find("sqrts") != std::string::npos || op.find("sqrtp") != std::string::npos;
}

bool is_errno_sqrt_path(const AsmBlock& block) {
  for (const auto& inst : block.instructions)
    if (inst.rfind("call", 0) == 0 && (inst.find(" sqrt@") != std::string::npos ||
                                       inst.find(" sqrtf@") != std::string::npos ||
                                       inst.find("\tsqrt@") != std::string::npos ||
                                       inst.find("\tsqrtf@") != std::string::npos))
      return true;
  return false;
}

// A latch block that ends "jne .LBB0_6; jmp .LBB0_3" (back to the header
// .LBB0_6, else out): the unconditional jump runs once, when the loop exits,
// not every iteration. Priced every iteration it took a branch unit's slot:
// a short reduction's resource bound went from 0.67 to 1 cycle on znver3.
bool ends_with_exit_jump(const AsmBlock& block, int header) {
  const auto& insts = block.instructions;
  if (insts.size() < 2) return false;
  auto opcode = [](const std::string& inst) { return inst.substr(0, inst.find_first_of(" \t")); };
  auto target = [](const std::string& inst) { return trim(inst.substr(inst.find_first_of(" \t") + 1)); };
  const std::string& last = insts.back();
  const std::string& before = insts[insts.size() - 2];
  std::string jcc = opcode(before);
  bool conditional = jcc.size() > 1 && jcc[0] == 'j' && jcc != "jmp" && jcc != "jmpq";
  return (opcode(last) == "jmp" || opcode(last) == "jmpq") && conditional &&
         target(before).rfind(".LBB", 0) == 0 && block_number(target(before)) == header;
}

// ---------------------------------------------------------------- MC and MCA

// Collects the instructions the assembly parser emits (llvm-mca's
// MCStreamerWrapper does the same for its code regions).
class InstructionCollector final : public llvm::MCStreamer {
 public:
  explicit InstructionCollector(llvm::MCContext& context) : llvm::MCStreamer(context) {}
  void emitInstruction(const llvm::MCInst& inst, const llvm::MCSubtargetInfo&) override { insts.push_back(inst); }
  bool emitSymbolAttribute(llvm::MCSymbol*, llvm::MCSymbolAttr) override { return true; }
  void emitCommonSymbol(llvm::MCSymbol*, uint64_t, llvm::Align) override {}
  void emitZerofill(llvm::MCSection*, llvm::MCSymbol*, uint64_t, llvm::Align, llvm::SMLoc) override {}
  std::vector<llvm::MCInst> insts;
};

class McaEngine {
 public:
  McaEngine(const llvm::TargetMachine& tm, const std::string& mcpu, const analyze::HostInstructionCycles& host)
      : McaEngine(tm.getTargetTriple(), tm.getTargetCPU().str(), tm.getTargetFeatureString().str(), mcpu, host) {}

  // Code for `triple`, `cpu` and `features` (parsing), scheduled on `mcpu`
  // with the `host`'s measured cycles where given.
  McaEngine(const llvm::Triple& triple, const std::string& cpu, const std::string& features, const std::string& mcpu,
            const analyze::HostInstructionCycles& host)
      : triple_(triple) {
    std::string error;
    target_ = llvm::TargetRegistry::lookupTarget(triple_.str(), error);
    if (!target_) throw UserError(fmt::format("LLVM has no target for '{}': {}", triple_.str(), error));
    mri_.reset(target_->createMCRegInfo(triple_.str()));
    llvm::MCTargetOptions mc_options;
    mai_.reset(target_->createMCAsmInfo(*mri_, triple_.str(), mc_options));
    mcii_.reset(target_->createMCInstrInfo());
    mcia_.reset(target_->createMCInstrAnalysis(mcii_.get()));
    // Parsing: the CPU and features the code was generated for.
    parse_sti_.reset(target_->createMCSubtargetInfo(triple_.str(), cpu, features));
    // Scheduling: the CPU the user asked for.
    sched_sti_.reset(target_->createMCSubtargetInfo(triple_.str(), mcpu, ""));
    if (!sched_sti_ || !sched_sti_->isCPUStringValid(mcpu))
      throw UserError(fmt::format("{} knows no CPU '{}' for {}", toolchain::kLlvmName, mcpu, triple_.str()), {},
                      fmt::format("--mcpu takes an LLVM CPU name, e.g. znver4, skylake, x86-64 (`{} -mcpu=help` lists "
                                  "them)",
                                  toolchain::kLlc));
    if (!sched_sti_->getSchedModel().hasInstrSchedModel())
      throw UserError(
          fmt::format("{} has no instruction scheduling model for CPU '{}'", toolchain::kLlvmName, mcpu), {},
          "choose another --mcpu, e.g. znver4 or skylake");
    read_host_classes(host);
  }

  // One line per class the host's cycles changed, for the model's record.
  std::vector<std::string> host_cycles_applied() const {
    std::vector<std::string> out;
    for (const HostClass& c : classes_)
      if (c.latency > 0 && c.model_latency > 0)
        out.push_back(fmt::format("{} latency {} -> {:.3g} cycles", c.what, c.model_latency, c.latency));
    for (const HostClass& c : classes_)
      if (c.interval > 0 && c.model_interval > 0)
        out.push_back(fmt::format("{} issue interval {:.3g} -> {:.3g} cycles", c.what, c.model_interval, c.interval));
    return out;
  }

  // Micro-ops the out-of-order window holds, as MCA's retire control unit
  // sizes its reorder buffer; 0 for an in-order model.
  int window_micro_ops() const {
    const llvm::MCSchedModel& sm = sched_sti_->getSchedModel();
    if (!sm.isOutOfOrder()) return 0;
    if (sm.hasExtraProcessorInfo() && sm.getExtraProcessorInfo().ReorderBufferSize)
      return static_cast<int>(sm.getExtraProcessorInfo().ReorderBufferSize);
    return static_cast<int>(sm.MicroOpBufferSize);
  }

  // Cycles per iteration of `lines` run as a loop body, or an error message.
  std::variant<LoopCycles, std::string> price(const std::vector<std::string>& lines, bool rbp_frame_pointer) {
    std::string text;
    for (const auto& l : lines) text += l + "\n";
    llvm::SourceMgr sm;
    std::string diagnostics;
    sm.setDiagHandler(
        [](const llvm::SMDiagnostic& d, void* out) {
          llvm::raw_string_ostream os(*static_cast<std::string*>(out));
          d.print(nullptr, os, false);
        },
        &diagnostics);
    sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "loop"), llvm::SMLoc());
    llvm::MCContext context(triple_, mai_.get(), mri_.get(), parse_sti_.get(), &sm);
    std::unique_ptr<llvm::MCObjectFileInfo> mofi(target_->createMCObjectFileInfo(context, /*PIC=*/false));
    context.setObjectFileInfo(mofi.get());
    InstructionCollector collector(context);
    std::unique_ptr<llvm::MCAsmParser> parser(llvm::createMCAsmParser(sm, context, collector, *mai_));
    llvm::MCTargetOptions mc_options;
    std::unique_ptr<llvm::MCTargetAsmParser> target_parser(
        target_->createMCAsmParser(*parse_sti_, *parser, *mcii_, mc_options));
    if (!target_parser) return std::string("LLVM has no assembly parser for this target");
    parser->setTargetParser(*target_parser);
    // No finalisation: the branch targets outside the loop are never defined.
    if (parser->Run(/*NoInitialTextSection=*/false, /*NoFinalize=*/true))
      return "the loop's assembly does not parse: " + diagnostics;
    if (collector.insts.empty()) return std::string("the loop has no instructions");
    // A call is priced by its callee (the callee's model, or the library
    // table) where the call composes; MCA would model it as one uop of 100
    // cycles' latency ("call instructions are not correctly modeled"),
    // counting it a second time and chaining whatever uses its result. The
    // argument moves and stack adjustments around it stay.
    const std::vector<llvm::MCInst>& insts = collector.insts;
    std::vector<llvm::MCInst> without_calls;
    std::copy_if(insts.begin(), insts.end(), std::back_inserter(without_calls),
                 [&](const llvm::MCInst& inst) { return !mcii_->get(inst.getOpcode()).isCall(); });
    if (without_calls.empty()) return std::string("the loop has no instructions but calls");
    // The builder caches the descriptors of variant instructions by the
    // instruction's contents (LLVM 14's did by its address, which a freed
    // loop's instructions could hand to another's), so these need not outlive
    // this call.
    const std::vector<llvm::MCInst>& priced = without_calls;

    auto cycles = [&](unsigned iterations) -> std::variant<unsigned, std::string> {
      llvm::mca::Context mca(*mri_, *sched_sti_);
      llvm::mca::PipelineOptions options(/*UOPQSize=*/0, /*DecThr=*/0, /*DW=*/0, /*RFS=*/0, /*LQS=*/0, /*SQS=*/0,
                                         /*NoAlias=*/true);
      if (!builder_) {
        instruments_ = std::make_unique<llvm::mca::InstrumentManager>(*sched_sti_, *mcii_);
        builder_ = std::make_unique<llvm::mca::InstrBuilder>(*sched_sti_, *mcii_, *mri_, mcia_.get(), *instruments_,
                                                             kCallLatency);
      }
      llvm::SmallVector<std::unique_ptr<llvm::mca::Instruction>, 32> sequence;
      for (const llvm::MCInst& inst : priced) {
        llvm::Expected<std::unique_ptr<llvm::mca::Instruction>> lowered = builder_->createInstruction(inst, kNoInstruments);
        if (!lowered) return "MCA cannot model an instruction: " + llvm::toString(lowered.takeError());
        put_host_cycles(inst.getOpcode(), (*lowered)->getDesc());
        sequence.push_back(std::move(*lowered));
      }
      llvm::mca::CircularSourceMgr source(sequence, iterations);
      llvm::mca::CustomBehaviour behaviour(*sched_sti_, source, *mcii_);
      std::unique_ptr<llvm::mca::Pipeline> pipeline =
          sched_sti_->getSchedModel().isOutOfOrder() ? mca.createDefaultPipeline(options, source, behaviour)
                                                    : mca.createInOrderPipeline(options, source, behaviour);
      llvm::Expected<unsigned> total = pipeline->run();
      if (!total) return "MCA failed: " + llvm::toString(total.takeError());
      return *total;
    };
    auto once = cycles(kIterations);
    if (auto* e = std::get_if<std::string>(&once)) return *e;
    auto twice = cycles(2 * kIterations);
    if (auto* e = std::get_if<std::string>(&twice)) return *e;
    LoopCycles lc;
    resource_bound(priced, lc);
    // Accesses the IR does not have: the stack (spills, reloads) and the
    // constant pool, by their base register in the text (x86-64, AT&T): %rsp,
    // %rip, and %rbp where the function keeps its frame there (without a
    // frame pointer %rbp is one more register, an array's address as often
    // as not). A wide IR access split into narrower machine ones is the
    // IR's, not extra.
    if (insts.size() == lines.size()) {
      for (size_t k = 0; k < lines.size(); ++k) {
        const llvm::MCInstrDesc& desc = mcii_->get(insts[k].getOpcode());
        if (desc.isCall() || desc.isReturn()) continue;
        const std::string& text = lines[k];
        bool outside_ir = text.find("(%rsp") != std::string::npos ||
                          (rbp_frame_pointer && text.find("(%rbp") != std::string::npos) ||
                          text.find("(%rip)") != std::string::npos;
        if (!outside_ir) continue;
        lc.loads += desc.mayLoad() ? 1 : 0;
        lc.stores += desc.mayStore() ? 1 : 0;
      }
    }
    lc.cycles_per_iteration =
        (static_cast<double>(std::get<unsigned>(twice)) - std::get<unsigned>(once)) / kIterations;
    // The host's measured divider bounds the body where the scheduling model
    // holds none (it books a divide on a port for a cycle): its cycles are then
    // off the ports (rthroughput_without_divides leaves them out), as on a
    // model with a divider.
    lc.cycles_per_iteration = std::max(lc.cycles_per_iteration, lc.divider_cycles);
    lc.instructions = static_cast<int>(insts.size());
    return lc;
  }

 private:
  // The body's micro-ops and its resource-bound reciprocal throughput, from
  // the scheduling model's resource cycles of each instruction, as llvm-mca's
  // summary view computes "Block RThroughput" (tools/llvm-mca/Views/
  // SummaryView.cpp): the busiest resource's cycles over its units, or the
  // micro-ops over the dispatch width, whichever is larger. `insts` lowered
  // already once, so every instruction has a descriptor.
  void resource_bound(const std::vector<llvm::MCInst>& insts, LoopCycles& lc) {
    const llvm::MCSchedModel& sm = sched_sti_->getSchedModel();
    std::vector<std::uint64_t> masks(sm.getNumProcResourceKinds());
    llvm::mca::computeProcResourceMasks(sm, masks);
    // A resource's mask -> its index in the scheduling model.
    std::vector<unsigned> index_of_state(sm.getNumProcResourceKinds(), 0);
    for (unsigned i = 1; i < sm.getNumProcResourceKinds(); ++i)
      index_of_state[llvm::mca::getResourceStateIndex(masks[i])] = i;
    // Twice: every instruction, and all but the divides (the ports' own need).
    std::vector<unsigned> usage(sm.getNumProcResourceKinds(), 0), usage_without_divides = usage;
    unsigned micro_ops = 0, micro_ops_without_divides = 0;
    for (const llvm::MCInst& inst : insts) {
      llvm::Expected<std::unique_ptr<llvm::mca::Instruction>> lowered = builder_->createInstruction(inst, kNoInstruments);
      if (!lowered) {
        llvm::consumeError(lowered.takeError());
        return;
      }
      const llvm::mca::InstrDesc& desc = (*lowered)->getDesc();
      put_host_cycles(inst.getOpcode(), desc);
      const bool divide = is_divide(mcii_->getName(inst.getOpcode()));
      lc.divides += divide ? 1 : 0;
      if (divide) lc.divider_cycles += host_divider_cycles(mcii_->getName(inst.getOpcode()));
      micro_ops += desc.NumMicroOps;
      if (!divide) micro_ops_without_divides += desc.NumMicroOps;
      for (const auto& [mask, use] : desc.Resources) {
        if (!use.size()) continue;
        unsigned index = index_of_state[llvm::mca::getResourceStateIndex(mask)];
        usage[index] += use.size();
        if (!divide) usage_without_divides[index] += use.size();
      }
    }
    lc.micro_ops = static_cast<int>(micro_ops);
    lc.rthroughput = llvm::mca::computeBlockRThroughput(sm, sm.IssueWidth, micro_ops, usage);
    lc.rthroughput_without_divides =
        llvm::mca::computeBlockRThroughput(sm, sm.IssueWidth, micro_ops_without_divides, usage_without_divides);
    // Which resource that is (as computeBlockRThroughput weighs them: a
    // resource's cycles over its units); ties go to the first, the model's order.
    for (unsigned i = 1; i < sm.getNumProcResourceKinds(); ++i) {
      const llvm::MCProcResourceDesc* desc = sm.getProcResource(i);
      if (!desc || desc->NumUnits == 0 || usage[i] == 0) continue;
      double cycles = static_cast<double>(usage[i]) / desc->NumUnits;
      if (cycles > lc.busiest_resource_cycles) {
        lc.busiest_resource_cycles = cycles;
        lc.busiest_resource = desc->Name;
      }
    }
    double dispatch = sm.IssueWidth ? static_cast<double>(micro_ops) / sm.IssueWidth : 0;
    if (dispatch > lc.busiest_resource_cycles) {
      lc.busiest_resource.clear();
      lc.busiest_resource_cycles = dispatch;
    }
    if (lc.divider_cycles > lc.busiest_resource_cycles) {
      lc.busiest_resource = kHostDivider;
      lc.busiest_resource_cycles = lc.divider_cycles;
    }
    lc.rthroughput = std::max(lc.rthroughput, lc.divider_cycles);
  }

  // The host's divider cycles of one divide or square root named `opcode`:
  // its class's measured issue interval (scalar double), times the 128-bit
  // lanes a packed form fills (xmm 1, ymm 2, zmm 4); 0 where the machine file
  // measured no interval for it.
  double host_divider_cycles(llvm::StringRef opcode) const {
    const HostClass* c = class_of(opcode);
    if (!c || c->interval <= 0) return 0;
    llvm::StringRef rest = opcode.starts_with("V") ? opcode.drop_front() : opcode;
    for (const char* stem : c->stems)
      if (rest.starts_with(stem)) rest = rest.drop_front(std::strlen(stem));
    if (!rest.starts_with("PD") && !rest.starts_with("PS")) return c->interval;  // scalar
    rest = rest.drop_front(2);
    if (rest.starts_with("Z256") || rest.starts_with("Y")) return 2 * c->interval;
    if (rest.starts_with("Z128")) return c->interval;
    if (rest.starts_with("Z")) return 4 * c->interval;
    return c->interval;
  }

  // By the opcode's name, the one convention LLVM's targets share (x86:
  // DIVSDrr, VSQRTPDYr, IDIV64r; AArch64: FDIVDrr, FSQRTDr, SDIVWr): the
  // scheduling models name their dividers each their own way.
  static bool is_divide(llvm::StringRef opcode) {
    return (opcode.contains("DIV") || opcode.contains("SQRT")) && !opcode.contains("RSQRT");
  }

  // An x86 FP instruction class whose cycles the machine file measured on
  // its host (scalar double): the opcode stems it covers (after an optional
  // V, any width and operand form: ADDSDrr, VADDPDYrm, VSUBPSZrr...), the
  // host's figures, and the scheduling model's for the class's scalar double
  // register form.
  struct HostClass {
    const char* what;
    std::vector<const char*> stems;
    const char* reference;    // opcode name of the scalar double register form
    double latency = 0;       // host cycles, 0: not given
    double interval = 0;      // host cycles between independent ones, 0: not given (or no divider)
    int model_latency = 0;    // the model's, 0: it cannot say
    double model_interval = 0;
  };

  void read_host_classes(const analyze::HostInstructionCycles& host) {
    if (host.empty()) return;
    classes_ = {{"FP add", {"ADD", "SUB"}, "ADDSDrr", host.fp_add_latency, 0},
                {"FP multiply", {"MUL"}, "MULSDrr", host.fp_multiply_latency, 0},
                {"FP divide", {"DIV"}, "DIVSDrr", host.fp_divide_latency, host.fp_divide_interval},
                {"FP square root", {"SQRT"}, "SQRTSDr", host.fp_sqrt_latency, host.fp_sqrt_interval}};
    for (HostClass& c : classes_)
      for (unsigned op = 0; op < mcii_->getNumOpcodes(); ++op)
        if (mcii_->getName(op) == c.reference) {
          const llvm::MCSchedClassDesc* sc =
              sched_sti_->getSchedModel().getSchedClassDesc(mcii_->get(op).getSchedClass());
          if (!sc || !sc->isValid() || sc->isVariant()) break;
          c.model_latency = std::max(llvm::MCSchedModel::computeInstrLatency(*sched_sti_, *sc), 0);
          c.model_interval = llvm::MCSchedModel::getReciprocalThroughput(*sched_sti_, *sc);
          break;
        }
  }

  // The class of opcode `name`, if any: a stem, then SD/SS/PD/PS (FP, not the
  // integer ADD32rr or the VPMUL family), after at most a leading V.
  const HostClass* class_of(llvm::StringRef name) const {
    llvm::StringRef rest = name.starts_with("V") ? name.drop_front() : name;
    for (const HostClass& c : classes_)
      for (const char* stem : c.stems)
        if (rest.starts_with(stem)) {
          llvm::StringRef type = rest.drop_front(std::strlen(stem));
          if (type.starts_with("SD") || type.starts_with("SS") || type.starts_with("PD") || type.starts_with("PS"))
            return &c;
        }
    return nullptr;
  }

  // Puts the host's cycles into the descriptor the builder made for
  // `opcode`, once per descriptor: the builder caches them (by opcode, or by
  // instruction for variant ones) and hands the same one out again. They are
  // the builder's own mutable objects, handed out const.
  void put_host_cycles(unsigned opcode, const llvm::mca::InstrDesc& desc) {
    if (classes_.empty() || !adjusted_.insert(&desc).second) return;
    const HostClass* c = class_of(mcii_->getName(opcode));
    if (!c) return;
    auto& d = const_cast<llvm::mca::InstrDesc&>(desc);
    if (c->latency > 0 && c->model_latency > 0) {
      // By the difference, so a form with a load keeps its load's cycles.
      double shift = c->latency - c->model_latency;
      d.MaxLatency = 0;
      for (auto& w : d.Writes) {
        if (w.Latency >= static_cast<unsigned>(c->model_latency))
          w.Latency = static_cast<unsigned>(std::max(1.0, std::round(w.Latency + shift)));
        d.MaxLatency = std::max(d.MaxLatency, w.Latency);
      }
    }
    if (c->interval > 0 && c->model_interval > 0) {
      // The divider: the resource the instruction holds longest.
      auto longest = std::max_element(d.Resources.begin(), d.Resources.end(),
                                      [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
      if (longest != d.Resources.end() && longest->second.size() > 1) {
        auto& cs = longest->second.CS;
        double cycles = std::max(1.0, std::round(cs.size() * c->interval / c->model_interval));
        cs.setEnd(cs.begin() + static_cast<unsigned>(cycles));
      }
    }
  }

  static constexpr const char* kHostDivider = "the host's divider (measured intervals)";

  llvm::Triple triple_;
  const llvm::Target* target_ = nullptr;
  std::unique_ptr<llvm::MCRegisterInfo> mri_;
  std::unique_ptr<llvm::MCAsmInfo> mai_;
  std::unique_ptr<llvm::MCInstrInfo> mcii_;
  std::unique_ptr<llvm::MCInstrAnalysis> mcia_;
  std::unique_ptr<llvm::MCSubtargetInfo> parse_sti_, sched_sti_;
  std::vector<HostClass> classes_;  // empty: no host cycles given
  std::set<const llvm::mca::InstrDesc*> adjusted_;
  // No instruments: they select among a target's scheduling variants by code
  // region comments (RISC-V's vector length), which loops here do not carry.
  std::unique_ptr<llvm::mca::InstrumentManager> instruments_;
  const llvm::SmallVector<llvm::mca::Instrument*> kNoInstruments;
  // Declared last, destroyed first: it refers to the objects above.
  std::unique_ptr<llvm::mca::InstrBuilder> builder_;
};

std::string assembly_of(const llvm::Module& module, const llvm::TargetMachine& tm) {
  std::unique_ptr<llvm::Module> copy = llvm::CloneModule(module);
  llvm::StripDebugInfo(*copy);  // no .loc lines; the code is the same
  llvm::TargetOptions options = tm.Options;
  options.MCOptions.AsmVerbose = true;  // the block and loop comments
  std::unique_ptr<llvm::TargetMachine> verbose(tm.getTarget().createTargetMachine(
      tm.getTargetTriple().str(), tm.getTargetCPU(), tm.getTargetFeatureString(), options, llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Default));
  copy->setDataLayout(verbose->createDataLayout());
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager pm;
  if (verbose->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile))
    throw UserError("LLVM cannot emit assembly for this target");
  pm.run(*copy);
  return std::string(text.str());
}

}  // namespace

double LoopCycles::off_ports_share() const {
  if (cycles_per_iteration <= 0) return 0;
  return std::clamp(1 - rthroughput_without_divides / cycles_per_iteration, 0.0, 1.0);
}

std::string nearest_mca_cpu(const std::string& vendor, int family, const std::string& llvm_name) {
  if (llvm_name == "generic" && vendor == "AuthenticAMD" && family > 0x1a) return "znver5";
  return llvm_name;
}

DefaultMcaCpu default_mca_cpu() {
  DefaultMcaCpu out{llvm::sys::getHostCPUName().str(), ""};
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx)) return out;
  char vendor[13] = {};
  std::memcpy(vendor, &ebx, 4);
  std::memcpy(vendor + 4, &edx, 4);
  std::memcpy(vendor + 8, &ecx, 4);
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return out;
  int family = static_cast<int>((eax >> 8) & 0xf);
  if (family == 0xf) family += static_cast<int>((eax >> 20) & 0xff);
  std::string nearest = nearest_mca_cpu(vendor, family, out.cpu);
  if (nearest != out.cpu) {
    out.why = fmt::format("{} does not know this host ({} family {:#x}) and calls it '{}'; priced on '{}', "
                          "the nearest model it has (name another with --mcpu)",
                          toolchain::kLlvmName, vendor, family, out.cpu, nearest);
    out.cpu = nearest;
  }
#endif
  return out;
}

LoopCyclesResult loop_cycles(const llvm::Module& module, const llvm::TargetMachine& tm, const std::string& mcpu,
                             const std::string& prefix, const analyze::HostInstructionCycles& host) {
  initialise_target();
  LoopCyclesResult result;
  result.cpu = mcpu;
  if (mcpu.empty()) {
    DefaultMcaCpu chosen = default_mca_cpu();
    result.cpu = chosen.cpu;
    result.cpu_why = chosen.why;
  }
  McaEngine engine(tm, result.cpu, host);
  result.window_micro_ops = engine.window_micro_ops();
  result.host_cycles_applied = engine.host_cycles_applied();
  std::vector<AsmFunction> functions = read_assembly(assembly_of(module, tm));
  for (const AsmFunction& fn : functions) {
    for (const AsmBlock& b : fn.blocks) {
      if (b.ir_name.rfind(prefix, 0) != 0) continue;
      if (b.loop_header < 0) {
        result.warnings.push_back(fmt::format("{}: {} is in no machine loop", fn.name, b.ir_name));
        continue;
      }
      int header = b.loop_header;
      std::vector<std::string> lines;
      int blocks = 0;
      bool inline_sqrt = false;
      for (const AsmBlock& o : fn.blocks)
        if (o.loop_header == header)
          for (const auto& inst : o.instructions) inline_sqrt |= is_sqrt_instruction(inst);
      for (const AsmBlock& o : fn.blocks)
        if (o.loop_header == header && !(inline_sqrt && is_errno_sqrt_path(o))) {
          ++blocks;
          lines.insert(lines.end(), o.instructions.begin(), o.instructions.end());
          if (ends_with_exit_jump(o, header)) lines.pop_back();
        }
      auto priced = engine.price(lines, sets_frame_pointer(fn));
      if (auto* e = std::get_if<std::string>(&priced)) {
        result.warnings.push_back(fmt::format("{}: {}: {}", fn.name, b.ir_name, *e));
        continue;
      }
      // A header the code generator duplicated: the copy that heads the loop wins.
      if (result.loops.count(b.ir_name) && b.number != header) continue;
      LoopCycles lc = std::get<LoopCycles>(priced);
      lc.blocks = blocks;
      lc.code = std::move(lines);
      result.loops[b.ir_name] = lc;
    }
  }
  return result;
}

std::vector<AsmFunction> parse_assembly(const std::string& text) { return read_assembly(text); }

bool sets_frame_pointer(const AsmFunction& fn) {
  for (const AsmBlock& b : fn.blocks)
    for (const std::string& inst : b.instructions) {
      std::string op = inst.substr(0, inst.find_first_of(" \t"));
      if (op == "movq" && inst.find("%rsp, %rbp") != std::string::npos) return true;
    }
  return false;
}

LoopCycles price_sequence(const std::vector<std::string>& lines, const std::string& mcpu,
                          const analyze::HostInstructionCycles& host, bool rbp_frame_pointer) {
  initialise_target();
  McaEngine engine(llvm::Triple(llvm::sys::getDefaultTargetTriple()), llvm::sys::getHostCPUName().str(), "", mcpu,
                   host);
  auto priced = engine.price(lines, rbp_frame_pointer);
  if (auto* e = std::get_if<std::string>(&priced)) throw UserError("MCA cannot price the sequence: " + *e);
  return std::get<LoopCycles>(priced);
}

}  // namespace perfcast::analyze::detail

namespace perfcast::analyze {

HostCpu host_cpu() {
  detail::DefaultMcaCpu chosen = detail::default_mca_cpu();
  return {chosen.cpu, chosen.why};
}

}  // namespace perfcast::analyze
