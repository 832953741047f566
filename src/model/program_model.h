// The program model: what an MPI program does per rank, as symbolic costs over
// its parameters, nested as the code is (docs/program-model.md). Written by the
// static analyser, or by hand for codes it cannot see.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "support/error.h"
#include "support/expr.h"
#include "support/mpi_op.h"

namespace perfcast::model {

using expr::Expr;

struct Item;
using Items = std::vector<Item>;

struct ComputeItem {
  Expr flops_double, flops_single;
  Expr loads, stores;            // accesses
  Expr load_bytes, store_bytes;
  std::vector<std::pair<std::string, Expr>> math_calls;  // "sin" (double), "sinf" (single)
};

struct LoopItem {
  std::string var;                       // may be empty
  Expr trip_count;
  // Each iteration is one level of a recursion whose size shrinks by a
  // constant factor (docs/program-model.md, "Recursion by levels"): `var` is
  // the level, and the body's memory is priced level by level, each level's
  // bytes at the memory level its own working set fits, not at the last
  // iteration's as for other loops. Needs `var`.
  bool levels = false;
  std::optional<Expr> working_set_bytes;  // data the loop touches; picks the memory level
  // Distinct data one run of the loop (all its iterations) touches, from the
  // addresses of its accesses (`perfcast analyze`): the footprint refinement
  // prices this, not every access, against the level it fits in.
  struct Footprint {
    Expr bytes;        // distinct bytes touched: picks the level
    Expr load_bytes;   // distinct bytes read
    Expr store_bytes;  // distinct bytes written
  };
  std::optional<Footprint> footprint;
  // Innermost loops: the address streams of the body (accesses of one base a
  // constant less than 256 bytes apart are one; `perfcast analyze`). Picks the
  // machine's serial fraction for this many streams (memory overlap_by_streams).
  std::optional<int> streams;
  // Per array walked by several of those streams, each one's byte offset from
  // the first's: how far apart they reuse the same bytes (a stencil's rows and
  // planes), which the predictor weighs against L1's size.
  std::vector<std::vector<Expr>> stream_offsets;
  // In-core cycles of one iteration of the body (innermost loops; LLVM MCA),
  // on the scheduling model of ProgramModel::mca_cpu.
  std::optional<Expr> cycles_per_iteration;
  // Loops with subloops: in-core cycles per iteration of the loop's own
  // instructions, outside its subloops (LLVM MCA).
  std::optional<Expr> overhead_cycles_per_iteration;
  // Cycles per iteration the pipelined ports need (MCA's resource bound of the
  // body without its divisions and square roots). What the priced cycles take
  // beyond them is the divider's, or waiting along a dependency chain.
  std::optional<double> ports_cycles_per_iteration;
  // MCA's own figures for one iteration (`perfcast analyze`): of the body for
  // an innermost loop, of the loop's own blocks for the others. For the
  // reader; the predictor prices the cycles above, not these.
  struct McaFigures {
    double cpi = 0;          // steady-state cycles per iteration
    double rthroughput = 0;  // the resource bound
    int uops = 0;            // micro-ops per iteration
    std::optional<bool> chain_restarts;  // innermost loops: no value flows from one run to the next
    std::string busiest_resource;        // the port group (or "dispatch width") bounding it
    double busiest_resource_cycles = 0;
    int divides = 0;  // divisions and square roots; 0: none, and the next is left out
    double rthroughput_without_divides = 0;
  };
  std::optional<McaFigures> mca;
  // A loop that polls for an MPI completion (`do { MPI_Test(&r, &flag, ...) }
  // while (!flag)`): the MPI function it polls with, "" for other loops. Its
  // trips are timing (how long the message takes), not a count: `trip_count`
  // is the one pass that finds the completion, and the MPI calls inside it
  // count as lower bounds (timing-dependent).
  std::string polls;
  Items body;
};

struct BranchItem {
  std::optional<Expr> condition;  // evaluated per rank
  // The share of its runs that take `then`, evaluated per rank (0..1): the
  // code after a loop's only exit, in the middle of its body, runs on all but
  // the last of the loop's iterations, (T - 1) / T of them.
  std::optional<Expr> share;
  double probability = 0.5;       // used when there is neither
  // Whether the model computes which side is taken (a condition or a share),
  // so no probe run binds it.
  bool computed() const { return condition || share; }
  Items then_items, else_items;
  // The source lines its sides start at (0: not known), as the analyser read
  // them from the optimised code: how a probe run's taken count, measured on
  // the code as written, finds the side it belongs to (probe_bind.h).
  int then_line = 0, else_line = 0;
};

struct CallItem {
  std::string function;  // "" for an indirect call no probe run has bound: it prices nothing
  std::vector<std::pair<std::string, Expr>> args;  // callee parameter -> caller expression
  // A call through a pointer (docs/program-model.md, "Indirect calls"): its
  // site as the probes name it (`file.c:line:column`), and its arguments by
  // position (none where the analysis could not express one), which a probe
  // run's binding gives to each target it measured there.
  bool indirect = false;
  std::string site;
  std::vector<std::optional<Expr>> positional_args;
};

struct MpiItem {
  mpi::Op op = mpi::Op::Barrier;
  Expr bytes;                     // per call
  std::optional<Expr> peer;       // point-to-point; negative = MPI_PROC_NULL
  std::optional<Expr> root;       // rooted collectives
  std::optional<Expr> level;      // pcontrol: 1 starts the timed region, 0 ends it; none: not known
  Expr count = Expr(1);           // calls
};

struct Item {
  int line = 0;
  std::string note;  // free text; the analyser says where inlined code came from
  std::variant<ComputeItem, LoopItem, BranchItem, CallItem, MpiItem> body;
};

// Calls `visit` on every expression an item holds itself (a compute item's
// counts, a loop's trips, traffic, streams and cycles, a branch's test and
// share, a call's arguments, an MPI call's counts, peer, root and level), not
// those of the items it holds: a walk over the model decides where to go.
// `ItemT` is Item or const Item, so the visit may rewrite them.
template <typename ItemT, typename Visit>
void for_each_expression(ItemT& item, Visit&& visit) {
  auto optional = [&](auto& e) {
    if (e) visit(*e);
  };
  if (auto* c = std::get_if<ComputeItem>(&item.body)) {
    for (auto* e : {&c->flops_double, &c->flops_single, &c->loads, &c->stores, &c->load_bytes, &c->store_bytes})
      visit(*e);
    for (auto& [name, calls] : c->math_calls) visit(calls);
  } else if (auto* l = std::get_if<LoopItem>(&item.body)) {
    visit(l->trip_count);
    optional(l->working_set_bytes);
    if (l->footprint) visit(l->footprint->bytes), visit(l->footprint->load_bytes), visit(l->footprint->store_bytes);
    for (auto& offsets : l->stream_offsets)
      for (auto& e : offsets) visit(e);
    optional(l->cycles_per_iteration);
    optional(l->overhead_cycles_per_iteration);
  } else if (auto* b = std::get_if<BranchItem>(&item.body)) {
    optional(b->condition);
    optional(b->share);
  } else if (auto* call = std::get_if<CallItem>(&item.body)) {
    for (auto& [param, arg] : call->args) visit(arg);
    for (auto& arg : call->positional_args) optional(arg);
  } else if (auto* m = std::get_if<MpiItem>(&item.body)) {
    visit(m->count), visit(m->bytes);
    optional(m->peer), optional(m->root), optional(m->level);
  }
}

// What a source variable's description ends with where the model reads its
// value where several of its assignments merge (a phi the analyser could not
// follow), and where it reads both that and one assignment's value: a probe
// run measures the merged value by the variable's reads there.
inline constexpr std::string_view kReadWhereMergeNote = "; read where its assignments merge";
inline constexpr std::string_view kReadWhereMergeAndAtOneNote = "; read where its assignments merge and at one of them";
// What a source variable's description ends with, followed by a line, where
// the model reads the value one of its several assignments gives it, at
// that line of its declaration's file: a probe run measures that
// assignment's values apart from the others'.
inline constexpr std::string_view kAssignedAtLineNote = "; the value assigned at line ";
// What a peer rank's description ends with where the analyser could not
// compute it and its default is an assumption (a real neighbour), not a value
// the code gives: a probe run treats it as still open.
inline constexpr std::string_view kAssumedNeighbourNote = "the default assumes a real neighbour";
// What a variable's description in `main` says of its default where that is
// the first constant the source gives it (`int steps = 10;`, an option's).
inline constexpr std::string_view kFirstValueDefault = "the value the source gives it first";

struct Parameter {
  std::string name;
  std::string description;
  std::optional<Expr> default_value;
  // The program holds it in an integer (a size, a count, an option): a bound
  // value with a fractional part is refused instead of predicting a fractional grid.
  bool integer = false;
  // Where the default came from when not the source or the analyser: a probe
  // run ("probe run: `./app 8` on 2 ranks"), whose values hold at its input only.
  std::string origin;
};

struct Function {
  std::string name;
  int line = 0;
  std::vector<std::string> parameters;  // bound by the caller's args
  Items body;
  // The integer arguments by position ("" for others), written where an
  // indirect call may need them: how its positional arguments meet `parameters`.
  std::vector<std::string> arguments;
  // The file of its definition, without the directory ("" where not known):
  // where a probe run finds the probes of its lines.
  std::string file;
};

// The rest of the model's "mca" record (`perfcast analyze`): how the loops
// were priced, for the reader. Every field is optional; those absent are left
// out when written.
struct McaRecord {
  std::optional<std::string> cpu_chosen;  // why that CPU: the machine file naming it, or the stand-in for the host
  std::optional<std::string> code_for;    // the target triple and CPU the code was compiled for
  std::optional<int> loops_priced, loops_unpriced, outer_loops_priced, outer_loops_unpriced;
  std::optional<int> window_uops;  // the scheduler's window, in micro-ops
  // The machine file whose measured instruction cycles went into the
  // scheduling model, and what they changed.
  struct HostCycles {
    std::string source;
    std::vector<std::string> applied;
  };
  std::optional<HostCycles> host_cycles;
  std::optional<std::string> note;

  bool empty() const {
    return !cpu_chosen && !code_for && !loops_priced && !loops_unpriced && !outer_loops_priced &&
           !outer_loops_unpriced && !window_uops && !host_cycles && !note;
  }
};

// What the static analyser could not follow (`perfcast analyze`; absent from
// hand-written models): calls it could not resolve, branches priced at a
// guessed probability, loops whose trip count is data, and how much of the
// reachable code the model prices. A prediction resting on these guesses
// says so (docs/program-model.md, "Coverage").
struct Coverage {
  struct Call {
    // "indirect" (through a pointer), "external" (no cost known), "recursive"
    // (into a recursion at a function other than where its analysis entered it)
    std::string kind;
    std::string callee;  // "" for an indirect call
    std::string caller;  // the function analysed (the code may be inlined into it)
    std::string site;    // "file.c:12"
    // An indirect call's targets a probe run measured there (docs/program-model.md,
    // "Probe runs"): function -> calls per execution of the site; or the site never ran.
    std::vector<std::pair<std::string, double>> probe_targets;
    bool probe_not_reached = false;
  };
  struct Branch {
    std::string function, site;
    double probability = 0.5;  // the guess the model prices
    std::string why;
    // A probe run's measure (docs/program-model.md, "Probe runs"): the
    // probability of `then` it replaced the guess with (the taken fraction, on
    // the side it was measured on), or the site never ran in it.
    std::optional<double> probe_probability;
    bool probe_not_reached = false;
  };
  struct Loop {
    std::string function, site;
    std::string trip_count;  // the parameter that stands for it
    std::string why;
    std::optional<double> probe_trips;  // mean trips per arrival in a probe run, now the parameter's default
    bool probe_not_reached = false;     // the probe run never reached the loop: its trips are bound to 0
    // The loop of a recursive function's invocations per call from outside its
    // recursion, around its body (site: the function's definition); else a source loop.
    bool recursion = false;
    // The calls of one override at a C++ virtual call: this call's site
    // ("file.c:12"; `site` is the override's definition, `trip_count` the
    // share of the calls that land on it); "" for other loops.
    std::string virtual_call;
    // The linkage name of the function the loop was written in where the
    // optimiser inlined it into `function` ("" otherwise): a template's
    // instances share their loops' lines, and a probe run tells them apart by
    // the instance, as it was before inlining.
    std::string instance;
    // Where the optimiser merged an inner loop into this one (a nest's `do
    // ... while` leaving straight to the outer loop's test; skip_line's,
    // inlined into `while (skip_line(f) != EOF)`): a line of that loop
    // ("file.c:12"), whose iterations are this loop's passes; "" otherwise.
    std::string merged_site;
    // A recursion's loop: the sites ("file.c:12") of the calls back into it,
    // each once: a probe run's counts of calls there are those its recursion
    // made of the function, wherever its cycle of calls crosses source files.
    std::vector<std::string> called_back_at;
  };
  int functions_defined = 0;
  int functions_reachable = 0;  // from the entry by calls or through pointers taken there
  std::int64_t instructions = 0;         // IR instructions of the reachable functions
  std::int64_t instructions_priced = 0;  // those inside what the model prices
  std::vector<Call> unresolved_calls;
  // The reachable functions the model's calls do not reach (the candidate
  // targets of its indirect calls) -> their instructions in priced blocks,
  // which join `instructions_priced` once a probe run binds a call to them.
  std::map<std::string, std::int64_t> candidate_instructions_priced;
  std::vector<Branch> guessed_branches;
  std::vector<Loop> unknown_loops;
  // Loops that poll for an MPI completion (LoopItem::polls): priced at one
  // pass, their trips timing-dependent. Not guesses: no run's count binds them.
  struct Polling {
    std::string function, site;
    std::string loop;  // the site's name (`main.loop2`)
    std::string call;  // the MPI function whose completion ends it ("MPI_Test")
  };
  std::vector<Polling> polling_loops;
  // The probe run whose measures replaced guesses ("`./app 8` on 2 ranks"); "" if none.
  std::string probe_run;

  size_t guesses() const { return unresolved_calls.size() + guessed_branches.size() + unknown_loops.size(); }
  double priced_share() const {
    return instructions > 0 ? static_cast<double>(instructions_priced) / static_cast<double>(instructions) : 1.0;
  }
};

// One line: how much of the program the model covers and what it guessed
// (what `perfcast analyze` prints when it ends).
std::string coverage_summary(const Coverage& c);

struct ProgramModel {
  std::string program, source, origin;
  // The file the model was read from ("" for one made in memory): every error its
  // content raises while it is evaluated names it (ModelItemError).
  std::string file;
  std::string mca_cpu;  // the CPU whose scheduling model gave cycles_per_iteration ("" if none)
  McaRecord mca;        // the rest of the "mca" record
  std::vector<Parameter> parameters;
  std::vector<std::pair<std::string, Expr>> lets;  // evaluated in order per rank
  std::string entry = "main";
  std::map<std::string, Function> functions;
  std::optional<Coverage> coverage;  // the analyser's; none for hand-written models
};

// An error in one item of a model found while evaluating it for a rank (a count
// that does not evaluate or is negative, an unknown callee or name, a peer out of
// range): names the model file, the function and the item's line, so the user can
// find the item the loader could not judge. It is raised, or made from the
// evaluator's UserError, once where the item is known; enclosing code passes it
// on unchanged.
class ModelItemError : public UserError {
 public:
  ModelItemError(std::string file, std::string function, int line, std::string message, std::string hint = {})
      : UserError(located(function, line, message), SourceLocation{file, std::nullopt, {}}, hint),
        file_(std::move(file)), function_(std::move(function)), line_(line), message_(std::move(message)) {}
  // The item's evaluator error, located.
  ModelItemError(const std::string& file, const std::string& function, int line, const UserError& cause)
      : ModelItemError(file, function, line, cause.what(), cause.hint()) {}

  const std::string& function() const { return function_; }
  int line() const { return line_; }
  // The same error placed in another function (an item evaluated on its own, in a
  // scratch function, belongs to the function the walk is in).
  ModelItemError in_function(const std::string& function) const {
    return ModelItemError(file_, function, line_, message_, hint());
  }

 private:
  static std::string located(const std::string& function, int line, const std::string& message) {
    return line > 0 ? "in function '" + function + "', the item at line " + std::to_string(line) + ": " + message
                    : "in function '" + function + "': " + message;
  }
  std::string file_, function_;
  int line_ = 0;
  std::string message_;
};

// Reads and checks a model; errors name the file and the JSON path
// (e.g. "/functions/main/body/3/trip_count") and what was expected; an MPI
// item's "op" is parsed into the MPI vocabulary here, once.
ProgramModel load_program_model(const std::filesystem::path& file);

}  // namespace perfcast::model
