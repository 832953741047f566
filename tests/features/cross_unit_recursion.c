// A multigrid set-up in the shape of a solver library's (hypre's
// BoomerAMGSetup): each call sets up one level, then hands the next level to a
// coarse solver defined in another source file (cross_unit_coarse.c), which
// sets it up by calling `setup` again: a cycle of calls across two files.
// Each level weighs its n elements (2 flops each). The set-up is not inlined
// into main, as a library's set-up, too large to be, is not.
// `cross_unit_recursion N LEVELS SETUPS`: SETUPS set-ups of LEVELS levels.
#include <mpi.h>
#include <stdlib.h>

void coarse_solver(const double* v, int n, int level, int levels);

double weighed = 0;

__attribute__((noinline)) void setup(const double* v, int n, int level, int levels) {
  double sum = 0;
  for (int i = 0; i < n; i++) sum += v[i] * 0.5;
  weighed += sum;
  if (level + 1 < levels) coarse_solver(v, n, level + 1, levels);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  int levels = argc > 2 ? atoi(argv[2]) : 4;
  int setups = argc > 3 ? atoi(argv[3]) : 3;
  double* v = malloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n; i++) v[i] = i % 7;
  for (int s = 0; s < setups; s++) setup(v, n, 0, levels);
  double total = 0;
  MPI_Reduce(&weighed, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  free(v);
  MPI_Finalize();
  return 0;
}
