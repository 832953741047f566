/* A small MPI program for the corpus driver's end-to-end test: each rank updates its share of
 * a vector for a number of steps and sums it over the ranks once a step, and times the steps. argv: n steps. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  int steps = argc > 2 ? atoi(argv[2]) : 10;
  int local = n / size;
  double* x = malloc((size_t)local * sizeof(double));
  for (int i = 0; i < local; ++i) x[i] = rank + i * 1e-3;
  double total = 0;
  double started = MPI_Wtime();
  for (int s = 0; s < steps; ++s) {
    double sum = 0;
    for (int i = 0; i < local; ++i) {
      x[i] = 0.5 * x[i] + 1.0;
      sum += x[i] * x[i];
    }
    double global = 0;
    MPI_Allreduce(&sum, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    total += global;
  }
  if (rank == 0) printf("%.6g\nsteps took %.9f s\n", total, MPI_Wtime() - started);
  free(x);
  MPI_Finalize();
  return 0;
}
