// Loops and memory calls of the C++ library's templates (headers under
// /usr), which the optimised code inlines into the program's functions:
// `std::fill` of a value other than 0 is `__fill_a1`'s loop, `std::copy` of a
// trivially copyable type `__copy_m`'s memmove, one line for every type. This
// unit instantiates them for doubles (in `refill` and `copy_doubles`), the
// other, library_loops_ints.cpp, for ints: the instances share their lines
// across the two modules. The lengths are read from memory: n and n / 2 at
// n = 4000 for the doubles, each once a step, n / 4 for the ints. A probe
// run measures each instance apart: 3000 trips a fill of doubles and 1000 of
// ints, 8 x 3000 = 24000 bytes a copy of doubles and 4 x 1000 = 4000 of ints.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

void fill_and_copy_ints(int *a, int *b, const int *len);  // library_loops_ints.cpp

__attribute__((noinline)) void refill(double *x, const int *len, int row, double v) {
  std::fill(x, x + len[row], v);
}

__attribute__((noinline)) void copy_doubles(const double *x, double *y, const int *len, int row) {
  std::copy(x, x + len[row], y);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 3;
  double *x = new double[n], *y = new double[n];
  int *a = new int[n], *b = new int[n];
  int len[4] = {0, n, n / 2, n / 4};
  double sum = 0;
  for (int step = 0; step < steps; step++) {
    refill(x, len, 1, 1.5);
    copy_doubles(x, y, len, 1);
    sum += y[n - 1];
    refill(x, len, 2, 2.5);
    copy_doubles(x, y, len, 2);
    fill_and_copy_ints(a, b, len);
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
