// Symbolic costs of a program model: what a function (or the whole program)
// costs as expressions over its parameters, and those costs evaluated for one
// rank. Composition follows the code: loops multiply or sum, branches select or
// weigh, calls substitute arguments (docs/program-model.md).
//
// Costs are kept per site, the unit the predictor prices as one piece of work
// (a roofline or ECM-like bound per loop nest, summed, instead of one bound
// over the whole program's totals):
//   * the outermost loop with a footprint claims everything inside it: one loop
//     nest, one working set, one traffic figure;
//   * an innermost loop priced in cycles (MCA) with no such loop around it is a
//     site of its own;
//   * the rest of a function (straight-line code, loops with neither) is the
//     function's site, line 0.
// A callee's sites stay the callee's (scaled by the loops around the call).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/program_model.h"

namespace perfcast::model {

// What a memory segment's bytes are.
enum class Traffic {
  Access,     // every byte loaded or stored, outside any loop with a footprint
  Covered,    // every byte loaded or stored inside a loop with a footprint
  Footprint,  // the distinct bytes of the outermost such loop, once per run of it
};

// Memory traffic that belongs to one working set: the bytes of the innermost
// loop that declared working_set_bytes (none: not declared, level unknown).
// The plain formula prices Access and Covered bytes; the footprint refinement
// prices Access and Footprint bytes from their levels and Covered bytes at L1.
struct MemorySegment {
  std::optional<Expr> working_set_bytes;
  Expr load_bytes, store_bytes;
  int line = 0;  // of the loop that declared the working set
  Traffic traffic = Traffic::Access;
};

// Calls of one MPI item, multiplied up by the loops around it.
struct MpiGroup {
  mpi::Op op = mpi::Op::Barrier;
  Expr calls;               // how many times this rank makes the call
  Expr bytes;               // over all those calls
  std::optional<Expr> peer;  // none when unknown or not point to point
  std::optional<Expr> root;
  int line = 0;
  std::string function;  // the model function the call is in
  // Made inside a loop that polls for a completion (LoopItem::polls): `calls`
  // counts one pass of it, a lower bound of what a run makes.
  bool timing_dependent = false;
};

// The counts of one site (see above).
struct SiteCosts {
  std::string function;  // the model function the site's code is in
  int line = 0;          // the loop's source line; 0: the rest of the function
  std::string note;      // the loop's note (where inlined code came from)
  Expr flops_double, flops_single, loads, stores;
  std::map<std::string, Expr> math_calls;  // "sin" double, "sinf" single
  std::vector<MemorySegment> memory;
  // In-core cycles of the loops priced by MCA (cycles_per_iteration), and the
  // flops inside those loops, which the cycles price instead of flops / peak.
  Expr cycles, cycle_flops_double, cycle_flops_single;
  // The part of `cycles` the ports do not explain (beyond the loops'
  // ports_cycles_per_iteration: the divider, dependency chains): a co-tenant
  // on the ports hardly slows it.
  Expr off_ports_cycles;
  // The most address streams of an innermost loop in the site (LoopItem::streams);
  // 0: none known. And that loop's stream offsets (LoopItem::stream_offsets).
  int streams = 0;
  std::vector<std::vector<Expr>> stream_offsets;
};

// One count a single item of the model gives (a compute item's flops or
// bytes, a loop's trip count, an MPI item's count or bytes), kept apart from
// the site totals it adds into: docs/program-model.md holds every item's count
// to >= 0, and a negative one inside a positive total (1000 flops and -5 flops
// make 995) would pass a check of the totals unseen. `value` is in the entry's
// names, loop indices replaced by the first and last iteration of their loop
// (an item's count is checked at both ends, where an affine count is most
// negative); `runs` is > 0 where the item runs at all on a rank (its branches
// taken, its loops' trip counts > 0), and the check applies only there.
struct CountCheck {
  Expr value;
  Expr runs;
  std::string what;      // "double-precision flops of the compute item", "trip count of the loop"
  std::string function;  // the model function the item is in
  int line = 0;          // the item's line
};

struct SymbolicCosts {
  // Totals over the sites.
  Expr flops_double, flops_single, loads, stores;
  std::map<std::string, Expr> math_calls;
  std::vector<MemorySegment> memory;
  Expr cycles, cycle_flops_double, cycle_flops_single;

  std::vector<SiteCosts> sites;
  std::vector<MpiGroup> mpi;
  std::vector<CountCheck> checks;  // every item's own counts, evaluate_rank checks them
  std::string file;                // the model's file (ProgramModel::file), named by evaluation errors
};

// Costs of the entry function with every name left symbolic. Throws UserError on
// a call to an unknown function, recursion, or an argument the callee does not take.
SymbolicCosts symbolic_costs(const ProgramModel& model);
SymbolicCosts symbolic_costs(const ProgramModel& model, const std::string& function);

// symbolic_costs of several functions of one model, each callee composed once
// for them all (as symbolic_costs composes it once for a whole program): what
// pieces of one model priced one by one share (the work items of its event
// streams, model_events.h). Functions may be added to the model between
// calls; those already composed must not change, and the model must outlive
// this. Throws as symbolic_costs does, and stays usable after. Not thread-safe.
class CostComposer {
 public:
  explicit CostComposer(const ProgramModel& model);
  ~CostComposer();
  CostComposer(const CostComposer&) = delete;
  CostComposer& operator=(const CostComposer&) = delete;
  SymbolicCosts costs(const std::string& function);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// ---- Per rank.

struct MemoryTraffic {
  std::optional<double> working_set_bytes;
  double load_bytes = 0, store_bytes = 0;
  int line = 0;
  Traffic traffic = Traffic::Access;
};

struct MpiCalls {
  mpi::Op op = mpi::Op::Barrier;
  double calls = 0;
  double bytes_per_call = 0;
  std::optional<long long> peer;  // -1 for MPI_PROC_NULL
  int line = 0;
  std::string function;
  bool timing_dependent = false;  // MpiGroup::timing_dependent: `calls` is a lower bound
};

struct SiteCounts {
  std::string function;
  int line = 0;
  std::string note;
  double flops_double = 0, flops_single = 0;
  double loads = 0, stores = 0, load_bytes = 0, store_bytes = 0;  // every access (Access and Covered)
  std::map<std::string, double> math_calls;
  std::vector<MemoryTraffic> memory;
  double cycles = 0, cycle_flops_double = 0, cycle_flops_single = 0;
  double off_ports_cycles = 0;  // of `cycles`
  int streams = 0;              // SiteCosts::streams
  // Of those streams, the ones that follow another along the same array: the
  // byte gap to the one ahead (from SiteCosts::stream_offsets; a gap that
  // does not evaluate is left out, and its stream counts as one that leads).
  std::vector<double> follower_gaps_bytes;
};

struct RankCounts {
  int rank = 0;
  // Totals over the sites.
  double flops_double = 0, flops_single = 0;
  double loads = 0, stores = 0, load_bytes = 0, store_bytes = 0;  // every access
  std::map<std::string, double> math_calls;
  std::vector<MemoryTraffic> memory;  // load_bytes/store_bytes are the Access and Covered segments
  double cycles = 0, cycle_flops_double = 0, cycle_flops_single = 0;
  std::string footprint_error;        // why a footprint did not evaluate (the refinement is then off)
  std::vector<SiteCounts> sites;
  std::vector<MpiCalls> mpi;
  // Derived: totals over `mpi`.
  double mpi_calls = 0;    // every call, MPI_PROC_NULL included
  double mpi_calls_timing_dependent = 0;  // of them, those counted at one pass of a polling loop
  double messages = 0;     // point-to-point sends to a real peer, plus collective calls
  double sent_bytes = 0;   // point-to-point sends to a real peer, plus collective buffers
  double received_bytes = 0;
};

// Binds the parameters (values given, else defaults), rank, size, the
// MPI_Dims_create names and the model's lets. Throws UserError naming a
// parameter that has neither a value nor a default, or a value for a parameter
// the model does not have.
expr::Bindings bind_rank(const ProgramModel& model, const std::map<std::string, expr::Value>& parameters,
                         int rank, int size);

// Throws UserError naming the function, the line, what was counted, the
// expression and its value when a count is negative: a site total or MPI
// group (those also when not finite or beyond 2^53), or one item's own count
// where that item runs on this rank (SymbolicCosts::checks). A footprint
// that does not evaluate turns its refinement off for the site: the site keeps
// no footprint segment (not even another caller's that did evaluate) and its
// accesses are its traffic; footprint_error says which loop and why.
RankCounts evaluate_rank(const SymbolicCosts& costs, const expr::Bindings& bindings, int rank);

// Appends a site, or an MPI call moving `bytes` over all its calls, to a
// rank's counts and adds it to their totals: how evaluate_rank and
// counts_difference keep the totals the sum of the parts.
void add_site_to_rank(RankCounts& counts, SiteCounts site);
void add_call_to_rank(RankCounts& counts, MpiCalls call, double bytes);

// The counts of a run's timed part: `run` minus `baseline`, the same costs
// evaluated at two bindings (e.g. 100 time steps and 0), site by site, memory
// segment by segment and MPI call by call, so that a price of the result is
// the price of the work between the two, whichever bound it takes (a max over
// a whole run's totals does not subtract). A site keeps the run's shape (its
// working sets, address streams); an MPI call keeps its size and peer, which
// must be the baseline's where both make it. A site whose footprints
// evaluated on one side only (evaluate_rank) is subtracted as accesses on both
// sides, unless the baseline moves no byte there. Throws UserError when a count of
// the baseline exceeds the run's (naming the rank, the site or call, the
// count and the bindings that differ), a call differs in size or peer, or a
// site's segments still differ in shape (naming the site and each side's).
RankCounts counts_difference(const RankCounts& run, const RankCounts& baseline, const expr::Bindings& run_bindings,
                             const expr::Bindings& baseline_bindings);

// Every name the costs' expressions need a value for: evaluate_rank's result
// depends on the bindings of these names alone (and the rank), which lets a
// caller evaluating the same costs in every iteration of a loop reuse them.
std::set<std::string> free_names(const SymbolicCosts& costs);

// MPI_Dims_create(size, ndims) with every dimension free: balanced factors in
// non-increasing order (what Open MPI returns for the counts we checked).
std::vector<int> dims_create(int size, int ndims);

}  // namespace perfcast::model
