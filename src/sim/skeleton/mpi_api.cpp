// The skeleton-facing API: MPI_* (perfcast/mpi.h), LMPI_* and BSIM_* (bsim.h).
//
// Every entry point runs inside a rank's fiber. It validates its arguments (an
// invalid call ends the simulation with "rank R: MPI_Xxx: what was wrong", as
// MPI_ERRORS_ARE_FATAL would), turns the call into the rank's next event, hands
// it to the engine and returns once the engine asks for the following event,
// i.e. once a blocking call has completed in simulated time. Nothing here throws:
// these are C functions called from user code.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>

#include "bsim.h"
#include "perfcast/mpi.h"
#include "sim/skeleton/runtime.h"

using perfcast::events::Event;
using perfcast::events::Kind;
using perfcast::sim::skeleton::CommRef;
using perfcast::sim::skeleton::current_rank;
using perfcast::sim::skeleton::LiveOp;
using perfcast::sim::skeleton::Rank;
namespace sk = perfcast::sim::skeleton;

namespace {

#define ENTER(call)              \
  Rank* rk = current_rank();     \
  if (!rk) return MPI_ERR_OTHER; \
  const char* const call_name = (call)

#define NAME(live, x) ((live) ? "MPI_" x : "LMPI_" x)

void check_count(Rank* rk, const char* call, int count, const char* what = "count") {
  if (count < 0) rk->fail(call, fmt::format("negative {} {}", what, count));
}

void check_type(Rank* rk, const char* call, MPI_Datatype t) {
  if (!sk::type_valid(t)) rk->fail(call, fmt::format("{} is not a datatype", t));
}

void check_buffer(Rank* rk, const char* call, bool live, const void* buf, int count) {
  if (live && !buf && count > 0) {
    rk->fail(call, fmt::format("NULL buffer with count {} (LMPI_* calls accept NULL buffers; MPI_* move data)", count));
  }
}

void check_peer(Rank* rk, const char* call, const CommRef& c, int peer, bool any_allowed, const char* what) {
  if (peer == MPI_PROC_NULL || (any_allowed && peer == MPI_ANY_SOURCE)) return;
  if (peer < 0 || peer >= c.size) {
    rk->fail(call, fmt::format("{} {} is not a rank of a communicator of {} ranks", what, peer, c.size));
  }
}

void check_tag(Rank* rk, const char* call, int tag, bool any_allowed) {
  if (any_allowed && tag == MPI_ANY_TAG) return;
  if (tag < 0 || tag > MPI_TAG_UB) rk->fail(call, fmt::format("tag {} is out of range 0..{}", tag, MPI_TAG_UB));
}

void check_root(Rank* rk, const char* call, const CommRef& c, int root) {
  if (root < 0 || root >= c.size)
    rk->fail(call, fmt::format("root {} is not a rank of a communicator of {} ranks", root, c.size));
}

void check_op(Rank* rk, const char* call, MPI_Op op) {
  if (!sk::op_valid(op)) rk->fail(call, fmt::format("{} is not a reduction operation", op));
}

std::size_t packed(int count, MPI_Datatype t) { return static_cast<std::size_t>(count) * sk::type_size(t); }

// What an event says the call moves: LMPI_* sizes are scaled (BSIM_Set_size_scale).
std::uint64_t event_bytes(Rank* rk, bool live, std::size_t bytes) {
  if (live || rk->size_scale_ == 1) return bytes;
  return static_cast<std::uint64_t>(std::llround(static_cast<double>(bytes) * rk->size_scale_));
}

void set_input(LiveOp* op, const void* buf, int count, MPI_Datatype t) {
  op->has_input = true;
  op->d().in.resize(packed(count, t));
  sk::pack(buf, static_cast<std::size_t>(count), t, op->d().in.data());
}

// Input made of one piece per destination rank (scatter(v), alltoall(v), reduce_scatter).
void set_input_pieces(LiveOp* op, const void* buf, int n, const int* counts, int count, const int* displs,
                      MPI_Datatype t) {
  op->has_input = true;
  op->d().in_offsets.assign(static_cast<std::size_t>(n) + 1, 0);
  for (int i = 0; i < n; ++i) op->d().in_offsets[i + 1] = op->d().in_offsets[i] + packed(counts ? counts[i] : count, t);
  op->d().in.resize(op->d().in_offsets.back());
  std::ptrdiff_t extent = sk::type_extent(t);
  std::ptrdiff_t running = 0;
  for (int i = 0; i < n; ++i) {
    int c = counts ? counts[i] : count;
    std::ptrdiff_t displ = displs ? displs[i] : running;
    sk::pack(static_cast<const std::byte*>(buf) + displ * extent, static_cast<std::size_t>(c), t,
             op->d().in.data() + op->d().in_offsets[i]);
    running += c;
  }
}

void set_output(LiveOp* op, void* buf, int count, MPI_Datatype t) {
  op->d().out = buf;
  op->d().out_type = t;
  op->d().out_capacity = packed(count, t);
}

// Output with one piece per source rank (gather(v), allgather(v), alltoall(v)).
void set_output_pieces(LiveOp* op, void* buf, int n, const int* counts, int count, const int* displs, MPI_Datatype t) {
  op->d().out = buf;
  op->d().out_type = t;
  op->d().out_displs.resize(static_cast<std::size_t>(n));
  op->d().out_caps.resize(static_cast<std::size_t>(n));
  std::ptrdiff_t extent = sk::type_extent(t);
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

void fill_status(MPI_Status* st, const LiveOp* op) {
  if (!st || st == MPI_STATUS_IGNORE) return;
  st->MPI_SOURCE = op->source;
  st->MPI_TAG = op->tag;
  st->MPI_ERROR = MPI_SUCCESS;
  st->perfcast_bytes = static_cast<long long>(op->received_bytes);
}

void empty_status(MPI_Status* st) {
  if (!st) return;
  st->MPI_SOURCE = MPI_ANY_SOURCE;
  st->MPI_TAG = MPI_ANY_TAG;
  st->MPI_ERROR = MPI_SUCCESS;
  st->perfcast_bytes = 0;
}

// ---------------------------------------------------------------- point to point

int send_impl(bool live, Kind kind, const char* call, const void* buf, int count, MPI_Datatype t, int dest, int tag,
              MPI_Comm comm, MPI_Request* request) {
  ENTER(call);
  CommRef c = rk->comm(comm, call_name);
  check_count(rk, call_name, count);
  check_type(rk, call_name, t);
  check_buffer(rk, call_name, live, buf, count);
  check_peer(rk, call_name, c, dest, false, "destination");
  check_tag(rk, call_name, tag, false);
  LiveOp* op = nullptr;
  if (live || request) {
    op = rk->new_op(call_name, kind, comm);
    op->engine_refs = dest == MPI_PROC_NULL ? 0 : 1;
    op->send_matched = dest == MPI_PROC_NULL;
    if (live) set_input(op, buf, count, t);
  }
  Event& e = rk->begin(kind);
  e.comm = comm;
  e.peer = dest;
  e.tag = tag;
  e.bytes = event_bytes(rk, live, packed(count, t));
  e.live = op;
  if (request) *request = static_cast<MPI_Request>(e.request = rk->add_request(op));
  rk->emit();
  if (op && !request) rk->done_with(op);
  return MPI_SUCCESS;
}

int recv_impl(bool live, Kind kind, const char* call, void* buf, int count, MPI_Datatype t, int source, int tag,
              MPI_Comm comm, MPI_Status* status, MPI_Request* request) {
  ENTER(call);
  CommRef c = rk->comm(comm, call_name);
  check_count(rk, call_name, count);
  check_type(rk, call_name, t);
  check_buffer(rk, call_name, live, buf, count);
  check_peer(rk, call_name, c, source, true, "source");
  check_tag(rk, call_name, tag, true);
  LiveOp* op = nullptr;
  if (live || request || status) {
    op = rk->new_op(call_name, kind, comm);
    bool null_peer = source == MPI_PROC_NULL;
    op->source = source;
    op->tag = null_peer ? MPI_ANY_TAG : tag;
    op->received_bytes = null_peer ? 0 : packed(count, t);
    op->recv_matched = null_peer;
    if (live) set_output(op, buf, count, t);
  }
  Event& e = rk->begin(kind);
  e.comm = comm;
  e.peer = source;
  e.tag = tag;
  e.bytes = event_bytes(rk, live, packed(count, t));
  e.live = op;
  if (request) *request = static_cast<MPI_Request>(e.request = rk->add_request(op));
  rk->emit();
  if (op && !request) {
    fill_status(status, op);
    rk->done_with(op);
  }
  return MPI_SUCCESS;
}

int sendrecv_impl(bool live, const void* sbuf, int scount, MPI_Datatype stype, int dest, int stag, void* rbuf,
                  int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm, MPI_Status* status) {
  ENTER(NAME(live, "Sendrecv"));
  CommRef c = rk->comm(comm, call_name);
  check_count(rk, call_name, scount, "send count");
  check_count(rk, call_name, rcount, "receive count");
  check_type(rk, call_name, stype);
  check_type(rk, call_name, rtype);
  check_buffer(rk, call_name, live, sbuf, scount);
  check_buffer(rk, call_name, live, rbuf, rcount);
  check_peer(rk, call_name, c, dest, false, "destination");
  check_peer(rk, call_name, c, source, true, "source");
  check_tag(rk, call_name, stag, false);
  check_tag(rk, call_name, rtag, true);
  LiveOp* op = nullptr;
  if (live || status) {
    op = rk->new_op(call_name, Kind::Sendrecv, comm);
    op->engine_refs = dest == MPI_PROC_NULL ? 0 : 1;
    op->source = source;
    op->tag = source == MPI_PROC_NULL ? MPI_ANY_TAG : rtag;
    op->received_bytes = source == MPI_PROC_NULL ? 0 : packed(rcount, rtype);
    if (live) {
      set_input(op, sbuf, scount, stype);
      set_output(op, rbuf, rcount, rtype);
    }
  }
  Event& e = rk->begin(Kind::Sendrecv);
  e.comm = comm;
  e.peer = dest;
  e.root = source;
  e.tag = stag;
  e.tag2 = rtag;
  e.bytes = event_bytes(rk, live, packed(scount, stype));
  e.bytes2 = event_bytes(rk, live, packed(rcount, rtype));
  e.live = op;
  rk->emit();
  if (op) {
    fill_status(status, op);
    rk->done_with(op);
  }
  return MPI_SUCCESS;
}

int probe_impl(bool live, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  ENTER(NAME(live, "Probe"));
  CommRef c = rk->comm(comm, call_name);
  check_peer(rk, call_name, c, source, true, "source");
  check_tag(rk, call_name, tag, true);
  LiveOp* op = nullptr;
  if (status) {
    op = rk->new_op(call_name, Kind::Probe, comm);
    op->source = source;
    op->tag = tag;
  }
  Event& e = rk->begin(Kind::Probe);
  e.comm = comm;
  e.peer = source;
  e.tag = tag;
  e.live = op;
  rk->emit();
  if (op) {
    fill_status(status, op);
    rk->done_with(op);
  }
  return MPI_SUCCESS;
}

// ---------------------------------------------------------------- completion

bool is_send(const LiveOp* op) { return op->kind == Kind::Isend || op->kind == Kind::Issend; }

// The runtime's view of a request for Test/Waitany/Waitsome: a receive is complete
// once its message was delivered; a send at once (its data was copied at the call).
// It must never call incomplete what the engine calls complete: the engine releases
// the requests of a successful test, and testing them again would be an error.
bool complete(const LiveOp* op) { return op->recv_matched || is_send(op); }

struct Active {
  std::vector<LiveOp*> ops;
  std::vector<int> index;  // position in the caller's array
};

Active collect(Rank* rk, const char* call, int count, MPI_Request* requests) {
  Active a;
  if (count < 0) rk->fail(call, fmt::format("negative count {}", count));
  if (count > 0 && !requests) rk->fail(call, "NULL request array");
  // One allocation each, not one per doubling: a stencil's waitall runs every step.
  a.ops.reserve(static_cast<std::size_t>(count));
  a.index.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    if (requests[i] == MPI_REQUEST_NULL) continue;
    a.ops.push_back(rk->find_request(static_cast<std::uint64_t>(requests[i]), call));
    a.index.push_back(i);
  }
  return a;
}

void emit_completion(Rank* rk, Kind kind, const Active& a) {
  Event& e = rk->begin(kind);
  for (LiveOp* op : a.ops) e.requests.push_back(op->request);
  rk->emit();
}

void finish_request(Rank* rk, LiveOp* op, MPI_Request* slot, MPI_Status* status) {
  fill_status(status, op);
  *slot = MPI_REQUEST_NULL;
  rk->complete_request(op);
}

int waitall_impl(bool live, Kind kind, const char* call, int count, MPI_Request* requests, MPI_Status* statuses) {
  ENTER(call);
  (void)live;
  Active a = collect(rk, call_name, count, requests);
  if (statuses) {
    for (int i = 0; i < count; ++i) empty_status(&statuses[i]);
  }
  if (a.ops.empty()) return MPI_SUCCESS;
  emit_completion(rk, kind, a);
  for (std::size_t k = 0; k < a.ops.size(); ++k) {
    int i = a.index[k];
    finish_request(rk, a.ops[k], &requests[i], statuses ? &statuses[i] : nullptr);
  }
  return MPI_SUCCESS;
}

int wait_impl(bool live, MPI_Request* request, MPI_Status* status) {
  if (!request) return MPI_ERR_REQUEST;
  return waitall_impl(live, Kind::Wait, NAME(live, "Wait"), 1, request, status);
}

int waitany_impl(bool live, int count, MPI_Request* requests, int* index, MPI_Status* status) {
  ENTER(NAME(live, "Waitany"));
  Active a = collect(rk, call_name, count, requests);
  empty_status(status);
  *index = MPI_UNDEFINED;
  if (a.ops.empty()) return MPI_SUCCESS;
  emit_completion(rk, Kind::Waitany, a);
  // A delivered receive first (the engine resumed the rank for one), else a send.
  std::size_t chosen = a.ops.size();
  for (std::size_t k = 0; k < a.ops.size() && chosen == a.ops.size(); ++k) {
    if (a.ops[k]->recv_matched) chosen = k;
  }
  for (std::size_t k = 0; k < a.ops.size() && chosen == a.ops.size(); ++k) {
    if (is_send(a.ops[k])) chosen = k;
  }
  if (chosen == a.ops.size()) {
    rk->fail(call_name, "resumed before any of its receives was delivered (the engine must call DataMover::deliver)");
  }
  *index = a.index[chosen];
  finish_request(rk, a.ops[chosen], &requests[*index], status);
  return MPI_SUCCESS;
}

int waitsome_impl(bool live, int incount, MPI_Request* requests, int* outcount, int* indices, MPI_Status* statuses) {
  ENTER(NAME(live, "Waitsome"));
  Active a = collect(rk, call_name, incount, requests);
  *outcount = MPI_UNDEFINED;
  if (a.ops.empty()) return MPI_SUCCESS;
  emit_completion(rk, Kind::Waitsome, a);
  std::vector<std::size_t> done;
  for (std::size_t k = 0; k < a.ops.size(); ++k) {
    if (complete(a.ops[k])) done.push_back(k);
  }
  if (done.empty()) {
    rk->fail(call_name, "resumed before any of its receives was delivered (the engine must call DataMover::deliver)");
  }
  *outcount = static_cast<int>(done.size());
  for (std::size_t j = 0; j < done.size(); ++j) {
    int i = a.index[done[j]];
    indices[j] = i;
    finish_request(rk, a.ops[done[j]], &requests[i], statuses ? &statuses[j] : nullptr);
  }
  return MPI_SUCCESS;
}

int testall_impl(bool live, Kind kind, const char* call, int count, MPI_Request* requests, int* flag,
                 MPI_Status* statuses) {
  ENTER(call);
  (void)live;
  Active a = collect(rk, call_name, count, requests);
  *flag = 1;
  if (a.ops.empty()) return MPI_SUCCESS;
  emit_completion(rk, kind, a);
  for (LiveOp* op : a.ops) {
    if (!complete(op)) *flag = 0;
  }
  if (!*flag) return MPI_SUCCESS;
  for (std::size_t k = 0; k < a.ops.size(); ++k) {
    int i = a.index[k];
    finish_request(rk, a.ops[k], &requests[i], statuses ? &statuses[kind == Kind::Test ? 0 : i] : nullptr);
  }
  return MPI_SUCCESS;
}

// ---------------------------------------------------------------- collectives

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

int barrier_impl(bool live, MPI_Comm comm) {
  ENTER(NAME(live, "Barrier"));
  Coll k = coll_begin(rk, false, call_name, Kind::Barrier, comm);
  Event& e = rk->begin(Kind::Barrier);
  coll_emit(k, e, comm);
  return MPI_SUCCESS;
}

int bcast_impl(bool live, void* buf, int count, MPI_Datatype t, int root, MPI_Comm comm) {
  ENTER(NAME(live, "Bcast"));
  Coll k = coll_begin(rk, live, call_name, Kind::Bcast, comm);
  check_count(rk, call_name, count);
  check_type(rk, call_name, t);
  check_buffer(rk, call_name, live, buf, count);
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
  e.bytes = e.bytes2 = event_bytes(rk, live, packed(count, t));
  coll_emit(k, e, comm);
  return MPI_SUCCESS;
}

// Reduce, Allreduce, Scan, Exscan.
int reduction_impl(bool live, Kind kind, const char* call, const void* sbuf, void* rbuf, int count, MPI_Datatype t,
                   MPI_Op op, int root, MPI_Comm comm) {
  ENTER(call);
  Coll k = coll_begin(rk, live, call_name, kind, comm);
  check_count(rk, call_name, count);
  check_type(rk, call_name, t);
  check_op(rk, call_name, op);
  if (kind == Kind::Reduce) check_root(rk, call_name, k.c, root);
  bool receives = kind != Kind::Reduce || k.c.rank == root;
  bool in_place = sbuf == MPI_IN_PLACE;
  if (in_place && !receives) rk->fail(call_name, "MPI_IN_PLACE is only for the root");
  check_buffer(rk, call_name, live, in_place ? rbuf : sbuf, count);
  if (receives) check_buffer(rk, call_name, live, rbuf, count);
  if (k.op) {
    k.op->d().op = op;
    k.op->d().reduce_type = t;
    k.op->d().root = root;
    set_input(k.op, in_place ? rbuf : sbuf, count, t);
    if (receives) set_output(k.op, rbuf, count, t);
  }
  Event& e = rk->begin(kind);
  e.root = kind == Kind::Reduce ? root : 0;
  e.bytes = event_bytes(rk, live, packed(count, t));
  e.bytes2 = receives ? e.bytes : 0;
  coll_emit(k, e, comm);
  return MPI_SUCCESS;
}

int reduce_scatter_impl(bool live, const char* call, const void* sbuf, void* rbuf, const int* rcounts, int rcount,
                        MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  ENTER(call);
  Coll k = coll_begin(rk, live, call_name, Kind::ReduceScatter, comm);
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
  check_buffer(rk, call_name, live, in_place ? rbuf : sbuf, total);
  check_buffer(rk, call_name, live, rbuf, mine);
  if (k.op) {
    k.op->d().op = op;
    k.op->d().reduce_type = t;
    set_input_pieces(k.op, in_place ? rbuf : sbuf, n, counts.data(), 0, nullptr, t);
    set_output(k.op, rbuf, mine, t);
  }
  Event& e = rk->begin(Kind::ReduceScatter);
  e.counts = byte_counts(rk, live, n, counts.data(), t);
  e.bytes = sum(e.counts);
  e.bytes2 = event_bytes(rk, live, packed(mine, t));
  coll_emit(k, e, comm);
  return MPI_SUCCESS;
}

// Gather, Gatherv (rcounts/displs at the root).
int gather_impl(bool live, Kind kind, const char* call, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
                int rcount, const int* rcounts, const int* displs, MPI_Datatype rtype, int root, MPI_Comm comm) {
  ENTER(call);
  Coll k = coll_begin(rk, live, call_name, kind, comm);
  check_root(rk, call_name, k.c, root);
  bool is_root = k.c.rank == root;
  bool in_place = is_root && sbuf == MPI_IN_PLACE;
  if (!in_place) {
    check_count(rk, call_name, scount, "send count");
    check_type(rk, call_name, stype);
    check_buffer(rk, call_name, live, sbuf, scount);
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
  e.bytes = in_place ? event_bytes(rk, live, packed(kind == Kind::Gather ? rcount : rcounts[root], rtype))
                     : event_bytes(rk, live, packed(scount, stype));
  if (is_root) {
    if (kind == Kind::Gatherv) {
      e.counts2 = byte_counts(rk, live, n, rcounts, rtype);
      e.bytes2 = sum(e.counts2);
    } else {
      e.bytes2 = event_bytes(rk, live, packed(rcount, rtype) * static_cast<std::size_t>(n));
    }
  }
  coll_emit(k, e, comm);
  return MPI_SUCCESS;
}

// Scatter, Scatterv (scounts/displs at the root).
int scatter_impl(bool live, Kind kind, const char* call, const void* sbuf, int scount, const int* scounts,
                 const int* displs, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root,
                 MPI_Comm comm) {
  ENTER(call);
  Coll k = coll_begin(rk, live, call_name, kind, comm);
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
    check_buffer(rk, call_name, live, rbuf, rcount);
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
      e.counts = byte_counts(rk, live, n, scounts, stype);
      e.bytes = sum(e.counts);
    } else {
      e.bytes = event_bytes(rk, live, packed(scount, stype) * static_cast<std::size_t>(n));
    }
  }
  e.bytes2 = in_place ? 0 : event_bytes(rk, live, packed(rcount, rtype));
  coll_emit(k, e, comm);
  return MPI_SUCCESS;
}

// Allgather, Allgatherv.
int allgather_impl(bool live, Kind kind, const char* call, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
                   int rcount, const int* rcounts, const int* displs, MPI_Datatype rtype, MPI_Comm comm) {
  ENTER(call);
  Coll k = coll_begin(rk, live, call_name, kind, comm);
  int n = k.c.size;
  check_type(rk, call_name, rtype);
  if (kind == Kind::Allgatherv && (!rcounts || !displs)) rk->fail(call_name, "NULL receive counts or displacements");
  if (kind == Kind::Allgather) check_count(rk, call_name, rcount, "receive count");
  bool in_place = sbuf == MPI_IN_PLACE;
  if (!in_place) {
    check_count(rk, call_name, scount, "send count");
    check_type(rk, call_name, stype);
    check_buffer(rk, call_name, live, sbuf, scount);
  }
  int me = k.c.rank;
  int my_count = rcounts ? rcounts[me] : rcount;
  if (k.op) {
    if (in_place) {
      std::ptrdiff_t displ = displs ? displs[me] : static_cast<std::ptrdiff_t>(me) * rcount;
      set_input(k.op, static_cast<std::byte*>(rbuf) + displ * sk::type_extent(rtype), my_count, rtype);
    } else {
      set_input(k.op, sbuf, scount, stype);
    }
    set_output_pieces(k.op, rbuf, n, rcounts, rcount, displs, rtype);
  }
  Event& e = rk->begin(kind);
  e.bytes = in_place ? event_bytes(rk, live, packed(my_count, rtype)) : event_bytes(rk, live, packed(scount, stype));
  if (kind == Kind::Allgatherv) {
    e.counts2 = byte_counts(rk, live, n, rcounts, rtype);
    e.bytes2 = sum(e.counts2);
  } else {
    e.bytes2 = event_bytes(rk, live, packed(rcount, rtype) * static_cast<std::size_t>(n));
  }
  coll_emit(k, e, comm);
  return MPI_SUCCESS;
}

// Alltoall, Alltoallv.
int alltoall_impl(bool live, Kind kind, const char* call, const void* sbuf, int scount, const int* scounts,
                  const int* sdispls, MPI_Datatype stype, void* rbuf, int rcount, const int* rcounts,
                  const int* rdispls, MPI_Datatype rtype, MPI_Comm comm) {
  ENTER(call);
  Coll k = coll_begin(rk, live, call_name, kind, comm);
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
    e.counts = in_place ? byte_counts(rk, live, n, rcounts, rtype) : byte_counts(rk, live, n, scounts, stype);
    e.counts2 = byte_counts(rk, live, n, rcounts, rtype);
    e.bytes = sum(e.counts);
    e.bytes2 = sum(e.counts2);
  } else {
    e.bytes = event_bytes(rk, live, packed(in_place ? rcount : scount, in_place ? rtype : stype) * n);
    e.bytes2 = event_bytes(rk, live, packed(rcount, rtype) * static_cast<std::size_t>(n));
  }
  coll_emit(k, e, comm);
  return MPI_SUCCESS;
}

// ---------------------------------------------------------------- Cartesian helpers

int cart_rank_of(const sk::Comm& c, const int* coords, bool* ok) {
  int r = 0;
  *ok = true;
  for (std::size_t d = 0; d < c.dims.size(); ++d) {
    int x = coords[d];
    if (c.periods[d]) x = ((x % c.dims[d]) + c.dims[d]) % c.dims[d];
    if (x < 0 || x >= c.dims[d]) *ok = false;
    r = r * c.dims[d] + x;
  }
  return r;
}

void cart_coords_of(const sk::Comm& c, int rank, int* coords) {
  for (std::size_t d = c.dims.size(); d-- > 0;) {
    coords[d] = rank % c.dims[d];
    rank /= c.dims[d];
  }
}

const sk::Comm& cart(Rank* rk, const char* call, MPI_Comm comm, CommRef* ref = nullptr) {
  CommRef c = rk->comm(comm, call);
  if (!c.comm || c.comm->dims.empty()) rk->fail(call, fmt::format("communicator {} has no Cartesian topology", comm));
  if (ref) *ref = c;
  return *c.comm;
}

}  // namespace

// ================================================================ the C API

#define UNPAREN(...) __VA_ARGS__
// One implementation, two entry points: MPI_x moves data, LMPI_x does not.
#define TWIN(name, params, args)                                               \
  extern "C" int MPI_##name params { return name##_twin(true, UNPAREN args); } \
  extern "C" int LMPI_##name params { return name##_twin(false, UNPAREN args); }

namespace {
int Send_twin(bool l, const void* b, int c, MPI_Datatype t, int d, int g, MPI_Comm m) {
  return send_impl(l, Kind::Send, NAME(l, "Send"), b, c, t, d, g, m, nullptr);
}
int Ssend_twin(bool l, const void* b, int c, MPI_Datatype t, int d, int g, MPI_Comm m) {
  return send_impl(l, Kind::Ssend, NAME(l, "Ssend"), b, c, t, d, g, m, nullptr);
}
int Isend_twin(bool l, const void* b, int c, MPI_Datatype t, int d, int g, MPI_Comm m, MPI_Request* r) {
  if (!r) return MPI_ERR_REQUEST;
  return send_impl(l, Kind::Isend, NAME(l, "Isend"), b, c, t, d, g, m, r);
}
int Issend_twin(bool l, const void* b, int c, MPI_Datatype t, int d, int g, MPI_Comm m, MPI_Request* r) {
  if (!r) return MPI_ERR_REQUEST;
  return send_impl(l, Kind::Issend, NAME(l, "Issend"), b, c, t, d, g, m, r);
}
int Recv_twin(bool l, void* b, int c, MPI_Datatype t, int s, int g, MPI_Comm m, MPI_Status* st) {
  return recv_impl(l, Kind::Recv, NAME(l, "Recv"), b, c, t, s, g, m, st, nullptr);
}
int Irecv_twin(bool l, void* b, int c, MPI_Datatype t, int s, int g, MPI_Comm m, MPI_Request* r) {
  if (!r) return MPI_ERR_REQUEST;
  return recv_impl(l, Kind::Irecv, NAME(l, "Irecv"), b, c, t, s, g, m, nullptr, r);
}
int Sendrecv_twin(bool l, const void* sb, int sc, MPI_Datatype st, int d, int sg, void* rb, int rc, MPI_Datatype rt,
                  int s, int rg, MPI_Comm m, MPI_Status* status) {
  return sendrecv_impl(l, sb, sc, st, d, sg, rb, rc, rt, s, rg, m, status);
}
int Probe_twin(bool l, int s, int g, MPI_Comm m, MPI_Status* st) { return probe_impl(l, s, g, m, st); }
int Wait_twin(bool l, MPI_Request* r, MPI_Status* st) { return wait_impl(l, r, st); }
int Waitall_twin(bool l, int n, MPI_Request* r, MPI_Status* st) {
  return waitall_impl(l, Kind::Waitall, NAME(l, "Waitall"), n, r, st);
}
int Waitany_twin(bool l, int n, MPI_Request* r, int* i, MPI_Status* st) { return waitany_impl(l, n, r, i, st); }
int Waitsome_twin(bool l, int n, MPI_Request* r, int* o, int* i, MPI_Status* st) {
  return waitsome_impl(l, n, r, o, i, st);
}
int Test_twin(bool l, MPI_Request* r, int* f, MPI_Status* st) {
  if (!r) return MPI_ERR_REQUEST;
  return testall_impl(l, Kind::Test, NAME(l, "Test"), 1, r, f, st);
}
int Testall_twin(bool l, int n, MPI_Request* r, int* f, MPI_Status* st) {
  return testall_impl(l, Kind::Testall, NAME(l, "Testall"), n, r, f, st);
}
int Barrier_twin(bool l, MPI_Comm m) { return barrier_impl(l, m); }
int Bcast_twin(bool l, void* b, int c, MPI_Datatype t, int r, MPI_Comm m) { return bcast_impl(l, b, c, t, r, m); }
int Reduce_twin(bool l, const void* s, void* r, int c, MPI_Datatype t, MPI_Op o, int root, MPI_Comm m) {
  return reduction_impl(l, Kind::Reduce, NAME(l, "Reduce"), s, r, c, t, o, root, m);
}
int Allreduce_twin(bool l, const void* s, void* r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm m) {
  return reduction_impl(l, Kind::Allreduce, NAME(l, "Allreduce"), s, r, c, t, o, 0, m);
}
int Scan_twin(bool l, const void* s, void* r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm m) {
  return reduction_impl(l, Kind::Scan, NAME(l, "Scan"), s, r, c, t, o, 0, m);
}
int Exscan_twin(bool l, const void* s, void* r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm m) {
  return reduction_impl(l, Kind::Exscan, NAME(l, "Exscan"), s, r, c, t, o, 0, m);
}
int Reduce_scatter_twin(bool l, const void* s, void* r, const int* rc, MPI_Datatype t, MPI_Op o, MPI_Comm m) {
  if (!rc) return MPI_ERR_ARG;
  return reduce_scatter_impl(l, NAME(l, "Reduce_scatter"), s, r, rc, 0, t, o, m);
}
int Reduce_scatter_block_twin(bool l, const void* s, void* r, int rc, MPI_Datatype t, MPI_Op o, MPI_Comm m) {
  return reduce_scatter_impl(l, NAME(l, "Reduce_scatter_block"), s, r, nullptr, rc, t, o, m);
}
int Gather_twin(bool l, const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, int root,
                MPI_Comm m) {
  return gather_impl(l, Kind::Gather, NAME(l, "Gather"), sb, sc, st, rb, rc, nullptr, nullptr, rt, root, m);
}
int Gatherv_twin(bool l, const void* sb, int sc, MPI_Datatype st, void* rb, const int* rc, const int* d,
                 MPI_Datatype rt, int root, MPI_Comm m) {
  return gather_impl(l, Kind::Gatherv, NAME(l, "Gatherv"), sb, sc, st, rb, 0, rc, d, rt, root, m);
}
int Scatter_twin(bool l, const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, int root,
                 MPI_Comm m) {
  return scatter_impl(l, Kind::Scatter, NAME(l, "Scatter"), sb, sc, nullptr, nullptr, st, rb, rc, rt, root, m);
}
int Scatterv_twin(bool l, const void* sb, const int* sc, const int* d, MPI_Datatype st, void* rb, int rc,
                  MPI_Datatype rt, int root, MPI_Comm m) {
  return scatter_impl(l, Kind::Scatterv, NAME(l, "Scatterv"), sb, 0, sc, d, st, rb, rc, rt, root, m);
}
int Allgather_twin(bool l, const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, MPI_Comm m) {
  return allgather_impl(l, Kind::Allgather, NAME(l, "Allgather"), sb, sc, st, rb, rc, nullptr, nullptr, rt, m);
}
int Allgatherv_twin(bool l, const void* sb, int sc, MPI_Datatype st, void* rb, const int* rc, const int* d,
                    MPI_Datatype rt, MPI_Comm m) {
  return allgather_impl(l, Kind::Allgatherv, NAME(l, "Allgatherv"), sb, sc, st, rb, 0, rc, d, rt, m);
}
int Alltoall_twin(bool l, const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, MPI_Comm m) {
  return alltoall_impl(l, Kind::Alltoall, NAME(l, "Alltoall"), sb, sc, nullptr, nullptr, st, rb, rc, nullptr, nullptr,
                       rt, m);
}
int Alltoallv_twin(bool l, const void* sb, const int* sc, const int* sd, MPI_Datatype st, void* rb, const int* rc,
                   const int* rd, MPI_Datatype rt, MPI_Comm m) {
  return alltoall_impl(l, Kind::Alltoallv, NAME(l, "Alltoallv"), sb, 0, sc, sd, st, rb, 0, rc, rd, rt, m);
}
}  // namespace

TWIN(Send, (const void* b, int c, MPI_Datatype t, int d, int g, MPI_Comm m), (b, c, t, d, g, m))
TWIN(Ssend, (const void* b, int c, MPI_Datatype t, int d, int g, MPI_Comm m), (b, c, t, d, g, m))
TWIN(Isend, (const void* b, int c, MPI_Datatype t, int d, int g, MPI_Comm m, MPI_Request* r), (b, c, t, d, g, m, r))
TWIN(Issend, (const void* b, int c, MPI_Datatype t, int d, int g, MPI_Comm m, MPI_Request* r), (b, c, t, d, g, m, r))
TWIN(Recv, (void* b, int c, MPI_Datatype t, int s, int g, MPI_Comm m, MPI_Status* st), (b, c, t, s, g, m, st))
TWIN(Irecv, (void* b, int c, MPI_Datatype t, int s, int g, MPI_Comm m, MPI_Request* r), (b, c, t, s, g, m, r))
TWIN(Sendrecv,
     (const void* sb, int sc, MPI_Datatype st, int d, int sg, void* rb, int rc, MPI_Datatype rt, int s, int rg,
      MPI_Comm m, MPI_Status* status),
     (sb, sc, st, d, sg, rb, rc, rt, s, rg, m, status))
TWIN(Probe, (int s, int g, MPI_Comm m, MPI_Status* st), (s, g, m, st))
TWIN(Wait, (MPI_Request * r, MPI_Status* st), (r, st))
TWIN(Waitall, (int n, MPI_Request r[], MPI_Status st[]), (n, r, st))
TWIN(Waitany, (int n, MPI_Request r[], int* i, MPI_Status* st), (n, r, i, st))
TWIN(Waitsome, (int n, MPI_Request r[], int* o, int i[], MPI_Status st[]), (n, r, o, i, st))
TWIN(Test, (MPI_Request * r, int* f, MPI_Status* st), (r, f, st))
TWIN(Testall, (int n, MPI_Request r[], int* f, MPI_Status st[]), (n, r, f, st))
TWIN(Barrier, (MPI_Comm m), (m))
TWIN(Bcast, (void* b, int c, MPI_Datatype t, int r, MPI_Comm m), (b, c, t, r, m))
TWIN(Reduce, (const void* s, void* r, int c, MPI_Datatype t, MPI_Op o, int root, MPI_Comm m), (s, r, c, t, o, root, m))
TWIN(Allreduce, (const void* s, void* r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm m), (s, r, c, t, o, m))
TWIN(Scan, (const void* s, void* r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm m), (s, r, c, t, o, m))
TWIN(Exscan, (const void* s, void* r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm m), (s, r, c, t, o, m))
TWIN(Reduce_scatter, (const void* s, void* r, const int rc[], MPI_Datatype t, MPI_Op o, MPI_Comm m),
     (s, r, rc, t, o, m))
TWIN(Reduce_scatter_block, (const void* s, void* r, int rc, MPI_Datatype t, MPI_Op o, MPI_Comm m), (s, r, rc, t, o, m))
TWIN(Gather, (const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, int root, MPI_Comm m),
     (sb, sc, st, rb, rc, rt, root, m))
TWIN(Gatherv,
     (const void* sb, int sc, MPI_Datatype st, void* rb, const int rc[], const int d[], MPI_Datatype rt, int root,
      MPI_Comm m),
     (sb, sc, st, rb, rc, d, rt, root, m))
TWIN(Scatter, (const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, int root, MPI_Comm m),
     (sb, sc, st, rb, rc, rt, root, m))
TWIN(Scatterv,
     (const void* sb, const int sc[], const int d[], MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, int root,
      MPI_Comm m),
     (sb, sc, d, st, rb, rc, rt, root, m))
TWIN(Allgather, (const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, MPI_Comm m),
     (sb, sc, st, rb, rc, rt, m))
TWIN(Allgatherv,
     (const void* sb, int sc, MPI_Datatype st, void* rb, const int rc[], const int d[], MPI_Datatype rt, MPI_Comm m),
     (sb, sc, st, rb, rc, d, rt, m))
TWIN(Alltoall, (const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, MPI_Comm m),
     (sb, sc, st, rb, rc, rt, m))
TWIN(Alltoallv,
     (const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, const int rc[], const int rd[],
      MPI_Datatype rt, MPI_Comm m),
     (sb, sc, sd, st, rb, rc, rd, rt, m))

// ---------------------------------------------------------------- environment

extern "C" {

int MPI_Init(int*, char***) {
  ENTER("MPI_Init");
  if (rk->initialized_) rk->fail(call_name, "MPI is already initialized");
  rk->initialized_ = true;
  rk->begin(Kind::Init);
  rk->emit();
  return MPI_SUCCESS;
}

int MPI_Init_thread(int* argc, char*** argv, int, int* provided) {
  if (provided) *provided = MPI_THREAD_SINGLE;  // ranks are fibers of one thread
  return MPI_Init(argc, argv);
}

int MPI_Query_thread(int* provided) {
  *provided = MPI_THREAD_SINGLE;
  return MPI_SUCCESS;
}

int MPI_Initialized(int* flag) {
  Rank* rk = current_rank();
  *flag = rk && rk->initialized_;
  return MPI_SUCCESS;
}

int MPI_Finalize(void) {
  ENTER("MPI_Finalize");
  if (rk->finalized_) rk->fail(call_name, "MPI is already finalized");
  rk->finalized_ = true;
  rk->begin(Kind::Finalize);
  rk->emit();
  return MPI_SUCCESS;
}

int MPI_Finalized(int* flag) {
  Rank* rk = current_rank();
  *flag = rk && rk->finalized_;
  return MPI_SUCCESS;
}

int MPI_Abort(MPI_Comm, int errorcode) {
  ENTER("MPI_Abort");
  rk->flush_compute();
  rk->fail(call_name, fmt::format("the skeleton aborted with error code {}", errorcode));
}

double MPI_Wtime(void) {
  Rank* rk = current_rank();
  if (!rk) return 0;
  // Pending compute first, so the clock the engine hands back includes it.
  rk->flush_compute();
  return rk->now_s();
}

double MPI_Wtick(void) { return 1e-9; }

int MPI_Get_processor_name(char* name, int* resultlen) {
  Rank* rk = current_rank();
  std::string s = fmt::format("perfcast-rank-{}", rk ? rk->world_rank() : -1);
  std::snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", s.c_str());
  *resultlen = static_cast<int>(std::strlen(name));
  return MPI_SUCCESS;
}

int MPI_Get_version(int* version, int* subversion) {
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

int MPI_Error_string(int errorcode, char* string, int* resultlen) {
  std::snprintf(string, MPI_MAX_ERROR_STRING, "MPI error %d", errorcode);
  *resultlen = static_cast<int>(std::strlen(string));
  return MPI_SUCCESS;
}

int MPI_Comm_set_errhandler(MPI_Comm, MPI_Errhandler) { return MPI_SUCCESS; }

// ---------------------------------------------------------------- communicators

int MPI_Comm_rank(MPI_Comm comm, int* rank) {
  ENTER("MPI_Comm_rank");
  *rank = rk->comm(comm, call_name).rank;
  return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int* size) {
  ENTER("MPI_Comm_size");
  *size = rk->comm(comm, call_name).size;
  return MPI_SUCCESS;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  ENTER("MPI_Comm_split");
  rk->comm(comm, call_name);
  if (color < 0 && color != MPI_UNDEFINED) rk->fail(call_name, fmt::format("negative color {}", color));
  LiveOp* op = rk->new_op(call_name, Kind::CommSplit, comm);
  op->engine_refs = 1;
  op->comm_size = rk->comm(comm, call_name).size;
  op->d().color = color;
  op->d().key = key;
  int handle = color == MPI_UNDEFINED ? MPI_COMM_NULL : rk->next_comm_handle();
  Event& e = rk->begin(Kind::CommSplit);
  e.comm = comm;
  e.color = color;
  e.key = key;
  e.new_comm = handle;
  e.live = op;
  rk->emit();
  if (handle != MPI_COMM_NULL) {
    if (!op->d().new_comm) {
      rk->fail(call_name, "the engine did not report the new communicator's members (DataMover::collective)");
    }
    rk->add_comm(op->d().new_comm, op->d().new_rank);
  }
  *newcomm = handle;
  rk->done_with(op);
  return MPI_SUCCESS;
}

namespace {
// A copy of comm (same ranks in the same order); shares the member list.
std::shared_ptr<sk::Comm> copy_comm(Rank* rk, const CommRef& c) {
  auto copy = std::make_shared<sk::Comm>();
  if (c.comm) {
    *copy = *c.comm;
  } else if (c.self) {
    copy->size = 1;
    copy->world_ranks = std::make_shared<const std::vector<int>>(1, rk->world_rank());
  } else {
    copy->size = rk->world_size();
  }
  return copy;
}
}  // namespace

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  ENTER("MPI_Comm_dup");
  CommRef c = rk->comm(comm, call_name);
  auto copy = copy_comm(rk, c);
  Event& e = rk->begin(Kind::CommDup);
  e.comm = comm;
  e.new_comm = rk->next_comm_handle();
  rk->emit();
  *newcomm = rk->add_comm(std::move(copy), c.rank);
  return MPI_SUCCESS;
}

int MPI_Comm_free(MPI_Comm* comm) {
  ENTER("MPI_Comm_free");
  if (!comm) return MPI_ERR_COMM;
  rk->free_comm(*comm, call_name);
  Event& e = rk->begin(Kind::CommFree);
  e.comm = *comm;
  rk->emit();
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

int MPI_Dims_create(int nnodes, int ndims, int dims[]) {
  Rank* rk = current_rank();
  const char* call_name = "MPI_Dims_create";
  int fixed = 1, free_dims = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0 && rk) rk->fail(call_name, fmt::format("dims[{}] = {} is negative", i, dims[i]));
    if (dims[i] > 0)
      fixed *= dims[i];
    else
      ++free_dims;
  }
  if (fixed <= 0 || nnodes % fixed != 0) {
    if (rk) rk->fail(call_name, fmt::format("{} nodes cannot be divided by the given dimensions", nnodes));
    return MPI_ERR_ARG;
  }
  if (free_dims == 0) return MPI_SUCCESS;
  // Prime factors, largest first, each to the currently smallest free dimension.
  std::vector<int> primes;
  int rest = nnodes / fixed;
  for (int p = 2; p * p <= rest; ++p) {
    while (rest % p == 0) primes.push_back(p), rest /= p;
  }
  if (rest > 1) primes.push_back(rest);
  std::vector<int> free(static_cast<std::size_t>(free_dims), 1);
  for (auto it = primes.rbegin(); it != primes.rend(); ++it) *std::min_element(free.begin(), free.end()) *= *it;
  std::sort(free.rbegin(), free.rend());
  for (int i = 0, k = 0; i < ndims; ++i) {
    if (dims[i] == 0) dims[i] = free[static_cast<std::size_t>(k++)];
  }
  return MPI_SUCCESS;
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int, MPI_Comm* comm_cart) {
  ENTER("MPI_Cart_create");
  CommRef c = rk->comm(comm_old, call_name);
  if (ndims < 0) rk->fail(call_name, fmt::format("negative ndims {}", ndims));
  long long cells = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0) rk->fail(call_name, fmt::format("dims[{}] = {} is not positive", i, dims[i]));
    cells *= dims[i];
  }
  if (cells > c.size) {
    rk->fail(call_name, fmt::format("a grid of {} cells does not fit a communicator of {} ranks", cells, c.size));
  }
  bool member = c.rank < cells;
  int handle = member ? rk->next_comm_handle() : MPI_COMM_NULL;
  Event& e = rk->begin(Kind::CartCreate);
  e.comm = comm_old;
  e.new_comm = handle;
  rk->emit();
  if (member) {
    // Without reordering the grid is the first `cells` ranks of comm_old, in order.
    auto grid = copy_comm(rk, c);
    grid->size = static_cast<int>(cells);
    grid->dims.assign(dims, dims + ndims);
    grid->periods.assign(static_cast<std::size_t>(ndims), 0);
    for (int i = 0; i < ndims; ++i) grid->periods[i] = periods && periods[i] ? 1 : 0;
    rk->add_comm(std::move(grid), c.rank);
  }
  *comm_cart = handle;
  return MPI_SUCCESS;
}

int MPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  ENTER("MPI_Cartdim_get");
  *ndims = static_cast<int>(cart(rk, call_name, comm).dims.size());
  return MPI_SUCCESS;
}

int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  ENTER("MPI_Cart_get");
  CommRef ref;
  const sk::Comm& c = cart(rk, call_name, comm, &ref);
  int n = std::min<int>(maxdims, static_cast<int>(c.dims.size()));
  std::vector<int> mine(c.dims.size());
  cart_coords_of(c, ref.rank, mine.data());
  for (int i = 0; i < n; ++i) {
    dims[i] = c.dims[i];
    periods[i] = c.periods[i];
    coords[i] = mine[i];
  }
  return MPI_SUCCESS;
}

int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  ENTER("MPI_Cart_coords");
  const sk::Comm& c = cart(rk, call_name, comm);
  if (rank < 0 || rank >= c.size) rk->fail(call_name, fmt::format("rank {} is not in the grid", rank));
  if (maxdims < static_cast<int>(c.dims.size())) rk->fail(call_name, "maxdims is smaller than the grid's dimensions");
  cart_coords_of(c, rank, coords);
  return MPI_SUCCESS;
}

int MPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  ENTER("MPI_Cart_rank");
  const sk::Comm& c = cart(rk, call_name, comm);
  bool ok = true;
  int r = cart_rank_of(c, coords, &ok);
  if (!ok) rk->fail(call_name, "coordinates outside a non-periodic dimension");
  *rank = r;
  return MPI_SUCCESS;
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  ENTER("MPI_Cart_shift");
  CommRef ref;
  const sk::Comm& c = cart(rk, call_name, comm, &ref);
  if (direction < 0 || direction >= static_cast<int>(c.dims.size())) {
    rk->fail(call_name, fmt::format("direction {} of a {}-dimensional grid", direction, c.dims.size()));
  }
  std::vector<int> coords(c.dims.size());
  cart_coords_of(c, ref.rank, coords.data());
  auto neighbour = [&](int offset) {
    std::vector<int> x = coords;
    x[static_cast<std::size_t>(direction)] += offset;
    bool ok = true;
    int r = cart_rank_of(c, x.data(), &ok);
    return ok ? r : MPI_PROC_NULL;
  };
  *rank_dest = neighbour(disp);
  *rank_source = neighbour(-disp);
  return MPI_SUCCESS;
}

// ---------------------------------------------------------------- datatypes and ops

int MPI_Type_size(MPI_Datatype t, int* size) {
  if (!sk::type_valid(t)) return MPI_ERR_TYPE;
  *size = static_cast<int>(sk::type_size(t));
  return MPI_SUCCESS;
}

int MPI_Type_get_extent(MPI_Datatype t, MPI_Aint* lb, MPI_Aint* extent) {
  if (!sk::type_valid(t)) return MPI_ERR_TYPE;
  *lb = 0;
  *extent = sk::type_extent(t);
  return MPI_SUCCESS;
}

int MPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype* newtype) {
  *newtype = sk::type_contiguous(count, old);
  return *newtype == MPI_DATATYPE_NULL ? MPI_ERR_TYPE : MPI_SUCCESS;
}

int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype old, MPI_Datatype* newtype) {
  *newtype = sk::type_vector(count, blocklength, stride, old);
  return *newtype == MPI_DATATYPE_NULL ? MPI_ERR_TYPE : MPI_SUCCESS;
}

int MPI_Type_commit(MPI_Datatype* t) { return t && sk::type_valid(*t) ? MPI_SUCCESS : MPI_ERR_TYPE; }

int MPI_Type_free(MPI_Datatype* t) {
  if (!t) return MPI_ERR_TYPE;
  sk::type_free(*t);
  *t = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}

int MPI_Op_create(MPI_User_function* fn, int commute, MPI_Op* op) {
  *op = sk::op_create(reinterpret_cast<sk::UserFunction*>(fn), commute != 0);
  return MPI_SUCCESS;
}

int MPI_Op_free(MPI_Op* op) {
  sk::op_free(*op);
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}

int MPI_Get_count(const MPI_Status* status, MPI_Datatype t, int* count) {
  std::size_t size = sk::type_size(t);
  if (!status || size == 0) return MPI_ERR_ARG;
  auto bytes = static_cast<std::size_t>(status->perfcast_bytes);
  *count = bytes % size ? MPI_UNDEFINED : static_cast<int>(bytes / size);
  return MPI_SUCCESS;
}

// ---------------------------------------------------------------- BSIM

void BSIM_Add_time(double seconds) {
  if (Rank* rk = current_rank()) {
    if (!(seconds >= 0)) rk->fail("BSIM_Add_time", fmt::format("time {} s is not a non-negative number", seconds));
    rk->add_time(seconds);
  }
}

void BSIM_Add_flops(double flops) {
  if (Rank* rk = current_rank()) {
    if (!(flops >= 0)) rk->fail("BSIM_Add_flops", fmt::format("{} flops is not a non-negative number", flops));
    rk->add_flops(flops);
  }
}

void BSIM_Add_bytes(double bytes) {
  if (Rank* rk = current_rank()) {
    if (!(bytes >= 0)) rk->fail("BSIM_Add_bytes", fmt::format("{} bytes is not a non-negative number", bytes));
    rk->add_bytes(bytes);
  }
}

void BSIM_Set_time_scale(double factor) {
  if (Rank* rk = current_rank()) {
    if (!(factor >= 0)) rk->fail("BSIM_Set_time_scale", fmt::format("scale {} is not a non-negative number", factor));
    rk->time_scale_ = factor;
  }
}

void BSIM_Set_size_scale(double factor) {
  if (Rank* rk = current_rank()) {
    if (!(factor >= 0)) rk->fail("BSIM_Set_size_scale", fmt::format("scale {} is not a non-negative number", factor));
    rk->size_scale_ = factor;
  }
}

double BSIM_Get_time_scale(void) {
  Rank* rk = current_rank();
  return rk ? rk->time_scale_ : 1;
}

double BSIM_Get_size_scale(void) {
  Rank* rk = current_rank();
  return rk ? rk->size_scale_ : 1;
}

void BSIM_Marker(int id) {
  if (Rank* rk = current_rank()) {
    Event& e = rk->begin(Kind::Marker);
    e.tag = id;
    rk->emit();
  }
}

// `perfcast cc` links skeletons with --wrap=exit: exit() inside a rank ends that
// rank (as returning from main would), not the simulator.
void __wrap_exit(int code) {
  if (Rank* rk = current_rank()) rk->finish(code);
  std::exit(code);
}

}  // extern "C"
