/* A size checked before use, as a library checks its arguments: `create`
 * returns at once for a negative size (`if (global < 0)`, which no call
 * fails), then scales a block of the caller's size. Each level's size comes
 * from a table the program fills at run time, a value the analyser reads
 * from memory, and the calls pass different ones: no one value of it
 * decides the test for every call, and the test is all the callee reads of
 * it. `checked_sizes N LEVELS`: LEVELS calls, 2 N flops each. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

struct level {
  int rows;
  double scale;
};

__attribute__((noinline)) int create(int global, double *v, int n) {
  if (global < 0) { /* marker: check */
    fprintf(stderr, "create: negative size %d\n", global);
    return 1;
  }
  for (int i = 0; i < n; ++i) v[i] = 2.0 * v[i] + 1.0;
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  int levels = argc > 2 ? atoi(argv[2]) : 4;
  struct level *table = malloc((size_t)levels * sizeof *table);
  for (int k = 0; k < levels; ++k) table[k].rows = n >> k;
  double *x = calloc((size_t)n, sizeof(double));
  int failed = 0;
  for (int k = 0; k < levels; ++k) failed += create(table[k].rows, x, n); /* marker: create */
  double local = x[0], total;
  MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  free(table);
  free(x);
  MPI_Finalize();
  return failed;
}
