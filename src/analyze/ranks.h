// Internal: ranks the code reads from memory: MPI peers and roots held in a
// local array (nbr[f]) by what was stored there, MPI_Cart_shift's neighbours on
// an MPI_Cart_create grid as expressions of rank and size, and, where they
// cannot be computed, one parameter per element with what it holds described.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyze/function_scope.h"
#include "analyze/memory_writes.h"
#include "analyze/scev_to_expr.h"
#include "analyze/source_names.h"

namespace llvm {
class CallBase;
class Function;
class Instruction;
class Value;
}  // namespace llvm

namespace perfcast::analyze::detail {

// Whether a communicator argument is MPI_COMM_WORLD (Open MPI's global; MPICH's constant).
bool is_comm_world(const llvm::Value* comm);

// "rank" or "size" when `call` is MPI_Comm_rank or MPI_Comm_size (C, or
// Fortran's binding by reference), which write it through their argument 1.
std::optional<std::string> mpi_query(const llvm::CallBase& call);

// What a program's own function hands back of MPI_Comm_rank or
// MPI_Comm_size, "rank" or "size": through its pointer argument `arg` (hypre's
// `hypre_MPI_Comm_rank(comm, &id)`, which stores the int MPI wrote as a wider
// integer; a Fortran subroutine passing its dummy argument on), or, with `arg`
// -1, as its return value (`int get_rank(void)`). Only a short function
// whose one store to that argument, or every return, is what one such call
// wrote (cast at most); none otherwise. Like a direct call's, the
// communicator is not asked.
std::optional<std::string> mpi_query_wrapped(const llvm::Function& f, int arg);

// The rank `disp` steps from `rank` along dimension `k` of a grid of extents
// `dims` numbered in row-major order (the last dimension varies fastest), as
// MPI numbers a Cartesian communicator's ranks: wrapped where `periodic` is
// not 0, else -1 (MPI_PROC_NULL) off the grid.
expr::Expr cart_shifted(const std::vector<expr::Expr>& dims, size_t k, const expr::Expr& disp,
                        const expr::Expr& periodic);

class RankReasoning {
 public:
  RankReasoning(FunctionScope& scope, SourceNames& names, MemoryWrites& writes, ScevToExpr& exprs)
      : s_(scope), names_(names), writes_(writes), exprs_(exprs) {}

  // The rank an MPI call reads as its `role` ("peer", "root") from an element
  // of a local array; nothing when `v` is no such read.
  std::optional<expr::Expr> element_rank(const llvm::Value* v, const std::string& role, const std::string& reader,
                                         const std::string& fallback_default);

 private:
  struct ArrayElement {
    const llvm::Value* base = nullptr;  // the array's alloca
    int64_t offset = 0, index = 0;      // bytes from base; element (flattened)
    std::string array, name;            // the source's array; the element's parameter (nbr_1)
    std::string declared;               // "main (wave3d.c:191)"
  };
  struct Neighbour {
    expr::Expr rank;
    std::string what;                      // the grid and the shift, for the description
    std::vector<std::string> assumptions;  // empty: proven
  };
  std::optional<ArrayElement> array_element(const llvm::Value* v) const;
  std::optional<expr::Expr> written_value(const llvm::Instruction* writer, const llvm::Value* base, int64_t offset,
                                          unsigned bits);
  std::optional<expr::Expr> value_at(const llvm::Value* base, int64_t offset, const llvm::Instruction* at,
                                     unsigned bits);
  const llvm::CallBase* mpi_call(const llvm::Instruction* i, const char* name) const;
  std::optional<Neighbour> cart_neighbour(const llvm::CallBase& shift, unsigned arg, std::string& why_not);

  FunctionScope& s_;
  SourceNames& names_;
  MemoryWrites& writes_;
  ScevToExpr& exprs_;
};

}  // namespace perfcast::analyze::detail
