#include "analyze/loop_footprints.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Instructions.h>

#include "analyze/memory_writes.h"
#include "analyze/mpi_tables.h"
#include "analyze/site_names.h"

namespace perfcast::analyze::detail {

namespace ex = perfcast::expr;
using ex::Expr;

// An innermost loop's address streams, and per array walked by several, their
// offsets from its first (how far apart they reuse the same bytes, which the
// predictor weighs against L1's size). A base whose offsets do not convert
// keeps its count only.
void LoopFootprints::add_streams(Node& n, const llvm::Loop* l) {
  std::vector<AddressStream> streams = loop_streams(*l, s_.se);
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
      auto e = exprs_.conv(s_.se.getMinusSCEV(o, offsets.front()), l);
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
void LoopFootprints::add_footprints(const std::map<const llvm::Loop*, Node*>& loop_nodes) {
  auto harmless = [&](const llvm::CallBase& call) {
    const auto* callee = llvm::dyn_cast<llvm::Function>(call.getCalledOperand()->stripPointerCasts());
    if (!callee) return false;
    std::string name = callee->getName().str();
    return math_name(name).has_value() || s_.ctx.ignores(name);
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
  // An integer the loop reads again each iteration from a fixed address that
  // nothing in it writes (a bound or stride through a struct pointer, left
  // in the loop since the read is conditional): one value over the loop.
  MemoryWrites writes(s_);
  auto steady_in = [&](const llvm::Loop* loop) {
    return [&, loop](const llvm::Value& v) {
      const auto* load = llvm::dyn_cast<llvm::LoadInst>(&v);
      if (!load || load->isVolatile() || !load->getType()->isIntegerTy()) return false;
      const llvm::Value* pointer = load->getPointerOperand();
      if (!s_.se.isSCEVable(pointer->getType()) ||
          !s_.se.isLoopInvariant(s_.se.getSCEV(const_cast<llvm::Value*>(pointer)), loop))
        return false;
      int64_t offset = 0;
      const llvm::Value* base = llvm::GetPointerBaseWithConstantOffset(pointer, offset, s_.dl);
      return !writes.written_in_loop(loop, base, offset);
    };
  };
  for (auto& [loop, node] : loop_nodes) {
    auto fp = loop_footprint(*loop, s_.se, s_.dl, harmless, steady_in(loop));
    if (!fp) continue;
    Pending p{loop, node, 0, 0, 0, {}};
    std::vector<CountedAccess> counted = fp->counted;
    bool ok = true;
    for (const BaseExtent& b : fp->bases) {
      auto bytes = exprs_.conv(b.bytes, loop);
      auto loaded = b.load_bytes ? exprs_.conv(b.load_bytes, loop) : Expr(0);
      auto stored = b.store_bytes ? exprs_.conv(b.store_bytes, loop) : Expr(0);
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
    // An access in a loop the model leaves out (inlined library code the
    // table ignores, a dead loop) is not in the footprint either.
    std::erase_if(counted, [&](const CountedAccess& a) {
      return !loop_nodes.count(s_.li.getLoopFor(a.instruction->getParent()));
    });
    std::vector<bool> in_union = add_shared_streams(counted, loop, p.bytes, p.load_bytes, p.store_bytes);
    for (size_t i = 0; i < counted.size(); ++i) {
      const CountedAccess& a = counted[i];
      if (in_union[i]) continue;
      Expr bytes = runs_in(a, loop) * Expr(static_cast<std::int64_t>(a.bytes));
      if (a.indirect && a.gathered) {
        Where w = s_.where(a.instruction->getDebugLoc());
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
      if (s_.model_wide(g.load_bytes + g.store_bytes) && (!best || p.loop->contains(best->loop))) best = &p;
    }
  for (Pending& p : pending) {
    for (const auto& [key, g] : p.gathers) {
      Expr all = g.load_bytes + g.store_bytes;
      const Pending* r = range_loop[{key, nest_of(p.loop)}];
      // The parameter bounds the loop it is per run of and the loops inside it.
      if (r && r->loop->contains(p.loop)) {
        const auto& [file, line, base] = key;
        Where at = s_.where(counts_.source_loc(r->loop));
        std::string per = fmt::format("{}:{}", file_tag(at.file), at.line);
        // One parameter per loop and array; gathers of one array at several
        // lines of the loop count their lines: .range, .range2, ...
        std::string stem = sanitize(fmt::format("{}.{}", loop_site(s_.ctx, s_.f, r->loop), names_.gathered_name(base)));
        std::vector<std::string>& at_lines = s_.ctx.range_loops[stem];
        std::string gather_at = fmt::format("{}:{}", file_tag(file), line);
        auto seen = std::find(at_lines.begin(), at_lines.end(), gather_at);
        if (seen == at_lines.end()) seen = at_lines.insert(at_lines.end(), gather_at);
        std::string name = seen == at_lines.begin() ? stem + ".range"
                                                    : fmt::format("{}.range{}", stem, seen - at_lines.begin() + 1);
        const Gathers& whole = r->gathers.at(key);
        s_.describe(name,
                    fmt::format("distinct bytes of {} that the indirect accesses at {}:{} reach in one run of the loop "
                                "at {} (at most the extent of the array they gather from); the default counts every "
                                "access as distinct, an upper bound",
                                names_.gathered_name(base), file_tag(file), line, per),
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

// Counted accesses of one array that walk it as one stream, shifted by
// amounts that hold over the loop (footprint.h, shared_streams): each group
// adds the union of its walks, the longest walk (executions x pitch) plus the
// spread of the shifts, or the sum of their counts where that is less (walks
// shorter than their shifts, strided walks); loads, stores and all their
// bytes each as their own union. This takes each walk as one interval over
// the whole run of `l`, as a sweep's rows and planes are, one continuing
// where the last ended: rows read from scattered starts would add the spread
// once per row. A group whose shifts the model cannot name is left to be
// counted access by access. Returns which accesses were added.
std::vector<bool> LoopFootprints::add_shared_streams(const std::vector<CountedAccess>& counted, const llvm::Loop* l,
                                                      Expr& bytes, Expr& load_bytes, Expr& store_bytes) {
  std::vector<bool> added(counted.size(), false);
  std::vector<SharedStream> shared = shared_streams(counted, *l, s_.se);
  for (size_t first = 0; first < counted.size(); ++first) {
    std::vector<size_t> group;
    for (size_t i = 0; i < counted.size(); ++i)
      if (shared[i].first == first) group.push_back(i);
    if (group.size() < 2) continue;
    struct Walk {
      Expr bytes, length, shift;  // its count's bytes, from its start to its end, from the group's first
      bool store;
    };
    std::vector<Walk> walks;
    for (size_t i : group) {
      std::optional<Expr> shift = shared[i].shift ? exprs_.conv(shared[i].shift, l) : std::optional<Expr>(0);
      if (!shift) break;
      Expr runs = runs_in(counted[i], l);
      walks.push_back({runs * Expr(static_cast<std::int64_t>(counted[i].bytes)),
                       runs * Expr(static_cast<std::int64_t>(shared[i].pitch)), *shift, counted[i].store});
    }
    if (walks.size() != group.size()) continue;
    auto join = [&](auto pick) -> Expr {
      std::vector<Expr> counts, lengths, shifts;
      for (const Walk& w : walks)
        if (pick(w)) counts.push_back(w.bytes), lengths.push_back(w.length), shifts.push_back(w.shift);
      if (counts.empty()) return 0;
      if (counts.size() == 1) return counts.front();
      Expr spread = ex::maximum(shifts) - ex::minimum(shifts);
      return ex::minimum({ex::add(counts), ex::maximum(lengths) + spread});
    };
    bytes = bytes + join([](const Walk&) { return true; });
    load_bytes = load_bytes + join([](const Walk& w) { return !w.store; });
    store_bytes = store_bytes + join([](const Walk& w) { return w.store; });
    for (size_t i : group) added[i] = true;
  }
  return added;
}

// Executions of a counted access in one run of `l`: the trip counts of the
// loops from the access's out to `l`, but for those its address does not
// move with (it touches the same bytes again); summed over an index that an
// inner count uses (a triangular nest). An upper bound for an access behind a
// branch.
Expr LoopFootprints::runs_in(const CountedAccess& access, const llvm::Loop* l) {
  Expr runs = 1;
  for (const llvm::Loop* m = s_.li.getLoopFor(access.instruction->getParent()); m; m = m->getParentLoop()) {
    Expr trips = counts_.trip_count(const_cast<llvm::Loop*>(m));
    std::string index = names_.loop_var(m);
    if (ex::free_names(runs).count(index)) runs = ex::sum(index, Expr(0), trips - Expr(1), runs);
    else if (!access.address || !s_.se.isLoopInvariant(access.address, m))
      runs = trips * runs;
    if (m == l) break;
  }
  return ex::simplify(runs);
}

}  // namespace perfcast::analyze::detail
