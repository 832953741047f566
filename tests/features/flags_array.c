/* A flag a caller hands over in a local array (`int flags[4]; flags[0] =
 * periodic[s]; pack(n, x, buf, flags);`, a halo swap's periodic-boundary
 * flag), which the callee tests on entry (`if (flags[0] == 0)`): the value
 * the callee finds at the address is element 0 of a variable of the caller.
 * `flags_array N NSWAP MASK`: NSWAP swaps of N values, those whose bit is
 * set in MASK periodic, 2 flops a value. */
#include <mpi.h>
#include <stdlib.h>

__attribute__((noinline)) void pack(int n, const double *x, double *buf, const int *flags) {
  if (flags[0] == 0) {
    for (int i = 0; i < n; ++i) buf[i] = x[i];
  } else {
    for (int i = 0; i < n; ++i) buf[i] = x[i] * 2.5 + 1.0;
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 100, nswap = argc > 2 ? atoi(argv[2]) : 6;
  const int mask = argc > 3 ? atoi(argv[3]) : 9;
  double *x = calloc((size_t)n, sizeof(double)), *buf = malloc(sizeof(double) * (size_t)n);
  int *periodic = malloc(sizeof(int) * (size_t)nswap);
  for (int s = 0; s < nswap; ++s) periodic[s] = (mask >> s) & 1;
  int flags[4];
  double total = 0;
  for (int s = 0; s < nswap; ++s) {
    flags[0] = periodic[s];
    pack(n, x, buf, flags); /* marker: pack */
    total += buf[n - 1];
  }
  double all;
  MPI_Reduce(&total, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
