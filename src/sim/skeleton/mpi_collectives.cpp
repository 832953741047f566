// Collective entry points (MPI_* and LMPI_*): barrier, broadcast, the
// reductions, gathers, scatters and all-to-alls. Each family (a call and its
// vector or all- variant) is one function; `kind` tells the variant.
#include <numeric>
#include <vector>

#include "sim/skeleton/mpi_entry.h"

using perfcast::events::Event;
using perfcast::events::Kind;
using perfcast::sim::skeleton::EntryPoint;

namespace perfcast::sim::skeleton {
namespace {

void check_root(Rank* rk, const char* call, const CommRef& c, int root) {
  if (root < 0 || root >= c.size)
    rk->fail(call, fmt::format("root {} is not a rank of a communicator of {} ranks", root, c.size));
}

void check_op(Rank* rk, const char* call, MPI_Op op) {
  if (!op_valid(op)) rk->fail(call, fmt::format("{} is not a reduction operation", op));
}

// Input made of one piece per destination rank (scatter(v), alltoall(v), reduce_scatter).
void set_input_pieces(LiveOp* op, const void* buf, int n, const int* counts, int count, const int* displs,
                      MPI_Datatype t) {
  op->has_input = true;
  op->d().in_offsets.assign(static_cast<std::size_t>(n) + 1, 0);
  for (int i = 0; i < n; ++i) op->d().in_offsets[i + 1] = op->d().in_offsets[i] + packed(counts ? counts[i] : count, t);
  op->d().in.resize(op->d().in_offsets.back());
  std::ptrdiff_t extent = type_extent(t);
  std::ptrdiff_t running = 0;
  for (int i = 0; i < n; ++i) {
    int c = counts ? counts[i] : count;
    std::ptrdiff_t displ = displs ? displs[i] : running;
    pack(static_cast<const std::byte*>(buf) + displ * extent, static_cast<std::size_t>(c), t,
         op->d().in.data() + op->d().in_offsets[i]);
    running += c;
  }
}

// Output with one piece per source rank (gather(v), allgather(v), alltoall(v)).
void set_output_pieces(LiveOp* op, void* buf, int n, const int* counts, int count, const int* displs, MPI_Datatype t) {
  op->d().out = buf;
  op->d().out_type = t;
  op->d().out_displs.resize(static_cast<std::size_t>(n));
  op->d().out_caps.resize(static_cast<std::size_t>(n));
  std::ptrdiff_t extent = type_extent(t);
  std::ptrdiff_t running = 0;
  for (int i = 0; i < n; ++i) {
    int c = counts ? counts[i] : count;
    op->d().out_displs[i] = (displs ? displs[i] : running) * extent;
    op->d().out_caps[i] = packed(c, t);
    running += c;
  }
}

std::vector<std::uint64_t> byte_counts(Rank* rk, bool live, int n, const int* counts, MPI_Datatype t) {
  std::vector<std::uint64_t> out(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) out[i] = event_bytes(rk, live, packed(counts[i], t));
  return out;
}

std::uint64_t sum(const std::vector<std::uint64_t>& v) { return std::accumulate(v.begin(), v.end(), std::uint64_t{0}); }

// A collective call in progress: the caller's view of the communicator, and the
// live data of an MPI_* call (null for LMPI_*).
struct Coll {
  Rank* rk;
  CommRef c;
  LiveOp* op;
};

Coll coll_begin(Rank* rk, bool live, const char* call, Kind kind, MPI_Comm comm) {
  Coll k{rk, rk->comm(comm, call), nullptr};
  if (live) {
    k.op = rk->new_op(call, kind, comm);
    k.op->engine_refs = 1;
    k.op->comm_size = k.c.size;
  }
  return k;
}

void coll_emit(Coll& k, Event& e, MPI_Comm comm) {
  e.comm = comm;
  e.live = k.op;
  k.rk->emit();
  if (k.op) k.rk->done_with(k.op);
}

int barrier(EntryPoint call, MPI_Comm comm) {
  PERFCAST_ENTER(call.name);
  Coll k = coll_begin(rk, false, call_name, Kind::Barrier, comm);  // moves no data either way
  Event& e = rk->begin(Kind::Barrier);
  coll_emit(k, e, comm);
  return MPI_SUCCESS;
}

int bcast(EntryPoint call, void* buf, int count, MPI_Datatype t, int root, MPI_Comm comm) {
  PERFCAST_ENTER(call.name);
  Coll k = coll_begin(rk, call.live, call_name, Kind::Bcast, comm);
  check_count(rk, call_name, count);
  check_type(rk, call_name, t);
  check_buffer(rk, call_name, call.live, buf, count);
  check_root(rk, call_name, k.c, root);
  if (k.op) {
    k.op->d().root = root;
    if (k.c.rank == root)
      set_input(k.op, buf, count, t);
    else
      set_output(k.op, buf, count, t);
  }
  Event& e = rk->begin(Kind::Bcast);
  e.root = root;
  e.bytes = e.bytes2 = event_bytes(rk, call.live, packed(count, t));
  coll_emit(k, e, comm);
  return MPI_SUCCESS;
}

// Reduce, Allreduce, Scan, Exscan (`root` only for Reduce).
int reduction(EntryPoint call, Kind kind, const void* sbuf, void* rbuf, int count, MPI_Datatype t, MPI_Op op, int root,
              MPI_Comm comm) {
  PERFCAST_ENTER(call.name);
  Coll k = coll_begin(rk, call.live, call_name, kind, comm);
  check_count(rk, call_name, count);
  check_type(rk, call_name, t);
  check_op(rk, call_name, op);
  if (kind == Kind::Reduce) check_root(rk, call_name, k.c, root);
  bool receives = kind != Kind::Reduce || k.c.rank == root;
  bool in_place = sbuf == MPI_IN_PLACE;
  if (in_place && !receives) rk->fail(call_name, "MPI_IN_PLACE is only for the root");
  check_buffer(rk, call_name, call.live, in_place ? rbuf : sbuf, count);
  if (receives) check_buffer(rk, call_name, call.live, rbuf, count);
  if (k.op) {
    k.op->d().op = op;
    k.op->d().reduce_type = t;
    k.op->d().root = root;
    set_input(k.op, in_place ? rbuf : sbuf, count, t);
    if (receives) set_output(k.op, rbuf, count, t);
  }
  Event& e = rk->begin(kind);
  e.root = kind == Kind::Reduce ? root : 0;
  e.bytes = event_bytes(rk, call.live, packed(count, t));
  e.bytes2 = receives ? e.bytes : 0;
  coll_emit(k, e, comm);
  return MPI_SUCCESS;
}

// Reduce_scatter (rcounts, one per rank) and Reduce_scatter_block (rcounts null:
// rcount for every rank).
int reduce_scatter(EntryPoint call, const void* sbuf, void* rbuf, const int* rcounts, int rcount, MPI_Datatype t,
                   MPI_Op op, MPI_Comm comm) {
  PERFCAST_ENTER(call.name);
  Coll k = coll_begin(rk, call.live, call_name, Kind::ReduceScatter, comm);
  check_type(rk, call_name, t);
  check_op(rk, call_name, op);
  int n = k.c.size;
  std::vector<int> counts(static_cast<std::size_t>(n), rcount);
  if (rcounts) {
    for (int i = 0; i < n; ++i) {
      check_count(rk, call_name, rcounts[i], "receive count");
      counts[i] = rcounts[i];
    }
  } else {
    check_count(rk, call_name, rcount, "receive count");
  }
  int total = std::accumulate(counts.begin(), counts.end(), 0);
  int mine = counts[static_cast<std::size_t>(k.c.rank)];
  bool in_place = sbuf == MPI_IN_PLACE;
  check_buffer(rk, call_name, call.live, in_place ? rbuf : sbuf, total);
  check_buffer(rk, call_name, call.live, rbuf, mine);
  if (k.op) {
    k.op->d().op = op;
    k.op->d().reduce_type = t;
    set_input_pieces(k.op, in_place ? rbuf : sbuf, n, counts.data(), 0, nullptr, t);
    set_output(k.op, rbuf, mine, t);
  }
  Event& e = rk->begin(Kind::ReduceScatter);
  e.counts = byte_counts(rk, call.live, n, counts.data(), t);
  e.bytes = sum(e.counts);
  e.bytes2 = event_bytes(rk, call.live, packed(mine, t));
  coll_emit(k, e, comm);
  return MPI_SUCCESS;
}

// Gather (rcount), Gatherv (rcounts/displs at the root).
int gather(EntryPoint call, Kind kind, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
           const int* rcounts, const int* displs, MPI_Datatype rtype, int root, MPI_Comm comm) {
  PERFCAST_ENTER(call.name);
  Coll k = coll_begin(rk, call.live, call_name, kind, comm);
  check_root(rk, call_name, k.c, root);
  bool is_root = k.c.rank == root;
  bool in_place = is_root && sbuf == MPI_IN_PLACE;
  if (!in_place) {
    check_count(rk, call_name, scount, "send count");
    check_type(rk, call_name, stype);
    check_buffer(rk, call_name, call.live, sbuf, scount);
  }
  int n = k.c.size;
  if (is_root) {
    check_type(rk, call_name, rtype);
    if (kind == Kind::Gatherv && (!rcounts || !displs)) rk->fail(call_name, "NULL receive counts or displacements");
    if (kind == Kind::Gather) check_count(rk, call_name, rcount, "receive count");
  }
  if (k.op) {
    k.op->d().root = root;
    if (!in_place) set_input(k.op, sbuf, scount, stype);
    k.op->has_input = true;
    k.op->d().in_place = in_place;
    if (is_root) set_output_pieces(k.op, rbuf, n, rcounts, rcount, displs, rtype);
  }
  Event& e = rk->begin(kind);
  e.root = root;
  e.bytes = in_place ? event_bytes(rk, call.live, packed(kind == Kind::Gather ? rcount : rcounts[root], rtype))
                     : event_bytes(rk, call.live, packed(scount, stype));
  if (is_root) {
    if (kind == Kind::Gatherv) {
      e.counts2 = byte_counts(rk, call.live, n, rcounts, rtype);
      e.bytes2 = sum(e.counts2);
    } else {
      e.bytes2 = event_bytes(rk, call.live, packed(rcount, rtype) * static_cast<std::size_t>(n));
    }
  }
  coll_emit(k, e, comm);
  return MPI_SUCCESS;
}

// Scatter (scount), Scatterv (scounts/displs at the root).
int scatter(EntryPoint call, Kind kind, const void* sbuf, int scount, const int* scounts, const int* displs,
            MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm) {
  PERFCAST_ENTER(call.name);
  Coll k = coll_begin(rk, call.live, call_name, kind, comm);
  check_root(rk, call_name, k.c, root);
  bool is_root = k.c.rank == root;
  bool in_place = is_root && rbuf == MPI_IN_PLACE;
  int n = k.c.size;
  if (is_root) {
    check_type(rk, call_name, stype);
    if (kind == Kind::Scatterv && (!scounts || !displs)) rk->fail(call_name, "NULL send counts or displacements");
    if (kind == Kind::Scatter) check_count(rk, call_name, scount, "send count");
  }
  if (!in_place) {
    check_count(rk, call_name, rcount, "receive count");
    check_type(rk, call_name, rtype);
    check_buffer(rk, call_name, call.live, rbuf, rcount);
  }
  if (k.op) {
    k.op->d().root = root;
    if (is_root) set_input_pieces(k.op, sbuf, n, scounts, scount, displs, stype);
    if (!in_place) set_output(k.op, rbuf, rcount, rtype);
  }
  Event& e = rk->begin(kind);
  e.root = root;
  if (is_root) {
    if (kind == Kind::Scatterv) {
      e.counts = byte_counts(rk, call.live, n, scounts, stype);
      e.bytes = sum(e.counts);
    } else {
      e.bytes = event_bytes(rk, call.live, packed(scount, stype) * static_cast<std::size_t>(n));
    }
  }
  e.bytes2 = in_place ? 0 : event_bytes(rk, call.live, packed(rcount, rtype));
  coll_emit(k, e, comm);
  return MPI_SUCCESS;
}

// Allgather (rcount), Allgatherv (rcounts/displs).
int allgather(EntryPoint call, Kind kind, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
              const int* rcounts, const int* displs, MPI_Datatype rtype, MPI_Comm comm) {
  PERFCAST_ENTER(call.name);
  Coll k = coll_begin(rk, call.live, call_name, kind, comm);
  int n = k.c.size;
  check_type(rk, call_name, rtype);
  if (kind == Kind::Allgatherv && (!rcounts || !displs)) rk->fail(call_name, "NULL receive counts or displacements");
  if (kind == Kind::Allgather) check_count(rk, call_name, rcount, "receive count");
  bool in_place = sbuf == MPI_IN_PLACE;
  if (!in_place) {
    check_count(rk, call_name, scount, "send count");
    check_type(rk, call_name, stype);
    check_buffer(rk, call_name, call.live, sbuf, scount);
  }
  int me = k.c.rank;
  int my_count = rcounts ? rcounts[me] : rcount;
  if (k.op) {
    if (in_place) {
      std::ptrdiff_t displ = displs ? displs[me] : static_cast<std::ptrdiff_t>(me) * rcount;
      set_input(k.op, static_cast<std::byte*>(rbuf) + displ * type_extent(rtype), my_count, rtype);
    } else {
      set_input(k.op, sbuf, scount, stype);
    }
    set_output_pieces(k.op, rbuf, n, rcounts, rcount, displs, rtype);
  }
  Event& e = rk->begin(kind);
  e.bytes = in_place ? event_bytes(rk, call.live, packed(my_count, rtype))
                     : event_bytes(rk, call.live, packed(scount, stype));
  if (kind == Kind::Allgatherv) {
    e.counts2 = byte_counts(rk, call.live, n, rcounts, rtype);
    e.bytes2 = sum(e.counts2);
  } else {
    e.bytes2 = event_bytes(rk, call.live, packed(rcount, rtype) * static_cast<std::size_t>(n));
  }
  coll_emit(k, e, comm);
  return MPI_SUCCESS;
}

// Alltoall (scount, rcount), Alltoallv (counts and displacements per rank).
int alltoall(EntryPoint call, Kind kind, const void* sbuf, int scount, const int* scounts, const int* sdispls,
             MPI_Datatype stype, void* rbuf, int rcount, const int* rcounts, const int* rdispls, MPI_Datatype rtype,
             MPI_Comm comm) {
  PERFCAST_ENTER(call.name);
  Coll k = coll_begin(rk, call.live, call_name, kind, comm);
  int n = k.c.size;
  bool in_place = sbuf == MPI_IN_PLACE;
  check_type(rk, call_name, rtype);
  if (!in_place) check_type(rk, call_name, stype);
  if (kind == Kind::Alltoallv && (!rcounts || !rdispls || (!in_place && (!scounts || !sdispls)))) {
    rk->fail(call_name, "NULL counts or displacements");
  }
  if (kind == Kind::Alltoall) {
    check_count(rk, call_name, rcount, "receive count");
    if (!in_place) check_count(rk, call_name, scount, "send count");
  }
  if (k.op) {
    if (in_place)
      set_input_pieces(k.op, rbuf, n, rcounts, rcount, rdispls, rtype);
    else
      set_input_pieces(k.op, sbuf, n, scounts, scount, sdispls, stype);
    set_output_pieces(k.op, rbuf, n, rcounts, rcount, rdispls, rtype);
  }
  Event& e = rk->begin(kind);
  if (kind == Kind::Alltoallv) {
    e.counts = in_place ? byte_counts(rk, call.live, n, rcounts, rtype) : byte_counts(rk, call.live, n, scounts, stype);
    e.counts2 = byte_counts(rk, call.live, n, rcounts, rtype);
    e.bytes = sum(e.counts);
    e.bytes2 = sum(e.counts2);
  } else {
    e.bytes = event_bytes(rk, call.live, packed(in_place ? rcount : scount, in_place ? rtype : stype) * n);
    e.bytes2 = event_bytes(rk, call.live, packed(rcount, rtype) * static_cast<std::size_t>(n));
  }
  coll_emit(k, e, comm);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace perfcast::sim::skeleton

using namespace perfcast::sim::skeleton;  // the entry points below forward to this file's calls

PERFCAST_TWIN(Barrier, (MPI_Comm m), barrier(call, m))
PERFCAST_TWIN(Bcast, (void* b, int c, MPI_Datatype t, int r, MPI_Comm m), bcast(call, b, c, t, r, m))
PERFCAST_TWIN(Reduce, (const void* s, void* r, int c, MPI_Datatype t, MPI_Op o, int root, MPI_Comm m),
              reduction(call, Kind::Reduce, s, r, c, t, o, root, m))
PERFCAST_TWIN(Allreduce, (const void* s, void* r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm m),
              reduction(call, Kind::Allreduce, s, r, c, t, o, 0, m))
PERFCAST_TWIN(Scan, (const void* s, void* r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm m),
              reduction(call, Kind::Scan, s, r, c, t, o, 0, m))
PERFCAST_TWIN(Exscan, (const void* s, void* r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm m),
              reduction(call, Kind::Exscan, s, r, c, t, o, 0, m))
PERFCAST_TWIN(Reduce_scatter, (const void* s, void* r, const int rc[], MPI_Datatype t, MPI_Op o, MPI_Comm m),
              rc ? reduce_scatter(call, s, r, rc, 0, t, o, m) : MPI_ERR_ARG)
PERFCAST_TWIN(Reduce_scatter_block, (const void* s, void* r, int rc, MPI_Datatype t, MPI_Op o, MPI_Comm m),
              reduce_scatter(call, s, r, nullptr, rc, t, o, m))
PERFCAST_TWIN(Gather,
              (const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, int root, MPI_Comm m),
              gather(call, Kind::Gather, sb, sc, st, rb, rc, nullptr, nullptr, rt, root, m))
PERFCAST_TWIN(Gatherv,
              (const void* sb, int sc, MPI_Datatype st, void* rb, const int rc[], const int d[], MPI_Datatype rt,
               int root, MPI_Comm m),
              gather(call, Kind::Gatherv, sb, sc, st, rb, 0, rc, d, rt, root, m))
PERFCAST_TWIN(Scatter,
              (const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, int root, MPI_Comm m),
              scatter(call, Kind::Scatter, sb, sc, nullptr, nullptr, st, rb, rc, rt, root, m))
PERFCAST_TWIN(Scatterv,
              (const void* sb, const int sc[], const int d[], MPI_Datatype st, void* rb, int rc, MPI_Datatype rt,
               int root, MPI_Comm m),
              scatter(call, Kind::Scatterv, sb, 0, sc, d, st, rb, rc, rt, root, m))
PERFCAST_TWIN(Allgather, (const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, MPI_Comm m),
              allgather(call, Kind::Allgather, sb, sc, st, rb, rc, nullptr, nullptr, rt, m))
PERFCAST_TWIN(Allgatherv,
              (const void* sb, int sc, MPI_Datatype st, void* rb, const int rc[], const int d[], MPI_Datatype rt,
               MPI_Comm m),
              allgather(call, Kind::Allgatherv, sb, sc, st, rb, 0, rc, d, rt, m))
PERFCAST_TWIN(Alltoall, (const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, MPI_Comm m),
              alltoall(call, Kind::Alltoall, sb, sc, nullptr, nullptr, st, rb, rc, nullptr, nullptr, rt, m))
PERFCAST_TWIN(Alltoallv,
              (const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, const int rc[],
               const int rd[], MPI_Datatype rt, MPI_Comm m),
              alltoall(call, Kind::Alltoallv, sb, 0, sc, sd, st, rb, 0, rc, rd, rt, m))
