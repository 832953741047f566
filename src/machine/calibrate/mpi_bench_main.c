/* perfcast_mpi_bench: the MPI half of `perfcast calibrate`.
 *
 * Measures, OSU style, the ping-pong time between ranks 0 and 1, the time of
 * an exchange between them (each sends the other a message at once, as a halo
 * exchange does), the cost of a call that moves nothing (to MPI_PROC_NULL) and the time of the common
 * collectives on MPI_COMM_WORLD, and prints one JSON line on rank 0's
 * stdout. It reports the communicator size so that the caller can tell a run of
 * N ranks from N one-rank runs (a binary launched by another MPI's mpirun).
 *
 * Usage: perfcast_mpi_bench [--quick] [--no-pingpong] [--sizes B,B,...]
 *   --sizes  message sizes per process for the collectives (bytes, multiples of 8)
 *
 * Every figure is a median over individually timed calls, so calls disturbed
 * by another process on a shared core do not move it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZES 64

static int rank, nranks;
static int quick = 0;

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median(double* v, int n) {
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void* xmalloc(size_t bytes) {
  void* p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "perfcast_mpi_bench: rank %d: out of memory (%zu bytes)\n", rank, bytes);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  memset(p, 1, bytes);
  return p;
}

/* Iterations per batch: many for small messages, where the time is latency and
 * the timer's resolution matters, few for large ones, where it is bandwidth. */
static int iterations(size_t bytes) {
  int small = quick ? 400 : 4000;
  int large = quick ? 20 : 100;
  if (bytes <= 8192) return small;
  long budget = quick ? (16L << 20) : (128L << 20); /* bytes moved per batch */
  long n = budget / (long)bytes;
  if (n > small) n = small;
  if (n < large / 5 + 1) n = large / 5 + 1;
  return (int)n;
}

/* One round's one-way time of a message of `bytes` between ranks 0 and 1:
 * half the median round trip, timed on rank 0. */
static double pingpong(size_t bytes, char* buf, double* times, int rounds) {
  int iters = iterations(bytes) / rounds;
  if (iters < 5) iters = 5;
  int warmup = iters / 10 + 2;
  for (int i = -warmup; i < iters; ++i) {
    double t0 = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
      MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    }
    if (i >= 0) times[i] = MPI_Wtime() - t0;
  }
  double m = median(times, iters) / 2;
  MPI_Bcast(&m, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return m;
}

/* One round's time of an exchange of `bytes` between ranks 0 and 1: both post
 * a receive and a send to the other and wait for both, as the two sides of a
 * halo exchange do; the median step, timed on rank 0. Both messages cross at
 * once, each side copies one in and one out: measured at 1.4-1.5x the
 * ping-pong's one-way time for small messages, which a halo step priced at
 * the one-way time misses. */
static double exchange(size_t bytes, char* sbuf, char* rbuf, double* times, int rounds) {
  int iters = iterations(bytes) / rounds;
  if (iters < 5) iters = 5;
  int warmup = iters / 10 + 2;
  for (int i = -warmup; i < iters; ++i) {
    double t0 = MPI_Wtime();
    if (rank < 2) {
      MPI_Request req[2];
      MPI_Irecv(rbuf, (int)bytes, MPI_BYTE, 1 - rank, 2, MPI_COMM_WORLD, &req[0]);
      MPI_Isend(sbuf, (int)bytes, MPI_BYTE, 1 - rank, 2, MPI_COMM_WORLD, &req[1]);
      MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }
    if (i >= 0) times[i] = MPI_Wtime() - t0;
  }
  double m = median(times, iters);
  MPI_Bcast(&m, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return m;
}

/* The CPU cost of entering MPI for a call that moves nothing: six receives and
 * six sends to MPI_PROC_NULL completed by one waitall, as a halo exchange on a
 * domain boundary makes them; per call, the median over batches. This is
 * LogP's overhead o, which the one-way latency of a real message includes
 * twice (its send and its receive). */
static double call_overhead(double* times) {
  enum { FACES = 6 };
  double sbuf[FACES], rbuf[FACES];
  MPI_Request req[2 * FACES];
  int batches = quick ? 200 : 2000, warmup = batches / 10 + 2, per_batch = 20;
  for (int i = -warmup; i < batches; ++i) {
    double t0 = MPI_Wtime();
    for (int k = 0; k < per_batch; ++k) {
      for (int f = 0; f < FACES; ++f) MPI_Irecv(&rbuf[f], 1, MPI_DOUBLE, MPI_PROC_NULL, f, MPI_COMM_WORLD, &req[f]);
      for (int f = 0; f < FACES; ++f)
        MPI_Isend(&sbuf[f], 1, MPI_DOUBLE, MPI_PROC_NULL, f, MPI_COMM_WORLD, &req[FACES + f]);
      MPI_Waitall(2 * FACES, req, MPI_STATUSES_IGNORE);
    }
    if (i >= 0) times[i] = (MPI_Wtime() - t0) / (per_batch * (2 * FACES + 1));
  }
  double m = median(times, batches);
  MPI_Bcast(&m, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return m;
}

/* The collectives measured, in order; each is named as perfcast's MPI
 * vocabulary names it (support/mpi_ops.def), which is also the name of the
 * machine file's [[collective]] table that its figures fill. */
enum vocabulary_op {
#define PERFCAST_MPI_OP(Id, ...) VOCABULARY_##Id,
#include "support/mpi_ops.def"
  VOCABULARY_COUNT
};
static const char* const vocabulary_names[VOCABULARY_COUNT] = {
#define PERFCAST_MPI_OP(Id, name, ...) #name,
#include "support/mpi_ops.def"
};

enum op { OP_BARRIER, OP_BCAST, OP_REDUCE, OP_ALLREDUCE, OP_ALLGATHER, OP_ALLTOALL, OP_COUNT };
static const enum vocabulary_op op_vocabulary[OP_COUNT] = {VOCABULARY_Barrier,   VOCABULARY_Bcast,
                                                           VOCABULARY_Reduce,    VOCABULARY_Allreduce,
                                                           VOCABULARY_Allgather, VOCABULARY_Alltoall};

struct buffers {
  char* send;
  char* recv;
};

static void run_op(enum op op, size_t bytes, struct buffers* b) {
  int count = (int)(bytes / sizeof(double));
  switch (op) {
    case OP_BARRIER: MPI_Barrier(MPI_COMM_WORLD); break;
    case OP_BCAST: MPI_Bcast(b->send, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case OP_REDUCE: MPI_Reduce(b->send, b->recv, count, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD); break;
    case OP_ALLREDUCE: MPI_Allreduce(b->send, b->recv, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
    case OP_ALLGATHER:
      MPI_Allgather(b->send, (int)bytes, MPI_BYTE, b->recv, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
      break;
    case OP_ALLTOALL:
      MPI_Alltoall(b->send, (int)bytes, MPI_BYTE, b->recv, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
      break;
    default: break;
  }
}

/* Time of one collective. As OSU does, each call is timed alone between
 * barriers: back-to-back calls would overlap (a root's eager bcasts return
 * before anyone received them) and measure an issue rate, not a time. Each
 * rank takes the median of its calls; the slowest rank's median is the figure
 * (the operation is over when the last rank leaves it). */
static double time_collective(enum op op, size_t bytes, struct buffers* b, double* times) {
  int iters = iterations(bytes * (op == OP_ALLTOALL || op == OP_ALLGATHER ? (size_t)nranks : 1));
  if (iters > (quick ? 200 : 1000)) iters = quick ? 200 : 1000;
  int warmup = iters / 10 + 1;
  for (int i = -warmup; i < iters; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    run_op(op, bytes, b);
    if (i >= 0) times[i] = MPI_Wtime() - t0;
  }
  double local = median(times, iters), slowest = 0;
  MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

static int parse_sizes(const char* text, size_t* sizes) {
  int n = 0;
  const char* p = text;
  while (*p && n < MAX_SIZES) {
    char* end = NULL;
    unsigned long long v = strtoull(p, &end, 10);
    if (end == p) break;
    sizes[n++] = (size_t)v;
    p = *end == ',' ? end + 1 : end;
  }
  return n;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  int do_pingpong = 1;
  size_t sizes[MAX_SIZES] = {8, 1024, 65536, 1048576};
  int nsizes = 4;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--quick") == 0) quick = 1;
    else if (strcmp(argv[i], "--no-pingpong") == 0) do_pingpong = 0;
    else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) nsizes = parse_sizes(argv[++i], sizes);
    else {
      if (rank == 0) fprintf(stderr, "perfcast_mpi_bench: unknown argument '%s'\n", argv[i]);
      MPI_Finalize();
      return 2;
    }
  }

  size_t max_size = 0;
  for (int i = 0; i < nsizes; ++i)
    if (sizes[i] > max_size) max_size = sizes[i];

  double* times = xmalloc(sizeof(double) * (size_t)iterations(1));
  if (rank == 0) printf("{\"ranks\": %d, \"wtick_s\": %.3e", nranks, MPI_Wtick());
  if (do_pingpong) {
    double o = call_overhead(times);
    if (rank == 0) printf(", \"call_overhead_s\": %.6e", o);
  }

  if (do_pingpong && nranks >= 2) {
    /* Rounds over the whole range of sizes, the median per size across
     * rounds: a burst of load from another process spoils one round of many
     * sizes rather than every sample of one (which would hide, or fake, the
     * eager-to-rendezvous jump). */
    enum { SIZES = 23, ROUNDS = 5 };
    const int rounds = quick ? 3 : ROUNDS;
    double per_round[SIZES][ROUNDS], exchange_round[SIZES][ROUNDS];
    char* buf = xmalloc((size_t)1 << (SIZES - 1));
    char* rbuf = xmalloc((size_t)1 << (SIZES - 1));
    for (int r = 0; r < rounds; ++r)
      for (int k = 0; k < SIZES; ++k) {
        per_round[k][r] = pingpong((size_t)1 << k, buf, times, rounds);
        exchange_round[k][r] = exchange((size_t)1 << k, buf, rbuf, times, rounds);
      }
    if (rank == 0) {
      printf(", \"pingpong\": [");
      for (int k = 0; k < SIZES; ++k)
        printf("%s{\"bytes\": %zu, \"one_way_s\": %.6e}", k ? ", " : "", (size_t)1 << k, median(per_round[k], rounds));
      printf("], \"exchange\": [");
      for (int k = 0; k < SIZES; ++k)
        printf("%s{\"bytes\": %zu, \"step_s\": %.6e}", k ? ", " : "", (size_t)1 << k,
               median(exchange_round[k], rounds));
      printf("]");
    }
    free(buf);
    free(rbuf);
  }

  struct buffers b;
  b.send = xmalloc(max_size * (size_t)nranks);
  b.recv = xmalloc(max_size * (size_t)nranks);
  if (rank == 0) printf(", \"collectives\": [");
  int first = 1;
  for (int op = 0; op < OP_COUNT; ++op) {
    for (int i = 0; i < (op == OP_BARRIER ? 1 : nsizes); ++i) {
      size_t bytes = op == OP_BARRIER ? 0 : sizes[i];
      double t = time_collective((enum op)op, bytes, &b, times);
      if (rank == 0)
        printf("%s{\"op\": \"%s\", \"bytes\": %zu, \"time_s\": %.6e}", first ? "" : ", ",
               vocabulary_names[op_vocabulary[op]], bytes, t);
      first = 0;
    }
  }
  if (rank == 0) {
    printf("]}\n");
    fflush(stdout);
  }
  free(times);
  free(b.send);
  free(b.recv);
  MPI_Finalize();
  return 0;
}
