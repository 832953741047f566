/* A count set to 0 and then, on more than one process only, written by a
 * call of another unit handed its address (`full = 0; if (nprocs > 1)
 * exchange(n, &full);`), read once more calls of that unit have run: the
 * optimised code keeps it in memory (any of them may write it, for all this
 * unit knows) and reads it there, after both writes, which is what the
 * kernel is given: 0 on one process and the call's on more; the pooled
 * assignments of both are neither. Tested before the kernel, it is read
 * again on the side that calls once more, and known 0 on the other: the
 * kernel is given a merge of that read and 0. `written_memory N`: five scalings of N
 * values and five of 2 N on more than one process, 1 flop each.
 * written_memory_exchange.c holds the other unit's functions. */
#include <mpi.h>
#include <stdlib.h>

void exchange(int n, int *count);
void note(double *v);

__attribute__((noinline)) void scale(int n, double *v) {
  for (int i = 0; i < n; ++i) v[i] = 2.0 * v[i];
}

__attribute__((noinline)) void gather(int nprocs, int n, double *buf) {
  int full = 0;
  if (nprocs > 1) exchange(n, &full);
  note(buf);
  if (full) note(buf); /* marker: test */
  scale(full, buf);    /* marker: read */
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
