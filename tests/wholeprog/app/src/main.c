/* The program: set-up, the solver's sweeps, the halo exchange, a report. */
#include <mpi.h>
#include <stdlib.h>

#include "app.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  double* u = calloc((size_t)n + 2, sizeof(double));
  double* v = calloc((size_t)n + 2, sizeof(double));
  solve(u, v, n);
  exchange(u, n, rank, size);
  report(u, n, rank);
  free(u);
  free(v);
  MPI_Finalize();
  return 0;
}
