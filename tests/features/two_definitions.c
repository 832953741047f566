// A variable assigned at two places with values that varied (`lo`, from one
// of two bounds the data holds), then tested (`if (lo > n / 2)`): the probes
// cannot tell which assignment the test reads, but they counted the test.
#include <mpi.h>
#include <stdlib.h>

__attribute__((noinline)) void pass(const int* bounds, int wide, double* v, int n) {
  int lo = bounds[0];
  if (wide) lo = bounds[1];
  if (lo > n / 2)
    for (int i = 0; i < n; ++i) v[i] = v[i] * 0.5 + 1.0;
}

// two_definitions N: three passes, the second over the wide bound
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? atoi(argv[1]) : 100;
  int* bounds = malloc(2 * sizeof(int));
  bounds[0] = n / 4;
  bounds[1] = 3 * n / 4;
  double* v = calloc((size_t)n, sizeof(double));
  for (int k = 0; k < 3; ++k) pass(bounds, k == 1, v, n);
  MPI_Finalize();
  return v[0] > 1;
}
