// Loops and memory calls of the C++ library's templates (headers under
// /usr), which the optimised code inlines into the program's functions:
// `std::fill` of a value other than 0 is `__fill_a1`'s loop (in `refill`),
// `std::copy` of a trivially copyable type `__copy_m`'s memmove, one line for
// every type (in `copy_doubles` and `copy_ints`, instances `__copy_m<double>`
// and `__copy_m<int>`). The lengths are read from memory: n and n / 2 at
// n = 4000 for the doubles, each once a step, n / 4 for the ints. A probe run
// measures them in the library's code as in the program's own: 3000 trips a
// fill, 8 x 3000 = 24000 bytes a copy of doubles, 4 x 1000 = 4000 of ints.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

__attribute__((noinline)) void refill(double *x, const int *len, int row, double v) {
  std::fill(x, x + len[row], v);
}

__attribute__((noinline)) void copy_doubles(const double *x, double *y, const int *len, int row) {
  std::copy(x, x + len[row], y);
}

__attribute__((noinline)) void copy_ints(const int *a, int *b, const int *len) { std::copy(a, a + len[3], b); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 3;
  double *x = new double[n], *y = new double[n];
  int *a = new int[n](), *b = new int[n];
  int len[4] = {0, n, n / 2, n / 4};
  double sum = 0;
  for (int step = 0; step < steps; step++) {
    refill(x, len, 1, 1.5);
    copy_doubles(x, y, len, 1);
    sum += y[n - 1];
    refill(x, len, 2, 2.5);
    copy_doubles(x, y, len, 2);
    copy_ints(a, b, len);
    sum += y[0] + b[0];
  }
  std::printf("%g\n", sum);
  delete[] b;
  delete[] a;
  delete[] y;
  delete[] x;
  MPI_Finalize();
  return 0;
}
