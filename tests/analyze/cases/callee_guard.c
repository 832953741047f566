/* A check inside a called function that returns 1 early, the caller then
 * finalising and returning, before the work a function does: the work is
 * counted in full (k * n points of 2 flops and one allreduce). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int n, k;
double *v;

__attribute__((noinline)) static int setup(int size, char **argv) {
  if (size > 128) {
    fprintf(stderr, "callee_guard: at most 128 ranks\n");
    return 1;
  }
  n = atoi(argv[1]);
  k = atoi(argv[2]);
  return 0;
}

__attribute__((noinline)) void solve(void) {
  double total;
  v = calloc((size_t)n, sizeof(double));
  for (int s = 0; s < k; s++)
    for (int i = 0; i < n; i++) v[i] = v[i] * 0.5 + 1.0;
  MPI_Allreduce(&v[0], &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  int size;
  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (setup(size, argv)) {
    MPI_Finalize();
    return 1;
  }
  solve();
  MPI_Finalize();
  return 0;
}
