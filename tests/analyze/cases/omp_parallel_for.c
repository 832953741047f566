// A loop shared by the threads of an OpenMP team: 3 flops per element
// (2.5 * x + y * y, one multiply-add and a multiply), 3n over all threads.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  double* x = malloc(n * sizeof(double));
  double* y = malloc(n * sizeof(double));
  for (int i = 0; i < n; ++i) x[i] = 0.5, y[i] = 1;
#pragma omp parallel for
  for (int i = 0; i < n; ++i) y[i] = 2.5 * x[i] + y[i] * y[i];
  printf("%g\n", y[n / 2]);
  MPI_Finalize();
  return 0;
}
