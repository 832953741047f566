/* Vectorised loops of n - 1 and n - 4 iterations. The vector body's count,
 * (W * ((n - 1) div W) - W) udiv W, is negative before its udiv where n - 1 <
 * W: read unsigned it is near 2^62 trips, at sizes where the vectoriser's
 * minimum-iterations check skips the body. main calls both with n from the
 * command line: 2 (n - 1) + max(n - 4, 0) flops for n >= 1. */
#include <mpi.h>
#include <stdlib.h>

__attribute__((noinline)) void shift_axpy(long n, double a, const double *restrict x, double *restrict y) {
  for (long i = 1; i < n; i++) y[i] += a * x[i - 1];
}

__attribute__((noinline)) void tail_scale(int n, double a, double *restrict y) {
  for (int i = 4; i < n; i++) y[i] *= a;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = atoi(argv[1]);
  double *x = calloc((size_t)n + 8, sizeof(double)), *y = calloc((size_t)n + 8, sizeof(double));
  shift_axpy(n, 2.0, x, y);
  tail_scale(n, 3.0, y);
  MPI_Finalize();
  return (int)y[0];
}
