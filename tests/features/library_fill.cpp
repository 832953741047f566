// `std::fill` of zeros (`clear_doubles`, `clear_ints`: two instances of the C++
// library's `__fill_a1`, whose lines they share): the loop at the start of the
// pipeline stores the value it was handed, which the optimiser, once it has
// inlined the constant, makes a memset. A probe run measures each instance's
// loop apart: n doubles and n / 2 ints a call, 8 x n and 4 x n / 2 bytes.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

__attribute__((noinline)) void clear_doubles(double *x, const int *len, int row) {
  std::fill(x, x + len[row], 0.0);
}

__attribute__((noinline)) void clear_ints(int *a, const int *len, int row) {
  std::fill(a, a + len[row], 0);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 3;
  double *x = new double[n];
  int *a = new int[n];
  int len[3] = {0, n, n / 2};
  double sum = 0;
  for (int step = 0; step < steps; step++) {
    clear_doubles(x, len, 1);
    x[step % n] += step;
    clear_ints(a, len, 2);
    a[step % n] += step;
    for (int i = 0; i < n; i++) sum += x[i] + a[i];
  }
  std::printf("%g\n", sum);
  delete[] a;
  delete[] x;
  MPI_Finalize();
  return 0;
}
