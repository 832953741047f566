/* A run worth stopping early: its main loop's trip count is the first
 * argument, read right after MPI_Init, and each step does the same work and
 * one allreduce, so its run time grows with the steps while every feature
 * known at the start stays put. The early-stop test finds the lines of its
 * features by the marker comments. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long steps = atol(argc > 1 ? argv[1] : "10"); /* marker: steps */
  long n = 1000000;
  double* a = malloc((size_t)n * sizeof *a);
  for (long i = 0; i < n; ++i) a[i] = (double)(i % 7);
  double total = 0;
  for (long s = 0; s < steps; ++s) { /* marker: main_loop */
    double local = 0;
    for (long i = 0; i < n; ++i) {
      a[i] = a[i] * 0.999 + 1.0;
      local += a[i];
    }
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  if (rank == 0) printf("total %g\n", total);
  free(a);
  MPI_Finalize();
  return 0;
}
