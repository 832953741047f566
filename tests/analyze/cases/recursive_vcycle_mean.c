/* A V-cycle that recurses on the next coarser level, as a multigrid's does:
 * a level of n elements smooths them, calls itself on n / 2 until n reaches
 * the coarsest size, then corrects its n elements from the coarser level's.
 * The smoothing is a Gauss-Seidel sweep (each element from the one before, as
 * HPCG's SYMGS: not vectorised). Each invocation's work is linear in its n,
 * which halves down the levels: `recursive_vcycle N CYCLES` with N = 1024 runs
 * levels 1024 ... 64, five invocations per cycle, the correction on the four
 * above the coarsest. */
#include <mpi.h>
#include <stdlib.h>

enum { kCoarsest = 64 };

void vcycle(double *x, long n) { /* marker: vcycle */
  for (long i = 1; i < n; ++i) x[i] = 0.5 * (x[i] + x[i - 1]);
  if (n > kCoarsest) {
    vcycle(x + n, n - n / 2); /* n / 2 on even n, but no one division: a mean invocation (recursive_vcycle.c) */
    for (long i = 0; i < n; ++i) x[i] += 0.25 * x[n + i / 2];
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  long n = argc > 1 ? atol(argv[1]) : 1024;
  int cycles = argc > 2 ? atoi(argv[2]) : 4;
  double *x = calloc((size_t)(2 * n), sizeof(double));
  double norm = 0.0;
  for (int c = 0; c < cycles; ++c) {
    vcycle(x, n);
    MPI_Allreduce(&x[0], &norm, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  free(x);
  MPI_Finalize();
  return norm < 0.0;
}
