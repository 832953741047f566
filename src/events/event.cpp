#include "events/event.h"

#include <array>

namespace perfcast::events {

namespace {
constexpr std::array<std::string_view, kKindCount> kNames = {
    "compute",   "send",       "ssend",    "isend",     "issend",         "recv",   "irecv",
    "sendrecv",  "probe",      "wait",     "waitall",   "waitany",        "waitsome", "test",
    "testall",   "barrier",    "bcast",    "reduce",    "allreduce",      "gather", "gatherv",
    "scatter",   "scatterv",   "allgather", "allgatherv", "alltoall",     "alltoallv", "reduce_scatter",
    "scan",      "exscan",     "comm_split", "comm_dup", "cart_create",   "comm_free", "init",
    "finalize",  "marker"};
constexpr int index(Kind k) { return static_cast<int>(k); }
}  // namespace

std::string_view kind_name(Kind kind) { return kNames[static_cast<size_t>(kind)]; }

bool parse_kind(std::string_view name, Kind& out) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) {
      out = static_cast<Kind>(i);
      return true;
    }
  return false;
}

bool is_point_to_point(Kind k) { return index(k) >= index(Kind::Send) && index(k) <= index(Kind::Probe); }
bool is_completion(Kind k) { return index(k) >= index(Kind::Wait) && index(k) <= index(Kind::Testall); }
bool is_collective(Kind k) { return index(k) >= index(Kind::Barrier) && index(k) <= index(Kind::CommFree); }
bool is_rooted(Kind k) {
  return k == Kind::Bcast || k == Kind::Reduce || k == Kind::Gather || k == Kind::Gatherv || k == Kind::Scatter ||
         k == Kind::Scatterv;
}
bool is_nonblocking(Kind k) { return k == Kind::Isend || k == Kind::Issend || k == Kind::Irecv; }

bool Event::operator==(const Event& o) const {
  return kind == o.kind && seconds == o.seconds && flops == o.flops && bytes_moved == o.bytes_moved &&
         comm == o.comm && peer == o.peer && root == o.root && tag == o.tag && tag2 == o.tag2 && bytes == o.bytes &&
         bytes2 == o.bytes2 && request == o.request && requests == o.requests && counts == o.counts &&
         counts2 == o.counts2 && color == o.color && key == o.key && new_comm == o.new_comm && site == o.site;
}

}  // namespace perfcast::events
