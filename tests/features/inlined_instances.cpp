// A function template whose instances are each inlined into a caller of
// their own: the optimised code the analyser reads has each instance's loop
// in its caller (`sum_rows`, `sum_half_rows`), while the feature probes, placed
// before inlining, record each loop under its instance (`add<1>`, `add<2>`,
// one source line). A probe run binds each instance's trips, n and n / 2 at
// n = 4000, to the caller's loop the instance was inlined into.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

template <int SCALE>
inline double add(const double *x, const int *len, int row) {
  double s = 0;
  for (int k = 0; k < len[row]; k++) s += SCALE * x[k];
  return s;
}

__attribute__((noinline)) double sum_rows(const double *x, const int *len) { return add<1>(x, len, 1); }
__attribute__((noinline)) double sum_half_rows(const double *x, const int *len) { return add<2>(x, len, 2); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 3;
  double *x = new double[n];
  for (int i = 0; i < n; i++) x[i] = i % 4;
  int len[3] = {0, n, n / 2};
  double sum = 0;
  for (int step = 0; step < steps; step++) sum += sum_rows(x, len) + sum_half_rows(x, len);
  std::printf("%g\n", sum);
  delete[] x;
  MPI_Finalize();
  return 0;
}
