/* A PMPI shim that counts a real MPI run's calls and the bytes each rank hands
 * to them, per kind, named as perfcast's event kinds (src/events/event.cpp), so
 * that a real app and its skeleton's simulation can be compared call for call.
 * Preloaded into each rank (mpirun -x LD_PRELOAD=libskel_mpi_count.so); at
 * MPI_Finalize every rank writes two lines to stderr:
 *   mpi_count rank=R init=1 isend=120 ... finalize=1
 *   mpi_bytes rank=R isend=983040 allreduce=... (only kinds with bytes)
 * Bytes are the send side of this rank: point to point and sendrecv the bytes
 * sent; reductions, scans and bcast count*size; gather(v)/allgather(v) the
 * rank's send count; scatter(v) its receive count; alltoall(v) the sum of its
 * send counts. Test code only, shared by every app's skeleton
 * test: a call it does not wrap is not counted, and
 * the tests compare every kind either side reports, so a miss shows up.
 * A wait or waitall on no active request (cg's MPI_Waitall of 0 requests on one
 * rank) is counted apart, as wait_empty/waitall_empty: the simulator makes no
 * event of a completion that completes nothing. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum {
  K_SEND, K_SSEND, K_ISEND, K_ISSEND, K_RECV, K_IRECV, K_SENDRECV, K_PROBE,
  K_WAIT, K_WAITALL, K_WAITANY, K_WAITSOME, K_TEST, K_TESTALL,
  K_BARRIER, K_BCAST, K_REDUCE, K_ALLREDUCE, K_GATHER, K_GATHERV, K_SCATTER, K_SCATTERV,
  K_ALLGATHER, K_ALLGATHERV, K_ALLTOALL, K_ALLTOALLV, K_REDUCE_SCATTER, K_SCAN, K_EXSCAN,
  K_COMM_SPLIT, K_COMM_DUP, K_CART_CREATE, K_COMM_FREE, K_INIT, K_FINALIZE, K_PCONTROL,
  K_WAIT_EMPTY, K_WAITALL_EMPTY, K_COUNT
};
static const char *const kind_names[K_COUNT] = {
    "send", "ssend", "isend", "issend", "recv", "irecv", "sendrecv", "probe",
    "wait", "waitall", "waitany", "waitsome", "test", "testall",
    "barrier", "bcast", "reduce", "allreduce", "gather", "gatherv", "scatter", "scatterv",
    "allgather", "allgatherv", "alltoall", "alltoallv", "reduce_scatter", "scan", "exscan",
    "comm_split", "comm_dup", "cart_create", "comm_free", "init", "finalize", "pcontrol",
    "wait_empty", "waitall_empty"};
/* One process per rank in a real run: a global is per rank here. */
static long long counts[K_COUNT];
static long long bytes[K_COUNT];

static void add(int kind, long long count, MPI_Datatype type) {
  int size = 0;
  counts[kind]++;
  if (count > 0 && type != MPI_DATATYPE_NULL && PMPI_Type_size(type, &size) == MPI_SUCCESS)
    bytes[kind] += count * (long long)size;
}

/* No request to complete: n == 0 or all null (MPI_PROC_NULL peers give real requests). */
static int none_active(int n, const MPI_Request r[]) {
  int i;
  for (i = 0; i < n; i++)
    if (r[i] != MPI_REQUEST_NULL) return 0;
  return 1;
}

static int comm_size(MPI_Comm comm) {
  int n = 0;
  PMPI_Comm_size(comm, &n);
  return n;
}

static void print_line(const char *what, const long long *v, int rank) {
  char line[4096];
  int k, n = snprintf(line, sizeof line, "%s rank=%d", what, rank);
  for (k = 0; k < K_COUNT && n < (int)sizeof line - 64; k++)
    if (v[k]) n += snprintf(line + n, sizeof line - (size_t)n, " %s=%lld", kind_names[k], v[k]);
  n += snprintf(line + n, sizeof line - (size_t)n, "\n");
  /* one write, so lines of different ranks do not interleave */
  if (write(2, line, (size_t)n) < 0) { /* nothing to do: the count is lost */ }
}

int MPI_Init(int *argc, char ***argv) {
  counts[K_INIT]++;
  return PMPI_Init(argc, argv);
}
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  counts[K_INIT]++;
  return PMPI_Init_thread(argc, argv, required, provided);
}
int MPI_Finalize(void) {
  int rank = -1;
  counts[K_FINALIZE]++;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  print_line("mpi_count", counts, rank);
  print_line("mpi_bytes", bytes, rank);
  return PMPI_Finalize();
}

int MPI_Pcontrol(const int level, ...) {
  counts[K_PCONTROL]++;
  return PMPI_Pcontrol(level);
}

int MPI_Send(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm) {
  add(K_SEND, c, t);
  return PMPI_Send(b, c, t, d, tag, comm);
}
int MPI_Ssend(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm) {
  add(K_SSEND, c, t);
  return PMPI_Ssend(b, c, t, d, tag, comm);
}
int MPI_Isend(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm, MPI_Request *r) {
  add(K_ISEND, c, t);
  return PMPI_Isend(b, c, t, d, tag, comm, r);
}
int MPI_Issend(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm, MPI_Request *r) {
  add(K_ISSEND, c, t);
  return PMPI_Issend(b, c, t, d, tag, comm, r);
}
int MPI_Recv(void *b, int c, MPI_Datatype t, int s, int tag, MPI_Comm comm, MPI_Status *st) {
  counts[K_RECV]++;
  return PMPI_Recv(b, c, t, s, tag, comm, st);
}
int MPI_Irecv(void *b, int c, MPI_Datatype t, int s, int tag, MPI_Comm comm, MPI_Request *r) {
  counts[K_IRECV]++;
  return PMPI_Irecv(b, c, t, s, tag, comm, r);
}
int MPI_Sendrecv(const void *sb, int sc, MPI_Datatype st, int d, int stag, void *rb, int rc, MPI_Datatype rt,
                 int s, int rtag, MPI_Comm comm, MPI_Status *status) {
  add(K_SENDRECV, d == MPI_PROC_NULL ? 0 : sc, st);
  return PMPI_Sendrecv(sb, sc, st, d, stag, rb, rc, rt, s, rtag, comm, status);
}
int MPI_Probe(int s, int tag, MPI_Comm comm, MPI_Status *st) {
  counts[K_PROBE]++;
  return PMPI_Probe(s, tag, comm, st);
}
int MPI_Wait(MPI_Request *r, MPI_Status *st) {
  counts[none_active(1, r) ? K_WAIT_EMPTY : K_WAIT]++;
  return PMPI_Wait(r, st);
}
int MPI_Waitall(int n, MPI_Request r[], MPI_Status st[]) {
  counts[none_active(n, r) ? K_WAITALL_EMPTY : K_WAITALL]++;
  return PMPI_Waitall(n, r, st);
}
int MPI_Waitany(int n, MPI_Request r[], int *i, MPI_Status *st) {
  counts[K_WAITANY]++;
  return PMPI_Waitany(n, r, i, st);
}
int MPI_Waitsome(int n, MPI_Request r[], int *o, int i[], MPI_Status st[]) {
  counts[K_WAITSOME]++;
  return PMPI_Waitsome(n, r, o, i, st);
}
int MPI_Test(MPI_Request *r, int *flag, MPI_Status *st) {
  counts[K_TEST]++;
  return PMPI_Test(r, flag, st);
}
int MPI_Testall(int n, MPI_Request r[], int *flag, MPI_Status st[]) {
  counts[K_TESTALL]++;
  return PMPI_Testall(n, r, flag, st);
}
int MPI_Barrier(MPI_Comm comm) {
  counts[K_BARRIER]++;
  return PMPI_Barrier(comm);
}
int MPI_Bcast(void *b, int c, MPI_Datatype t, int root, MPI_Comm comm) {
  add(K_BCAST, c, t);
  return PMPI_Bcast(b, c, t, root, comm);
}
int MPI_Reduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm) {
  add(K_REDUCE, c, t);
  return PMPI_Reduce(s, r, c, t, op, root, comm);
}
int MPI_Allreduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  add(K_ALLREDUCE, c, t);
  return PMPI_Allreduce(s, r, c, t, op, comm);
}
int MPI_Reduce_scatter(const void *s, void *r, const int rc[], MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  long long total = 0;
  int q, n = comm_size(comm);
  for (q = 0; q < n; q++) total += rc[q];
  add(K_REDUCE_SCATTER, total, t);
  return PMPI_Reduce_scatter(s, r, rc, t, op, comm);
}
int MPI_Scan(const void *s, void *r, int c, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  add(K_SCAN, c, t);
  return PMPI_Scan(s, r, c, t, op, comm);
}
int MPI_Exscan(const void *s, void *r, int c, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  add(K_EXSCAN, c, t);
  return PMPI_Exscan(s, r, c, t, op, comm);
}
int MPI_Gather(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, int root, MPI_Comm comm) {
  add(K_GATHER, sc, st);
  return PMPI_Gather(s, sc, st, r, rc, rt, root, comm);
}
int MPI_Gatherv(const void *s, int sc, MPI_Datatype st, void *r, const int rc[], const int rd[], MPI_Datatype rt,
                int root, MPI_Comm comm) {
  add(K_GATHERV, sc, st);
  return PMPI_Gatherv(s, sc, st, r, rc, rd, rt, root, comm);
}
int MPI_Scatter(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, int root, MPI_Comm comm) {
  add(K_SCATTER, rc, rt);
  return PMPI_Scatter(s, sc, st, r, rc, rt, root, comm);
}
int MPI_Scatterv(const void *s, const int sc[], const int sd[], MPI_Datatype st, void *r, int rc, MPI_Datatype rt,
                 int root, MPI_Comm comm) {
  add(K_SCATTERV, rc, rt);
  return PMPI_Scatterv(s, sc, sd, st, r, rc, rt, root, comm);
}
int MPI_Allgather(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, MPI_Comm comm) {
  add(K_ALLGATHER, sc, st);
  return PMPI_Allgather(s, sc, st, r, rc, rt, comm);
}
int MPI_Allgatherv(const void *s, int sc, MPI_Datatype st, void *r, const int rc[], const int rd[],
                   MPI_Datatype rt, MPI_Comm comm) {
  add(K_ALLGATHERV, sc, st);
  return PMPI_Allgatherv(s, sc, st, r, rc, rd, rt, comm);
}
int MPI_Alltoall(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, MPI_Comm comm) {
  add(K_ALLTOALL, (long long)sc * comm_size(comm), st);
  return PMPI_Alltoall(s, sc, st, r, rc, rt, comm);
}
int MPI_Alltoallv(const void *s, const int sc[], const int sd[], MPI_Datatype st, void *r, const int rc[],
                  const int rd[], MPI_Datatype rt, MPI_Comm comm) {
  long long total = 0;
  int q, n = comm_size(comm);
  for (q = 0; q < n; q++) total += sc[q];
  add(K_ALLTOALLV, total, st);
  return PMPI_Alltoallv(s, sc, sd, st, r, rc, rd, rt, comm);
}
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *out) {
  counts[K_COMM_SPLIT]++;
  return PMPI_Comm_split(comm, color, key, out);
}
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out) {
  counts[K_COMM_DUP]++;
  return PMPI_Comm_dup(comm, out);
}
int MPI_Cart_create(MPI_Comm comm, int nd, const int dims[], const int periods[], int reorder, MPI_Comm *out) {
  counts[K_CART_CREATE]++;
  return PMPI_Cart_create(comm, nd, dims, periods, reorder, out);
}
int MPI_Comm_free(MPI_Comm *comm) {
  counts[K_COMM_FREE]++;
  return PMPI_Comm_free(comm);
}
