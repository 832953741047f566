// One callee called on both sides of a test on a value read from data, with
// a different constant flag (hypre's coarsening seeding its measures with
// random numbers or not): the optimiser merges the two calls into one call
// without a line whose flag it selects, which the analyser cannot state. The
// probes count the two source calls at their lines.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) double init_measures(double* x, int n, int seq) {
  double s = 0;
  if (seq)
    for (int i = 0; i < n; ++i) s += x[i] * 2.0 + 1.0;
  for (int i = 0; i < n; ++i) s += x[i];
  return s;
}

__attribute__((noinline)) double coarsen(double* x, int n, int mode) {
  double s;
  if (mode == 2 || mode == 4)
    s = init_measures(x, n, 1);
  else
    s = init_measures(x, n, 0);
  return s;
}

// merged_calls N MODE: every coarsening in MODE (2 or 4 seed the measures)
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 100;
  int* modes = malloc(sizeof(int) * 4);
  for (int k = 0; k < 4; ++k) modes[k] = argc > 2 ? atoi(argv[2]) : 0;
  double* x = calloc(n, sizeof(double));
  double s = 0;
  for (int k = 0; k < 4; ++k) s += coarsen(x, n, modes[k]);
  printf("%g\n", s);
  MPI_Finalize();
  return 0;
}
