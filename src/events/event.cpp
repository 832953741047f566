#include "events/event.h"

#include <array>

namespace perfcast::events {

namespace {
constexpr int index(Kind k) { return static_cast<int>(k); }

constexpr std::array<std::optional<mpi::Op>, kKindCount> kOps = {
    std::nullopt,
#define PERFCAST_MPI_OP(Id, ...) mpi::Op::Id,
#define PERFCAST_MPI_OP_AS(...)
#include "support/mpi_ops.def"
    std::nullopt};

constexpr std::array<Kind, mpi::kOpCount> kKinds = {
#define PERFCAST_MPI_OP(Id, ...) Kind::Id,
#define PERFCAST_MPI_OP_AS(Id, name, function, cls, blocking, sends, receives, rooted, table, event) Kind::event,
#include "support/mpi_ops.def"
};

// Every operation a stream keeps is its own kind's operation.
constexpr bool kinds_and_ops_agree() {
  for (int k = 1; k + 1 < kKindCount; ++k)
    if (!kOps[static_cast<size_t>(k)] || index(kKinds[static_cast<size_t>(*kOps[static_cast<size_t>(k)])]) != k)
      return false;
  return true;
}
static_assert(kinds_and_ops_agree());

bool has_fact(Kind k, bool mpi::OpFacts::*fact) {
  auto op = kOps[static_cast<size_t>(k)];
  return op && mpi::facts(*op).*fact;
}
bool has_class(Kind k, mpi::OpClass cls) {
  auto op = kOps[static_cast<size_t>(k)];
  return op && mpi::facts(*op).cls == cls;
}
}  // namespace

std::string_view kind_name(Kind kind) {
  if (kind == Kind::Compute) return "compute";
  if (kind == Kind::Marker) return "marker";
  return mpi::name(*kOps[static_cast<size_t>(kind)]);
}

bool parse_kind(std::string_view name, Kind& out) {
  for (int k = 0; k < kKindCount; ++k)
    if (kind_name(static_cast<Kind>(k)) == name) {
      out = static_cast<Kind>(k);
      return true;
    }
  return false;
}

std::optional<mpi::Op> op_of(Kind kind) { return kOps[static_cast<size_t>(kind)]; }
Kind kind_of(mpi::Op op) { return kKinds[static_cast<size_t>(op)]; }

bool is_point_to_point(Kind k) { return has_class(k, mpi::OpClass::PointToPoint); }
bool is_completion(Kind k) { return has_class(k, mpi::OpClass::Completion); }
bool is_collective(Kind k) {
  auto op = kOps[static_cast<size_t>(k)];
  return op && mpi::is_collective(*op);
}
bool is_rooted(Kind k) { return has_fact(k, &mpi::OpFacts::rooted); }
bool is_nonblocking(Kind k) { return is_point_to_point(k) && !has_fact(k, &mpi::OpFacts::blocking); }

bool Event::operator==(const Event& o) const {
  return kind == o.kind && seconds == o.seconds && flops == o.flops && bytes_moved == o.bytes_moved && comm == o.comm &&
         peer == o.peer && root == o.root && tag == o.tag && tag2 == o.tag2 && bytes == o.bytes && bytes2 == o.bytes2 &&
         request == o.request && requests == o.requests && counts == o.counts && counts2 == o.counts2 &&
         color == o.color && key == o.key && new_comm == o.new_comm && duration_s == o.duration_s && site == o.site;
}

}  // namespace perfcast::events
