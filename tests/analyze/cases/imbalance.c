/* Load imbalance on one node: rank 0 streams through an array while the
 * other ranks wait at a barrier; built with -DBALANCED, every rank streams
 * through its own. The rank is read before the barrier (a copy MPI cannot
 * change), so a waiting rank does no work between the two barriers. */
#include <mpi.h>
#include <stdlib.h>

__attribute__((noinline)) double stream(long n, const double *a) {
  double sum = 0;
  for (long i = 0; i < n; i++) sum += a[i];
  return sum;
}

int main(int argc, char **argv) {
  int comm_rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &comm_rank);
  const int rank = comm_rank;
  long n = atol(argv[1]);
  double *a = calloc((size_t)n, sizeof(double));
  double sum = 0;
  MPI_Barrier(MPI_COMM_WORLD);
#ifndef BALANCED
  if (rank == 0)
#endif
    sum = stream(n, a);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  free(a);
  return sum > 0;
}
