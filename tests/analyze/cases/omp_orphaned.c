// An orphaned worksharing loop and `master` block: a function called both
// outside a parallel region (the initial thread runs the whole loop) and
// inside one (each thread takes its block; one thread makes the MPI call).
// 2 flops per element each time: 4n, and 2 allreduces per rank.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void __attribute__((noinline)) relax(double* x, int n) {
#pragma omp for
  for (int i = 0; i < n; ++i) x[i] = x[i] * 0.5 + 1.0;
#pragma omp master
  {
    double local = x[0], total = 0;
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    x[0] = total;
  }
#pragma omp barrier
}

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  double* x = calloc(n + 1, sizeof(double));
  relax(x, n);
#pragma omp parallel
  relax(x, n);
  printf("%g\n", x[n / 2]);
  MPI_Finalize();
  return 0;
}
