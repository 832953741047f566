// Measured collective times, by process count and message size.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "support/mpi_op.h"

namespace perfcast::machine {

// The tables are the MPI vocabulary's (support/mpi_op.h): which operation each
// prices is a fact of the operation.
using CollectiveOp = mpi::CollectiveOp;

inline constexpr CollectiveOp kAllCollectiveOps[] = {
    CollectiveOp::Barrier, CollectiveOp::Bcast,     CollectiveOp::Reduce,
    CollectiveOp::Allreduce, CollectiveOp::Gather,  CollectiveOp::Scatter,
    CollectiveOp::Allgather, CollectiveOp::Alltoall, CollectiveOp::ReduceScatter};

const char* collective_op_name(CollectiveOp op);  // "allreduce", "reduce_scatter", ...
std::optional<CollectiveOp> parse_collective_op(std::string_view name);

struct CollectiveTable {
  CollectiveOp op = CollectiveOp::Barrier;
  std::vector<int> procs;                  // rows, strictly increasing, >= 1
  std::vector<std::int64_t> bytes;         // columns, strictly increasing, >= 0
  std::vector<std::vector<double>> time_s; // time_s[row][column]

  // Linear in bytes and in log2(procs) between grid points; outside the grid,
  // linear from the two outermost points of each axis; never below zero. An axis
  // with one point is taken as constant along it.
  double time_at(int procs, double bytes) const;

  bool operator==(const CollectiveTable&) const = default;
};

}  // namespace perfcast::machine
