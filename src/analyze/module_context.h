// Internal: what the analysis of one module shares across its functions: the
// function models made so far, the descriptions of every parameter an
// expression may name, and the input's settings.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analyze/ir_analysis.h"
#include "analyze/program_tree.h"
#include "analyze/recursion.h"

namespace llvm {
class DataLayout;
class Function;
class GlobalVariable;
class Value;
template <typename IRUnitT, typename... ExtraArgTs>
class AnalysisManager;
using FunctionAnalysisManager = AnalysisManager<Function>;
}  // namespace llvm

namespace perfcast::analyze::detail {

// IR names of the loop headers the MCA pricing looks for.
constexpr const char* kMcaLoopPrefix = "perfcast.loop.";

struct ParamInfo {
  std::string description;
  std::optional<std::string> default_value;
};

struct ModuleContext {
  const llvm::DataLayout* dl = nullptr;
  const IrInput* input = nullptr;
  llvm::FunctionAnalysisManager* fam = nullptr;
  std::map<std::string, FunctionModel> functions;
  std::set<std::string> in_progress;
  // Functions in recursive cycles of calls and the arguments their recursion
  // varies (recursion.h); and, per function a call went back into while it
  // was being analysed, the sites of those calls ("file.c:12"): its body is
  // then counted once per invocation, times its invocations per entry.
  RecursiveFunctions recursive;
  std::map<std::string, std::vector<std::string>> recursive_calls;
  std::map<std::string, std::set<std::string>> recursion_origins;  // the source functions those calls are in
  std::map<std::string, ParamInfo> descriptions;  // every name an expression may use
  // The values of each source variable the analyser read by its name: where
  // several of its assignments merge (a phi or select it could not follow,
  // or an increment the optimiser made unconditional), and others (one
  // assignment's). A probe run measures the two apart (docs/program-model.md,
  // the probe run's table: a source variable). Conversions that were tried
  // and dropped read values too: a merge's own operands are no read of their
  // own where the parameters get their descriptions (analyze_bitcode).
  // The values the model reads by a variable's name: merges of its
  // assignments, and the others; of those, the lines of the assignments they
  // are (SourceNames::assignment_line), and whether some are none.
  struct VariableReads {
    std::set<const llvm::Value*> merges, others;
    std::set<unsigned> assignment_lines;
    bool not_one_assignment = false;
  };
  std::map<std::string, VariableReads> variable_reads;
  // The names of one assignment's values (`n.2`, variable_reads.h) and the
  // variable's own name each is of.
  std::map<std::string, std::string> assignment_names;
  // Library functions the model leaves out (the library-cost table's
  // "ignore"): by name, or by prefix where an entry ends in '*'
  // (_FortranAio*: every statement of Fortran's I/O runtime).
  std::set<std::string> ignore;
  std::vector<std::string> ignore_prefixes;
  bool ignores(const std::string& name) const {
    if (ignore.count(name)) return true;
    for (const auto& p : ignore_prefixes)
      if (name.compare(0, p.size(), p) == 0) return true;
    return false;
  }
  // <loop site>.<array>.range parameters: the gathers (file:line) each one bounds.
  std::map<std::string, std::vector<std::string>> range_loops;
  // Parameters for ranks read from local arrays (nbr_1, element_rank()): what
  // the element holds and the MPI calls that read it, for the description.
  struct ElementParam {
    std::string what, default_value, assumed;
    std::vector<std::string> readers;
  };
  std::map<std::string, ElementParam> element_params;
  // Lines of the module's loops and calls by origin function and kind, in
  // order: the ordinals of stable site names (site_names.cpp), filled on first use.
  std::map<std::string, std::vector<unsigned>> site_lines;
  bool sites_collected = false;
  // Per defined function, whether it or what it calls stores to a global
  // (memory_writes.cpp), filled on first use.
  std::map<std::pair<const llvm::Function*, const llvm::GlobalVariable*>, bool> stores_global;
  // MemoryWrites::keeps_argument: whether a function keeps the pointer it gets as argument k.
  std::map<std::pair<const llvm::Function*, unsigned>, bool> keeps_argument;
  // The functions clang outlined for OpenMP parallel regions, by name: each
  // runs once per thread of a team (openmp_runtime.h).
  std::set<std::string> parallel_regions;
  int mca_loops = 0;  // loops named for the MCA pricing
  // Seconds each function's own analysis took (the analyses of the callees
  // it started excluded), for the progress line naming the slowest.
  std::map<std::string, double> analysis_seconds;
  double nested_seconds = 0;  // callees' analyses inside the one under way
  // The model of `f`, analysed on first use (function_analyser.cpp).
  FunctionModel& analyse(llvm::Function& f);
  // Wraps the body of `f`, called back at `back` during its analysis, in the
  // loop of its invocations per call from outside the recursion.
  void count_recursion(const llvm::Function& f, FunctionModel& m, const std::vector<std::string>& back);
  // Whether the input asks for the analysis's reasoning on the progress channel.
  bool debugging() const { return input->debug && input->progress; }
};

}  // namespace perfcast::analyze::detail
