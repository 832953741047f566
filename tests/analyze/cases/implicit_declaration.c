/* Pre-C99 style that GCC builds with a warning and clang 16+ rejects by
 * default: main calls `work` before any declaration of it. */
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? 1000 : 10;
  int r = work(n);
  MPI_Allreduce(MPI_IN_PLACE, &r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return r == 0;
}

int work(int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += i * 0.5;
  return (int)s;
}
