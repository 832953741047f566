// A count a loop increments, under a test of an argument: `found = 0; if
// (any) { found = 1; for (...) if (...) found++; } if (found) ...`. The
// optimiser copies the code after the test into each side, so the model's
// value of `found` is the loop's count alone, a merge of some assignments
// only, while the source's read after the test merges all three (0 on the
// other side): the mean of those reads is no value the model reads.
#include <mpi.h>
#include <stdlib.h>

__attribute__((noinline)) double gather(const int* cols, int n, int any, double* u) {
  int found = 0;
  if (any) {
    found = 1;
    int value = cols[0];
    for (int i = 1; i < n; ++i)
      if (cols[i] > value) {
        value = cols[i];
        u[found++] = value;
      }
  }
  double s = 0;
  if (found)
    for (int k = 0; k < found; ++k)
      for (int j = 0; j < 50; ++j) s += u[j] * (double)k;
  return s;
}

// split_merge N: four gathers of N columns, every other one with any set
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? atoi(argv[1]) : 100;
  int* cols = malloc((size_t)n * sizeof *cols);
  for (int i = 0; i < n; ++i) cols[i] = i / 7;
  double* u = calloc((size_t)n + 1, sizeof *u);
  double s = 0;
  for (int r = 0; r < 4; ++r) s += gather(cols, n, r % 2, u);
  MPI_Finalize();
  return s < 0;
}
