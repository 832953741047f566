#include "otf2/otf2_mpi.h"

#include <fmt/format.h>

#include "support/error.h"

namespace perfcast::otf2 {

using events::Kind;

std::optional<OTF2_CollectiveOp> collective_op_of(Kind kind) {
  switch (kind) {
    case Kind::Barrier:
      return OTF2_COLLECTIVE_OP_BARRIER;
    case Kind::Bcast:
      return OTF2_COLLECTIVE_OP_BCAST;
    case Kind::Reduce:
      return OTF2_COLLECTIVE_OP_REDUCE;
    case Kind::Allreduce:
      return OTF2_COLLECTIVE_OP_ALLREDUCE;
    case Kind::Gather:
      return OTF2_COLLECTIVE_OP_GATHER;
    case Kind::Scatter:
      return OTF2_COLLECTIVE_OP_SCATTER;
    case Kind::Allgather:
      return OTF2_COLLECTIVE_OP_ALLGATHER;
    case Kind::Alltoall:
      return OTF2_COLLECTIVE_OP_ALLTOALL;
    case Kind::Scan:
      return OTF2_COLLECTIVE_OP_SCAN;
    case Kind::Exscan:
      return OTF2_COLLECTIVE_OP_EXSCAN;
    case Kind::CommSplit:
    case Kind::CommDup:
    case Kind::CartCreate:
      return OTF2_COLLECTIVE_OP_CREATE_HANDLE;
    case Kind::CommFree:
      return OTF2_COLLECTIVE_OP_DESTROY_HANDLE;
    default:
      return std::nullopt;
  }
}

OTF2_RegionRole region_role_of(Kind kind) {
  if (events::is_point_to_point(kind) || events::is_completion(kind)) return OTF2_REGION_ROLE_POINT2POINT;
  switch (kind) {
    case Kind::Barrier:
      return OTF2_REGION_ROLE_BARRIER;
    case Kind::Bcast:
    case Kind::Scatter:
    case Kind::Scatterv:
      return OTF2_REGION_ROLE_COLL_ONE2ALL;
    case Kind::Reduce:
    case Kind::Gather:
    case Kind::Gatherv:
      return OTF2_REGION_ROLE_COLL_ALL2ONE;
    case Kind::Allreduce:
    case Kind::Allgather:
    case Kind::Allgatherv:
    case Kind::Alltoall:
    case Kind::Alltoallv:
    case Kind::ReduceScatter:
      return OTF2_REGION_ROLE_COLL_ALL2ALL;
    case Kind::Scan:
    case Kind::Exscan:
      return OTF2_REGION_ROLE_COLL_OTHER;
    default:
      return OTF2_REGION_ROLE_FUNCTION;
  }
}

CollectiveSizes scorep_sizes(Kind kind, std::uint64_t bytes, std::uint64_t bytes2, std::uint64_t members,
                             std::uint64_t me, std::uint64_t root) {
  const std::uint64_t n = members;
  switch (kind) {
    case Kind::Bcast:
    case Kind::Scatter:
      return me == root ? CollectiveSizes{n * bytes, bytes2} : CollectiveSizes{0, bytes2};
    case Kind::Gather:
    case Kind::Reduce:
      return me == root ? CollectiveSizes{bytes, n * bytes2} : CollectiveSizes{bytes, 0};
    case Kind::Allreduce:
    case Kind::Allgather:
    case Kind::Alltoall:
      return {n * bytes, n * bytes2};
    case Kind::Scan:
      return {(n - me) * bytes, (me + 1) * bytes2};
    case Kind::Exscan:
      return {(n - me - 1) * bytes, me * bytes2};
    default:
      return {0, 0};  // barrier and the communicator calls move no data
  }
}

namespace {

std::uint64_t blocks(std::uint64_t total, std::uint64_t count, const char* what, Kind kind) {
  if (count == 0) return 0;
  if (total % count != 0)
    throw UserError(fmt::format("{} {} bytes of {} are not {} whole blocks (Score-P's sizes count every member's)",
                                what, total, events::kind_name(kind), count));
  return total / count;
}

}  // namespace

CollectiveSizes perfcast_sizes(Kind kind, std::uint64_t sent, std::uint64_t received, std::uint64_t members,
                               std::uint64_t me, std::uint64_t root) {
  const std::uint64_t n = members;
  switch (kind) {
    case Kind::Bcast:
      return {received, received};
    case Kind::Scatter:
      return {me == root ? blocks(sent, n, "sent", kind) : received, received};
    case Kind::Gather:
      return {sent, me == root ? blocks(received, n, "received", kind) : sent};
    case Kind::Reduce:
      return {sent, sent};
    case Kind::Allreduce:
    case Kind::Allgather:
    case Kind::Alltoall:
      return {blocks(sent, n, "sent", kind), blocks(received, n, "received", kind)};
    case Kind::Scan: {
      const std::uint64_t block = blocks(received, me + 1, "received", kind);
      return {block, block};
    }
    case Kind::Exscan: {
      const std::uint64_t block =
          me > 0 ? blocks(received, me, "received", kind) : blocks(sent, n > 1 ? n - 1 : 1, "sent", kind);
      return {block, block};
    }
    default:
      return {0, 0};
  }
}

}  // namespace perfcast::otf2
