#include "analyze/ranks.h"

#include <algorithm>

#include <fmt/format.h>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

namespace perfcast::analyze::detail {

namespace ex = perfcast::expr;
using ex::Expr;

bool is_comm_world(const llvm::Value* comm) {
  const llvm::Value* v = comm->stripPointerCasts();
  if (auto* g = llvm::dyn_cast<llvm::GlobalVariable>(v)) return g->getName() == "ompi_mpi_comm_world";
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(v)) return c->getZExtValue() == 0x44000000;
  return false;
}

std::optional<std::string> mpi_query(const llvm::CallBase& call) {
  const llvm::Function* callee = call.getCalledFunction();
  if (!callee || call.arg_size() < 2) return std::nullopt;
  const llvm::StringRef name = callee->getName();
  if (name == "MPI_Comm_rank" || name == "mpi_comm_rank_") return "rank";
  if (name == "MPI_Comm_size" || name == "mpi_comm_size_") return "size";
  return std::nullopt;
}

namespace {

// Longer functions do more than hand a query on.
constexpr unsigned kMaxWrapperInstructions = 48;

}  // namespace

std::optional<std::string> mpi_query_wrapped(const llvm::Function& f, int arg) {
  using namespace llvm;
  if (f.isDeclaration() || f.getInstructionCount() > kMaxWrapperInstructions) return std::nullopt;
  if (arg >= static_cast<int>(f.arg_size())) return std::nullopt;
  const Value* out = arg >= 0 ? f.getArg(static_cast<unsigned>(arg)) : nullptr;
  std::vector<const CallBase*> queries;
  for (const Instruction& i : instructions(f))
    if (auto* call = dyn_cast<CallBase>(&i); call && mpi_query(*call)) queries.push_back(call);
  // What a query wrote at `p`, read by `v` (a load of `p`, cast at most).
  auto read_of_query = [&](const Value* v) -> std::optional<std::string> {
    while (auto* cast = dyn_cast<CastInst>(v)) v = cast->getOperand(0);
    auto* load = dyn_cast<LoadInst>(v);
    if (!load) return std::nullopt;
    const Value* p = load->getPointerOperand()->stripPointerCasts();
    std::optional<std::string> found;
    for (const CallBase* q : queries)
      if (q->getArgOperand(1)->stripPointerCasts() == p) {
        if (found && *found != *mpi_query(*q)) return std::nullopt;
        found = mpi_query(*q);
      }
    return found;
  };
  std::optional<std::string> found;
  int writes = 0;
  for (const Instruction& i : instructions(f)) {
    std::optional<std::string> here;
    if (out) {
      if (auto* store = dyn_cast<StoreInst>(&i); store && store->getPointerOperand()->stripPointerCasts() == out) {
        ++writes;
        here = read_of_query(store->getValueOperand());
        if (!here) return std::nullopt;
      } else if (auto* call = dyn_cast<CallBase>(&i)) {
        for (unsigned k = 0; k < call->arg_size(); ++k)
          if (call->getArgOperand(k)->stripPointerCasts() == out) {
            // Handed on: to the query itself, as what it writes; to anything else, unknown.
            if (k != 1 || !mpi_query(*call)) return std::nullopt;
            ++writes;
            here = mpi_query(*call);
          }
      }
    } else if (auto* ret = dyn_cast<ReturnInst>(&i)) {
      if (!ret->getReturnValue()) return std::nullopt;
      here = read_of_query(ret->getReturnValue());
      if (!here) return std::nullopt;
      ++writes;
    }
    if (here) {
      if (found && *found != *here) return std::nullopt;
      found = here;
    }
  }
  // One write of the pointer argument; every return, for the value.
  if (out && writes != 1) return std::nullopt;
  return found;
}

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
std::optional<RankReasoning::ArrayElement> RankReasoning::array_element(const llvm::Value* v) const {
  using namespace llvm;
  auto* load = dyn_cast<LoadInst>(v);
  if (!load || !load->getType()->isIntegerTy() || load->isVolatile()) return std::nullopt;
  int64_t offset = 0;
  const Value* base = GetPointerBaseWithConstantOffset(load->getPointerOperand(), offset, s_.dl);
  auto it = names_.struct_vars().find(base);
  if (it == names_.struct_vars().end() || !isa<AllocaInst>(base) || offset < 0) return std::nullopt;
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
  e.name = s_.local_name(fmt::format("{}_{}", e.array, e.index));
  std::string fn = var->getScope() && var->getScope()->getSubprogram()
                       ? var->getScope()->getSubprogram()->getName().str()
                       : s_.f.getName().str();
  e.declared = fmt::format("{} ({}:{})", fn, file_tag(var->getFilename().str()), var->getLine());
  return e;
}

// The value `writer` leaves in the `bits`-wide integer at `offset` of `base`:
// a store of it (an expression when the stored value converts), or a
// constant written as part of a wider store, a memset or a copy from a
// constant global (`int periods[3] = {0, 1, 0}`).
std::optional<Expr> RankReasoning::written_value(const llvm::Instruction* writer, const llvm::Value* base,
                                                 int64_t offset, unsigned bits) {
  using namespace llvm;
  const int64_t bytes = bits / 8;
  int64_t off = 0;
  if (auto* st = dyn_cast<StoreInst>(writer)) {
    if (GetPointerBaseWithConstantOffset(st->getPointerOperand(), off, s_.dl) != base) return std::nullopt;
    const Value* v = st->getValueOperand();
    if (off == offset && v->getType()->isIntegerTy(bits))
      return exprs_.conv_value(v, s_.li.getLoopFor(st->getParent()));
    auto* c = dyn_cast<ConstantInt>(v);
    const int64_t shift = (offset - off) * 8;
    if (!c || !s_.dl.isLittleEndian() || shift < 0 || shift + bits > c->getBitWidth()) return std::nullopt;
    return ex::integer(c->getValue().extractBits(bits, static_cast<unsigned>(shift)).getSExtValue());
  }
  auto* mi = dyn_cast<MemIntrinsic>(writer);
  auto* len = mi ? dyn_cast<ConstantInt>(mi->getLength()) : nullptr;
  if (!len || GetPointerBaseWithConstantOffset(mi->getRawDest(), off, s_.dl) != base || offset < off ||
      offset + bytes > off + static_cast<int64_t>(len->getZExtValue()))
    return std::nullopt;
  if (auto* ms = dyn_cast<MemSetInst>(mi)) {
    auto* byte = dyn_cast<ConstantInt>(ms->getValue());
    if (!byte) return std::nullopt;
    return ex::integer(APInt::getSplat(bits, byte->getValue().trunc(8)).getSExtValue());
  }
  if (auto* mt = dyn_cast<MemTransferInst>(mi)) {
    int64_t from = 0;
    const Value* src = GetPointerBaseWithConstantOffset(mt->getRawSource(), from, s_.dl);
    return constant_in(src, from + offset - off, bits, s_.dl);
  }
  return std::nullopt;
}

// The `bits`-wide integer at `offset` of `base` when `at` runs: a constant
// global's, or what the last write before `at` left there.
std::optional<Expr> RankReasoning::value_at(const llvm::Value* base, int64_t offset, const llvm::Instruction* at,
                                            unsigned bits) {
  if (llvm::isa<llvm::GlobalVariable>(base)) return constant_in(base, offset, bits, s_.dl);
  auto last = writes_.last_writer(base, offset, at);
  if (!last || !*last) return std::nullopt;
  return written_value(*last, base, offset, bits);
}

const llvm::CallBase* RankReasoning::mpi_call(const llvm::Instruction* i, const char* name) const {
  auto* call = llvm::dyn_cast_or_null<llvm::CallBase>(i);
  const llvm::Function* callee = call ? call->getCalledFunction() : nullptr;
  if (!callee) return nullptr;
  llvm::StringRef n = callee->getName();
  return n == name || (n.starts_with("P") && n.drop_front() == name) ? call : nullptr;
}

// The rank MPI_Cart_shift writes through its argument `arg` (3: the source,
// 4: the destination) as an expression of rank and size, when the shift's
// communicator is MPI_Cart_create's over MPI_COMM_WORLD with dims from
// MPI_Dims_create(size, ndims, dims), in this function, and the periods, the
// direction and the displacement are known. `rank` is the world's: the
// Cartesian communicator numbers the ranks alike unless it may reorder them.
std::optional<RankReasoning::Neighbour> RankReasoning::cart_neighbour(const llvm::CallBase& shift, unsigned arg,
                                                                      std::string& why_not) {
  using namespace llvm;
  auto fail = [&](std::string why) -> std::optional<Neighbour> {
    why_not = std::move(why);
    return std::nullopt;
  };
  auto at = [&](const Instruction* i) {
    Where w = s_.where(i->getDebugLoc());
    return fmt::format("{}:{}", file_tag(w.file), w.line);
  };
  const Loop* scope = s_.li.getLoopFor(shift.getParent());
  // The communicator: a handle MPI_Cart_create wrote (read back from memory).
  auto* comm = dyn_cast<LoadInst>(shift.getArgOperand(0));
  int64_t off = 0;
  const Value* holder = comm ? GetPointerBaseWithConstantOffset(comm->getPointerOperand(), off, s_.dl) : nullptr;
  std::optional<const Instruction*> written;
  if (holder) written = writes_.last_writer(holder, off, comm);
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
  const Value* dims = GetPointerBaseWithConstantOffset(create->getArgOperand(2), dims_off, s_.dl);
  const CallBase* dims_create = nullptr;
  for (int i = 0; i < nd; ++i) {
    auto w = writes_.last_writer(dims, dims_off + 4 * i, create);
    const CallBase* c = w && *w ? mpi_call(*w, "MPI_Dims_create") : nullptr;
    if (!c || (dims_create && c != dims_create))
      return fail(fmt::format("the dims of {} are not MPI_Dims_create's", create_at));
    dims_create = c;
  }
  auto nnodes = exprs_.conv_value(dims_create->getArgOperand(0), s_.li.getLoopFor(dims_create->getParent()));
  auto* dims_nd = dyn_cast<ConstantInt>(dims_create->getArgOperand(1));
  int64_t into = 0;
  if (!nnodes || !(*nnodes == ex::var("size")) || !dims_nd || dims_nd->getSExtValue() != nd ||
      GetPointerBaseWithConstantOffset(dims_create->getArgOperand(2), into, s_.dl) != dims || into != dims_off)
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
  const Value* periods = GetPointerBaseWithConstantOffset(create->getArgOperand(3), periods_off, s_.dl);
  // Direction and displacement of the shift.
  auto direction = exprs_.conv_value(shift.getArgOperand(1), scope);
  auto disp = exprs_.conv_value(shift.getArgOperand(2), scope);
  if (!direction || direction->kind() != ex::Kind::Integer || direction->int_value() < 0 ||
      direction->int_value() >= nd || !disp || !s_.model_wide(*disp))
    return fail(fmt::format("the direction or displacement of MPI_Cart_shift at {} is not known", at(&shift)));
  const auto k = static_cast<size_t>(direction->int_value());
  auto periodic = value_at(periods, periods_off + 4 * static_cast<int64_t>(k), create, 32);
  if (!periodic || !s_.model_wide(*periodic)) return fail(fmt::format("periods[{}] of {} is not known", k, create_at));
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
  auto reorder = exprs_.conv_value(create->getArgOperand(4), s_.li.getLoopFor(create->getParent()));
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
std::optional<Expr> RankReasoning::element_rank(const llvm::Value* v, const std::string& role,
                                                const std::string& reader, const std::string& fallback_default) {
  auto e = array_element(v);
  if (!e) return std::nullopt;
  auto* load = llvm::cast<llvm::LoadInst>(v);
  const unsigned bits = load->getType()->getIntegerBitWidth();
  std::string what;
  std::string default_value = fallback_default;
  std::vector<std::string> assumptions;
  auto last = writes_.last_writer(e->base, e->offset, load);
  const llvm::CallBase* shift = last && *last ? mpi_call(*last, "MPI_Cart_shift") : nullptr;
  if (shift) {
    unsigned arg = 0;
    for (unsigned a : {3u, 4u}) {
      int64_t off = 0;
      if (llvm::GetPointerBaseWithConstantOffset(shift->getArgOperand(a), off, s_.dl) == e->base && off == e->offset)
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
      Where w = s_.where(shift->getDebugLoc());
      what = fmt::format("written by MPI_Cart_shift at {}:{}, not computable: {}", file_tag(w.file), w.line,
                         why_not.empty() ? "it writes the element in part" : why_not);
    }
  } else if (last && *last) {
    if (auto value = written_value(*last, e->base, e->offset, bits); value && s_.model_wide(*value)) return value;
    Where w = s_.where((*last)->getDebugLoc());
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
  for (int k = 2; s_.ctx.element_params.count(name) && s_.ctx.element_params[name].what != what; ++k)
    name = fmt::format("{}_v{}", e->name, k);
  auto& param = s_.ctx.element_params[name];
  if (param.what.empty()) param.what = what, param.default_value = default_value, param.assumed = assumed;
  std::string read_as = fmt::format("the {} of {}", role, reader);
  if (std::find(param.readers.begin(), param.readers.end(), read_as) == param.readers.end())
    param.readers.push_back(read_as);
  std::string readers;
  for (size_t i = 0; i < param.readers.size(); ++i)
    readers += (i == 0 ? "" : i + 1 == param.readers.size() ? " and " : ", ") + param.readers[i];
  s_.ctx.descriptions[name] = {fmt::format("{}[{}], a local array of {}, read as {}; {}. The default assumes {}",
                                           e->array, e->index, e->declared, readers, param.what, param.assumed),
                               param.default_value};
  return ex::var(name);
}

}  // namespace perfcast::analyze::detail
