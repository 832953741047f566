/* What a message costs right after a compute phase, beside what the ping-pong
 * tables say it costs.
 *
 * calibrate times MPI back to back, so its buffers, Open MPI's shared-memory
 * segment and their page-table entries are all in cache: the "hot" time. In a
 * real step (a stencil sweep, then the halo exchange) the sweep has pushed all
 * of that out first. Here two ranks exchange `bytes` both ways (Irecv, Isend,
 * Waitall, as the apps' halo exchanges do), each exchange preceded by a
 * barrier so neither rank waits for the other, in turns: one hot, one after
 * each rank streamed through `footprint` bytes of its own (b = 2a + b). Only
 * the exchange is timed. Medians and minima over the samples, per size and
 * footprint, and the cold median over the hot one.
 *
 * First figures (issue 5, stop 18; a Zen 3 VM, 32 MiB L3 shared with other
 * tenants): after 16-64 MiB per rank an 8-512 B exchange took 2-6 us instead
 * of 0.3-0.8, 8-32 KiB 15-26 us instead of 4-8, 128 KiB 32-46 us instead of
 * 20-23, 1 MiB 1.1-1.3x; after 256 KiB (in L2) 1.1-1.4x. perfcast predict
 * prices messages at the hot times (docs/machine-format.md,
 * intra_node_exchange).
 *
 *   mpirun.openmpi -np 2 --bind-to core build/bench/exchange_after_stream [samples=41]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int by_value(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

static double median_of(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, by_value);
  return v[n / 2];
}

/* One exchange of n doubles with the peer, started together, timed. */
static double exchange(double *send, double *recv, int n, int peer) {
  MPI_Request req[2];
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  MPI_Irecv(recv, n, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &req[0]);
  MPI_Isend(send, n, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &req[1]);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  return MPI_Wtime() - t0;
}

int main(int argc, char **argv) {
  static const long sizes[] = {8, 512, 8192, 32768, 131072, 1048576};
  static const long footprints[] = {256L << 10, 4L << 20, 16L << 20, 64L << 20};
  const int nsizes = sizeof sizes / sizeof *sizes, nfoot = sizeof footprints / sizeof *footprints;
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int samples = argc > 1 ? atoi(argv[1]) : 41;
  if (size != 2 || samples < 1) {
    if (rank == 0)
      fprintf(stderr, "exchange_after_stream: needs exactly 2 ranks (got %d) and samples >= 1 (got %d)\n", size,
              samples);
    MPI_Finalize();
    return 2;
  }
  long max_bytes = sizes[nsizes - 1];
  size_t stream_n = (size_t)footprints[nfoot - 1] / 2 / sizeof(double); /* two arrays */
  double *send = malloc((size_t)max_bytes), *recv = malloc((size_t)max_bytes);
  double *a = malloc(stream_n * sizeof *a), *b = malloc(stream_n * sizeof *b);
  double *hot = malloc((size_t)samples * sizeof *hot), *cold = malloc((size_t)samples * sizeof *cold);
  if (!send || !recv || !a || !b || !hot || !cold) {
    fprintf(stderr, "exchange_after_stream: rank %d: out of memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  for (size_t i = 0; i < stream_n; i++) a[i] = (double)i, b[i] = 0;
  for (long i = 0; i < max_bytes / 8; i++) send[i] = (double)i, recv[i] = 0;
  int peer = 1 - rank;
  double sink = 0;
  if (rank == 0) {
    printf("exchange of B bytes both ways between 2 ranks (Irecv, Isend, Waitall after a barrier), %d samples each\n",
           samples);
    printf("hot: back to back, as calibrate times it; after F: each rank first streamed F bytes of its own\n\n");
    printf("%10s %12s | %12s %12s | %12s %12s | %s\n", "B", "after F", "median us", "min us", "hot median",
           "hot min", "median / hot");
  }
  for (int f = 0; f < nfoot; f++) {
    size_t n = (size_t)footprints[f] / 2 / sizeof(double);
    for (int s = 0; s < nsizes; s++) {
      int count = (int)(sizes[s] / 8);
      for (int k = 0; k < samples; k++) {
        hot[k] = exchange(send, recv, count, peer);
        for (size_t i = 0; i < n; i++) b[i] = 2.0 * a[i] + b[i];
        send[k % count] += 1.0; /* the sender writes its face, as a pack does */
        cold[k] = exchange(send, recv, count, peer);
        sink += recv[0] + b[k];
      }
      double hm = median_of(hot, samples), cm = median_of(cold, samples);
      if (rank == 0)
        printf("%10ld %9ld KiB | %12.2f %12.2f | %12.2f %12.2f | %.2fx\n", sizes[s], footprints[f] >> 10, 1e6 * cm,
               1e6 * cold[0], 1e6 * hm, 1e6 * hot[0], cm / hm);
    }
  }
  if (sink == -1) printf("%g\n", sink); /* keeps the stream and the exchanges from being optimised away */
  free(send), free(recv), free(a), free(b), free(hot), free(cold);
  MPI_Finalize();
  return 0;
}
