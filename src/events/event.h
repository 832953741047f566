// Event streams: the one representation of what a rank does (docs/architecture.md).
//
// A rank's behaviour is a sequence of Events: compute bursts and MPI operations.
// A trace is event streams recorded from a real run; a skeleton produces them as
// it runs; a program model produces them when evaluated per rank. Every engine
// reads them through RankSource (source.h), whatever their source.
//
// Conventions (all engines and readers rely on them):
// - Ranks and peers are ranks *in the event's communicator* (as MPI reports
//   them), not world ranks; the engine translates through the communicator.
// - Communicators are per-rank handles: 0 is MPI_COMM_WORLD, 1 MPI_COMM_SELF,
//   and every communicator a rank creates (split, dup, cart_create) gets that
//   rank's next free handle, in the order it created them. The same handle can
//   name different communicators on different ranks.
// - Requests are per-rank ids, unique for the lifetime of the stream (never
//   reused), linking a completion (wait/test) to the operations it completes.
// - Byte counts are what the call moves: count x datatype size.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "support/mpi_op.h"

namespace perfcast::events {

inline constexpr std::int32_t kAnySource = -1;  // MPI_ANY_SOURCE
inline constexpr std::int32_t kProcNull = -2;   // MPI_PROC_NULL: the call completes at once, moves nothing
inline constexpr std::int32_t kAnyTag = -1;     // MPI_ANY_TAG
inline constexpr std::int32_t kCommWorld = 0;
inline constexpr std::int32_t kCommSelf = 1;
inline constexpr std::int32_t kUndefinedColor = -32766;  // MPI_UNDEFINED for comm_split

// What an event is: a compute burst, an MPI operation, or a marker. The MPI
// members are the operations of the MPI vocabulary that streams keep as their
// own kind (support/mpi_ops.def, in its order; the number of a kind is what
// trace files store). What each field means per operation:
//
// Compute: `seconds` when known (a skeleton's BSIM_Add_time, a traced gap
//   between MPI calls), else `flops`/`bytes_moved` to be priced by the machine model.
// Point to point. peer = destination or source (kAnySource allowed on receives,
//   kProcNull on both); tag (kAnyTag on receives); bytes = the message size
//   (for receives: the size actually received, when known, else the buffer size).
//   Sendrecv: peer = destination, root = source (the receive side's peer), tag =
//   send tag, tag2 = receive tag, bytes = sent, bytes2 = received.
//   Probe: peer, tag as for receives.
// Completion. requests lists the requests, in the call's order.
// Collectives over comm. root for rooted ones; bytes = this rank's send
//   buffer size, bytes2 = its receive buffer size (what MPI's count x size gives
//   for this rank). The v-variants list per-peer byte counts: counts = send
//   counts (per destination rank), counts2 = receive counts (per source rank).
// Communicator management (collective over comm). new_comm = the handle of the
//   communicator the call creates on this rank (or -1 when this rank gets
//   MPI_COMM_NULL). CommSplit: color, key. CommDup and CartCreate: a copy of comm
//   with the same rank order (cart_create with reorder = false).
// Init and Finalize: start and end of the MPI section. Marker names a point in
//   the program (phase boundaries for signatures; `tag` holds a marker id).
// Any MPI event: duration_s = the wall-clock seconds the call took, from its
//   entry to its return (a traced run records it; waits included), or the
//   "not recorded" mark -1. Engines price calls themselves and never read it.
enum class Kind : std::uint8_t {
  Compute = 0,
#define PERFCAST_MPI_OP(Id, ...) Id,
#define PERFCAST_MPI_OP_AS(...)
#include "support/mpi_ops.def"
  Marker,
};

inline constexpr int kKindCount = static_cast<int>(Kind::Marker) + 1;

// Lower-case names ("isend", "allreduce", ...: the vocabulary's), used by the
// text form and reports.
std::string_view kind_name(Kind kind);
bool parse_kind(std::string_view name, Kind& out);

// The vocabulary's operation of an MPI kind; none for Compute and Marker.
std::optional<mpi::Op> op_of(Kind kind);
// The kind a stream records an operation as (rsend: Send; iprobe: Marker).
Kind kind_of(mpi::Op op);

bool is_point_to_point(Kind k);  // Send .. Probe
bool is_completion(Kind k);      // Wait .. Testall
bool is_collective(Kind k);      // Barrier .. Exscan, and the communicator calls
bool is_rooted(Kind k);          // Bcast Reduce Gather(v) Scatter(v)
bool is_nonblocking(Kind k);     // Isend Issend Irecv

// A duration counted in whole nanoseconds, as the tracer's clock gives it, in
// seconds. Traces store such a duration as its nanoseconds (a few bytes, not a
// double's eight); computed in this one place, the value reads back bit for bit.
inline double seconds_of_ns(std::uint64_t ns) { return static_cast<double>(ns) * 1e-9; }

struct Event {
  Kind kind = Kind::Compute;

  // Compute.
  double seconds = -1;  // < 0: not given; price flops/bytes instead
  double flops = 0;
  double bytes_moved = 0;  // memory traffic of the burst

  // MPI.
  std::int32_t comm = kCommWorld;
  std::int32_t peer = kProcNull;  // point to point
  std::int32_t root = 0;          // rooted collectives; Sendrecv's source
  std::int32_t tag = 0;
  std::int32_t tag2 = 0;          // Sendrecv's receive tag
  std::uint64_t bytes = 0;
  std::uint64_t bytes2 = 0;
  std::uint64_t request = 0;      // the request a nonblocking call creates
  std::vector<std::uint64_t> requests;  // completions
  std::vector<std::uint64_t> counts, counts2;  // v-collectives, bytes per rank
  std::int32_t color = 0, key = 0;  // CommSplit
  std::int32_t new_comm = -1;       // communicator calls

  // How long the call took when it ran (seconds); < 0: not recorded.
  double duration_s = -1;

  // Where it came from (0 when unknown): a source line, or a call-site id.
  std::uint32_t site = 0;

  // Opaque data the source attached: a live skeleton's buffers and datatypes,
  // which engines only pass back through DataMover; on a compute burst whose
  // seconds are not given, the work the source's WorkPricer prices (a
  // skeleton's model work, a program model's burst). Recorded streams leave it null.
  void* live = nullptr;

  bool operator==(const Event& other) const;  // all fields but `live`
};

}  // namespace perfcast::events
