/* cg's kernels one by one, in cg's own code (apps/cg/cg.c is included, so the
 * compiler sees the same functions), to check the static model loop by loop
 * rather than only the whole solve (bench/cg_kernels.py drives it).
 *
 * Every rank times blocks of K calls of one kernel; the kernels take turns
 * block by block, `rounds` times, so each sees the same moments of a noisy
 * host. Per kernel it prints one JSON line: per-call fastest and median over
 * the rounds, the slowest rank's. The whole solve (cg_solve, K iterations)
 * takes its turn too: its time against the sum of its parts shows what the
 * parts miss (caches shared between kernels, synchronisation).
 *
 *   mpirun -n R ./cg_kernels N K ROUNDS */
#define main cg_app_main
#include "../../apps/cg/cg.c"
#undef main

enum { SPMV, DOT, AXPY, HALO, ALLREDUCE, SOLVE, KERNELS };
static const char *const kernel_names[KERNELS] = {"spmv", "dot", "axpy", "halo", "allreduce", "solve"};

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  int rank, size, n, K, rounds, round, kernel, k, i;
  Options o;
  Problem p;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 4 || (n = atoi(argv[1])) < 2 || (K = atoi(argv[2])) < 1 || (rounds = atoi(argv[3])) < 1) {
    if (rank == 0) fprintf(stderr, "usage: %s N (grid, >= 2) K (calls per block, >= 1) ROUNDS (>= 1)\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  memset(&o, 0, sizeof o);
  o.nx = o.ny = o.nz = n;
  o.iters = K;
  o.dot = DOT_ORDERED;
  if (n < size || setup(&p, &o, rank, size)) {
    if (rank == 0) fprintf(stderr, "%s: cannot set up n = %d on %d ranks (nz >= ranks; memory)\n", argv[0], n, size);
    MPI_Finalize();
    return 2;
  }
  double *pe = calloc(p.next, sizeof(double)), *q = calloc(p.nloc, sizeof(double));
  double *x = calloc(p.nloc, sizeof(double)), *r = calloc(p.nloc, sizeof(double));
  double *b = calloc(p.nloc, sizeof(double)), *part = calloc(2 * (size_t)p.nz, sizeof(double));
  double *sum = calloc(2 * (size_t)p.nz, sizeof(double)), *times = calloc((size_t)KERNELS * rounds, sizeof(double));
  double *pp = pe + p.plane, sink = 0;
  if (!pe || !q || !x || !r || !b || !part || !sum || !times) {
    fprintf(stderr, "%s: out of memory\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  /* Values away from zero and denormals: the kernels' time does not depend on them. */
  for (i = 0; i < p.next; i++) pe[i] = 1.0 + 1e-3 * (i % 17);
  for (i = 0; i < p.nloc; i++) q[i] = 0.5 + 1e-3 * (i % 13), b[i] = 1.0;
  for (round = 0; round < rounds; round++) {
    for (kernel = 0; kernel < KERNELS; kernel++) {
      double t0;
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
      if (kernel == SOLVE) {
        SolveResult s = cg_solve(&p, &o, b, NULL, x, r, r, pe, q, part, sum);
        sink += s.rr_last;
      } else {
        for (k = 0; k < K; k++) {
          if (kernel == SPMV) {
            spmv(&p, pe, q);
          } else if (kernel == DOT) { /* dots()'s per-plane partials, without its allreduce */
            int z;
            for (z = 0; z < p.nzl; z++) {
              const double *a = pp + (size_t)z * p.plane, *c = q + (size_t)z * p.plane;
              double s = 0.0;
              for (i = 0; i < p.plane; i++) s += a[i] * c[i];
              part[p.z0 + z] = s;
            }
          } else if (kernel == AXPY) {
            double alpha = k & 1 ? 1e-9 : -1e-9;
            for (i = 0; i < p.nloc; i++) x[i] += alpha * pp[i];
          } else if (kernel == HALO) {
            halo_exchange(&p, pe);
          } else {
            MPI_Allreduce(part, sum, p.nz, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
          }
        }
      }
      times[kernel * rounds + round] = (MPI_Wtime() - t0) / K;
      sink += q[rank % p.nloc] + x[0] + sum[0];
    }
  }
  for (kernel = 0; kernel < KERNELS; kernel++) {
    double *t = times + (size_t)kernel * rounds, mine[2], slowest[2];
    qsort(t, rounds, sizeof(double), by_value);
    mine[0] = t[0];
    mine[1] = rounds % 2 ? t[rounds / 2] : 0.5 * (t[rounds / 2 - 1] + t[rounds / 2]);
    MPI_Reduce(mine, slowest, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
      printf("{\"kernel\":\"%s\",\"ranks\":%d,\"n\":%d,\"calls\":%d,\"rounds\":%d,\"fastest_s\":%.9g,\"median_s\":%.9g}\n",
             kernel_names[kernel], size, n, K, rounds, slowest[0], slowest[1]);
  }
  if (rank == 0) fprintf(stderr, "(checksum %g)\n", sink);
  free(pe); free(q); free(x); free(r); free(b); free(part); free(sum); free(times);
  free(p.rowptr); free(p.col); free(p.val);
  MPI_Finalize();
  return 0;
}
