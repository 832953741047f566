// A sum reduced over an OpenMP team: 2 flops per element (a multiply-add),
// and each thread adds its partial sum into the shared one: 2n + threads
// (0 when n = 0: the loop and its reduction are skipped).
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  double* x = malloc(n * sizeof(double));
  for (int i = 0; i < n; ++i) x[i] = 0.5;
  double sum = 0;
#pragma omp parallel for reduction(+ : sum)
  for (int i = 0; i < n; ++i) sum += x[i] * x[i];
  printf("%g\n", sum);
  MPI_Finalize();
  return 0;
}
