/* A size check that ends the program with exit() (noreturn: `unreachable`
 * follows the call) before the real work, which a function does: the work is
 * counted in full, k * n points of 2 flops and one allreduce, as it is with
 * the loops in main (-DINLINE_WORK). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int n, k;
double *v;

__attribute__((noinline)) void setup(char **argv) {
  n = atoi(argv[1]);
  k = atoi(argv[2]);
}

#ifdef INLINE_WORK
static inline
#else
__attribute__((noinline))
#endif
void solve(void) {
  double total;
  v = calloc((size_t)n, sizeof(double));
  for (int s = 0; s < k; s++)
    for (int i = 0; i < n; i++) v[i] = v[i] * 0.5 + 1.0;
  MPI_Allreduce(&v[0], &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 128) {
    if (rank == 0) fprintf(stderr, "exit_guard: at most 128 ranks\n");
    MPI_Finalize();
    exit(1);
  }
  setup(argv);
  solve();
  MPI_Finalize();
  return 0;
}
