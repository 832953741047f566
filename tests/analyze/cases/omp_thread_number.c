// Threads that split a loop themselves by their number, as hybrid codes
// written before worksharing did: 1 flop per element over all threads.
#include <mpi.h>
#include <stdio.h>
#include <omp.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  double* x = calloc(n, sizeof(double));
#pragma omp parallel
  {
    int t = omp_get_thread_num(), p = omp_get_num_threads();
    for (int i = t; i < n; i += p) x[i] = x[i] * 1.5;
  }
  printf("%g\n", x[n / 2]);
  MPI_Finalize();
  return 0;
}
