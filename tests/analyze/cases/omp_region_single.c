// A parallel region with two worksharing loops and a `single` between them:
// 2 flops per element (0.5 * i + 1), 2 once (one thread of the team), then
// 1 per element: 3n + 2 over all threads.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  double* x = malloc(n * sizeof(double));
  double scale = 1;
#pragma omp parallel
  {
#pragma omp for
    for (int i = 0; i < n; ++i) x[i] = 0.5 * i + 1.0;
#pragma omp single
    scale = x[0] * 3.0 + x[n - 1];
#pragma omp for
    for (int i = 0; i < n; ++i) x[i] = x[i] * scale;
  }
  printf("%g\n", x[n / 2]);
  MPI_Finalize();
  return 0;
}
