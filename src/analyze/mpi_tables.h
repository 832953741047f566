// Internal: what the analyser knows of MPI and of the C library by name: which
// arguments of each MPI call hold its count, datatype, peer and root (the
// bindings of the MPI vocabulary, support/mpi_ops.def), the sizes of Open
// MPI's predefined datatypes, and the math functions the model prices.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "support/mpi_op.h"

namespace perfcast::analyze::detail {

struct MpiSpec {
  mpi::Op op;
  int count = -1, datatype = -1, peer = -1, root = -1;
};

// By the MPI function's name (MPI_Send); argument positions, -1 where none.
// Only the operations of the vocabulary: a function not found here is a local
// call the model leaves out (rank, size, topology, time).
const std::map<std::string, MpiSpec>& mpi_specs();

// Open MPI's predefined datatypes are globals; their sizes on LP64.
std::optional<int> predefined_datatype_bytes(const std::string& global);

// Math functions the model prices by name (double; "f" suffix single).
std::optional<std::string> math_name(const std::string& callee);

}  // namespace perfcast::analyze::detail
