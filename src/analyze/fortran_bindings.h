// Internal: what the analyser knows of Fortran MPI programs compiled by flang:
// the Fortran bindings of the MPI vocabulary (mpi_send_: the C binding's
// argument positions, every argument passed by reference, an ierr appended),
// the integer handles of Open MPI's mpif.h (read from its headers at build
// time) with the sizes of the datatypes they name, and how flang is run.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyze/mpi_tables.h"

namespace perfcast::analyze::detail {

struct FortranMpiSpec {
  std::string c_name;  // MPI_Send: the C binding of the same operation
  MpiSpec spec;        // the C binding's positions; each argument is a pointer to its value
};

// By the symbol flang calls (mpi_send_, pmpi_send_), the operations of the
// vocabulary (support/mpi_ops.def); nothing for other symbols.
const FortranMpiSpec* fortran_mpi_spec(const std::string& symbol);

// Which arguments of the Fortran binding `symbol` (mpi_sendrecv_, any MPI
// routine) the call only reads: those its C binding takes by value or as a
// pointer to const, by mpi.h's prototypes (read at build time). Empty for a
// routine mpi.h does not declare so.
std::vector<bool> fortran_mpi_inputs(const std::string& symbol);

// Whether `symbol` is a Fortran MPI binding (mpi_*_ or pmpi_*_, any routine).
bool is_fortran_mpi_symbol(const std::string& symbol);

// The 0-based position of the communicator the Fortran binding `symbol`
// creates (mpi_comm_dup_: 1, its newcomm), as MPI defines its C binding;
// nothing for a routine that creates none.
std::optional<unsigned> fortran_new_communicator_argument(const std::string& symbol);

// An mpif.h constant by name (MPI_COMM_WORLD, MPI_PROC_NULL), as Open MPI's
// headers define it.
std::optional<std::int64_t> fortran_mpi_constant(const std::string& name);

// Bytes of one element of the predefined datatype whose Fortran handle is
// `handle` (MPI_DOUBLE_PRECISION: 8); nothing for a handle that names none.
std::optional<int> fortran_datatype_bytes(std::int64_t handle);

// Whether `source` is Fortran by its extension (.f, .f90, .F90, .f95, ...).
bool is_fortran_source(const std::filesystem::path& source);

// The directory of perfcast's flang-readable `mpi` module (mpi.mod), built
// with perfcast; a UserError when it is not there.
std::filesystem::path fortran_module_dir();

// The flang command that compiles `source` to LLVM bitcode `bitcode` as the
// analyser reads it: the front end of the user's -O level (TBAA, flang's own
// MLIR pipeline; -Os and -Oz, which flang does not take, as -O2) with debug
// info, and none of LLVM's passes (they run in-process after the MPI
// declarations have been annotated, as for C). `mpi_flags`: the C wrapper's
// compile flags, whose -I holds mpif.h. The modules the units define are
// written to and read from `modules` (a scratch directory, never the user's):
// a unit that uses a module comes after the unit that defines it, as in a build.
std::vector<std::string> flang_command(const std::string& flang, const std::filesystem::path& source,
                                       const std::filesystem::path& bitcode, const std::filesystem::path& modules,
                                       const std::string& opt_level,
                                       const std::vector<std::string>& mpi_flags,
                                       const std::vector<std::string>& user_flags);

// flang's output without the lines -opt-bisect-limit prints for each pass not run.
std::string flang_messages(const std::string& output);

}  // namespace perfcast::analyze::detail
