// A loop of the C++ library's templates (headers under /usr): `std::fill` of
// a value other than 0 is `__fill_a1`'s loop, which the optimised code
// inlines into `refill`. Its trips are the length the caller reads from
// memory, n and n / 2 at n = 4000, each once a step: a probe run measures the
// loop in the library's code as in the program's own, 3000 trips a call.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

__attribute__((noinline)) void refill(double *x, const int *len, int row, double v) {
  std::fill(x, x + len[row], v);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 3;
  double *x = new double[n];
  int len[3] = {0, n, n / 2};
  double sum = 0;
  for (int step = 0; step < steps; step++) {
    refill(x, len, 1, 1.5);
    sum += x[n - 1];
    refill(x, len, 2, 2.5);
    sum += x[0];
  }
  std::printf("%g\n", sum);
  delete[] x;
  MPI_Finalize();
  return 0;
}
