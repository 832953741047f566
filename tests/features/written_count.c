/* A count set to 0 and then, on more than one process only, written by a call
 * handed its address (`full = 0; if (nprocs > 1) exchange(n, &full);`), then
 * handed on to a kernel that other calls give other sizes: the read after
 * both is what the kernel is given, 0 on one process and the call's on more;
 * the pooled assignments of both are neither. `written_count N`: five scalings
 * of N values and five of 2 N on more than one process, 1 flop each. */
#include <mpi.h>
#include <stdlib.h>

__attribute__((noinline)) void exchange(int n, int *count) { *count = 2 * n; }

__attribute__((noinline)) void scale(int n, double *v) {
  for (int i = 0; i < n; ++i) v[i] = 2.0 * v[i];
}

__attribute__((noinline)) void gather(int nprocs, int n, double *buf) {
  int full = 0;
  if (nprocs > 1) exchange(n, &full);
  scale(full, buf); /* marker: read */
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 100, nprocs;
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  double *x = calloc((size_t)(2 * n), sizeof(double));
  for (int k = 0; k < 5; ++k) {
    scale(n, x);
    gather(nprocs, n, x);
  }
  double local = x[0], total;
  MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  free(x);
  MPI_Finalize();
  return 0;
}
