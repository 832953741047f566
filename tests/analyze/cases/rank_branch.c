/* A branch on the rank: only rank 0 runs the loop, a global bounds it. */
#include <mpi.h>
#include <stdlib.h>

int n;
double *v;

__attribute__((noinline)) void setup(char **argv) {
  n = atoi(argv[1]);
  v = calloc((size_t)n, sizeof(double));
}

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  setup(argv);
  if (rank == 0)
    for (int i = 0; i < n; i++) v[i] = v[i] * 0.5;
  MPI_Finalize();
  return 0;
}
