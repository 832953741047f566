// LLVM IR -> program model. Optimises each module in-process (after telling LLVM
// what MPI functions may touch), then walks every defined function: loops from
// LoopInfo with trip counts from ScalarEvolution, branches as conditions or
// probabilities, counted work per block, MPI calls and calls between functions.
//
// Compiled with -fno-rtti like LLVM 14. Exceptions are thrown only from our own
// frames (LLVM calls none of our code back), never through LLVM's.
#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/Analysis/ConstantFolding.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/PostDominators.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/Mem2Reg.h>

#include "analyze/footprint.h"
#include "analyze/ir_analysis.h"
#include "analyze/mca.h"
#include "support/error.h"
#include "support/expr.h"

namespace perfcast::analyze::detail {

namespace {

namespace ex = perfcast::expr;
using ex::Expr;
using json = nlohmann::ordered_json;

// IR names of the loop headers the MCA pricing looks for.
constexpr const char* kMcaLoopPrefix = "perfcast.loop.";

// ---------------------------------------------------------------- names

bool is_name_char(char c, bool first) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || (!first && (std::isdigit(static_cast<unsigned char>(c)) || c == '.'));
}

// A valid expression name for any source identifier; the expression language's
// function names are reserved.
std::string sanitize(const std::string& raw) {
  static const std::set<std::string> reserved = {"floordiv", "ceildiv", "mod", "min", "max", "select",
                                                 "zext", "trunc", "sext", "sum"};
  std::string s;
  for (size_t i = 0; i < raw.size(); ++i) s += is_name_char(raw[i], s.empty()) ? raw[i] : '_';
  if (s.empty() || !is_name_char(s[0], true)) s = "_" + s;
  if (reserved.count(s)) s += "_";
  return s;
}

// A debug type through its typedefs and qualifiers.
const llvm::DIType* strip_qualifiers(const llvm::DIType* t) {
  for (int guard = 0; t && guard < 16; ++guard) {
    auto* d = llvm::dyn_cast<llvm::DIDerivedType>(t);
    if (!d || (d->getTag() != llvm::dwarf::DW_TAG_typedef && d->getTag() != llvm::dwarf::DW_TAG_const_type &&
               d->getTag() != llvm::dwarf::DW_TAG_volatile_type))
      break;
    t = d->getBaseType();
  }
  return t;
}

std::string file_tag(const std::string& file) {
  auto slash = file.find_last_of('/');
  std::string base = slash == std::string::npos ? file : file.substr(slash + 1);
  std::string s;
  for (char c : base) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return s;
}

// ---------------------------------------------------------------- model tree

struct Node;
using Items = std::vector<std::unique_ptr<Node>>;

struct Node {
  enum Kind { Compute, Loop, Branch, Call, Mpi } kind = Compute;
  int line = 0;
  std::string note;
  // compute
  Expr flops_double, flops_single, loads, stores, load_bytes, store_bytes;
  std::map<std::string, Expr> math;
  // loop
  std::string var;
  Expr trip_count;
  // branch
  std::optional<Expr> condition;
  double probability = 0.5;
  const llvm::Instruction* key = nullptr;
  unsigned key_succ = 0;
  const void* key_target = nullptr;
  // call
  std::string callee;
  std::vector<std::pair<std::string, Expr>> args;
  // mpi
  std::string op;
  Expr bytes;
  std::optional<Expr> peer, root;
  Items body, then_items, else_items;
  // loop: its IR header's name for the MCA pricing, and the result: for an
  // innermost loop the cycles of its body (an expression of its trip count
  // when successive runs overlap, see body_cycles()), for a loop with subloops
  // the cycles of its own blocks; `machine` keeps MCA's plain figures.
  std::string mca_header;
  bool innermost = false;
  bool chain_restarts = false;  // innermost: no loop-carried value flows from one run of the loop to the next
  std::optional<LoopCycles> machine;
  std::optional<Expr> cycles_per_iteration;
  std::optional<double> overhead_cycles_per_iteration;
  // loop: distinct bytes one run touches (all, loaded, stored); see footprint.h
  std::optional<std::array<Expr, 3>> footprint;
  int streams = 0;  // innermost loop: its address streams (footprint.h); 0: none counted
  // Per base with several streams, each stream's byte offset from the first's.
  std::vector<std::vector<Expr>> stream_offsets;

  bool empty_compute() const {
    return kind == Compute && flops_double == Expr(0) && flops_single == Expr(0) && loads == Expr(0) &&
           stores == Expr(0) && load_bytes == Expr(0) && store_bytes == Expr(0) && math.empty();
  }
};

struct ParamInfo {
  std::string description;
  std::optional<std::string> default_value;
};

struct FunctionModel {
  std::string name;
  int line = 0;
  std::string note;
  std::vector<std::string> parameters;  // integer arguments the costs use
  std::vector<std::string> all_arguments;  // integer arguments by position ("" for others)
  std::set<std::string> loop_vars;
  Items body;
  bool done = false;
};

// ---------------------------------------------------------------- MPI tables

struct MpiSpec {
  const char* op;  // nullptr: a call the model leaves out (local, no communication)
  int count = -1, datatype = -1, peer = -1, root = -1;
};

const std::map<std::string, MpiSpec>& mpi_specs() {
  static const std::map<std::string, MpiSpec> specs = {
      {"MPI_Send", {"send", 1, 2, 3}},       {"MPI_Ssend", {"ssend", 1, 2, 3}},
      {"MPI_Rsend", {"rsend", 1, 2, 3}},     {"MPI_Bsend", {"bsend", 1, 2, 3}},
      {"MPI_Isend", {"isend", 1, 2, 3}},     {"MPI_Issend", {"issend", 1, 2, 3}},
      {"MPI_Recv", {"recv", 1, 2, 3}},       {"MPI_Irecv", {"irecv", 1, 2, 3}},
      {"MPI_Sendrecv", {"sendrecv", 1, 2, 3}},
      {"MPI_Sendrecv_replace", {"sendrecv", 1, 2, 3}},
      {"MPI_Bcast", {"bcast", 1, 2, -1, 3}}, {"MPI_Reduce", {"reduce", 2, 3, -1, 5}},
      {"MPI_Allreduce", {"allreduce", 2, 3}}, {"MPI_Scan", {"scan", 2, 3}},
      {"MPI_Exscan", {"exscan", 2, 3}},      {"MPI_Gather", {"gather", 1, 2, -1, 6}},
      {"MPI_Scatter", {"scatter", 4, 5, -1, 6}},
      {"MPI_Allgather", {"allgather", 1, 2}}, {"MPI_Alltoall", {"alltoall", 1, 2}},
      {"MPI_Gatherv", {"gatherv", 1, 2, -1, 7}},
      {"MPI_Scatterv", {"scatterv", 5, 6, -1, 7}},
      {"MPI_Allgatherv", {"allgatherv", 1, 2}},
      // counts per peer live in arrays: the bytes become a parameter
      {"MPI_Alltoallv", {"alltoallv"}},      {"MPI_Reduce_scatter", {"reduce_scatter"}},
      {"MPI_Barrier", {"barrier"}},          {"MPI_Wait", {"wait"}},
      {"MPI_Waitall", {"waitall"}},          {"MPI_Waitany", {"waitany"}},
      {"MPI_Test", {"test"}},                {"MPI_Testall", {"testall"}},
      {"MPI_Probe", {"probe"}},              {"MPI_Iprobe", {"iprobe"}},
      {"MPI_Comm_split", {"comm_split"}},    {"MPI_Comm_dup", {"comm_dup"}},
      {"MPI_Comm_free", {"comm_free"}},      {"MPI_Cart_create", {"cart_create"}},
      {"MPI_Init", {"init"}},                {"MPI_Init_thread", {"init"}},
      {"MPI_Finalize", {"finalize"}},
  };
  return specs;
}

// Open MPI's predefined datatypes are globals; their sizes on LP64.
std::optional<int> predefined_datatype_bytes(const std::string& global) {
  static const std::map<std::string, int> sizes = {
      {"ompi_mpi_char", 1},          {"ompi_mpi_signed_char", 1},  {"ompi_mpi_unsigned_char", 1},
      {"ompi_mpi_byte", 1},          {"ompi_mpi_packed", 1},       {"ompi_mpi_wchar", 4},
      {"ompi_mpi_short", 2},         {"ompi_mpi_unsigned_short", 2}, {"ompi_mpi_int", 4},
      {"ompi_mpi_unsigned", 4},      {"ompi_mpi_long", 8},         {"ompi_mpi_unsigned_long", 8},
      {"ompi_mpi_long_long_int", 8}, {"ompi_mpi_unsigned_long_long", 8},
      {"ompi_mpi_float", 4},         {"ompi_mpi_double", 8},       {"ompi_mpi_long_double", 16},
      {"ompi_mpi_int8_t", 1},        {"ompi_mpi_uint8_t", 1},      {"ompi_mpi_int16_t", 2},
      {"ompi_mpi_uint16_t", 2},      {"ompi_mpi_int32_t", 4},      {"ompi_mpi_uint32_t", 4},
      {"ompi_mpi_int64_t", 8},       {"ompi_mpi_uint64_t", 8},     {"ompi_mpi_c_bool", 1},
      {"ompi_mpi_cxx_bool", 1},      {"ompi_mpi_aint", 8},         {"ompi_mpi_offset", 8},
      {"ompi_mpi_count", 8},         {"ompi_mpi_float_int", 8},    {"ompi_mpi_double_int", 16},
      {"ompi_mpi_long_int", 16},     {"ompi_mpi_2int", 8},         {"ompi_mpi_short_int", 8},
      {"ompi_mpi_long_double_int", 32}, {"ompi_mpi_c_float_complex", 8}, {"ompi_mpi_c_complex", 8},
      {"ompi_mpi_c_double_complex", 16}, {"ompi_mpi_c_long_double_complex", 32},
  };
  auto it = sizes.find(global);
  if (it == sizes.end()) return std::nullopt;
  return it->second;
}

// Math functions the model prices by name (double; "f" suffix single).
std::optional<std::string> math_name(const std::string& callee) {
  static const std::set<std::string> known = {"sin", "cos", "tan", "exp", "log", "sqrt", "pow"};
  if (known.count(callee)) return callee;
  if (callee.size() > 1 && callee.back() == 'f' && known.count(callee.substr(0, callee.size() - 1))) return callee;
  return std::nullopt;
}

// ---------------------------------------------------------------- module context

struct ModuleContext {
  const llvm::DataLayout* dl = nullptr;
  const IrInput* input = nullptr;
  llvm::FunctionAnalysisManager* fam = nullptr;
  std::map<std::string, FunctionModel> functions;
  std::set<std::string> in_progress;
  std::map<std::string, ParamInfo> descriptions;  // every name an expression may use
  std::set<std::string> ignore;
  // range_<file>_<line>_<array> parameters: the loop each one is per run of.
  std::map<std::string, std::string> range_loops;
  // Parameters for ranks read from local arrays (nbr_1, element_rank()): what
  // the element holds and the MPI calls that read it, for the description.
  struct ElementParam {
    std::string what, default_value, assumed;
    std::vector<std::string> readers;
  };
  std::map<std::string, ElementParam> element_params;
  int mca_loops = 0;  // loops named for the MCA pricing
  FunctionModel& analyse(llvm::Function& f);
};

// ---------------------------------------------------------------- one function

class FunctionAnalyser {
 public:
  FunctionAnalyser(ModuleContext& ctx, llvm::Function& f, FunctionModel& out)
      : ctx_(ctx),
        f_(f),
        out_(out),
        li_(ctx.fam->getResult<llvm::LoopAnalysis>(f)),
        se_(ctx.fam->getResult<llvm::ScalarEvolutionAnalysis>(f)),
        dt_(ctx.fam->getResult<llvm::DominatorTreeAnalysis>(f)),
        pdt_(ctx.fam->getResult<llvm::PostDominatorTreeAnalysis>(f)),
        entry_(f.getName() == "main") {}

  void run();

 private:
  // --- naming
  void collect_debug_names();
  std::string member_name(const llvm::DILocalVariable* var, uint64_t offset_bits) const;
  std::string local_name(const std::string& source_name) const {
    return entry_ ? sanitize(source_name) : sanitize(f_.getName().str() + "." + source_name);
  }
  std::string loop_var(const llvm::Loop* l);
  void describe(const std::string& name, const std::string& description,
                std::optional<std::string> default_value = std::nullopt) {
    if (!ctx_.descriptions.count(name)) ctx_.descriptions[name] = {description, std::move(default_value)};
  }

  // --- expressions
  std::optional<Expr> conv(const llvm::SCEV* s, const llvm::Loop* scope, int depth = 0);
  std::optional<Expr> conv_value(const llvm::Value* v, const llvm::Loop* scope, int depth = 0);
  std::optional<Expr> conv_unknown(const llvm::Value* v, const llvm::Loop* scope, int depth);
  std::optional<Expr> conv_bool(const llvm::Value* v, const llvm::Loop* scope, int depth = 0);
  std::optional<Expr> conv_phi(const llvm::PHINode* phi, const llvm::Loop* scope, int depth);
  std::optional<Expr> unsigned_operand(const llvm::SCEV* s, const llvm::Loop* scope, int depth);
  std::optional<std::string> field_name(const llvm::LoadInst* load);
  bool written_in_loop(const llvm::Loop* loop, const llvm::Value* base, int64_t offset);
  bool writes_at(const llvm::Instruction& i, const llvm::Value* base, int64_t offset, int depth);
  std::optional<bool> mpi_writes(const llvm::CallBase& call, const llvm::Value* base, int64_t offset) const;
  bool may_write(const llvm::Argument& p, int64_t offset, int depth);
  std::optional<bool> mem_intrinsic_writes(const llvm::CallBase* call, const llvm::Value* base, int64_t offset);

  // --- ranks read from local arrays (MPI peers and roots: nbr[f])
  struct ArrayElement {
    const llvm::Value* base = nullptr;  // the array's alloca
    int64_t offset = 0, index = 0;      // bytes from base; element (flattened)
    std::string array, name;            // the source's array; the element's parameter (nbr_1)
    std::string declared;               // "main (wave3d.c:191)"
  };
  struct Neighbour {
    Expr rank;
    std::string what;                      // the grid and the shift, for the description
    std::vector<std::string> assumptions;  // empty: proven
  };
  std::optional<ArrayElement> array_element(const llvm::Value* v) const;
  std::optional<std::vector<const llvm::Instruction*>> writers(const llvm::Value* base, int64_t offset);
  std::optional<const llvm::Instruction*> last_writer(const llvm::Value* base, int64_t offset,
                                                      const llvm::Instruction* at);
  std::optional<Expr> written_value(const llvm::Instruction* writer, const llvm::Value* base, int64_t offset,
                                    unsigned bits);
  std::optional<Expr> value_at(const llvm::Value* base, int64_t offset, const llvm::Instruction* at, unsigned bits);
  const llvm::CallBase* mpi_call(const llvm::Instruction* i, const char* name) const;
  bool reaches(const llvm::Instruction* from, const llvm::Instruction* to);
  std::optional<Neighbour> cart_neighbour(const llvm::CallBase& shift, unsigned arg, std::string& why_not);
  std::optional<Expr> element_rank(const llvm::Value* v, const std::string& role, const std::string& reader,
                                   const std::string& fallback_default);

  // --- structure
  struct GuardStep {
    const llvm::Instruction* term;
    unsigned succ;  // UINT_MAX: reached on some paths only
    llvm::BasicBlock* target = nullptr;  // for those: the block reached
  };
  std::optional<Expr> reach_condition(llvm::BasicBlock* b, llvm::BasicBlock* from, const llvm::Loop* region,
                                      int depth = 0);
  bool guard_of(llvm::BasicBlock* b, const llvm::Loop* region, std::vector<GuardStep>& out);
  bool is_error_side(llvm::BasicBlock* from, llvm::BasicBlock* side);
  bool on_way_out(llvm::BasicBlock* b);
  bool reaches_loop(const llvm::BasicBlock* b);
  bool ends_normally_avoiding(llvm::BasicBlock* from, llvm::BasicBlock* avoid);
  bool leaves_early(llvm::BasicBlock* from, llvm::BasicBlock* exit);
  bool certain_but_for_exits(llvm::BasicBlock* d, llvm::BasicBlock* cur, const llvm::Loop* region);
  Items* container_of_loop(llvm::Loop* l);
  Items* navigate(Items* c, const std::vector<GuardStep>& guard);
  Node* branch_node(Items& c, const GuardStep& step);
  Expr trip_count(llvm::Loop* l);
  bool chain_restarts(const llvm::Loop* l);
  bool fresh_each_run(const llvm::Value* start, const llvm::Loop* l);
  void add_footprints();
  void add_streams(Node& n, const llvm::Loop* l);
  Expr runs_in(const CountedAccess& access, const llvm::Loop* l);
  bool model_wide(const Expr& e) const;
  std::string gathered_name(const llvm::Value* base) const;
  llvm::DebugLoc source_loc(const llvm::Loop* l) const;
  unsigned remainder_bits(const llvm::Loop* l);
  std::optional<Expr> loop_guard_condition(const llvm::BranchInst* br);
  void emit_block(llvm::BasicBlock* b, Items& items);
  void emit_call(llvm::CallBase& call, Items& items, const llvm::Loop* scope);
  void emit_mpi(llvm::CallBase& call, const std::string& name, Items& items, const llvm::Loop* scope);
  std::optional<Expr> datatype_bytes(const llvm::Value* dt, const llvm::Loop* scope);

  // --- locations
  struct Where {
    int line = 0;
    std::string file, origin, note;
  };
  Where where(const llvm::DebugLoc& dl) const;
  std::string synthetic(const Where& w, const std::string& what) const {
    return sanitize(fmt::format("{}_{}_{}_{}", what.substr(0, what.find('_')), file_tag(w.file), w.line,
                                what.substr(what.find('_') + 1)));
  }
  std::optional<double> probability_override(const Where& w) const;

  ModuleContext& ctx_;
  llvm::Function& f_;
  FunctionModel& out_;
  llvm::LoopInfo& li_;
  llvm::ScalarEvolution& se_;
  llvm::DominatorTree& dt_;
  llvm::PostDominatorTree& pdt_;
  bool entry_;

  struct DebugName {
    std::string name, description;
  };
  std::map<const llvm::Value*, DebugName> debug_names_;
  std::map<const llvm::Value*, std::string> alloca_names_;
  // Variables of struct (or pointer-to-struct) type by the value that holds
  // them: an alloca (dbg.declare) or a pointer (dbg.value), for naming fields.
  std::map<const llvm::Value*, const llvm::DILocalVariable*> struct_vars_;
  std::map<std::tuple<const llvm::Loop*, const llvm::Value*, int64_t>, bool> written_in_loop_;
  std::map<const llvm::Loop*, Expr> trip_counts_;
  std::map<const llvm::SCEV*, const llvm::Value*> named_scevs_;
  std::map<const llvm::Loop*, std::string> loop_vars_;
  std::map<const llvm::Loop*, Items*> loop_items_;
  std::map<const llvm::Loop*, Node*> loop_nodes_;
  std::set<const llvm::Loop*> dead_loops_;
  std::map<const llvm::BasicBlock*, bool> error_sides_;
  std::set<const llvm::BasicBlock*> on_way_out_;
  bool on_way_out_done_ = false;
  std::set<const llvm::BasicBlock*> reaches_loop_;
  bool reaches_loop_done_ = false;
  std::map<std::pair<const llvm::BasicBlock*, const llvm::BasicBlock*>, bool> certain_;
  std::map<std::pair<const llvm::BasicBlock*, const llvm::BasicBlock*>, bool> ends_normally_;
  std::set<std::string> arguments_;
  std::map<const llvm::BasicBlock*, std::set<const llvm::BasicBlock*>> reachable_;  // reaches()
};

FunctionAnalyser::Where FunctionAnalyser::where(const llvm::DebugLoc& dl) const {
  Where w;
  const llvm::DILocation* loc = dl.get();
  if (!loc) return w;
  w.line = static_cast<int>(loc->getLine());
  w.file = loc->getFilename().str();
  if (auto* sp = loc->getScope() ? loc->getScope()->getSubprogram() : nullptr) w.origin = sp->getName().str();
  if (loc->getInlinedAt() && !w.origin.empty() && w.origin != f_.getName()) {
    const llvm::DILocation* call = loc->getInlinedAt();
    while (call->getInlinedAt()) call = call->getInlinedAt();
    w.note = fmt::format("inlined from {} (called at line {})", w.origin, call->getLine());
  }
  return w;
}

std::optional<double> FunctionAnalyser::probability_override(const Where& w) const {
  for (const auto& [key, p] : ctx_.input->branch_probabilities) {
    auto colon = key.rfind(':');
    if (colon == std::string::npos) continue;
    std::string file = key.substr(0, colon);
    if (std::to_string(w.line) != key.substr(colon + 1)) continue;
    auto ends_with = [](const std::string& a, const std::string& b) {
      return a.size() >= b.size() && a.compare(a.size() - b.size(), b.size(), b) == 0;
    };
    if (ends_with(w.file, file) || ends_with(file, w.file)) return p;
  }
  return std::nullopt;
}

std::string FunctionAnalyser::member_name(const llvm::DILocalVariable* var, uint64_t offset_bits) const {
  std::string name = var->getName().str();
  const llvm::DIType* t = var->getType();
  // Through typedefs, qualifiers and a pointer (a variable that points to the
  // struct) to the struct whose member sits at the offset.
  for (int guard = 0; t && guard < 16; ++guard) {
    if (auto* d = llvm::dyn_cast<llvm::DIDerivedType>(t)) {
      if (d->getTag() == llvm::dwarf::DW_TAG_typedef || d->getTag() == llvm::dwarf::DW_TAG_const_type ||
          d->getTag() == llvm::dwarf::DW_TAG_volatile_type || d->getTag() == llvm::dwarf::DW_TAG_pointer_type) {
        t = d->getBaseType();
        continue;
      }
    }
    break;
  }
  if (auto* c = llvm::dyn_cast_or_null<llvm::DICompositeType>(t)) {
    if (c->getTag() == llvm::dwarf::DW_TAG_structure_type)
      for (auto* e : c->getElements())
        if (auto* m = llvm::dyn_cast<llvm::DIDerivedType>(e))
          if (m->getTag() == llvm::dwarf::DW_TAG_member && m->getOffsetInBits() == offset_bits)
            return name + "." + m->getName().str();
    if (c->getTag() == llvm::dwarf::DW_TAG_array_type && c->getBaseType()) {
      uint64_t elem = c->getBaseType()->getSizeInBits();
      if (elem) return fmt::format("{}_{}", name, offset_bits / elem);
    }
  }
  return fmt::format("{}_bit{}", name, offset_bits);
}

// Whether `i` may write the byte at `offset` of `base`: a store there (or
// through `base` at an offset not known), a memset/memcpy into `base`, or a
// call that gets a pointer into `base` and may write through it (what the
// callee does, when it is here, `depth` calls deep; what MPI does, for the MPI
// calls whose pointers mpi_writes() knows).
bool FunctionAnalyser::writes_at(const llvm::Instruction& i, const llvm::Value* base, int64_t offset, int depth) {
  using namespace llvm;
  if (auto* st = dyn_cast<StoreInst>(&i)) {
    int64_t off = 0;
    const Value* p = GetPointerBaseWithConstantOffset(st->getPointerOperand(), off, *ctx_.dl);
    if (p == base)
      return off <= offset &&
             offset < off + static_cast<int64_t>(ctx_.dl->getTypeStoreSize(st->getValueOperand()->getType()));
    return getUnderlyingObject(st->getPointerOperand()) == base;
  }
  auto* call = dyn_cast<CallBase>(&i);
  if (!call || call->onlyReadsMemory()) return false;
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
        GetPointerBaseWithConstantOffset(arg, off, *ctx_.dl) == base &&
        !may_write(*callee->getArg(a), offset - off, depth))
      continue;
    return true;
  }
  return false;
}

// What the MPI calls that take pointers to ranks and grids write through
// them, by the MPI standard (LLVM sees only "argument memory"):
// MPI_Cart_shift writes one int through each of its last two arguments,
// MPI_Cart_create reads dims and periods and writes the new communicator.
// Nothing for other calls.
std::optional<bool> FunctionAnalyser::mpi_writes(const llvm::CallBase& call, const llvm::Value* base,
                                                 int64_t offset) const {
  using namespace llvm;
  const Function* callee = call.getCalledFunction();
  if (!callee) return std::nullopt;
  StringRef name = callee->getName();
  if (name.startswith("PMPI_")) name = name.drop_front();
  std::vector<std::pair<unsigned, int64_t>> written;  // argument, bytes (0: any)
  if (name == "MPI_Cart_shift" && call.arg_size() == 5)
    written = {{3, 4}, {4, 4}};
  else if (name == "MPI_Cart_create" && call.arg_size() == 6)
    written = {{5, 0}};
  else
    return std::nullopt;
  for (auto [a, bytes] : written) {
    const Value* arg = call.getArgOperand(a);
    if (getUnderlyingObject(arg) != base) continue;
    int64_t off = 0;
    if (bytes == 0 || GetPointerBaseWithConstantOffset(arg, off, *ctx_.dl) != base ||
        (off <= offset && offset < off + bytes))
      return true;
  }
  return false;
}

// Whether code inside `loop` may write the bytes at `offset` of `base`
// (writes_at). A field the loop does not write holds one value while the
// loop runs.
bool FunctionAnalyser::written_in_loop(const llvm::Loop* loop, const llvm::Value* base, int64_t offset) {
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
std::optional<bool> FunctionAnalyser::mem_intrinsic_writes(const llvm::CallBase* call, const llvm::Value* base,
                                                           int64_t offset) {
  using namespace llvm;
  auto* mi = dyn_cast<MemIntrinsic>(call);
  if (!mi) return std::nullopt;
  auto* len = dyn_cast<ConstantInt>(mi->getLength());
  int64_t off = 0;
  const Value* dest = GetPointerBaseWithConstantOffset(mi->getRawDest(), off, *ctx_.dl);
  if (dest != base) return getUnderlyingObject(mi->getRawDest()) == base;
  if (!len) return true;
  return off <= offset && offset < off + static_cast<int64_t>(len->getZExtValue());
}

// Whether a function may write the byte at `offset` from the pointer argument
// `p` (itself or through the functions it passes `p` on to).
bool FunctionAnalyser::may_write(const llvm::Argument& p, int64_t offset, int depth) {
  if (depth > 4) return true;
  for (const llvm::BasicBlock& b : *p.getParent())
    for (const llvm::Instruction& i : b)
      if (writes_at(i, &p, offset, depth + 1)) return true;
  return false;
}

// The source name of an integer field that `load` reads: `var.field` (nested:
// `var.a.b`, array elements `var.a_2`) when the address is a constant offset
// into a struct variable (a local whose address is taken, or what a named
// pointer points to) and the loops around the load do not write it: one value
// each time the code runs (the options after parsing, the sizes after set-up). Loop bounds and
// loop guards read from such structs (`p->nloc`, `o.iters`) become parameters
// of their own, so every loop the optimiser makes of one source loop (vector
// body, remainder, unrolled copies) counts exactly in terms of the field.
std::optional<std::string> FunctionAnalyser::field_name(const llvm::LoadInst* load) {
  using namespace llvm;
  if (!load->getType()->isIntegerTy() || load->isVolatile()) return std::nullopt;
  int64_t offset = 0;
  const Value* base = GetPointerBaseWithConstantOffset(load->getPointerOperand(), offset, *ctx_.dl);
  auto it = struct_vars_.find(base);
  if (it == struct_vars_.end() || offset < 0) return std::nullopt;
  const DILocalVariable* var = it->second;
  const DIType* t = strip_qualifiers(var->getType());
  bool through_pointer = false;
  if (auto* d = dyn_cast_or_null<DIDerivedType>(t); d && d->getTag() == dwarf::DW_TAG_pointer_type) {
    // A pointer's value (dbg.value): its fields are what it points to. An
    // alloca holds the variable itself.
    if (isa<AllocaInst>(base)) return std::nullopt;
    t = strip_qualifiers(d->getBaseType());
    through_pointer = true;
  } else if (!isa<AllocaInst>(base)) {
    return std::nullopt;
  }
  uint64_t bits = static_cast<uint64_t>(offset) * 8;
  const uint64_t size = ctx_.dl->getTypeStoreSizeInBits(load->getType());
  std::string path = var->getName().str();
  bool member = false;
  // Structs only: a local array (neighbour ranks, MPI_Dims_create's dims) is
  // no set of named sizes; MPI peers and roots read from one get a parameter
  // per element (element_rank).
  if (auto* c = dyn_cast_or_null<DICompositeType>(t); !c || c->getTag() != dwarf::DW_TAG_structure_type)
    return std::nullopt;
  for (int guard = 0; t && guard < 16; ++guard) {
    auto* c = dyn_cast<DICompositeType>(t);
    if (!c) break;
    if (c->getTag() == dwarf::DW_TAG_structure_type) {
      const DIDerivedType* found = nullptr;
      for (auto* e : c->getElements())
        if (auto* m = dyn_cast<DIDerivedType>(e); m && m->getTag() == dwarf::DW_TAG_member && !m->isBitField()) {
          uint64_t msize =
              m->getSizeInBits() ? m->getSizeInBits() : (m->getBaseType() ? m->getBaseType()->getSizeInBits() : 0);
          if (m->getOffsetInBits() <= bits && bits < m->getOffsetInBits() + msize) found = m;
        }
      if (!found || found->getName().empty()) return std::nullopt;
      path += "." + found->getName().str();
      bits -= found->getOffsetInBits();
      t = strip_qualifiers(found->getBaseType());
      member = true;
    } else if (c->getTag() == dwarf::DW_TAG_array_type && c->getBaseType()) {
      const DIType* elem = strip_qualifiers(c->getBaseType());
      uint64_t esize = elem ? elem->getSizeInBits() : 0;
      if (!esize) return std::nullopt;
      path += fmt::format("_{}", bits / esize);
      bits %= esize;
      t = elem;
      member = true;
    } else {
      return std::nullopt;
    }
  }
  // A whole scalar field, read as what it is.
  if (!member || !t || bits != 0 || t->getSizeInBits() != size || isa<DICompositeType>(t)) return std::nullopt;
  if (auto* d = dyn_cast<DIDerivedType>(t); d && d->getTag() == dwarf::DW_TAG_pointer_type) return std::nullopt;
  if (const Loop* l = li_.getLoopFor(load->getParent())) {
    // A pointer that moves with a loop around the load (one struct per
    // iteration) reads a different field each time.
    if (auto* def = dyn_cast<Instruction>(base))
      if (const Loop* around = li_.getLoopFor(def->getParent()); around && around->contains(load->getParent()))
        return std::nullopt;
    while (l->getParentLoop()) l = l->getParentLoop();
    if (written_in_loop(l, base, offset)) {
      if (getenv("PERFCAST_ANALYZE_DEBUG") && ctx_.input->progress)
        ctx_.input->progress(fmt::format("{} at line {}: not a parameter, the loop at line {} may write it", path,
                                         where(load->getDebugLoc()).line, where(l->getStartLoc()).line));
      return std::nullopt;
    }
  }
  std::string name = through_pointer && isa<Argument>(base) ? sanitize(path) : local_name(path);
  std::string fn = var->getScope() && var->getScope()->getSubprogram()
                       ? var->getScope()->getSubprogram()->getName().str()
                       : f_.getName().str();
  describe(name, fmt::format("field {} of {} ({}:{}), read from memory (a value the loops that read it leave alone)",
                             path, fn, file_tag(var->getFilename().str()), var->getLine()));
  return name;
}

// ---------------------------------------------------------------- ranks in local arrays

// Whether a communicator argument is MPI_COMM_WORLD (Open MPI's global; MPICH's constant).
bool is_comm_world(const llvm::Value* comm) {
  const llvm::Value* v = comm->stripPointerCasts();
  if (auto* g = llvm::dyn_cast<llvm::GlobalVariable>(v)) return g->getName() == "ompi_mpi_comm_world";
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(v)) return c->getZExtValue() == 0x44000000;
  return false;
}

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

// The rank `disp` steps from `rank` along dimension `k` of a grid of extents
// `dims` numbered in row-major order (the last dimension varies fastest), as
// MPI numbers a Cartesian communicator's ranks: wrapped where `periodic` is
// not 0, else -1 (MPI_PROC_NULL) off the grid.
Expr cart_shifted(const std::vector<Expr>& dims, size_t k, const Expr& disp, const Expr& periodic) {
  Expr rank = ex::var("rank");
  if (disp == Expr(0)) return rank;
  Expr stride = 1;
  for (size_t j = k + 1; j < dims.size(); ++j) stride = stride * dims[j];
  Expr coord = ex::floordiv(rank, stride);
  if (k > 0) coord = ex::mod(coord, dims[k]);  // the first coordinate is below dims[0] already
  Expr moved = coord + disp;
  Expr below_end = ex::compare(ex::Comparison::Lt, moved, dims[k]);
  Expr from_start = ex::compare(ex::Comparison::Ge, moved, 0);
  // A constant step leaves the grid on one side only.
  Expr inside = !disp.is_constant() ? from_start * below_end : disp.real_value() > 0 ? below_end : from_start;
  Expr open = ex::select(inside, rank + disp * stride, -1);
  Expr wrapped = rank + (ex::mod(moved, dims[k]) - coord) * stride;
  if (periodic.is_constant()) return ex::simplify(periodic == Expr(0) ? open : wrapped);
  return ex::simplify(ex::select(ex::compare(ex::Comparison::Ne, periodic, 0), wrapped, open));
}

// A whole element of a local integer array (an alloca the debug info declares
// as an array) read at a constant index: `nbr[1]` of `int nbr[6]`; arrays of
// several dimensions give the flattened index.
std::optional<FunctionAnalyser::ArrayElement> FunctionAnalyser::array_element(const llvm::Value* v) const {
  using namespace llvm;
  auto* load = dyn_cast<LoadInst>(v);
  if (!load || !load->getType()->isIntegerTy() || load->isVolatile()) return std::nullopt;
  int64_t offset = 0;
  const Value* base = GetPointerBaseWithConstantOffset(load->getPointerOperand(), offset, *ctx_.dl);
  auto it = struct_vars_.find(base);
  if (it == struct_vars_.end() || !isa<AllocaInst>(base) || offset < 0) return std::nullopt;
  const DILocalVariable* var = it->second;
  auto* array = dyn_cast_or_null<DICompositeType>(strip_qualifiers(var->getType()));
  if (!array || array->getTag() != dwarf::DW_TAG_array_type) return std::nullopt;
  auto* elem = dyn_cast_or_null<DIBasicType>(strip_qualifiers(array->getBaseType()));
  const uint64_t bits = load->getType()->getIntegerBitWidth();
  if (!elem || elem->getSizeInBits() != bits || (offset * 8) % bits != 0 ||
      (array->getSizeInBits() && static_cast<uint64_t>(offset) * 8 >= array->getSizeInBits()))
    return std::nullopt;
  ArrayElement e;
  e.base = base;
  e.offset = offset;
  e.index = offset * 8 / static_cast<int64_t>(bits);
  e.array = var->getName().str();
  e.name = local_name(fmt::format("{}_{}", e.array, e.index));
  std::string fn = var->getScope() && var->getScope()->getSubprogram()
                       ? var->getScope()->getSubprogram()->getName().str()
                       : f_.getName().str();
  e.declared = fmt::format("{} ({}:{})", fn, file_tag(var->getFilename().str()), var->getLine());
  return e;
}

// Every instruction of the function that may write the bytes at `offset` of
// `base` (writes_at); nothing when the address is stored in memory (anything
// may then write through the copy).
std::optional<std::vector<const llvm::Instruction*>> FunctionAnalyser::writers(const llvm::Value* base,
                                                                               int64_t offset) {
  std::vector<const llvm::Instruction*> out;
  for (const llvm::Instruction& i : llvm::instructions(f_)) {
    if (auto* st = llvm::dyn_cast<llvm::StoreInst>(&i); st && st->getValueOperand()->getType()->isPointerTy() &&
                                                        llvm::getUnderlyingObject(st->getValueOperand()) == base)
      return std::nullopt;
    if (writes_at(i, base, offset, 0)) out.push_back(&i);
  }
  return out;
}

// Whether some path runs from `from` to `to`. LLVM's isPotentiallyReachable
// gives up (says yes) after 32 blocks, which a long main() exceeds.
bool FunctionAnalyser::reaches(const llvm::Instruction* from, const llvm::Instruction* to) {
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
std::optional<const llvm::Instruction*> FunctionAnalyser::last_writer(const llvm::Value* base, int64_t offset,
                                                                      const llvm::Instruction* at) {
  auto all = writers(base, offset);
  if (!all) return std::nullopt;
  // The writes that dominate `at` are in a chain; the last is dominated by the others.
  const llvm::Instruction* last = nullptr;
  for (const llvm::Instruction* w : *all)
    if (w != at && dt_.dominates(w, at) && (!last || dt_.dominates(last, w))) last = w;
  if (!last) {
    bool reached = std::any_of(all->begin(), all->end(), [&](auto* w) { return w != at && reaches(w, at); });
    return reached ? std::nullopt : std::optional<const llvm::Instruction*>(nullptr);
  }
  for (const llvm::Instruction* w : *all)
    if (w != last && w != at && reaches(last, w) && reaches(w, at)) return std::nullopt;
  return last;
}

// The value `writer` leaves in the `bits`-wide integer at `offset` of `base`:
// a store of it (an expression when the stored value converts), or a
// constant written as part of a wider store, a memset or a copy from a
// constant global (`int periods[3] = {0, 1, 0}`).
std::optional<Expr> FunctionAnalyser::written_value(const llvm::Instruction* writer, const llvm::Value* base,
                                                    int64_t offset, unsigned bits) {
  using namespace llvm;
  const int64_t bytes = bits / 8;
  int64_t off = 0;
  if (auto* st = dyn_cast<StoreInst>(writer)) {
    if (GetPointerBaseWithConstantOffset(st->getPointerOperand(), off, *ctx_.dl) != base) return std::nullopt;
    const Value* v = st->getValueOperand();
    if (off == offset && v->getType()->isIntegerTy(bits)) return conv_value(v, li_.getLoopFor(st->getParent()));
    auto* c = dyn_cast<ConstantInt>(v);
    const int64_t shift = (offset - off) * 8;
    if (!c || !ctx_.dl->isLittleEndian() || shift < 0 || shift + bits > c->getBitWidth()) return std::nullopt;
    return ex::integer(c->getValue().extractBits(bits, static_cast<unsigned>(shift)).getSExtValue());
  }
  auto* mi = dyn_cast<MemIntrinsic>(writer);
  auto* len = mi ? dyn_cast<ConstantInt>(mi->getLength()) : nullptr;
  if (!len || GetPointerBaseWithConstantOffset(mi->getRawDest(), off, *ctx_.dl) != base || offset < off ||
      offset + bytes > off + static_cast<int64_t>(len->getZExtValue()))
    return std::nullopt;
  if (auto* ms = dyn_cast<MemSetInst>(mi)) {
    auto* byte = dyn_cast<ConstantInt>(ms->getValue());
    if (!byte) return std::nullopt;
    return ex::integer(APInt::getSplat(bits, byte->getValue().trunc(8)).getSExtValue());
  }
  if (auto* mt = dyn_cast<MemTransferInst>(mi)) {
    int64_t from = 0;
    const Value* src = GetPointerBaseWithConstantOffset(mt->getRawSource(), from, *ctx_.dl);
    return constant_in(src, from + offset - off, bits, *ctx_.dl);
  }
  return std::nullopt;
}

// The `bits`-wide integer at `offset` of `base` when `at` runs: a constant
// global's, or what the last write before `at` left there.
std::optional<Expr> FunctionAnalyser::value_at(const llvm::Value* base, int64_t offset, const llvm::Instruction* at,
                                               unsigned bits) {
  if (llvm::isa<llvm::GlobalVariable>(base)) return constant_in(base, offset, bits, *ctx_.dl);
  auto last = last_writer(base, offset, at);
  if (!last || !*last) return std::nullopt;
  return written_value(*last, base, offset, bits);
}

const llvm::CallBase* FunctionAnalyser::mpi_call(const llvm::Instruction* i, const char* name) const {
  auto* call = llvm::dyn_cast_or_null<llvm::CallBase>(i);
  const llvm::Function* callee = call ? call->getCalledFunction() : nullptr;
  if (!callee) return nullptr;
  llvm::StringRef n = callee->getName();
  return n == name || (n.startswith("P") && n.drop_front() == name) ? call : nullptr;
}

// The rank MPI_Cart_shift writes through its argument `arg` (3: the source,
// 4: the destination) as an expression of rank and size, when the shift's
// communicator is MPI_Cart_create's over MPI_COMM_WORLD with dims from
// MPI_Dims_create(size, ndims, dims), in this function, and the periods, the
// direction and the displacement are known. `rank` is the world's: the
// Cartesian communicator numbers the ranks alike unless it may reorder them.
std::optional<FunctionAnalyser::Neighbour> FunctionAnalyser::cart_neighbour(const llvm::CallBase& shift, unsigned arg,
                                                                            std::string& why_not) {
  using namespace llvm;
  auto fail = [&](std::string why) -> std::optional<Neighbour> {
    why_not = std::move(why);
    return std::nullopt;
  };
  auto at = [&](const Instruction* i) {
    Where w = where(i->getDebugLoc());
    return fmt::format("{}:{}", file_tag(w.file), w.line);
  };
  const Loop* scope = li_.getLoopFor(shift.getParent());
  // The communicator: a handle MPI_Cart_create wrote (read back from memory).
  auto* comm = dyn_cast<LoadInst>(shift.getArgOperand(0));
  int64_t off = 0;
  const Value* holder = comm ? GetPointerBaseWithConstantOffset(comm->getPointerOperand(), off, *ctx_.dl) : nullptr;
  std::optional<const Instruction*> written;
  if (holder) written = last_writer(holder, off, comm);
  const CallBase* create = written ? mpi_call(*written, "MPI_Cart_create") : nullptr;
  if (!create) return fail("its communicator is no MPI_Cart_create's the analysis can follow");
  std::string create_at = "MPI_Cart_create at " + at(create);
  if (!is_comm_world(create->getArgOperand(0)))
    return fail(create_at + " divides a communicator other than MPI_COMM_WORLD");
  auto* ndims = dyn_cast<ConstantInt>(create->getArgOperand(1));
  if (!ndims || ndims->getSExtValue() < 1 || ndims->getSExtValue() > 3)
    return fail(create_at + " makes a grid of other than 1, 2 or 3 constant dimensions");
  const int nd = static_cast<int>(ndims->getSExtValue());
  // Its dims: what MPI_Dims_create(size, nd, dims) chose, by the model's
  // names for it when every dimension was left free (0).
  int64_t dims_off = 0;
  const Value* dims = GetPointerBaseWithConstantOffset(create->getArgOperand(2), dims_off, *ctx_.dl);
  const CallBase* dims_create = nullptr;
  for (int i = 0; i < nd; ++i) {
    auto w = last_writer(dims, dims_off + 4 * i, create);
    const CallBase* c = w && *w ? mpi_call(*w, "MPI_Dims_create") : nullptr;
    if (!c || (dims_create && c != dims_create))
      return fail(fmt::format("the dims of {} are not MPI_Dims_create's", create_at));
    dims_create = c;
  }
  auto nnodes = conv_value(dims_create->getArgOperand(0), li_.getLoopFor(dims_create->getParent()));
  auto* dims_nd = dyn_cast<ConstantInt>(dims_create->getArgOperand(1));
  int64_t into = 0;
  if (!nnodes || !(*nnodes == ex::var("size")) || !dims_nd || dims_nd->getSExtValue() != nd ||
      GetPointerBaseWithConstantOffset(dims_create->getArgOperand(2), into, *ctx_.dl) != dims || into != dims_off)
    return fail(fmt::format("MPI_Dims_create at {} does not divide size into the {} dims of {}", at(dims_create), nd,
                            create_at));
  std::vector<Expr> extents;
  std::vector<std::string> given;  // dims the code may have fixed before MPI_Dims_create
  for (int i = 0; i < nd; ++i) {
    extents.push_back(nd == 1 ? ex::var("size") : ex::var(fmt::format("dims{}_{}", nd, i)));
    auto before = value_at(dims, dims_off + 4 * i, dims_create, 32);
    if (!before || !(*before == Expr(0)))
      given.push_back(before ? fmt::format("dims[{}] = {}", i, ex::to_string(*before))
                             : fmt::format("dims[{}] is set where the analysis cannot tell to what", i));
  }
  // Periods: constants, or expressions of the model's parameters.
  int64_t periods_off = 0;
  const Value* periods = GetPointerBaseWithConstantOffset(create->getArgOperand(3), periods_off, *ctx_.dl);
  // Direction and displacement of the shift.
  auto direction = conv_value(shift.getArgOperand(1), scope);
  auto disp = conv_value(shift.getArgOperand(2), scope);
  if (!direction || direction->kind() != ex::Kind::Integer || direction->int_value() < 0 ||
      direction->int_value() >= nd || !disp || !model_wide(*disp))
    return fail(fmt::format("the direction or displacement of MPI_Cart_shift at {} is not known", at(&shift)));
  const auto k = static_cast<size_t>(direction->int_value());
  auto periodic = value_at(periods, periods_off + 4 * static_cast<int64_t>(k), create, 32);
  if (!periodic || !model_wide(*periodic)) return fail(fmt::format("periods[{}] of {} is not known", k, create_at));
  if (arg == 3) disp = ex::simplify(-*disp);  // the source is the rank `disp` steps back
  Neighbour n;
  n.rank = cart_shifted(extents, k, *disp, *periodic);
  std::string grid;
  for (const Expr& d : extents) grid += (grid.empty() ? "" : " x ") + ex::to_string(d);
  std::string wraps = *periodic == Expr(0)      ? "not periodic: -1 (MPI_PROC_NULL) off the grid"
                      : periodic->is_constant() ? "periodic"
                                                : fmt::format("periodic when {} != 0", ex::to_string(*periodic));
  n.what = fmt::format(
      "the {} of MPI_Cart_shift at {} (direction {}, displacement {}) on the {}-d grid of {} "
      "({} ranks in row-major order; {} along dimension {})",
      arg == 3 ? "source" : "destination", at(&shift), k, ex::to_string(arg == 3 ? ex::simplify(-*disp) : *disp), nd,
      create_at, grid, wraps, k);
  if (!given.empty()) {
    std::string list;
    for (const auto& g : given) list += (list.empty() ? "" : ", ") + g;
    n.assumptions.push_back(
        fmt::format("MPI_Dims_create at {} chose every dimension (before it {}; 0 leaves a "
                    "dimension to MPI)",
                    at(dims_create), list));
  }
  auto reorder = conv_value(create->getArgOperand(4), li_.getLoopFor(create->getParent()));
  if (!reorder || !(*reorder == Expr(0)))
    n.assumptions.push_back(fmt::format("{} kept every rank's number (reorder = {} lets MPI renumber them)", create_at,
                                        reorder ? ex::to_string(*reorder) : "not known"));
  return n;
}

// A peer or root read from an element of a local array (nbr[f] of an
// unrolled face loop). The element's value, when the last write before the
// read gives it: a rank stored there, or MPI_Cart_shift's neighbour (see
// cart_neighbour). Otherwise, or when the neighbour rests on an assumption,
// a parameter per element, named like a field (nbr_1), whose default is that
// neighbour or `fallback_default`; one element read by several calls is one
// parameter. Nothing when `v` is no such read.
std::optional<Expr> FunctionAnalyser::element_rank(const llvm::Value* v, const std::string& role,
                                                   const std::string& reader, const std::string& fallback_default) {
  auto e = array_element(v);
  if (!e) return std::nullopt;
  auto* load = llvm::cast<llvm::LoadInst>(v);
  const unsigned bits = load->getType()->getIntegerBitWidth();
  std::string what;
  std::string default_value = fallback_default;
  std::vector<std::string> assumptions;
  auto last = last_writer(e->base, e->offset, load);
  const llvm::CallBase* shift = last && *last ? mpi_call(*last, "MPI_Cart_shift") : nullptr;
  if (shift) {
    unsigned arg = 0;
    for (unsigned a : {3u, 4u}) {
      int64_t off = 0;
      if (llvm::GetPointerBaseWithConstantOffset(shift->getArgOperand(a), off, *ctx_.dl) == e->base && off == e->offset)
        arg = a;
    }
    std::string why_not;
    std::optional<Neighbour> n;
    if (arg && bits == 32) n = cart_neighbour(*shift, arg, why_not);
    if (n && n->assumptions.empty()) return n->rank;
    if (n) {
      what = "written as " + n->what;
      default_value = ex::to_string(n->rank);
      assumptions = n->assumptions;
    } else {
      Where w = where(shift->getDebugLoc());
      what = fmt::format("written by MPI_Cart_shift at {}:{}, not computable: {}", file_tag(w.file), w.line,
                         why_not.empty() ? "it writes the element in part" : why_not);
    }
  } else if (last && *last) {
    if (auto value = written_value(*last, e->base, e->offset, bits); value && model_wide(*value)) return value;
    Where w = where((*last)->getDebugLoc());
    what = fmt::format("written at {}:{} with a value not computable from the code", file_tag(w.file), w.line);
  } else {
    what = last ? "not written before it is read"
                : "written where the analysis cannot tell which write it reads (several writes, or a pointer)";
  }
  if (assumptions.empty()) assumptions.push_back(role == "peer" ? "a real neighbour" : "rank 0");
  std::string assumed;
  for (const auto& a : assumptions) assumed += (assumed.empty() ? "" : "; and ") + a;
  // One parameter per element and value: another read of the element that
  // finds another write gets a name of its own.
  std::string name = e->name;
  for (int k = 2; ctx_.element_params.count(name) && ctx_.element_params[name].what != what; ++k)
    name = fmt::format("{}_v{}", e->name, k);
  auto& param = ctx_.element_params[name];
  if (param.what.empty()) param.what = what, param.default_value = default_value, param.assumed = assumed;
  std::string read_as = fmt::format("the {} of {}", role, reader);
  if (std::find(param.readers.begin(), param.readers.end(), read_as) == param.readers.end())
    param.readers.push_back(read_as);
  std::string readers;
  for (size_t i = 0; i < param.readers.size(); ++i)
    readers += (i == 0 ? "" : i + 1 == param.readers.size() ? " and " : ", ") + param.readers[i];
  ctx_.descriptions[name] = {fmt::format("{}[{}], a local array of {}, read as {}; {}. The default assumes {}",
                                         e->array, e->index, e->declared, readers, param.what, param.assumed),
                             param.default_value};
  return ex::var(name);
}

void FunctionAnalyser::collect_debug_names() {
  std::set<std::string> taken;
  // Variables of this function first, then those of inlined callees.
  for (int pass = 0; pass < 2; ++pass)
    for (llvm::Instruction& i : llvm::instructions(f_)) {
      auto* dvi = llvm::dyn_cast<llvm::DbgVariableIntrinsic>(&i);
      if (!dvi) continue;
      bool inlined = dvi->getDebugLoc() && dvi->getDebugLoc()->getInlinedAt();
      if (inlined != (pass == 1)) continue;
      const llvm::DILocalVariable* var = dvi->getVariable();
      const llvm::DIExpression* e = dvi->getExpression();
      if (auto* declare = llvm::dyn_cast<llvm::DbgDeclareInst>(dvi)) {
        if (auto* a = declare->getAddress()) {
          alloca_names_.emplace(a, var->getName().str());
          struct_vars_.emplace(a, var);
        }
        continue;
      }
      auto* dv = llvm::dyn_cast<llvm::DbgValueInst>(dvi);
      if (!dv) continue;
      const llvm::Value* v = dv->getValue();
      if (v && v->getType()->isPointerTy() && e->getNumElements() == 0 && !llvm::isa<llvm::Constant>(v))
        struct_vars_.emplace(v, var);
      if (!v || llvm::isa<llvm::UndefValue>(v) || llvm::isa<llvm::Constant>(v) || debug_names_.count(v)) continue;
      std::string source;
      if (e->getNumElements() == 0) {
        source = var->getName().str();
      } else if (auto frag = e->getFragmentInfo(); frag && e->getNumElements() == 3) {
        source = member_name(var, frag->OffsetInBits);
      } else {
        continue;
      }
      if (source.empty()) continue;
      std::string name = var->getArg() && llvm::isa<llvm::Argument>(v) ? sanitize(source) : local_name(source);
      if (taken.count(name)) name = sanitize(fmt::format("{}_{}", name, var->getLine()));
      if (taken.count(name)) continue;
      taken.insert(name);
      std::string fn = var->getScope() && var->getScope()->getSubprogram()
                           ? var->getScope()->getSubprogram()->getName().str()
                           : f_.getName().str();
      debug_names_[v] = {name, fmt::format("source variable {} of {} ({}:{})", source, fn,
                                           file_tag(var->getFilename().str()), var->getLine())};
    }
}

std::string FunctionAnalyser::loop_var(const llvm::Loop* l) {
  auto it = loop_vars_.find(l);
  if (it != loop_vars_.end()) return it->second;
  std::string name;
  for (const llvm::PHINode& phi : l->getHeader()->phis()) {
    auto dn = debug_names_.find(&phi);
    if (dn == debug_names_.end() || !se_.isSCEVable(phi.getType())) continue;
    auto* ar = llvm::dyn_cast<llvm::SCEVAddRecExpr>(se_.getSCEV(const_cast<llvm::PHINode*>(&phi)));
    if (!ar || ar->getLoop() != l || !ar->isAffine()) continue;
    std::string base = dn->second.name.substr(dn->second.name.rfind('.') + 1);
    bool zero_based = ar->getStart()->isZero() && ar->getStepRecurrence(se_)->isOne();
    name = zero_based ? base : "iter_" + base;
    break;
  }
  if (name.empty()) name = fmt::format("iter_{}", where(l->getStartLoc()).line);
  name = sanitize(name);
  std::string unique = name;
  for (int k = 2; out_.loop_vars.count(unique) || ctx_.descriptions.count(unique); ++k)
    unique = fmt::format("{}_{}", name, k);
  out_.loop_vars.insert(unique);
  loop_vars_[l] = unique;
  return unique;
}

// ---------------------------------------------------------------- SCEV -> Expr

std::optional<Expr> FunctionAnalyser::unsigned_operand(const llvm::SCEV* s, const llvm::Loop* scope, int depth) {
  auto e = conv(s, scope, depth + 1);
  if (!e) return std::nullopt;
  if (se_.isKnownNonNegative(s)) return e;
  return ex::zext(*e, static_cast<int>(se_.getTypeSizeInBits(s->getType())));
}

std::optional<Expr> FunctionAnalyser::conv(const llvm::SCEV* s, const llvm::Loop* scope, int depth) {
  using namespace llvm;
  if (depth > 64) return std::nullopt;
  // A sum or product the source named (lx = n / p + ...) reads as its name.
  if (auto it = named_scevs_.find(s); it != named_scevs_.end()) {
    const DebugName& dn = debug_names_.at(it->second);
    describe(dn.name, dn.description);
    return ex::var(dn.name);
  }
  switch (s->getSCEVType()) {
    case scConstant: {
      const APInt& v = cast<SCEVConstant>(s)->getAPInt();
      if (v.getBitWidth() > 64) return std::nullopt;
      return ex::integer(v.getBitWidth() == 1 ? static_cast<std::int64_t>(v.getZExtValue()) : v.getSExtValue());
    }
    case scTruncate: {
      auto* t = cast<SCEVTruncateExpr>(s);
      auto x = conv(t->getOperand(), scope, depth + 1);
      if (!x) return std::nullopt;
      unsigned bits = se_.getTypeSizeInBits(t->getType());
      // Values that fit the narrower type pass unchanged; keep the truncation otherwise.
      if (se_.isKnownNonNegative(t->getOperand()) && se_.getUnsignedRangeMax(t->getOperand()).getActiveBits() < bits)
        return x;
      return ex::trunc(*x, static_cast<int>(bits));
    }
    case scZeroExtend: {
      auto* z = cast<SCEVZeroExtendExpr>(s);
      auto x = conv(z->getOperand(), scope, depth + 1);
      if (!x) return std::nullopt;
      unsigned bits = se_.getTypeSizeInBits(z->getOperand()->getType());
      if (bits > 1 && se_.isKnownNonNegative(z->getOperand())) return x;
      return ex::zext(*x, static_cast<int>(bits));
    }
    case scSignExtend: {
      auto* z = cast<SCEVSignExtendExpr>(s);
      auto x = conv(z->getOperand(), scope, depth + 1);
      if (!x) return std::nullopt;
      unsigned bits = se_.getTypeSizeInBits(z->getOperand()->getType());
      if (bits == 1) return ex::sext(*x, 1);
      return x;  // the expression already reads the value as signed
    }
    case scAddExpr:
      // lz + 2 is one flattened sum in SCEV: find the named part.
      for (const auto& [named, value] : named_scevs_) {
        if (named->getType() != s->getType()) continue;
        const SCEV* rest = se_.getMinusSCEV(s, named);
        if (rest->getExpressionSize() >= s->getExpressionSize()) continue;
        if (auto r = conv(rest, scope, depth + 1)) {
          const DebugName& dn = debug_names_.at(value);
          describe(dn.name, dn.description);
          return ex::var(dn.name) + *r;
        }
      }
      [[fallthrough]];
    case scMulExpr: {
      std::vector<Expr> terms;
      for (const SCEV* op : cast<SCEVNAryExpr>(s)->operands()) {
        auto e = conv(op, scope, depth + 1);
        if (!e) return std::nullopt;
        terms.push_back(*e);
      }
      return s->getSCEVType() == scAddExpr ? ex::add(terms) : ex::mul(terms);
    }
    case scUDivExpr: {
      auto* d = cast<SCEVUDivExpr>(s);
      auto a = unsigned_operand(d->getLHS(), scope, depth);
      auto b = unsigned_operand(d->getRHS(), scope, depth);
      if (!a || !b) return std::nullopt;
      return ex::floordiv(*a, *b);
    }
    case scAddRecExpr: {
      auto* ar = cast<SCEVAddRecExpr>(s);
      const Loop* l = ar->getLoop();
      if (!scope || !l->contains(scope)) {
        const SCEV* at = se_.getSCEVAtScope(s, const_cast<Loop*>(scope));
        if (at == s) return std::nullopt;
        return conv(at, scope, depth + 1);
      }
      // {a0,+,a1,+,a2...} at iteration n is sum_k a_k * C(n, k)
      Expr n = ex::var(loop_var(l));
      std::vector<Expr> terms;
      Expr binomial = 1, falling = 1;
      std::int64_t factorial = 1;
      for (unsigned k = 0; k < ar->getNumOperands(); ++k) {
        auto a = conv(ar->getOperand(k), scope, depth + 1);
        if (!a) return std::nullopt;
        if (k > 0) {
          falling = falling * (n - Expr(static_cast<std::int64_t>(k - 1)));
          factorial *= k;
          binomial = factorial == 1 ? falling : ex::floordiv(falling, Expr(factorial));
        }
        terms.push_back(*a * binomial);
      }
      return ex::add(terms);
    }
    case scSMaxExpr:
    case scUMaxExpr:
    case scSMinExpr:
    case scUMinExpr:
    case scSequentialUMinExpr: {
      bool is_unsigned = s->getSCEVType() == scUMaxExpr || s->getSCEVType() == scUMinExpr ||
                         s->getSCEVType() == scSequentialUMinExpr;
      std::vector<Expr> args;
      for (const SCEV* op : cast<SCEVNAryExpr>(s)->operands()) {
        auto e = is_unsigned ? unsigned_operand(op, scope, depth) : conv(op, scope, depth + 1);
        if (!e) return std::nullopt;
        args.push_back(*e);
      }
      bool is_max = s->getSCEVType() == scSMaxExpr || s->getSCEVType() == scUMaxExpr;
      return is_max ? ex::maximum(args) : ex::minimum(args);
    }
    case scUnknown:
      return conv_unknown(cast<SCEVUnknown>(s)->getValue(), scope, depth + 1);
    default:
      return std::nullopt;
  }
}

std::optional<Expr> FunctionAnalyser::conv_value(const llvm::Value* v, const llvm::Loop* scope, int depth) {
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(v)) {
    if (c->getBitWidth() > 64) return std::nullopt;
    return ex::integer(c->getBitWidth() == 1 ? static_cast<std::int64_t>(c->getZExtValue()) : c->getSExtValue());
  }
  if (v->getType()->isIntegerTy(1)) return conv_bool(v, scope, depth + 1);
  if (!v->getType()->isIntegerTy() || !se_.isSCEVable(v->getType())) return std::nullopt;
  const llvm::SCEV* s = se_.getSCEV(const_cast<llvm::Value*>(v));
  return conv(se_.getSCEVAtScope(s, const_cast<llvm::Loop*>(scope)), scope, depth + 1);
}

std::optional<Expr> FunctionAnalyser::conv_unknown(const llvm::Value* v, const llvm::Loop* scope, int depth) {
  using namespace llvm;
  if (depth > 64) return std::nullopt;
  if (auto* c = dyn_cast<ConstantInt>(v)) return conv_value(c, scope, depth);
  if (auto* a = dyn_cast<Argument>(v)) {
    if (!a->getType()->isIntegerTy() || entry_) {
      auto dn = debug_names_.find(v);
      if (dn == debug_names_.end()) return std::nullopt;
      describe(dn->second.name, dn->second.description);
      return ex::var(dn->second.name);
    }
    std::string name = out_.all_arguments.at(a->getArgNo());
    if (name.empty()) return std::nullopt;
    return ex::var(name);
  }
  auto* inst = dyn_cast<Instruction>(v);
  if (!inst) return std::nullopt;
  if (auto* load = dyn_cast<LoadInst>(inst)) {
    const Value* p = load->getPointerOperand()->stripPointerCasts();
    // rank and size: what MPI_Comm_rank / MPI_Comm_size wrote there.
    for (const User* u : p->users())
      if (auto* call = dyn_cast<CallBase>(u))
        if (auto* callee = call->getCalledFunction(); callee && call->arg_size() >= 2 &&
                                                      call->getArgOperand(1)->stripPointerCasts() == p) {
          if (callee->getName() == "MPI_Comm_rank") return ex::var("rank");
          if (callee->getName() == "MPI_Comm_size") return ex::var("size");
        }
    if (auto* g = dyn_cast<GlobalVariable>(p)) {
      std::string name = sanitize(g->getName().str());
      describe(name, fmt::format("global variable {}", g->getName().str()));
      return ex::var(name);
    }
    // A field of a struct, even read inside a loop around the use (a call in
    // the loop kept it from being hoisted): it changes with the loop only if
    // the loop writes it, which field_name rules out.
    if (auto name = field_name(load)) return ex::var(*name);
  }
  // Integer arithmetic SCEV leaves opaque: expand it when its operands convert.
  if (auto* bo = dyn_cast<BinaryOperator>(inst)) {
    auto a = conv_value(bo->getOperand(0), scope, depth + 1);
    auto b = a ? conv_value(bo->getOperand(1), scope, depth + 1) : std::nullopt;
    if (a && b) switch (bo->getOpcode()) {
        // sdiv/srem round toward zero; floordiv/mod agree on the non-negative
        // sizes and counts these are in practice.
        case Instruction::SDiv: return ex::floordiv(*a, *b);
        case Instruction::SRem: return ex::mod(*a, *b);
        case Instruction::UDiv: return ex::floordiv(*a, *b);
        case Instruction::URem: return ex::mod(*a, *b);
        case Instruction::Add: return *a + *b;
        case Instruction::Sub: return *a - *b;
        case Instruction::Mul: return *a * *b;
        // An addition when no bit is shared; x | (2^k - 1), a vector loop's
        // end index, is x rounded down to a multiple of 2^k, plus 2^k - 1.
        case Instruction::Or: {
          if (llvm::haveNoCommonBitsSet(bo->getOperand(0), bo->getOperand(1), *ctx_.dl)) return *a + *b;
          auto* mask = dyn_cast<ConstantInt>(bo->getOperand(1));
          if (mask && !mask->isNegative() && (mask->getValue() + 1).isPowerOf2()) {  // any sign: floor
            Expr block = ex::integer(mask->getSExtValue() + 1);
            return ex::floordiv(*a, block) * block + *b;
          }
          break;
        }
        default: break;
      }
  }
  if (auto* sel = dyn_cast<SelectInst>(inst)) {
    auto c = conv_bool(sel->getCondition(), scope, depth + 1);
    auto a = c ? conv_value(sel->getTrueValue(), scope, depth + 1) : std::nullopt;
    auto b = a ? conv_value(sel->getFalseValue(), scope, depth + 1) : std::nullopt;
    if (c && a && b) return ex::select(*c, *a, *b);
  }
  if (isa<ZExtInst>(inst) || isa<SExtInst>(inst)) {
    const Value* op = inst->getOperand(0);
    if (op->getType()->isIntegerTy(1))
      if (auto c = conv_bool(op, scope, depth + 1)) return ex::select(*c, isa<ZExtInst>(inst) ? 1 : -1, 0);
  }
  if (isa<ICmpInst>(inst)) return conv_bool(inst, scope, depth + 1);
  if (auto* phi = dyn_cast<PHINode>(inst); phi && !li_.isLoopHeader(phi->getParent()))
    if (auto e = conv_phi(phi, scope, depth + 1)) return e;
  // A value that changes from one iteration to the next of a loop around the
  // use is no parameter.
  if (Loop* def = li_.getLoopFor(inst->getParent()); def && scope && def->contains(scope)) return std::nullopt;
  auto dn = debug_names_.find(v);
  if (dn != debug_names_.end()) {
    describe(dn->second.name, dn->second.description);
    return ex::var(dn->second.name);
  }
  return std::nullopt;
}

std::optional<Expr> FunctionAnalyser::conv_bool(const llvm::Value* v, const llvm::Loop* scope, int depth) {
  using namespace llvm;
  if (depth > 64) return std::nullopt;
  if (auto* c = dyn_cast<ConstantInt>(v)) return ex::integer(c->isZero() ? 0 : 1);
  if (auto* cmp = dyn_cast<ICmpInst>(v)) {
    if (!cmp->getOperand(0)->getType()->isIntegerTy()) return std::nullopt;
    auto a = conv_value(cmp->getOperand(0), scope, depth + 1);
    auto b = a ? conv_value(cmp->getOperand(1), scope, depth + 1) : std::nullopt;
    if (!a || !b) return std::nullopt;
    if (cmp->isUnsigned()) {
      int bits = static_cast<int>(cmp->getOperand(0)->getType()->getIntegerBitWidth());
      auto nonneg = [&](const Value* x) {
        return isa<ConstantInt>(x) ? !cast<ConstantInt>(x)->isNegative()
                                   : se_.isKnownNonNegative(se_.getSCEV(const_cast<Value*>(x)));
      };
      if (!nonneg(cmp->getOperand(0))) a = ex::zext(*a, bits);
      if (!nonneg(cmp->getOperand(1))) b = ex::zext(*b, bits);
    }
    switch (cmp->getPredicate()) {
      case CmpInst::ICMP_EQ: return ex::compare(ex::Comparison::Eq, *a, *b);
      case CmpInst::ICMP_NE: return ex::compare(ex::Comparison::Ne, *a, *b);
      case CmpInst::ICMP_SLT: case CmpInst::ICMP_ULT: return ex::compare(ex::Comparison::Lt, *a, *b);
      case CmpInst::ICMP_SLE: case CmpInst::ICMP_ULE: return ex::compare(ex::Comparison::Le, *a, *b);
      case CmpInst::ICMP_SGT: case CmpInst::ICMP_UGT: return ex::compare(ex::Comparison::Gt, *a, *b);
      case CmpInst::ICMP_SGE: case CmpInst::ICMP_UGE: return ex::compare(ex::Comparison::Ge, *a, *b);
      default: return std::nullopt;
    }
  }
  if (auto* bo = dyn_cast<BinaryOperator>(v); bo && bo->getType()->isIntegerTy(1)) {
    auto a = conv_bool(bo->getOperand(0), scope, depth + 1);
    auto b = a ? conv_bool(bo->getOperand(1), scope, depth + 1) : std::nullopt;
    if (!a || !b) return std::nullopt;
    switch (bo->getOpcode()) {
      case Instruction::And: return *a * *b;
      case Instruction::Or: return ex::select(*a, 1, *b);
      case Instruction::Xor: return ex::compare(ex::Comparison::Ne, *a, *b);
      default: return std::nullopt;
    }
  }
  if (auto* sel = dyn_cast<SelectInst>(v); sel && sel->getType()->isIntegerTy(1)) {
    auto c = conv_bool(sel->getCondition(), scope, depth + 1);
    auto a = c ? conv_bool(sel->getTrueValue(), scope, depth + 1) : std::nullopt;
    auto b = a ? conv_bool(sel->getFalseValue(), scope, depth + 1) : std::nullopt;
    if (c && a && b) return ex::select(*c, *a, *b);
    return std::nullopt;
  }
  if (auto* t = dyn_cast<TruncInst>(v); t && t->getType()->isIntegerTy(1)) {
    if (auto x = conv_value(t->getOperand(0), scope, depth + 1)) return ex::trunc(*x, 1);
  }
  return std::nullopt;
}

// A join of values (the vectoriser's resume value: 0 when the vector loop was
// skipped, the vector trip count after it) as a select on the branch that
// decides which way the program came. Run-time checks are assumed to pass, as
// branch_node() does.
std::optional<Expr> FunctionAnalyser::conv_phi(const llvm::PHINode* phi, const llvm::Loop* scope, int depth) {
  using namespace llvm;
  if (depth > 64 || !phi->getType()->isIntegerTy()) return std::nullopt;
  BasicBlock* block = const_cast<BasicBlock*>(phi->getParent());
  std::vector<std::pair<const Value*, BasicBlock*>> in;
  for (unsigned k = 0; k < phi->getNumIncomingValues(); ++k) {
    BasicBlock* pred = phi->getIncomingBlock(k);
    if (pred->getName().startswith("vector.memcheck") || pred->getName().startswith("vector.scevcheck")) continue;
    in.emplace_back(phi->getIncomingValue(k), pred);
  }
  if (in.empty()) return std::nullopt;
  bool same = std::all_of(in.begin(), in.end(), [&](const auto& p) { return p.first == in.front().first; });
  if (same) return conv_value(in.front().first, scope, depth + 1);
  auto* node = dt_.getNode(block);
  if (!node || !node->getIDom()) return std::nullopt;
  BasicBlock* d = node->getIDom()->getBlock();
  auto* br = dyn_cast<BranchInst>(d->getTerminator());
  if (!br || !br->isConditional()) return std::nullopt;
  const Value* side_value[2] = {nullptr, nullptr};
  for (const auto& [value, pred] : in) {
    int side = -1;
    for (unsigned s = 0; s < 2; ++s) {
      BasicBlock* succ = br->getSuccessor(s);
      if ((pred == d && succ == block) || (succ != block && dt_.dominates(BasicBlockEdge(d, succ), pred))) side = s;
    }
    if (side < 0 || (side_value[side] && side_value[side] != value)) return std::nullopt;
    side_value[side] = value;
  }
  if (!side_value[0] || !side_value[1]) return std::nullopt;
  auto cond = conv_bool(br->getCondition(), li_.getLoopFor(d), depth + 1);
  auto a = cond ? conv_value(side_value[0], scope, depth + 1) : std::nullopt;
  auto b = a ? conv_value(side_value[1], scope, depth + 1) : std::nullopt;
  if (!a || !b) return std::nullopt;
  return ex::select(*cond, *a, *b);
}

// ---------------------------------------------------------------- structure

// Whether `b` ends the program: it aborts or exits (ends in `unreachable`, or
// calls MPI_Abort/abort/exit), or, when `finalize_counts`, finalises MPI (the
// normal end of an MPI run, which a return follows).
bool ends_program(const llvm::BasicBlock& b, bool finalize_counts) {
  using namespace llvm;
  if (isa<UnreachableInst>(b.getTerminator())) return true;
  for (const Instruction& i : b)
    if (auto* call = dyn_cast<CallBase>(&i))
      if (const Function* callee = call->getCalledFunction()) {
        StringRef n = callee->getName();
        if (n == "MPI_Abort" || n == "abort" || n == "exit" || n == "_exit") return true;
        if (finalize_counts && n == "MPI_Finalize") return true;
      }
  return false;
}

// An "error side" of a branch: the code behind it aborts, or stops the program
// early (finalises MPI and returns without looping again). Such paths are
// taken with probability 0 and the other side is certain.
bool FunctionAnalyser::is_error_side(llvm::BasicBlock* from, llvm::BasicBlock* side) {
  using namespace llvm;
  if (pdt_.dominates(side, from)) return false;  // a join: both ways reach it
  auto memo = error_sides_.find(side);
  if (memo != error_sides_.end()) return memo->second || leaves_early(from, side);
  // Nothing reachable from here may loop: the program is on its way out.
  bool stops = false;
  if (!reaches_loop(side)) {
    SmallVector<BasicBlock*, 16> dominated;
    dt_.getDescendants(side, dominated);
    for (BasicBlock* b : dominated) stops = stops || ends_program(*b, true);
  }
  bool result = stops;
  error_sides_[side] = result;
  // A shared exit block (`MPI_Finalize(); return rc;` that several checks
  // jump to) is dominated by none of them, so the search above misses it.
  return result || leaves_early(from, side);
}

// Whether some path from `from` returns from the function without passing
// `avoid`, not counting paths that abort or exit (they end the program, not
// the run the model describes).
bool FunctionAnalyser::ends_normally_avoiding(llvm::BasicBlock* from, llvm::BasicBlock* avoid) {
  using namespace llvm;
  auto memo = ends_normally_.find({from, avoid});
  if (memo != ends_normally_.end()) return memo->second;
  std::set<BasicBlock*> seen;
  std::vector<BasicBlock*> work = {from};
  bool found = false;
  while (!work.empty() && !found) {
    BasicBlock* b = work.back();
    work.pop_back();
    if (b == avoid || !seen.insert(b).second || ends_program(*b, false)) continue;
    if (isa<ReturnInst>(b->getTerminator())) found = true;
    for (BasicBlock* s : successors(b)) work.push_back(s);
  }
  return ends_normally_[{from, avoid}] = found;
}

// Whether entering `exit` from `from` leaves the run early: `from` can still
// go on to a loop (the program's work), `exit` is on the way out, and the run
// can end normally without it (so it is not the program's normal end, which
// every run that does not abort passes).
bool FunctionAnalyser::leaves_early(llvm::BasicBlock* from, llvm::BasicBlock* exit) {
  return on_way_out(exit) && !on_way_out(from) && ends_normally_avoiding(from, exit);
}

// Whether `b` is in a loop or can reach one: a backward fixed point over the
// function, computed once.
bool FunctionAnalyser::reaches_loop(const llvm::BasicBlock* b) {
  using namespace llvm;
  if (!reaches_loop_done_) {
    reaches_loop_done_ = true;
    for (bool changed = true; changed;) {
      changed = false;
      for (BasicBlock& x : f_) {
        if (reaches_loop_.count(&x)) continue;
        bool reach = li_.getLoopFor(&x) != nullptr;
        for (BasicBlock* s : successors(&x)) reach = reach || reaches_loop_.count(s);
        if (reach) reaches_loop_.insert(&x), changed = true;
      }
    }
  }
  return reaches_loop_.count(b) > 0;
}

// A block on the program's way out: no loop is reachable from it and every
// path from it to a return stops the program (finalises MPI, aborts, exits) or
// ends in `unreachable`.
bool FunctionAnalyser::on_way_out(llvm::BasicBlock* b) {
  using namespace llvm;
  if (!on_way_out_done_) {
    on_way_out_done_ = true;
    // The least fixed point: a block stops itself or all its successors are on the way out.
    for (bool changed = true; changed;) {
      changed = false;
      for (BasicBlock& x : f_) {
        if (reaches_loop(&x) || on_way_out_.count(&x)) continue;
        bool out = ends_program(x, true);
        if (!out && succ_size(&x) > 0) {
          out = true;
          for (BasicBlock* s : successors(&x)) out = out && on_way_out_.count(s);
        }
        if (out) on_way_out_.insert(&x), changed = true;
      }
    }
  }
  return on_way_out_.count(b) > 0;
}

// Whether every path from `d` that does not leave early reaches `cur` (in the
// same iteration of `region`). Leaving early: entering a block on the way out
// (an early `MPI_Finalize(); return`, an abort) that `cur` cannot reach, so not
// the program's normal end after `cur`. Such exits, perhaps deep inside a loop
// (an option parser's) or behind a shared return block, make the code after
// them no less certain: `cur` then counts as reached whenever `d` is.
bool FunctionAnalyser::certain_but_for_exits(llvm::BasicBlock* d, llvm::BasicBlock* cur, const llvm::Loop* region) {
  using namespace llvm;
  if (on_way_out(cur)) return false;
  auto memo = certain_.find({d, cur});
  if (memo != certain_.end()) return memo->second;
  bool& result = certain_[{d, cur}];
  // The blocks reachable from `cur`: the way out after it is its normal end.
  std::set<const BasicBlock*> after;
  std::vector<BasicBlock*> todo = {cur};
  while (!todo.empty()) {
    BasicBlock* b = todo.back();
    todo.pop_back();
    if (!after.insert(b).second) continue;
    for (BasicBlock* s : successors(b)) todo.push_back(s);
  }
  std::set<BasicBlock*> seen;
  std::vector<std::pair<BasicBlock*, BasicBlock*>> work;  // (block, the block the walk came from)
  for (BasicBlock* s : successors(d)) work.push_back({s, d});
  bool left_early = false;
  while (!work.empty()) {
    auto [b, from] = work.back();
    work.pop_back();
    if (b == cur || !seen.insert(b).second) continue;
    // An exit `cur` cannot reach, or one it reaches only through further
    // checks (a block shared by every `return rc` of an inlined parser).
    if (on_way_out(b) && (!after.count(b) || leaves_early(from, b))) {
      left_early = true;
      continue;
    }
    // Around the loop again, out of it, or out of the function: `cur` missed.
    if (region && (b == region->getHeader() || !region->contains(b))) return result = false;
    if (succ_size(b) == 0) return result = false;
    for (BasicBlock* s : successors(b)) work.push_back({s, b});
  }
  return result = left_early;
}

bool FunctionAnalyser::guard_of(llvm::BasicBlock* b, const llvm::Loop* region, std::vector<GuardStep>& out) {
  using namespace llvm;
  BasicBlock* head = region ? region->getHeader() : &f_.getEntryBlock();
  std::vector<GuardStep> rev;
  BasicBlock* cur = b;
  while (cur != head) {
    auto* node = dt_.getNode(cur);
    if (!node || !node->getIDom()) break;
    BasicBlock* d = node->getIDom()->getBlock();
    Instruction* t = d->getTerminator();
    // An exit the run reaches only by leaving early (a parser's `--help`
    // inside its loop, a `return rc` block shared by several checks): no
    // single branch side leads there, so it is caught here.
    if (leaves_early(d, cur)) return false;
    if (li_.getLoopFor(d) == region && !pdt_.dominates(cur, d) && t->getNumSuccessors() >= 2 &&
        !certain_but_for_exits(d, cur, region)) {
      unsigned side = UINT_MAX;
      for (unsigned s = 0; s < t->getNumSuccessors(); ++s)
        if (dt_.dominates(BasicBlockEdge(d, t->getSuccessor(s)), cur)) {
          side = s;
          break;
        }
      bool others_error = side != UINT_MAX, leaves_region = false;
      for (unsigned s = 0; s < t->getNumSuccessors(); ++s) {
        if (s == side) continue;
        if (!is_error_side(d, t->getSuccessor(s))) others_error = false;
        if (region && !region->contains(t->getSuccessor(s))) leaves_region = true;
      }
      if (side != UINT_MAX && is_error_side(d, t->getSuccessor(side))) return false;
      // A loop's exit test is its trip count; an error path's alternative is certain.
      if (!others_error && !leaves_region) rev.push_back({t, side, side == UINT_MAX ? cur : nullptr});
    }
    cur = d;
  }
  out.assign(rev.rbegin(), rev.rend());
  return true;
}

Node* FunctionAnalyser::branch_node(Items& c, const GuardStep& step) {
  using namespace llvm;
  bool two_way = isa<BranchInst>(step.term) && step.succ != UINT_MAX;
  for (auto it = c.rbegin(); it != c.rend(); ++it)
    if ((*it)->kind == Node::Branch && (*it)->key == step.term && (two_way || (*it)->key_succ == step.succ) &&
        (*it)->key_target == step.target)
      return it->get();
  auto n = std::make_unique<Node>();
  n->kind = Node::Branch;
  n->key = step.term;
  n->key_succ = step.succ;
  n->key_target = step.target;
  Where w = where(step.term->getDebugLoc());
  n->line = w.line;
  n->note = w.note;
  const Loop* scope = li_.getLoopFor(step.term->getParent());
  if (two_way) {
    auto* br = cast<BranchInst>(step.term);
    if (auto p = probability_override(w)) {
      n->probability = *p;
    } else if (auto cond = conv_bool(br->getCondition(), scope)) {
      n->condition = ex::simplify(*cond);
    } else {
      // The vectoriser's run-time checks (aliasing, wrapping) pass in any code
      // that vectorises profitably: the vector path is taken.
      std::string block = br->getParent()->getName().str();
      if (block.rfind("vector.memcheck", 0) == 0 || block.rfind("vector.scevcheck", 0) == 0) {
        bool then_scalar = br->getSuccessor(0)->getName().startswith("scalar.ph");
        n->probability = then_scalar ? 0.0 : 1.0;
        n->note = (n->note.empty() ? "" : n->note + "; ") + "vectoriser run-time check assumed to pass";
      } else if (auto guard = loop_guard_condition(br)) {
        n->condition = ex::simplify(*guard);
        n->note = (n->note.empty() ? "" : n->note + "; ") + "guard of the loop after it: its trip count > 0";
      } else {
        n->note = (n->note.empty() ? "" : n->note + "; ") + "data-dependent condition";
      }
    }
  } else if (auto reach = step.target ? reach_condition(step.target, const_cast<BasicBlock*>(step.term->getParent()),
                                                        scope)
                                      : std::nullopt) {
    n->condition = ex::simplify(*reach);
    n->note = (n->note.empty() ? "" : n->note + "; ") + "condition of the paths that reach it";
  } else {
    unsigned ways = step.term->getNumSuccessors();
    n->probability = step.succ == UINT_MAX ? 0.5 : 1.0 / ways;
    if (auto p = probability_override(w)) n->probability = *p;
    n->note = (n->note.empty() ? "" : n->note + "; ") +
              (step.succ == UINT_MAX ? "reached on some paths" : fmt::format("one of {} switch cases", ways));
  }
  c.push_back(std::move(n));
  return c.back().get();
}

// The condition under which the program, at `from`, goes on to reach `b`: a
// sum over b's incoming edges (one execution arrives by exactly one), each the
// condition of reaching its source times the edge's branch condition. Loops
// in between count as reached once entered; run-time checks as passing.
std::optional<Expr> FunctionAnalyser::reach_condition(llvm::BasicBlock* b, llvm::BasicBlock* from,
                                                      const llvm::Loop* region, int depth) {
  using namespace llvm;
  if (b == from) return Expr(1);
  if (depth > 32 || !dt_.dominates(from, b)) return std::nullopt;
  // Edges into b; an edge out of a loop inside the region stands for the edges
  // into that loop's header from outside it.
  std::vector<std::pair<BasicBlock*, BasicBlock*>> edges;
  for (BasicBlock* p : predecessors(b)) {
    Loop* pl = li_.getLoopFor(p);
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
  for (auto [p, to] : edges) {
    auto r = reach_condition(p, from, region, depth + 1);
    if (!r) return std::nullopt;
    auto* br = dyn_cast<BranchInst>(p->getTerminator());
    if (!br) return std::nullopt;
    Expr edge = 1;
    if (br->isConditional() && br->getSuccessor(0) != br->getSuccessor(1)) {
      bool taken_if_true = br->getSuccessor(0) == to;
      StringRef name = p->getName();
      if (name.startswith("vector.memcheck") || name.startswith("vector.scevcheck")) {
        if (to->getName().startswith("scalar.ph")) continue;  // the check passes: never taken
      } else {
        auto c = conv_bool(br->getCondition(), region);
        if (!c) return std::nullopt;
        edge = taken_if_true ? *c : Expr(1) - *c;
      }
    }
    terms.push_back(*r * edge);
  }
  if (terms.empty()) return std::nullopt;
  return ex::add(terms);
}

Items* FunctionAnalyser::navigate(Items* c, const std::vector<GuardStep>& guard) {
  for (const GuardStep& s : guard) {
    Node* b = branch_node(*c, s);
    bool two_way = llvm::isa<llvm::BranchInst>(s.term) && s.succ != UINT_MAX;
    c = (two_way && s.succ == 1) ? &b->else_items : &b->then_items;
  }
  return c;
}

// The source loop's location: the loop's own when LLVM kept it, else its back
// edge's (the `for` statement's), not the first line of the body (a remainder
// loop made by unrolling has no location of its own).
llvm::DebugLoc FunctionAnalyser::source_loc(const llvm::Loop* l) const {
  llvm::DebugLoc at = l->getStartLoc();
  bool own = false;
  if (llvm::MDNode* id = l->getLoopID())
    for (unsigned k = 1; k < id->getNumOperands(); ++k) own = own || llvm::isa<llvm::DILocation>(id->getOperand(k));
  if (!own)
    if (llvm::BasicBlock* latch = l->getLoopLatch())
      if (llvm::DebugLoc dl = latch->getTerminator()->getDebugLoc(); dl && dl.getLine()) at = dl;
  return at;
}

// The bits of a run-time unroll's remainder loop (trip count zext(trunc(T) to
// i{bits}), T mod 2^bits), 0 for other loops.
unsigned FunctionAnalyser::remainder_bits(const llvm::Loop* l) {
  using namespace llvm;
  const SCEV* btc = se_.getBackedgeTakenCount(const_cast<Loop*>(l));
  if (isa<SCEVCouldNotCompute>(btc)) return 0;
  const SCEV* tc = se_.getAddExpr(btc, se_.getOne(btc->getType()));
  if (auto* z = dyn_cast<SCEVZeroExtendExpr>(tc)) {
    unsigned bits = se_.getTypeSizeInBits(z->getOperand()->getType());
    if (bits >= 1 && bits <= 6) return bits;
  }
  return 0;
}

Expr FunctionAnalyser::trip_count(llvm::Loop* l) {
  if (auto it = trip_counts_.find(l); it != trip_counts_.end()) return it->second;
  const llvm::SCEV* btc = se_.getBackedgeTakenCount(l);
  if (!llvm::isa<llvm::SCEVCouldNotCompute>(btc))
    if (auto e = conv(btc, l)) return trip_counts_[l] = ex::simplify(*e + Expr(1));
  Where w = where(source_loc(l));
  if (getenv("PERFCAST_ANALYZE_DEBUG") && ctx_.input->progress) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "no trip count for the loop at line " << w.line << ": " << *btc;
    ctx_.input->progress(os.str());
  }
  std::string name = sanitize(fmt::format("loop_{}_{}_trips", file_tag(w.file), w.line));
  bool computable = !llvm::isa<llvm::SCEVCouldNotCompute>(btc);
  describe(name, fmt::format("iterations of the loop at {}:{}{} each time it runs (0 when it is skipped): {}",
                             file_tag(w.file), w.line,
                             w.origin.empty() || w.origin == f_.getName() ? "" : " (in " + w.origin + ")",
                             computable ? "its count depends on values read from memory"
                                        : "its exit depends on data (e.g. a convergence test)"));
  Expr source = ex::var(name);
  // The parameter counts iterations of the source loop. A loop unrolled by U
  // with a run-time trip count becomes two IR loops of that line: the
  // remainder (trip count T mod U, as SCEV zext(trunc(T) to i{log2 U})) and
  // the unrolled loop (its induction variable steps by U: T div U
  // iterations, U source iterations each). Each gets its share of T.
  if (computable) {
    using namespace llvm;
    if (unsigned bits = remainder_bits(l)) return trip_counts_[l] = ex::mod(source, Expr(std::int64_t{1} << bits));
    // The unrolled loop: its remainder loop is a sibling of the same line.
    auto has_remainder = [&](std::uint64_t factor) {
      const auto& siblings = l->getParentLoop() ? l->getParentLoop()->getSubLoops() : li_.getTopLevelLoops();
      for (const Loop* o : siblings)
        if (o != l && where(source_loc(o)).line == w.line && where(source_loc(o)).file == w.file)
          if (unsigned bits = remainder_bits(o); bits && (std::uint64_t{1} << bits) == factor) return true;
      return false;
    };
    if (auto* d = dyn_cast<SCEVUDivExpr>(btc))
      if (auto* c = dyn_cast<SCEVConstant>(d->getRHS());
          c && c->getAPInt().ugt(1) && c->getAPInt().isPowerOf2() && has_remainder(c->getAPInt().getZExtValue()))
        for (const PHINode& phi : l->getHeader()->phis()) {
          if (!se_.isSCEVable(phi.getType())) continue;
          auto* ar = dyn_cast<SCEVAddRecExpr>(se_.getSCEV(const_cast<PHINode*>(&phi)));
          if (!ar || ar->getLoop() != l || !ar->isAffine()) continue;
          auto* step = dyn_cast<SCEVConstant>(ar->getStepRecurrence(se_));
          // The source loop's own index (it addresses memory), not a counter
          // of unrolled trips such as the vectoriser's.
          auto addresses = [](const Value* v) {
            for (const User* u : v->users()) {
              if (isa<GetElementPtrInst>(u)) return true;
              if (isa<SExtInst>(u) || isa<ZExtInst>(u))
                for (const User* g : u->users())
                  if (isa<GetElementPtrInst>(g)) return true;
            }
            return false;
          };
          if (step && step->getAPInt() == c->getAPInt().zextOrTrunc(step->getAPInt().getBitWidth()) && addresses(&phi))
            return trip_counts_[l] =
                       ex::floordiv(source, Expr(static_cast<std::int64_t>(c->getAPInt().getZExtValue())));
        }
  }
  return trip_counts_[l] = source;
}

// Whether the loop-carried values of `l` (its header phis other than affine
// induction variables: a reduction's sum, a pointer being chased) start afresh
// each time the loop is entered, i.e. the dependency chain of one run does not
// continue into the next. Then an out-of-order core overlaps successive runs
// (cg's rows, each restarting `s = 0`); a sum carried across the runs of an
// inner loop (`for i, for j: s += ...`) is one chain and does not overlap.
bool FunctionAnalyser::chain_restarts(const llvm::Loop* l) {
  for (const llvm::PHINode& phi : l->getHeader()->phis()) {
    if (se_.isSCEVable(phi.getType()))
      if (auto* ar = llvm::dyn_cast<llvm::SCEVAddRecExpr>(se_.getSCEV(const_cast<llvm::PHINode*>(&phi)));
          ar && ar->getLoop() == l && ar->isAffine())
        continue;  // an index: a one-cycle add, never the chain that bounds the loop
    for (unsigned k = 0; k < phi.getNumIncomingValues(); ++k)
      if (!l->contains(phi.getIncomingBlock(k)) && !fresh_each_run(phi.getIncomingValue(k), l)) return false;
  }
  return true;
}

// Whether `start`, the value a carried chain of `l` starts from, is computed
// anew each run of `l` from nothing `l` computed before: constants, values
// from outside the loop around `l`, loads (memory dependencies are not
// modelled, as MCA does not model them), indices, other loops of the same
// iteration (an unrolled loop starts from its remainder loop's result). A
// carried value of a loop around `l` (its non-index header phi) is the chain
// of the previous run continuing: not fresh.
bool FunctionAnalyser::fresh_each_run(const llvm::Value* start, const llvm::Loop* l) {
  using namespace llvm;
  const Loop* around = l->getParentLoop();
  std::set<const Value*> seen;
  std::vector<const Value*> work = {start};
  while (!work.empty()) {
    const Value* v = work.back();
    work.pop_back();
    if (!seen.insert(v).second) continue;
    if (seen.size() > 256) return false;  // too far to tell: assume the chain continues
    const auto* inst = dyn_cast<Instruction>(v);
    if (!inst || !around || !around->contains(inst->getParent())) continue;  // the same for every run
    if (isa<LoadInst>(inst)) continue;
    if (const auto* phi = dyn_cast<PHINode>(inst)) {
      const Loop* owner = li_.getLoopFor(phi->getParent());
      if (owner && owner->getHeader() == phi->getParent() && owner->contains(l)) {
        if (se_.isSCEVable(phi->getType()))
          if (auto* ar = dyn_cast<SCEVAddRecExpr>(se_.getSCEV(const_cast<PHINode*>(phi)));
              ar && ar->getLoop() == owner && ar->isAffine())
            continue;
        return false;
      }
    }
    for (const Value* op : inst->operands()) work.push_back(op);
  }
  return true;
}

// A branch that only guards a loop: one side enters the loop (through its
// preheader), or the loops the optimiser made of one source loop (a
// remainder and an unrolled copy), and nothing else that works; the other
// side is where they exit to. LLVM puts one before every rotated loop (the
// loop's own first test), and sources write them (`if (a->n > 0) for (...)`).
// When the branch's condition reads data that the loops' counts read too,
// the branch is "the loop runs at least once": its condition is trip count
// > 0, so a loop whose count is a parameter runs exactly when the parameter
// says so (and then with probability 1, not 1/2).
std::optional<Expr> FunctionAnalyser::loop_guard_condition(const llvm::BranchInst* br) {
  using namespace llvm;
  if (!br->isConditional() || br->getSuccessor(0) == br->getSuccessor(1)) return std::nullopt;
  // The values a SCEV reads (its SCEVUnknown leaves).
  struct Collect {
    std::set<const Value*>& out;
    bool follow(const SCEV* s) {
      if (auto* u = dyn_cast<SCEVUnknown>(s)) out.insert(u->getValue());
      return true;
    }
    bool isDone() const { return false; }
  };
  auto leaves = [&](const Value* v, std::set<const Value*>& out) {
    std::vector<const Value*> work = {v};
    std::set<const Value*> seen;
    while (!work.empty()) {
      const Value* x = work.back();
      work.pop_back();
      if (!seen.insert(x).second || seen.size() > 64) continue;
      if (auto* cmp = dyn_cast<ICmpInst>(x)) {
        work.push_back(cmp->getOperand(0)), work.push_back(cmp->getOperand(1));
        continue;
      }
      if (!x->getType()->isIntegerTy() || !se_.isSCEVable(x->getType())) continue;
      Collect collect{out};
      visitAll(se_.getSCEV(const_cast<Value*>(x)), collect);
    }
  };
  BasicBlock* from = const_cast<BasicBlock*>(br->getParent());
  const Loop* region_loop = li_.getLoopFor(from);
  for (unsigned in = 0; in < 2; ++in) {
    BasicBlock* enter = br->getSuccessor(in);
    BasicBlock* skip = br->getSuccessor(1 - in);
    if (enter->getSinglePredecessor() != from && !li_.isLoopHeader(enter)) continue;
    SmallVector<BasicBlock*, 32> region;
    dt_.getDescendants(enter, region);
    std::set<BasicBlock*> inside(region.begin(), region.end());
    if (inside.count(skip) || inside.count(from)) continue;
    std::vector<Loop*> loops;
    bool ok = true;
    for (BasicBlock* b : region) {
      for (BasicBlock* succ : successors(b))
        if (!inside.count(succ) && succ != skip) ok = false;
      Loop* l = li_.getLoopFor(b);
      if (l && l != region_loop) {
        while (l->getParentLoop() != region_loop) l = l->getParentLoop();
        if (!region_loop || region_loop->contains(l))
          if (l->getHeader() == b) loops.push_back(l);
        continue;
      }
      // Outside the loops: preheader arithmetic and loads only.
      for (Instruction& i : *b) {
        if (isa<StoreInst>(&i)) ok = false;
        if (auto* call = dyn_cast<CallBase>(&i); call && !isa<DbgInfoIntrinsic>(&i) && !call->onlyReadsMemory())
          if (!isa<IntrinsicInst>(call) || cast<IntrinsicInst>(call)->getIntrinsicID() == Intrinsic::memset ||
              cast<IntrinsicInst>(call)->getIntrinsicID() == Intrinsic::memcpy)
            ok = false;
      }
    }
    if (!ok || loops.empty()) continue;
    std::set<const Value*> cond_leaves, trip_leaves;
    leaves(br->getCondition(), cond_leaves);
    std::vector<Expr> trips;
    for (Loop* l : loops) {
      const SCEV* btc = se_.getBackedgeTakenCount(l);
      if (isa<SCEVCouldNotCompute>(btc)) return std::nullopt;
      Collect collect{trip_leaves};
      visitAll(btc, collect);
      trips.push_back(trip_count(l));
    }
    // Leaves through the phis that start a loop (an unrolled loop starts
    // where its remainder stopped).
    for (const Value* v : std::set<const Value*>(trip_leaves))
      if (auto* phi = dyn_cast<PHINode>(v))
        for (const Value* in_value : phi->incoming_values()) leaves(in_value, trip_leaves);
    bool shared = false;
    for (const Value* v : cond_leaves) shared = shared || trip_leaves.count(v);
    if (!shared) return std::nullopt;
    Expr runs = ex::compare(ex::Comparison::Gt, ex::add(trips), Expr(0));
    return in == 0 ? runs : Expr(1) - runs;
  }
  return std::nullopt;
}

Items* FunctionAnalyser::container_of_loop(llvm::Loop* l) {
  if (!l) return &out_.body;
  if (dead_loops_.count(l)) return nullptr;
  auto it = loop_items_.find(l);
  if (it != loop_items_.end()) return it->second;
  Items* parent = container_of_loop(l->getParentLoop());
  std::vector<GuardStep> guard;
  if (!parent || !guard_of(l->getHeader(), l->getParentLoop(), guard)) {
    dead_loops_.insert(l);
    return nullptr;
  }
  Items* c = navigate(parent, guard);
  auto n = std::make_unique<Node>();
  n->kind = Node::Loop;
  Where w = where(l->getStartLoc());
  n->line = w.line;
  n->note = w.note;
  n->var = loop_var(l);
  n->trip_count = trip_count(l);
  if (ctx_.input->mca) {
    l->getHeader()->setName(fmt::format("{}{}", kMcaLoopPrefix, ctx_.mca_loops++));
    n->mca_header = l->getHeader()->getName().str();
    n->innermost = l->getSubLoops().empty();
    if (n->innermost) n->chain_restarts = chain_restarts(l);
  }
  if (l->getSubLoops().empty()) add_streams(*n, l);
  c->push_back(std::move(n));
  loop_items_[l] = &c->back()->body;
  loop_nodes_[l] = c->back().get();
  return &c->back()->body;
}

void FunctionAnalyser::run() {
  using namespace llvm;
  for (Argument& a : f_.args()) {
    std::string name;
    if (a.getType()->isIntegerTy())
      name = sanitize(a.hasName() ? a.getName().str() : fmt::format("arg{}", a.getArgNo()));
    out_.all_arguments.push_back(name);
    if (!name.empty()) arguments_.insert(name);
  }
  // dbg.value users of arguments are metadata uses, not IR users: find them here.
  collect_debug_names();
  for (Argument& a : f_.args())
    if (a.getType()->isIntegerTy())
      if (auto dn = debug_names_.find(&a); dn != debug_names_.end() && !entry_)
        out_.all_arguments[a.getArgNo()] = dn->second.name, arguments_.insert(dn->second.name);
  for (const auto& [v, dn] : debug_names_) {
    if (!v->getType()->isIntegerTy() || !se_.isSCEVable(v->getType()) || llvm::isa<Argument>(v)) continue;
    if (auto* i = dyn_cast<Instruction>(v); i && li_.getLoopFor(i->getParent())) continue;
    const SCEV* sc = se_.getSCEV(const_cast<Value*>(v));
    if (isa<SCEVConstant>(sc) || isa<SCEVUnknown>(sc) || se_.containsAddRecurrence(sc)) continue;
    named_scevs_.emplace(sc, v);
  }
  if (DISubprogram* sp = f_.getSubprogram()) out_.line = static_cast<int>(sp->getLine());

  ReversePostOrderTraversal<Function*> rpo(&f_);
  for (BasicBlock* b : rpo) {
    Loop* l = li_.getLoopFor(b);
    Items* c = container_of_loop(l);
    if (!c) continue;
    std::vector<GuardStep> guard;
    if (!guard_of(b, l, guard)) continue;
    emit_block(b, *navigate(c, guard));
  }
  add_footprints();
}

// An innermost loop's address streams, and per array walked by several, their
// offsets from its first (how far apart they reuse the same bytes, which the
// predictor weighs against L1's size). A base whose offsets do not convert
// keeps its count only.
void FunctionAnalyser::add_streams(Node& n, const llvm::Loop* l) {
  std::vector<AddressStream> streams = loop_streams(*l, se_);
  n.streams = static_cast<int>(streams.size());
  std::vector<const llvm::SCEV*> bases;
  for (const auto& s : streams)
    if (s.base && s.offset && std::find(bases.begin(), bases.end(), s.base) == bases.end()) bases.push_back(s.base);
  for (const llvm::SCEV* base : bases) {
    std::vector<const llvm::SCEV*> offsets;
    for (const auto& s : streams)
      if (s.base == base && s.offset) offsets.push_back(s.offset);
    if (offsets.size() < 2) continue;
    std::vector<Expr> from_first;
    for (const llvm::SCEV* o : offsets) {
      auto e = conv(se_.getMinusSCEV(o, offsets.front()), l);
      if (!e) break;
      from_first.push_back(ex::simplify(*e));
    }
    if (from_first.size() == offsets.size()) n.stream_offsets.push_back(std::move(from_first));
  }
}

// Every modelled loop whose data can be bounded gets its footprint, named by
// the same variables as its trip count. A call into user code stops it: the
// callee's data is out of sight (its own loops carry theirs).
//
// Accesses bounded by their count (footprint.h) add their bytes times their
// executions per run of the loop, counted with the model's trip counts (a CSR
// row's entries are a parameter). Indirect accesses of one source line into
// one array (x[col[e]], unrolled or not) share a parameter,
// range_<file>_<line>_<array>: the distinct bytes they reach per run of the
// outermost loop with a footprint around them (the loop whose footprint the
// predictor fetches), by default every access distinct. That loop's footprint
// adds the parameter; the loops inside it add the smaller of their count and
// the parameter.
void FunctionAnalyser::add_footprints() {
  auto harmless = [&](const llvm::CallBase& call) {
    const auto* callee = llvm::dyn_cast<llvm::Function>(call.getCalledOperand()->stripPointerCasts());
    if (!callee) return false;
    std::string name = callee->getName().str();
    return math_name(name).has_value() || ctx_.ignore.count(name) > 0;
  };
  // Gathers of one array from one source line.
  using GatherKey = std::tuple<std::string, int, const llvm::Value*>;
  struct Gathers {
    Expr load_bytes, store_bytes;  // executions x bytes in one run of the loop
  };
  struct Pending {
    const llvm::Loop* loop;
    Node* node;
    Expr bytes, load_bytes, store_bytes;  // without the gathers
    std::map<GatherKey, Gathers> gathers;
  };
  std::vector<Pending> pending;
  for (auto& [loop, node] : loop_nodes_) {
    auto fp = loop_footprint(*loop, se_, *ctx_.dl, harmless);
    if (!fp) continue;
    Pending p{loop, node, 0, 0, 0, {}};
    std::vector<CountedAccess> counted = fp->counted;
    bool ok = true;
    for (const BaseExtent& b : fp->bases) {
      auto bytes = conv(b.bytes, loop);
      auto loaded = b.load_bytes ? conv(b.load_bytes, loop) : Expr(0);
      auto stored = b.store_bytes ? conv(b.store_bytes, loop) : Expr(0);
      if (bytes && loaded && stored) {
        p.bytes = p.bytes + *bytes, p.load_bytes = p.load_bytes + *loaded, p.store_bytes = p.store_bytes + *stored;
      } else if (!b.accesses.empty()) {
        // Ends read from memory (a CSR row's start and end): by the count.
        counted.insert(counted.end(), b.accesses.begin(), b.accesses.end());
      } else {
        ok = false;
      }
    }
    if (!ok) continue;
    for (const CountedAccess& a : counted) {
      Expr bytes = runs_in(a, loop) * Expr(static_cast<std::int64_t>(a.bytes));
      if (a.indirect && a.gathered) {
        Where w = where(a.instruction->getDebugLoc());
        Gathers& g = p.gathers[{w.file, w.line, a.gathered}];
        Expr& side = a.store ? g.store_bytes : g.load_bytes;
        side = side + bytes;
      } else {
        Expr& side = a.store ? p.store_bytes : p.load_bytes;
        side = side + bytes;
        p.bytes = p.bytes + bytes;
      }
    }
    pending.push_back(std::move(p));
  }
  // The loop each gather's parameter is per run of: the outermost with a
  // footprint around all the gather's accesses in its nest, whose count the
  // parameter's default can say in the model's own names.
  auto nest_of = [](const llvm::Loop* l) {
    while (l->getParentLoop()) l = l->getParentLoop();
    return l;
  };
  std::map<std::pair<GatherKey, const llvm::Loop*>, const Pending*> range_loop;  // by gather and nest
  for (const Pending& p : pending)
    for (const auto& [key, g] : p.gathers) {
      const Pending*& best = range_loop[{key, nest_of(p.loop)}];
      if (model_wide(g.load_bytes + g.store_bytes) && (!best || p.loop->contains(best->loop))) best = &p;
    }
  for (Pending& p : pending) {
    for (const auto& [key, g] : p.gathers) {
      Expr all = g.load_bytes + g.store_bytes;
      const Pending* r = range_loop[{key, nest_of(p.loop)}];
      // The parameter bounds the loop it is per run of and the loops inside it.
      if (r && r->loop->contains(p.loop)) {
        const auto& [file, line, base] = key;
        Where at = where(source_loc(r->loop));
        std::string name = sanitize(fmt::format("range_{}_{}_{}", file_tag(file), line, gathered_name(base)));
        std::string per = fmt::format("{}:{}", file_tag(at.file), at.line);
        if (auto [it, fresh] = ctx_.range_loops.emplace(name, per); !fresh && it->second != per)
          name = sanitize(fmt::format("{}_{}", name, at.line));
        const Gathers& whole = r->gathers.at(key);
        describe(name,
                 fmt::format("distinct bytes of {} that the indirect accesses at {}:{} reach in one run of the loop "
                             "at {} (at most the extent of the array they gather from); the default counts every "
                             "access as distinct, an upper bound",
                             gathered_name(base), file_tag(file), line, per),
                 ex::to_string(ex::simplify(whole.load_bytes + whole.store_bytes)));
        Expr range = ex::var(name);
        all = r == &p ? range : ex::minimum({all, range});
        if (!(g.load_bytes == Expr(0))) p.load_bytes = p.load_bytes + all;
        if (!(g.store_bytes == Expr(0))) p.store_bytes = p.store_bytes + all;
      } else {
        p.load_bytes = p.load_bytes + g.load_bytes, p.store_bytes = p.store_bytes + g.store_bytes;
      }
      p.bytes = p.bytes + all;
    }
    p.node->footprint = std::array<Expr, 3>{ex::simplify(p.bytes), ex::simplify(p.load_bytes),
                                            ex::simplify(p.store_bytes)};
  }
}

// Executions of a counted access in one run of `l`: the trip counts of the
// loops from the access's out to `l`, but for those its address does not
// move with (it touches the same bytes again); summed over an index that an
// inner count uses (a triangular nest). An upper bound for an access behind a
// branch.
Expr FunctionAnalyser::runs_in(const CountedAccess& access, const llvm::Loop* l) {
  Expr runs = 1;
  for (const llvm::Loop* m = li_.getLoopFor(access.instruction->getParent()); m; m = m->getParentLoop()) {
    Expr trips = trip_count(const_cast<llvm::Loop*>(m));
    std::string index = loop_var(m);
    if (ex::free_names(runs).count(index)) runs = ex::sum(index, Expr(0), trips - Expr(1), runs);
    else if (!access.address || !se_.isLoopInvariant(access.address, m)) runs = trips * runs;
    if (m == l) break;
  }
  return ex::simplify(runs);
}

// Whether `e` names only the model's parameters (a parameter's default can
// use it): no loop index, no argument of a function other than the entry.
bool FunctionAnalyser::model_wide(const Expr& e) const {
  for (const std::string& name : ex::free_names(ex::simplify(e)))
    if (out_.loop_vars.count(name) || (!entry_ && arguments_.count(name))) return false;
  return true;
}

// The source name of the array a gather reads: its pointer's variable, which
// may hold the pointer cast to its type (ScalarEvolution sees through the
// casts: `double *pe = calloc(...)` is the i8* calloc returns).
std::string FunctionAnalyser::gathered_name(const llvm::Value* base) const {
  std::vector<const llvm::Value*> named = {base, base->stripPointerCasts()};
  for (const llvm::User* u : base->users())
    if (llvm::isa<llvm::BitCastInst>(u)) named.push_back(u);
  for (const llvm::Value* v : named)
    if (auto dn = debug_names_.find(v); dn != debug_names_.end()) return dn->second.name;
  if (auto an = alloca_names_.find(base); an != alloca_names_.end()) return an->second;
  if (const auto* g = llvm::dyn_cast<llvm::GlobalVariable>(base)) return g->getName().str();
  // A pointer read from a field (t->nodes, p->val): the field's name.
  if (const auto* load = llvm::dyn_cast<llvm::LoadInst>(base->stripPointerCasts())) {
    std::int64_t offset = 0;
    const llvm::Value* holder =
        llvm::GetPointerBaseWithConstantOffset(load->getPointerOperand(), offset, *ctx_.dl);
    if (auto var = struct_vars_.find(holder); var != struct_vars_.end() && offset >= 0)
      return member_name(var->second, static_cast<std::uint64_t>(offset) * 8);
  }
  return "data";
}

void FunctionAnalyser::emit_block(llvm::BasicBlock* b, Items& items) {
  using namespace llvm;
  const Loop* scope = li_.getLoopFor(b);
  std::unique_ptr<Node> acc;
  std::string acc_origin;
  auto flush = [&] {
    if (acc && !acc->empty_compute()) items.push_back(std::move(acc));
    acc.reset();
  };
  auto compute = [&](const Instruction& i) -> Node& {
    Where w = where(i.getDebugLoc());
    if (acc && w.line && acc_origin != w.origin) flush();
    if (!acc) {
      acc = std::make_unique<Node>();
      acc_origin = w.origin;
    }
    if (!acc->line && w.line) {
      acc->line = w.line;
      acc->note = w.note;
      acc_origin = w.origin;
    }
    return *acc;
  };
  auto lanes_of = [](Type* t) -> std::int64_t {
    if (auto* v = dyn_cast<FixedVectorType>(t)) return v->getNumElements();
    return 1;
  };
  auto add_flops = [&](const Instruction& i, Type* t, std::int64_t per_lane) {
    Node& n = compute(i);
    Type* e = t->getScalarType();
    Expr f = Expr(per_lane * lanes_of(t));
    if (e->isFloatTy() || e->isHalfTy() || e->isBFloatTy()) n.flops_single = n.flops_single + f;
    else n.flops_double = n.flops_double + f;
  };
  auto add_math = [&](const Instruction& i, const std::string& name, Type* t) {
    Node& n = compute(i);
    bool single = t->getScalarType()->isFloatTy();
    std::string key = single && name.back() != 'f' ? name + "f" : name;
    auto it = n.math.find(key);
    Expr calls = Expr(lanes_of(t));
    n.math[key] = it == n.math.end() ? calls : it->second + calls;
  };

  for (Instruction& i : *b) {
    if (isa<DbgInfoIntrinsic>(&i)) continue;
    if (auto* bo = dyn_cast<BinaryOperator>(&i)) {
      switch (bo->getOpcode()) {
        case Instruction::FAdd: case Instruction::FSub: case Instruction::FMul:
        case Instruction::FDiv: case Instruction::FRem:
          add_flops(i, i.getType(), 1);
          break;
        default: break;
      }
    } else if (auto* un = dyn_cast<UnaryOperator>(&i); un && un->getOpcode() == Instruction::FNeg) {
      add_flops(i, i.getType(), 1);
    } else if (auto* ld = dyn_cast<LoadInst>(&i)) {
      Node& n = compute(i);
      n.loads = n.loads + Expr(1);
      n.load_bytes = n.load_bytes + Expr(static_cast<std::int64_t>(ctx_.dl->getTypeStoreSize(ld->getType())));
    } else if (auto* st = dyn_cast<StoreInst>(&i)) {
      Node& n = compute(i);
      n.stores = n.stores + Expr(1);
      n.store_bytes = n.store_bytes +
                      Expr(static_cast<std::int64_t>(ctx_.dl->getTypeStoreSize(st->getValueOperand()->getType())));
    } else if (auto* ii = dyn_cast<IntrinsicInst>(&i)) {
      switch (ii->getIntrinsicID()) {
        case Intrinsic::fma: case Intrinsic::fmuladd: add_flops(i, i.getType(), 2); break;
        case Intrinsic::sqrt: add_math(i, "sqrt", i.getType()); break;
        case Intrinsic::sin: add_math(i, "sin", i.getType()); break;
        case Intrinsic::cos: add_math(i, "cos", i.getType()); break;
        case Intrinsic::exp: case Intrinsic::exp2: add_math(i, "exp", i.getType()); break;
        case Intrinsic::log: case Intrinsic::log2: case Intrinsic::log10: add_math(i, "log", i.getType()); break;
        case Intrinsic::pow: case Intrinsic::powi: add_math(i, "pow", i.getType()); break;
        case Intrinsic::masked_load: case Intrinsic::masked_gather: {
          Node& n = compute(i);
          n.loads = n.loads + Expr(1);
          n.load_bytes = n.load_bytes + Expr(static_cast<std::int64_t>(ctx_.dl->getTypeStoreSize(i.getType())));
          break;
        }
        case Intrinsic::masked_store: case Intrinsic::masked_scatter: {
          Node& n = compute(i);
          n.stores = n.stores + Expr(1);
          n.store_bytes = n.store_bytes + Expr(static_cast<std::int64_t>(
                                              ctx_.dl->getTypeStoreSize(ii->getArgOperand(0)->getType())));
          break;
        }
        case Intrinsic::memcpy: case Intrinsic::memmove: case Intrinsic::memset: {
          Node& n = compute(i);
          auto len = conv_value(ii->getArgOperand(2), scope);
          if (!len) {
            Where w = where(i.getDebugLoc());
            std::string name = sanitize(fmt::format("copy_{}_{}_bytes", file_tag(w.file), w.line));
            describe(name, fmt::format("bytes of the mem{} at {}:{}",
                                       ii->getIntrinsicID() == Intrinsic::memset ? "set" : "cpy", file_tag(w.file),
                                       w.line));
            len = ex::var(name);
          }
          if (ii->getIntrinsicID() != Intrinsic::memset) n.load_bytes = n.load_bytes + *len;
          n.store_bytes = n.store_bytes + *len;
          break;
        }
        default: break;
      }
    } else if (auto* call = dyn_cast<CallBase>(&i)) {
      auto* callee = dyn_cast<Function>(call->getCalledOperand()->stripPointerCasts());
      if (callee && math_name(callee->getName().str())) {
        add_math(i, *math_name(callee->getName().str()), call->getType());
        continue;
      }
      if (callee && (callee->isIntrinsic() || ctx_.ignore.count(callee->getName().str()))) continue;
      flush();
      emit_call(*call, items, scope);
    }
  }
  flush();
}

std::optional<Expr> FunctionAnalyser::datatype_bytes(const llvm::Value* dt, const llvm::Loop* scope) {
  using namespace llvm;
  const Value* v = dt->stripPointerCasts();
  if (auto* g = dyn_cast<GlobalVariable>(v)) {
    if (auto b = predefined_datatype_bytes(g->getName().str())) return Expr(*b);
    return std::nullopt;
  }
  // A derived type made in this function: MPI_Type_contiguous(count, old, &t)
  // or MPI_Type_vector(count, blocklength, stride, old, &t).
  if (auto* load = dyn_cast<LoadInst>(v)) {
    const Value* p = load->getPointerOperand()->stripPointerCasts();
    for (const User* u : p->users())
      if (auto* call = dyn_cast<CallBase>(u))
        if (Function* callee = call->getCalledFunction()) {
          StringRef n = callee->getName();
          if (n == "MPI_Type_contiguous" && call->getArgOperand(2)->stripPointerCasts() == p) {
            auto c = conv_value(call->getArgOperand(0), nullptr);
            auto old = datatype_bytes(call->getArgOperand(1), scope);
            if (c && old) return *c * *old;
          }
          if (n == "MPI_Type_vector" && call->getArgOperand(4)->stripPointerCasts() == p) {
            auto c = conv_value(call->getArgOperand(0), nullptr);
            auto bl = conv_value(call->getArgOperand(1), nullptr);
            auto old = datatype_bytes(call->getArgOperand(3), scope);
            if (c && bl && old) return *c * *bl * *old;
          }
        }
  }
  return std::nullopt;
}

void FunctionAnalyser::emit_mpi(llvm::CallBase& call, const std::string& name, Items& items,
                                const llvm::Loop* scope) {
  auto spec = mpi_specs().find(name);
  if (spec == mpi_specs().end() || !spec->second.op) return;  // local calls: rank, size, topology, time
  const MpiSpec& s = spec->second;
  auto n = std::make_unique<Node>();
  n->kind = Node::Mpi;
  Where w = where(call.getDebugLoc());
  n->line = w.line;
  n->note = w.note;
  n->op = s.op;
  std::string tag = fmt::format("mpi_{}_{}", file_tag(w.file), w.line);
  // Several calls on one line (an unrolled loop) share a parameter: one call site.
  auto unique = [](const std::string& base) { return sanitize(base); };
  if (s.count >= 0) {
    auto count = conv_value(call.getArgOperand(s.count), scope);
    if (!count) {
      std::string p = unique(tag + "_count");
      describe(p, fmt::format("elements per call of {} at {}:{} (read from memory)", name, file_tag(w.file), w.line));
      count = ex::var(p);
    }
    auto bytes = datatype_bytes(call.getArgOperand(s.datatype), scope);
    if (!bytes) {
      std::string p = unique(tag + "_datatype_bytes");
      describe(p, fmt::format("bytes of one element of the datatype of {} at {}:{}", name, file_tag(w.file), w.line));
      bytes = ex::var(p);
    }
    n->bytes = ex::simplify(*count * *bytes);
  } else if (n->op == "alltoallv" || n->op == "reduce_scatter") {
    std::string p = unique(tag + "_bytes");
    describe(p, fmt::format("bytes per call of {} at {}:{} (counts per peer are data)", name, file_tag(w.file),
                            w.line));
    n->bytes = ex::var(p);
  }
  std::string reader = fmt::format("{} at {}:{}", name, file_tag(w.file), w.line);
  if (s.peer >= 0) {
    const llvm::Value* arg = call.getArgOperand(s.peer);
    auto peer = conv_value(arg, scope);
    if (!peer) peer = element_rank(arg, "peer", reader, "mod(rank + 1, size)");
    if (!peer || (peer->is_constant() && peer->kind() == ex::Kind::Integer && peer->int_value() == -1)) {
      std::string p = unique(tag + "_peer");
      describe(p, fmt::format("peer rank of {} at {}:{}, not computable from the code (read from memory or "
                              "MPI_ANY_SOURCE); the default assumes a real neighbour",
                              name, file_tag(w.file), w.line),
               "mod(rank + 1, size)");
      peer = ex::var(p);
    }
    // Open MPI's MPI_PROC_NULL is -2: negative, as the model wants.
    n->peer = ex::simplify(*peer);
  }
  if (s.root >= 0) {
    const llvm::Value* arg = call.getArgOperand(s.root);
    auto root = conv_value(arg, scope);
    if (!root) root = element_rank(arg, "root", reader, "0");
    if (!root) {
      std::string p = unique(tag + "_root");
      describe(p, fmt::format("root rank of {} at {}:{}", name, file_tag(w.file), w.line), "0");
      root = ex::var(p);
    }
    n->root = ex::simplify(*root);
  }
  items.push_back(std::move(n));
}

void FunctionAnalyser::emit_call(llvm::CallBase& call, Items& items, const llvm::Loop* scope) {
  using namespace llvm;
  auto* callee = dyn_cast<Function>(call.getCalledOperand()->stripPointerCasts());
  Where w = where(call.getDebugLoc());
  if (!callee) return;  // indirect: the model cannot follow it (qsort comparators and the like)
  std::string name = callee->getName().str();
  if (name.rfind("MPI_", 0) == 0 || name.rfind("PMPI_", 0) == 0) {
    emit_mpi(call, name.rfind("PMPI_", 0) == 0 ? name.substr(1) : name, items, scope);
    return;
  }
  if (auto m = math_name(name)) {
    auto n = std::make_unique<Node>();
    n->line = w.line;
    n->note = w.note;
    n->math[*m] = Expr(1);
    items.push_back(std::move(n));
    return;
  }
  if (!callee->isDeclaration()) {
    if (ctx_.in_progress.count(name)) {
      auto n = std::make_unique<Node>();
      n->line = w.line;
      n->note = fmt::format("recursive call of {}: not counted (the model has no recursion)", name);
      items.push_back(std::move(n));
      return;
    }
    FunctionModel& fm = ctx_.analyse(*callee);
    auto n = std::make_unique<Node>();
    n->kind = Node::Call;
    n->line = w.line;
    n->note = w.note;
    n->callee = fm.name;
    for (unsigned a = 0; a < call.arg_size() && a < fm.all_arguments.size(); ++a) {
      const std::string& param = fm.all_arguments[a];
      if (param.empty() || std::find(fm.parameters.begin(), fm.parameters.end(), param) == fm.parameters.end())
        continue;
      auto e = conv_value(call.getArgOperand(a), scope);
      if (!e) {
        std::string p = sanitize(fmt::format("arg_{}_{}_{}", file_tag(w.file), w.line, param));
        describe(p, fmt::format("argument {} of the call of {} at {}:{} (read from memory)", param, fm.name,
                                file_tag(w.file), w.line));
        e = ex::var(p);
      }
      n->args.emplace_back(param, ex::simplify(*e));
    }
    items.push_back(std::move(n));
    return;
  }
  if (callee->isIntrinsic() || ctx_.ignore.count(name)) return;
  const auto& table = ctx_.input->library_costs["functions"];
  if (table.contains(name)) {
    const auto& cost = table[name];
    ex::Substitution bind;
    if (cost.contains("args"))
      for (size_t a = 0; a < cost["args"].size() && a < call.arg_size(); ++a) {
        if (!cost["args"][a].is_string()) continue;
        std::string formal = cost["args"][a].get<std::string>();
        auto e = conv_value(call.getArgOperand(static_cast<unsigned>(a)), scope);
        if (!e) {
          std::string p = sanitize(fmt::format("arg_{}_{}_{}", file_tag(w.file), w.line, formal));
          describe(p, fmt::format("argument {} of the call of {} at {}:{} (read from memory)", formal, name,
                                  file_tag(w.file), w.line));
          e = ex::var(p);
        }
        bind[formal] = *e;
      }
    auto field = [&](const char* key) -> Expr {
      if (!cost.contains(key)) return Expr(0);
      const auto& v = cost[key];
      Expr e = v.is_number_integer() ? Expr(v.get<std::int64_t>())
                                     : v.is_number() ? ex::real(v.get<double>()) : ex::parse(v.get<std::string>());
      return ex::simplify(ex::substitute(e, bind));
    };
    auto n = std::make_unique<Node>();
    n->line = w.line;
    n->note = fmt::format("{} priced from the library-cost table", name);
    n->flops_double = field("flops_double");
    n->flops_single = field("flops_single");
    n->loads = field("loads");
    n->stores = field("stores");
    n->load_bytes = field("load_bytes");
    n->store_bytes = field("store_bytes");
    if (cost.contains("math"))
      for (const auto& [m, calls] : cost["math"].items())
        n->math[m] = calls.is_number_integer() ? Expr(calls.get<std::int64_t>()) : ex::parse(calls.dump());
    items.push_back(std::move(n));
    return;
  }
  std::string p = sanitize(fmt::format("lib_{}_flops", name));
  describe(p, fmt::format("double-precision flops of one call of {}, which the analysis cannot see; bind it, "
                          "or price {} with --library-costs",
                          name, name));
  auto n = std::make_unique<Node>();
  n->line = w.line;
  n->note = fmt::format("call of {} (outside the analysed code)", name);
  n->flops_double = ex::var(p);
  items.push_back(std::move(n));
}

FunctionModel& ModuleContext::analyse(llvm::Function& f) {
  FunctionModel& m = functions[f.getName().str()];
  if (m.done) return m;
  m.name = f.getName().str();
  in_progress.insert(m.name);
  FunctionAnalyser(*this, f, m).run();
  in_progress.erase(m.name);
  m.done = true;
  // Parameters: the integer arguments the costs use.
  std::set<std::string> used;
  std::function<void(const Items&)> walk = [&](const Items& items) {
    for (const auto& n : items) {
      auto add = [&](const Expr& e) {
        auto names = ex::free_names(e);
        used.insert(names.begin(), names.end());
      };
      add(n->flops_double), add(n->flops_single), add(n->loads), add(n->stores), add(n->load_bytes);
      add(n->store_bytes), add(n->trip_count), add(n->bytes);
      for (const auto& [k, v] : n->math) add(v);
      if (n->condition) add(*n->condition);
      if (n->peer) add(*n->peer);
      if (n->root) add(*n->root);
      for (const auto& [k, v] : n->args) add(v);
      walk(n->body), walk(n->then_items), walk(n->else_items);
    }
  };
  walk(m.body);
  if (f.getName() != "main")
    for (const std::string& a : m.all_arguments)
      if (!a.empty() && used.count(a)) m.parameters.push_back(a);
  return m;
}

// ---------------------------------------------------------------- machine code

// The accesses an innermost loop's machine code makes that its IR does not:
// register reloads and spills (nbody's pair loop reloads a value from the
// stack each pair) and reads of the constant pool (mca.h). Only for bodies of
// straight-line compute items; 8 bytes each, what x86-64 spills (a double or
// a pointer).
void add_machine_accesses(Node& loop, const LoopCycles& machine) {
  for (const auto& c : loop.body)
    if (c->kind != Node::Compute) return;
  std::int64_t more_loads = machine.loads, more_stores = machine.stores;
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

// Two decimals: what MCA's figures mean (cycles of a simulated pipeline).
double hundredths(double x) { return std::round(x * 100) / 100; }

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

// ---------------------------------------------------------------- output

std::string text(const Expr& e) { return ex::to_string(ex::simplify(e)); }

json item_json(const Node& n) {
  json j;
  static const char* kinds[] = {"compute", "loop", "branch", "call", "mpi"};
  j["kind"] = kinds[n.kind];
  if (n.line) j["line"] = n.line;
  if (!n.note.empty()) j["note"] = n.note;
  auto items = [](const Items& list) {
    json a = json::array();
    for (const auto& c : list) a.push_back(item_json(*c));
    return a;
  };
  switch (n.kind) {
    case Node::Compute: {
      auto put = [&](const char* key, const Expr& e) {
        if (!(e == Expr(0))) j[key] = text(e);
      };
      put("flops_double", n.flops_double);
      put("flops_single", n.flops_single);
      put("loads", n.loads);
      put("stores", n.stores);
      put("load_bytes", n.load_bytes);
      put("store_bytes", n.store_bytes);
      if (!n.math.empty()) {
        json m = json::object();
        for (const auto& [k, v] : n.math) m[k] = text(v);
        j["math"] = m;
      }
      break;
    }
    case Node::Loop:
      j["var"] = n.var;
      j["trip_count"] = text(n.trip_count);
      if (n.cycles_per_iteration) {
        Expr c = ex::simplify(*n.cycles_per_iteration);
        if (c.is_constant()) j["cycles_per_iteration"] = hundredths(c.real_value());
        else j["cycles_per_iteration"] = text(c);
      }
      if (n.overhead_cycles_per_iteration) j["overhead_cycles_per_iteration"] = *n.overhead_cycles_per_iteration;
      if (n.machine) {
        // MCA's own figures, for the reader: of the body (innermost) or of
        // the loop's own blocks (outside its subloops).
        json m = {{"cpi", hundredths(n.machine->cycles_per_iteration)},
                  {"rthroughput", hundredths(n.machine->rthroughput)},
                  {"uops", n.machine->micro_ops}};
        if (n.innermost) m["chain_restarts"] = n.chain_restarts;
        m["busiest_resource"] = n.machine->busiest_resource.empty() ? json("dispatch width")
                                                                     : json(n.machine->busiest_resource);
        m["busiest_resource_cycles"] = hundredths(n.machine->busiest_resource_cycles);
        if (n.machine->divides) {
          m["divides"] = n.machine->divides;
          m["rthroughput_without_divides"] = hundredths(n.machine->rthroughput_without_divides);
        }
        j["mca"] = m;
        // Priced: the cycles beyond the ports' work (divider, chains) take the
        // off-port noise, not the ports'. Of the priced cycles, not of MCA's
        // steady state: a loop whose chain restarts each run may be priced at
        // its resource bound (docs/program-model.md, "Short loops").
        // Below 5 % of the steady state: its resource bound and MCA's cycles
        // differing by a rounding, not a chain.
        if (n.machine->off_ports_share() >= 0.05 && (n.cycles_per_iteration || n.overhead_cycles_per_iteration))
          j["ports_cycles_per_iteration"] = hundredths(n.machine->rthroughput_without_divides);
      }
      if (n.streams > 0) j["streams"] = n.streams;
      if (!n.stream_offsets.empty()) {
        json bases = json::array();
        for (const auto& offsets : n.stream_offsets) {
          json list = json::array();
          for (const Expr& e : offsets) list.push_back(text(e));
          bases.push_back(std::move(list));
        }
        j["stream_offsets"] = std::move(bases);
      }
      if (n.footprint)
        j["footprint"] = {{"bytes", text((*n.footprint)[0])},
                          {"load_bytes", text((*n.footprint)[1])},
                          {"store_bytes", text((*n.footprint)[2])}};
      j["body"] = items(n.body);
      break;
    case Node::Branch:
      if (n.condition) j["condition"] = text(*n.condition);
      else j["probability"] = n.probability;
      j["then"] = items(n.then_items);
      j["else"] = items(n.else_items);
      break;
    case Node::Call: {
      j["function"] = n.callee;
      json a = json::object();
      for (const auto& [k, v] : n.args) a[k] = text(v);
      j["args"] = a;
      break;
    }
    case Node::Mpi:
      j["op"] = n.op;
      if (!(n.bytes == Expr(0))) j["bytes"] = text(n.bytes);
      if (n.peer) j["peer"] = text(*n.peer);
      if (n.root) j["root"] = text(*n.root);
      break;
  }
  return j;
}

// Drops empty branches (both sides without items) left by blocks that only
// branch, and merges neighbouring compute items of one origin (the blocks of
// one straight-line stretch of source).
void prune(Items& items) {
  for (auto& n : items) prune(n->body), prune(n->then_items), prune(n->else_items);
  items.erase(std::remove_if(items.begin(), items.end(),
                             [](const std::unique_ptr<Node>& n) {
                               return (n->kind == Node::Branch && n->then_items.empty() && n->else_items.empty()) ||
                                      (n->kind == Node::Compute && n->empty_compute() && n->note.empty());
                             }),
              items.end());
  Items merged;
  for (auto& n : items) {
    Node* last = merged.empty() ? nullptr : merged.back().get();
    if (last && last->kind == Node::Compute && n->kind == Node::Compute && last->note == n->note &&
        !n->empty_compute()) {
      last->flops_double = last->flops_double + n->flops_double;
      last->flops_single = last->flops_single + n->flops_single;
      last->loads = last->loads + n->loads;
      last->stores = last->stores + n->stores;
      last->load_bytes = last->load_bytes + n->load_bytes;
      last->store_bytes = last->store_bytes + n->store_bytes;
      for (const auto& [k, v] : n->math) last->math[k] = last->math.count(k) ? last->math[k] + v : v;
      if (!last->line) last->line = n->line;
      continue;
    }
    merged.push_back(std::move(n));
  }
  items = std::move(merged);
}

// ---------------------------------------------------------------- optimisation

// MPI functions touch only their arguments and MPI's own state. Said before the
// optimisation, this keeps globals and locals read across MPI calls in registers,
// so loop bounds stay computable. MPI_Wtime/Wtick read a clock: left alone, so
// two calls are never merged.
void annotate_mpi_declarations(llvm::Module& m) {
  for (llvm::Function& f : m) {
    if (!f.isDeclaration()) continue;
    llvm::StringRef n = f.getName();
    if (!n.startswith("MPI_") && !n.startswith("PMPI_")) continue;
    if (n.endswith("Wtime") || n.endswith("Wtick")) continue;
    f.addFnAttr(llvm::Attribute::InaccessibleMemOrArgMemOnly);
    f.addFnAttr(llvm::Attribute::NoUnwind);
    if (!n.endswith("Abort")) f.addFnAttr(llvm::Attribute::WillReturn);
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
      m.getTargetTriple(), cpu, features, llvm::TargetOptions(), llvm::Reloc::PIC_, llvm::None,
      llvm::CodeGenOpt::Default));
}

void optimise(llvm::Module& m, llvm::TargetMachine* tm, const std::string& level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  if (level == "0") {
    // -O0 keeps every variable in memory; promote them so loops have trip counts
    // (the counts then miss -O0's spills and reloads).
    llvm::FunctionPassManager fpm;
    fpm.addPass(llvm::PromotePass());
    llvm::ModulePassManager mpm;
    mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
    mpm.run(m, mam);
    return;
  }
  llvm::OptimizationLevel ol = level == "1"   ? llvm::OptimizationLevel::O1
                               : level == "3" ? llvm::OptimizationLevel::O3
                               : level == "s" ? llvm::OptimizationLevel::Os
                               : level == "z" ? llvm::OptimizationLevel::Oz
                                              : llvm::OptimizationLevel::O2;
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(ol);
  mpm.run(m, mam);
}

}  // namespace

nlohmann::ordered_json analyze_bitcode(const IrInput& input) {
  auto say = [&](const std::string& s) {
    if (input.progress) input.progress(s);
  };
  llvm::LLVMContext context;
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
    say(fmt::format("optimising {} (-O{})", m->getSourceFileName(), input.opt_level));
    optimise(*m, tm.get(), input.opt_level);
    if (!program) {
      program = std::move(m);
    } else if (llvm::Linker::linkModules(*program, std::move(m))) {
      throw UserError("the sources define the same symbol twice (LLVM could not link them)");
    }
  }

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
  for (const auto& n : input.library_costs.value("ignore", nlohmann::json::array())) ctx.ignore.insert(n.get<std::string>());
  int defined = 0;
  for (llvm::Function& f : *program)
    if (!f.isDeclaration()) ++defined;
  say(fmt::format("analysing {} functions", defined));
  for (llvm::Function& f : *program)
    if (!f.isDeclaration()) ctx.analyse(f);

  // In-core cycles of the loops (mca.h), on the optimised code: the bodies of
  // innermost loops, the own blocks of the others.
  std::optional<LoopCyclesResult> mca;
  std::array<int, 4> priced{};  // innermost priced, unpriced; outer priced, unpriced
  if (input.mca && ctx.mca_loops > 0) {
    say(fmt::format("pricing {} loops with LLVM MCA", ctx.mca_loops));
    mca = loop_cycles(*program, *tm, input.mcpu, kMcaLoopPrefix, input.host_cycles);
    if (!mca->cpu_why.empty()) say("MCA: " + mca->cpu_why);
    if (!mca->host_cycles_applied.empty())
      say(fmt::format("MCA: {}'s measured cycles on {}: {}", input.host_cycles.source, mca->cpu,
                      fmt::join(mca->host_cycles_applied, ", ")));
    for (const auto& w : mca->warnings) say("MCA: " + w);
    std::function<void(Items&)> attach = [&](Items& items) {
      for (auto& n : items) {
        if (!n->mca_header.empty()) {
          auto it = mca->loops.find(n->mca_header);
          bool found = it != mca->loops.end();
          ++priced[(n->innermost ? 0 : 2) + (found ? 0 : 1)];
          if (found && getenv("PERFCAST_ANALYZE_DEBUG")) {
            std::string code;
            for (const auto& line : it->second.code) code += "\n    " + line;
            say(fmt::format("MCA: loop at line {} ({}): {} cycles/iteration, rthroughput {}, {} uops:{}", n->line,
                            n->innermost ? "body" : "own blocks", it->second.cycles_per_iteration,
                            it->second.rthroughput, it->second.micro_ops, code));
          }
          if (found) {
            n->machine = it->second;
            if (n->innermost) {
              n->cycles_per_iteration = body_cycles(*n, it->second, mca->window_micro_ops);
              add_machine_accesses(*n, it->second);
            } else {
              n->overhead_cycles_per_iteration = hundredths(it->second.cycles_per_iteration);
            }
          }
        }
        attach(n->body), attach(n->then_items), attach(n->else_items);
      }
    };
    for (auto& [name, fm] : ctx.functions) attach(fm.body);
  }

  json model;
  model["format"] = "perfcast-program-model";
  model["version"] = 1;
  model["program"] = input.program;
  model["source"] = input.source;
  model["origin"] = input.origin;
  if (mca) {
    json m;
    m["cpu"] = mca->cpu;
    if (!mca->cpu_why.empty()) m["cpu_chosen"] = mca->cpu_why;
    m["code_for"] = fmt::format("{} {}", tm->getTargetTriple().str(), tm->getTargetCPU().str());
    m["loops_priced"] = priced[0];
    m["loops_unpriced"] = priced[1];
    m["outer_loops_priced"] = priced[2];
    m["outer_loops_unpriced"] = priced[3];
    m["window_uops"] = mca->window_micro_ops;
    if (!mca->host_cycles_applied.empty())
      m["host_cycles"] = {{"source", input.host_cycles.source}, {"applied", mca->host_cycles_applied}};
    m["note"] = "LLVM 14 MCA on the cpu's scheduling model (data in L1): cycles_per_iteration of innermost loops "
                "(the steady state of the body's machine code, or, when its chain restarts each run, "
                "max(rthroughput, cpi * T / (T + window_uops / uops)) for T iterations per run), "
                "overhead_cycles_per_iteration of the others (their own blocks, outside their subloops)";
    model["mca"] = m;
  }
  std::string entry = ctx.functions.count("main") ? "main" : (ctx.functions.empty() ? "main" : ctx.functions.begin()->first);

  // Parameters: every free name the functions use that nothing else binds.
  std::set<std::string> free;
  for (auto& [name, fm] : ctx.functions) {
    prune(fm.body);
    std::set<std::string> bound(fm.loop_vars.begin(), fm.loop_vars.end());
    bound.insert(fm.parameters.begin(), fm.parameters.end());
    std::function<void(const Items&)> walk = [&](const Items& items) {
      for (const auto& n : items) {
        auto add = [&](const Expr& e) {
          for (const auto& v : ex::free_names(ex::simplify(e)))
            if (!bound.count(v)) free.insert(v);
        };
        add(n->flops_double), add(n->flops_single), add(n->loads), add(n->stores), add(n->load_bytes);
        add(n->store_bytes), add(n->trip_count), add(n->bytes);
        for (const auto& [k, v] : n->math) add(v);
        if (n->condition) add(*n->condition);
        if (n->peer) add(*n->peer);
        if (n->root) add(*n->root);
        for (const auto& [k, v] : n->args) add(v);
        if (n->footprint)
          for (const Expr& e : *n->footprint) add(e);
        for (const auto& offsets : n->stream_offsets)
          for (const Expr& e : offsets) add(e);
        walk(n->body), walk(n->then_items), walk(n->else_items);
      }
    };
    walk(fm.body);
  }
  static const std::set<std::string> builtin = {"rank", "size", "dims2_0", "dims2_1", "dims3_0", "dims3_1", "dims3_2"};
  json params = json::object();
  for (const auto& name : free) {
    if (builtin.count(name)) continue;
    json p;
    auto d = ctx.descriptions.find(name);
    p["description"] = d != ctx.descriptions.end() ? d->second.description : "a value the analysis could not derive";
    if (d != ctx.descriptions.end() && d->second.default_value) p["default"] = *d->second.default_value;
    params[name] = p;
  }
  model["parameters"] = params;
  model["entry"] = entry;
  json functions = json::object();
  for (auto& [name, fm] : ctx.functions) {
    json f;
    if (fm.line) f["line"] = fm.line;
    if (!fm.parameters.empty()) f["parameters"] = fm.parameters;
    json body = json::array();
    for (const auto& n : fm.body) body.push_back(item_json(*n));
    f["body"] = body;
    functions[name] = f;
  }
  model["functions"] = functions;
  return model;
}

}  // namespace perfcast::analyze::detail
