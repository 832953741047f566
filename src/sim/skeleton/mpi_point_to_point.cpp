// Point-to-point entry points (MPI_* and LMPI_*): sends, receives, sendrecv,
// probe, and the completion of nonblocking requests (wait and test families).
#include <vector>

#include "sim/skeleton/mpi_entry.h"

using perfcast::events::Event;
using perfcast::events::Kind;
using perfcast::sim::skeleton::EntryPoint;

namespace perfcast::sim::skeleton {
namespace {

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

// Send, Ssend, Isend, Issend. A nonblocking kind returns its request in
// `request` (MPI_ERR_REQUEST when null); a blocking one passes null.
int send(EntryPoint call, Kind kind, const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm,
         MPI_Request* request) {
  bool nonblocking = kind == Kind::Isend || kind == Kind::Issend;
  if (nonblocking && !request) return MPI_ERR_REQUEST;
  PERFCAST_ENTER(call.name);
  CommRef c = rk->comm(comm, call_name);
  check_count(rk, call_name, count);
  check_type(rk, call_name, t);
  check_buffer(rk, call_name, call.live, buf, count);
  check_peer(rk, call_name, c, dest, false, "destination");
  check_tag(rk, call_name, tag, false);
  LiveOp* op = nullptr;
  if (call.live || request) {
    op = rk->new_op(call_name, kind, comm);
    op->engine_refs = dest == MPI_PROC_NULL ? 0 : 1;
    op->send_matched = dest == MPI_PROC_NULL;
    if (call.live) set_input(op, buf, count, t);
  }
  Event& e = rk->begin(kind);
  e.comm = comm;
  e.peer = dest;
  e.tag = tag;
  e.bytes = event_bytes(rk, call.live, packed(count, t));
  e.live = op;
  if (request) *request = static_cast<MPI_Request>(e.request = rk->add_request(op));
  rk->emit();
  if (op && !request) rk->done_with(op);
  return MPI_SUCCESS;
}

// Recv (fills `status`, may be null) and Irecv (returns its request in `request`,
// MPI_ERR_REQUEST when null).
int recv(EntryPoint call, Kind kind, void* buf, int count, MPI_Datatype t, int source, int tag, MPI_Comm comm,
         MPI_Status* status, MPI_Request* request) {
  if (kind == Kind::Irecv && !request) return MPI_ERR_REQUEST;
  PERFCAST_ENTER(call.name);
  CommRef c = rk->comm(comm, call_name);
  check_count(rk, call_name, count);
  check_type(rk, call_name, t);
  check_buffer(rk, call_name, call.live, buf, count);
  check_peer(rk, call_name, c, source, true, "source");
  check_tag(rk, call_name, tag, true);
  LiveOp* op = nullptr;
  if (call.live || request || status) {
    op = rk->new_op(call_name, kind, comm);
    bool null_peer = source == MPI_PROC_NULL;
    op->source = source;
    op->tag = null_peer ? MPI_ANY_TAG : tag;
    op->received_bytes = null_peer ? 0 : packed(count, t);
    op->recv_matched = null_peer;
    if (call.live) set_output(op, buf, count, t);
  }
  Event& e = rk->begin(kind);
  e.comm = comm;
  e.peer = source;
  e.tag = tag;
  e.bytes = event_bytes(rk, call.live, packed(count, t));
  e.live = op;
  if (request) *request = static_cast<MPI_Request>(e.request = rk->add_request(op));
  rk->emit();
  if (op && !request) {
    fill_status(status, op);
    rk->done_with(op);
  }
  return MPI_SUCCESS;
}

int sendrecv(EntryPoint call, const void* sbuf, int scount, MPI_Datatype stype, int dest, int stag, void* rbuf,
             int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm, MPI_Status* status) {
  PERFCAST_ENTER(call.name);
  CommRef c = rk->comm(comm, call_name);
  check_count(rk, call_name, scount, "send count");
  check_count(rk, call_name, rcount, "receive count");
  check_type(rk, call_name, stype);
  check_type(rk, call_name, rtype);
  check_buffer(rk, call_name, call.live, sbuf, scount);
  check_buffer(rk, call_name, call.live, rbuf, rcount);
  check_peer(rk, call_name, c, dest, false, "destination");
  check_peer(rk, call_name, c, source, true, "source");
  check_tag(rk, call_name, stag, false);
  check_tag(rk, call_name, rtag, true);
  LiveOp* op = nullptr;
  if (call.live || status) {
    op = rk->new_op(call_name, Kind::Sendrecv, comm);
    op->engine_refs = dest == MPI_PROC_NULL ? 0 : 1;
    op->source = source;
    op->tag = source == MPI_PROC_NULL ? MPI_ANY_TAG : rtag;
    op->received_bytes = source == MPI_PROC_NULL ? 0 : packed(rcount, rtype);
    if (call.live) {
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
  e.bytes = event_bytes(rk, call.live, packed(scount, stype));
  e.bytes2 = event_bytes(rk, call.live, packed(rcount, rtype));
  e.live = op;
  rk->emit();
  if (op) {
    fill_status(status, op);
    rk->done_with(op);
  }
  return MPI_SUCCESS;
}

int probe(EntryPoint call, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  PERFCAST_ENTER(call.name);
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

// Waitall, and Wait as a Waitall of one (MPI_ERR_REQUEST for a null request).
int wait_all(EntryPoint call, Kind kind, int count, MPI_Request* requests, MPI_Status* statuses) {
  if (kind == Kind::Wait && !requests) return MPI_ERR_REQUEST;
  PERFCAST_ENTER(call.name);
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

int wait_any(EntryPoint call, int count, MPI_Request* requests, int* index, MPI_Status* status) {
  PERFCAST_ENTER(call.name);
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

int wait_some(EntryPoint call, int incount, MPI_Request* requests, int* outcount, int* indices, MPI_Status* statuses) {
  PERFCAST_ENTER(call.name);
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

// Testall, and Test as a Testall of one (MPI_ERR_REQUEST for a null request).
int test_all(EntryPoint call, Kind kind, int count, MPI_Request* requests, int* flag, MPI_Status* statuses) {
  if (kind == Kind::Test && !requests) return MPI_ERR_REQUEST;
  PERFCAST_ENTER(call.name);
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

}  // namespace
}  // namespace perfcast::sim::skeleton

using namespace perfcast::sim::skeleton;  // the entry points below forward to this file's calls

PERFCAST_TWIN(Send, (const void* b, int c, MPI_Datatype t, int d, int g, MPI_Comm m),
              send(call, Kind::Send, b, c, t, d, g, m, nullptr))
PERFCAST_TWIN(Ssend, (const void* b, int c, MPI_Datatype t, int d, int g, MPI_Comm m),
              send(call, Kind::Ssend, b, c, t, d, g, m, nullptr))
PERFCAST_TWIN(Isend, (const void* b, int c, MPI_Datatype t, int d, int g, MPI_Comm m, MPI_Request* r),
              send(call, Kind::Isend, b, c, t, d, g, m, r))
PERFCAST_TWIN(Issend, (const void* b, int c, MPI_Datatype t, int d, int g, MPI_Comm m, MPI_Request* r),
              send(call, Kind::Issend, b, c, t, d, g, m, r))
PERFCAST_TWIN(Recv, (void* b, int c, MPI_Datatype t, int s, int g, MPI_Comm m, MPI_Status* st),
              recv(call, Kind::Recv, b, c, t, s, g, m, st, nullptr))
PERFCAST_TWIN(Irecv, (void* b, int c, MPI_Datatype t, int s, int g, MPI_Comm m, MPI_Request* r),
              recv(call, Kind::Irecv, b, c, t, s, g, m, nullptr, r))
PERFCAST_TWIN(Sendrecv,
              (const void* sb, int sc, MPI_Datatype st, int d, int sg, void* rb, int rc, MPI_Datatype rt, int s, int rg,
               MPI_Comm m, MPI_Status* status),
              sendrecv(call, sb, sc, st, d, sg, rb, rc, rt, s, rg, m, status))
PERFCAST_TWIN(Probe, (int s, int g, MPI_Comm m, MPI_Status* st), probe(call, s, g, m, st))
PERFCAST_TWIN(Wait, (MPI_Request * r, MPI_Status* st), wait_all(call, Kind::Wait, 1, r, st))
PERFCAST_TWIN(Waitall, (int n, MPI_Request r[], MPI_Status st[]), wait_all(call, Kind::Waitall, n, r, st))
PERFCAST_TWIN(Waitany, (int n, MPI_Request r[], int* i, MPI_Status* st), wait_any(call, n, r, i, st))
PERFCAST_TWIN(Waitsome, (int n, MPI_Request r[], int* o, int i[], MPI_Status st[]), wait_some(call, n, r, o, i, st))
PERFCAST_TWIN(Test, (MPI_Request * r, int* f, MPI_Status* st), test_all(call, Kind::Test, 1, r, f, st))
PERFCAST_TWIN(Testall, (int n, MPI_Request r[], int* f, MPI_Status st[]), test_all(call, Kind::Testall, n, r, f, st))
