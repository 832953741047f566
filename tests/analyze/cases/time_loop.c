/* A time loop bounded by a global with MPI calls inside: its trip count is
 * `steps` only because the analyser tells LLVM that MPI calls do not write globals. */
#include <mpi.h>
#include <stdlib.h>

int steps, n;

__attribute__((noinline)) void setup(char **argv) {
  steps = atoi(argv[1]);
  n = atoi(argv[2]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  setup(argv);
  double *u = calloc((size_t)n, sizeof(double));
  double sum = 0, total;
  for (int s = 0; s < steps; s++) {
    for (int i = 0; i < n; i++) sum += u[i] * u[i];
    MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return (int)total;
}
