// A conditional update in a loop, in the shape of a periodic wrap of
// coordinates: `if (x[i] < 0) x[i] += box`. clang -O2 vectorises it, its
// stores masked: each lane's test becomes a branch around a store, whose
// blocks carry the loop's line or the update's, so the lines the sides start
// at say nothing of which side is the update; the side that does nothing
// does. `masked_update N`: three passes over N coordinates, half of them
// negative before the first: N / 2 adds, all in the first pass.
#include <mpi.h>
#include <stdlib.h>

__attribute__((noinline)) static void wrap(double* x, int n, double box) {
  for (int i = 0; i < n; i++)
    if (x[i] < 0.0) x[i] += box;  // marker: update
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? atoi(argv[1]) : 600;
  double* x = malloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n; i++) x[i] = i % 2 ? -1.0 : 1.0;
  for (int pass = 0; pass < 3; pass++) wrap(x, n, 10.0);
  free(x);
  MPI_Finalize();
  return 0;
}
