/* A sum whose address went to MPI in the step before: the compiler keeps
 * storing it to memory each iteration (a store of the stack variable in the
 * IR and in the machine code alike; the sum itself stays in a register).
 * Counted once per element: 16 bytes of a and b loaded, 8 of the sum stored. */
#include <mpi.h>
#include <stdlib.h>

int n, steps;
double *a, *b;

__attribute__((noinline)) void setup(char **argv) {
  n = atoi(argv[1]);
  steps = atoi(argv[2]);
  a = calloc((size_t)n, sizeof(double));
  b = calloc((size_t)n, sizeof(double));
}

int main(int argc, char **argv) {
  double local = 0, global;
  MPI_Init(&argc, &argv);
  setup(argv);
  for (int s = 0; s < steps; s++) {
    local = 0;
    for (int i = 0; i < n; i++) local += a[i] * b[i];
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
