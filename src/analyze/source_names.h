// Internal: the source's names for what the IR computes: variables from the
// debug info (dbg.declare, dbg.value), struct members and fields read from
// memory, loop indices, arrays; each made a valid expression name.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "analyze/function_scope.h"
#include "analyze/memory_writes.h"

namespace llvm {
class DILocalVariable;
class DILocation;
class GlobalVariable;
class DIType;
class LoadInst;
}  // namespace llvm

namespace perfcast::analyze::detail {

// A valid expression name for any source identifier; the expression language's
// function names are reserved.
std::string sanitize(const std::string& raw);
// A file's name without directories, as a part of a name.
std::string file_tag(const std::string& file);
// The name of a global variable in parameter names, from its debug
// declaration: a Fortran module variable is `<module>.<variable>`, a SAVEd
// local of a procedure `<procedure>.<variable>` (of the main program
// `<variable>`), a C global its own name. Without debug info flang's
// mangling (`_QM<module>E<variable>`, `_QF<procedure>E<variable>`) is read;
// any other symbol is its linkage name. A C struct read at its start is its
// first member (`cfg.n`); flang-19 describes no derived type, so a Fortran
// one read at its start is the variable's name (`settings.grid`).
std::string global_source_name(const llvm::GlobalVariable& g);
// A debug type through its typedefs and qualifiers.
const llvm::DIType* strip_qualifiers(const llvm::DIType* t);

class SourceNames {
 public:
  struct DebugName {
    std::string name, description;
    // The compiler's own variable (an OpenMP loop's `.omp.ub`, a captured
    // `.capture_expr.`), no source variable: a name of last resort.
    bool artificial = false;
    // A field of a local aggregate the optimiser split into values (a
    // fragment): the value is a copy, of what the code read where it loads.
    bool member = false;
    // A variable of a system header's code inlined here (libstdc++'s `__n`
    // of `std::vector<int> v(nump)`): no name a user knows; what its value
    // was read from (the field `nump`) is.
    bool library = false;
  };

  SourceNames(FunctionScope& scope, MemoryWrites& writes) : s_(scope), writes_(writes) {}

  // Reads the function's debug info; before any other query.
  void collect();
  // The name of `l`'s index: its source variable's, else iter_<line>; unique
  // in the function.
  std::string loop_var(const llvm::Loop* l);
  // The parameter named after the struct field `load` reads, when the field
  // holds one value while the loops around the load run.
  // `of_a_class`: a C++ class's too (`Atom.nlocal` through a method's
  // `this`), asked where the only other name is the compiler's own variable.
  std::optional<std::string> field_name(const llvm::LoadInst* load, bool of_a_class = false);
  // The source name of the array a gather reads from `base`.
  std::string gathered_name(const llvm::Value* base) const;

  // Named values of the function (its variables' values, by dbg.value).
  const std::map<const llvm::Value*, DebugName>& debug_names() const { return debug_names_; }
  // Whether `value`, a value of a variable, merges its assignments (a phi, a
  // select, a min or max of an earlier value of its own (clips_itself), or an
  // assignment the optimiser made unconditional: `n = a; if (c) n++;` as a +
  // zext(c)) and takes in every value the function gives the variable,
  // constants too, through the phis, selects, mins, maxes and such increments
  // it is made of: what a read after all of them in the source reads; not a
  // merge in a copy of the code the optimiser made for one side of an earlier
  // test, nor one assignment's value. A read of a variable kept in memory
  // merges where every write of it reaches the read and none is the last,
  // and so does a phi of such reads of one local and of constants the local
  // is known to hold on their edges (`if (n) f();` then n read again: on the
  // side that skipped f the optimiser knows it 0).
  bool merges_every_assignment(const llvm::Value& value) const;
  // Whether `value` is a min or max of one of its variable's earlier values
  // (`if (n > m) n = m;`), which merges the assignments of both sides; a min
  // or max of other values (`n = max(a, b);`) is one assignment.
  bool clips_itself(const llvm::Value& value) const;
  // The source line of the assignment `value` is, where the variable has
  // several values (assignments) and `value` is one of them alone: an
  // instruction of the variable's own function at a line (not a merge as
  // above, a constant, an argument, nor a read of a local's own memory but
  // where a call handed its address wrote it last: that call's line):
  // where a probe run measures that assignment's values apart from the others'.
  std::optional<unsigned> assignment_line(const llvm::Value& value) const;
  // The place (1, 2, ...) of that assignment's line among the lines of the
  // variable's assignments (its values that are one, as above), in line order:
  // unchanged by edits outside the function.
  std::optional<unsigned> assignment_ordinal(const llvm::Value& value) const;
  // Variables of struct, array or pointer type by the value that holds them.
  const std::map<const llvm::Value*, const llvm::DILocalVariable*>& struct_vars() const { return struct_vars_; }

 private:
  std::string member_name(const llvm::DILocalVariable* var, uint64_t offset_bits) const;
  // merges_every_assignment for a local kept in memory: `local` the one
  // local its reads read (set by the first), `seen` the phis walked.
  bool merges_in_memory(const llvm::Value& value, const llvm::Value*& local,
                        std::set<const llvm::Value*>& seen) const;

  FunctionScope& s_;
  MemoryWrites& writes_;
  std::map<const llvm::Value*, DebugName> debug_names_;
  std::map<const llvm::Value*, std::string> alloca_names_;
  // Each whole variable (and inlined copy) by its non-constant values, and
  // every value its dbg.values give it.
  using VariableCopy = std::pair<const llvm::DILocalVariable*, const llvm::DILocation*>;
  std::map<const llvm::Value*, VariableCopy> variable_of_;
  std::map<VariableCopy, std::set<const llvm::Value*>> values_of_;
  // Variables of struct (or pointer-to-struct) type by the value that holds
  // them: an alloca (dbg.declare) or a pointer (dbg.value), for naming fields.
  std::map<const llvm::Value*, const llvm::DILocalVariable*> struct_vars_;
  std::map<const llvm::Loop*, std::string> loop_vars_;
};

}  // namespace perfcast::analyze::detail
