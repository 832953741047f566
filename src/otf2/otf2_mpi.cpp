#include "otf2/otf2_mpi.h"

namespace perfcast::otf2 {

using events::Kind;

std::optional<OTF2_CollectiveOp> collective_op_of(Kind kind) {
  switch (kind) {
    case Kind::Barrier: return OTF2_COLLECTIVE_OP_BARRIER;
    case Kind::Bcast: return OTF2_COLLECTIVE_OP_BCAST;
    case Kind::Reduce: return OTF2_COLLECTIVE_OP_REDUCE;
    case Kind::Allreduce: return OTF2_COLLECTIVE_OP_ALLREDUCE;
    case Kind::Gather: return OTF2_COLLECTIVE_OP_GATHER;
    case Kind::Scatter: return OTF2_COLLECTIVE_OP_SCATTER;
    case Kind::Allgather: return OTF2_COLLECTIVE_OP_ALLGATHER;
    case Kind::Alltoall: return OTF2_COLLECTIVE_OP_ALLTOALL;
    case Kind::Scan: return OTF2_COLLECTIVE_OP_SCAN;
    case Kind::Exscan: return OTF2_COLLECTIVE_OP_EXSCAN;
    case Kind::CommSplit:
    case Kind::CommDup:
    case Kind::CartCreate: return OTF2_COLLECTIVE_OP_CREATE_HANDLE;
    case Kind::CommFree: return OTF2_COLLECTIVE_OP_DESTROY_HANDLE;
    default: return std::nullopt;
  }
}

OTF2_RegionRole region_role_of(Kind kind) {
  if (events::is_point_to_point(kind) || events::is_completion(kind)) return OTF2_REGION_ROLE_POINT2POINT;
  switch (kind) {
    case Kind::Barrier: return OTF2_REGION_ROLE_BARRIER;
    case Kind::Bcast:
    case Kind::Scatter:
    case Kind::Scatterv: return OTF2_REGION_ROLE_COLL_ONE2ALL;
    case Kind::Reduce:
    case Kind::Gather:
    case Kind::Gatherv: return OTF2_REGION_ROLE_COLL_ALL2ONE;
    case Kind::Allreduce:
    case Kind::Allgather:
    case Kind::Allgatherv:
    case Kind::Alltoall:
    case Kind::Alltoallv:
    case Kind::ReduceScatter: return OTF2_REGION_ROLE_COLL_ALL2ALL;
    case Kind::Scan:
    case Kind::Exscan: return OTF2_REGION_ROLE_COLL_OTHER;
    default: return OTF2_REGION_ROLE_FUNCTION;
  }
}

}  // namespace perfcast::otf2
