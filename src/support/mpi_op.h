// The MPI vocabulary: every operation perfcast knows as one enum and one
// table of facts per operation, both generated from mpi_ops.def. Program
// models name operations in it (parsed once, when a model is loaded), event
// streams record them (events::Kind takes its MPI members from the same
// file), and the predictor and the simulator price them by its facts.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace perfcast::mpi {

// The measured collective tables a machine file may hold ([[collective]]).
enum class CollectiveOp : std::uint8_t {
  Barrier, Bcast, Reduce, Allreduce, Gather, Scatter, Allgather, Alltoall, ReduceScatter
};

enum class OpClass : std::uint8_t {
  PointToPoint,  // a message to or from one peer (probes included)
  Completion,    // completes requests made by nonblocking calls
  Collective,    // over every rank of a communicator
  Communicator,  // creates or frees a communicator (collective over the old one)
  Environment,   // MPI's start and end, and the tools' hook MPI_Pcontrol
};

enum class Op : std::uint8_t {
#define PERFCAST_MPI_OP(Id, ...) Id,
#include "support/mpi_ops.def"
};

inline constexpr int kOpCount = 0
#define PERFCAST_MPI_OP(...) +1
#include "support/mpi_ops.def"
    ;

struct OpFacts {
  Op op;
  std::string_view name;      // "allreduce": program models and event text
  std::string_view function;  // "MPI_Allreduce"
  OpClass cls;
  bool blocking;
  bool sends, receives;  // moves a message to / from a peer
  bool rooted;
  std::optional<CollectiveOp> table;  // the table that prices it; none: no table does
};

namespace detail {
namespace table_token {
inline constexpr std::optional<CollectiveOp> None = std::nullopt;
inline constexpr std::optional<CollectiveOp> Barrier = CollectiveOp::Barrier;
inline constexpr std::optional<CollectiveOp> Bcast = CollectiveOp::Bcast;
inline constexpr std::optional<CollectiveOp> Reduce = CollectiveOp::Reduce;
inline constexpr std::optional<CollectiveOp> Allreduce = CollectiveOp::Allreduce;
inline constexpr std::optional<CollectiveOp> Gather = CollectiveOp::Gather;
inline constexpr std::optional<CollectiveOp> Scatter = CollectiveOp::Scatter;
inline constexpr std::optional<CollectiveOp> Allgather = CollectiveOp::Allgather;
inline constexpr std::optional<CollectiveOp> Alltoall = CollectiveOp::Alltoall;
inline constexpr std::optional<CollectiveOp> ReduceScatter = CollectiveOp::ReduceScatter;
}  // namespace table_token

inline constexpr std::array<OpFacts, kOpCount> kFacts = {{
#define PERFCAST_MPI_OP(Id, name, function, cls, blocking, sends, receives, rooted, table)                    \
  {Op::Id, #name, #function, OpClass::cls, blocking != 0, sends != 0, receives != 0, rooted != 0, \
   table_token::table},
#include "support/mpi_ops.def"
}};
}  // namespace detail

constexpr const OpFacts& facts(Op op) { return detail::kFacts[static_cast<std::size_t>(op)]; }
constexpr std::string_view name(Op op) { return facts(op).name; }

// By the lower-case name a program model or an event text uses ("allreduce").
std::optional<Op> parse_op(std::string_view name);
// By a C binding ("MPI_Sendrecv_replace" -> Sendrecv); none for calls that are
// not operations of the vocabulary (MPI_Comm_rank, MPI_Wtime).
std::optional<Op> op_of_function(std::string_view function);
// The names, comma separated in the file's order (for messages that list them).
std::string_view op_names_list();

// Collective over a communicator: the collectives and the communicator calls.
constexpr bool is_collective(Op op) {
  return facts(op).cls == OpClass::Collective || facts(op).cls == OpClass::Communicator;
}
// Split, dup and cart_create (not free): the members agree on a context id.
constexpr bool creates_communicator(Op op) { return facts(op).cls == OpClass::Communicator && facts(op).table; }

// What creating a communicator moves: the context id every member agrees on.
inline constexpr double kContextIdBytes = 8;

}  // namespace perfcast::mpi
