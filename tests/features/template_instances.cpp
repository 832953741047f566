// One loop and one branch in a function template, instantiated twice: the
// feature probes name both instances' loops `template_instances.cpp:L:loop`
// and `loop#2` (one source line), and record which instance each is, so a
// probe run binds each instance's trips and taken fraction to the model's
// function of that instance. Per step, `sweep<1>` runs over n elements and
// `sweep<2>` over n / 2, each with a cutoff test true for 3 elements in 4:
// 2 flops for each of those in sweep<1> (x * x, the sum), 3 in sweep<2>
// (2 * x * x, the sum).
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

template <int SCALE>
__attribute__((noinline)) double sweep(const double *x, double *out, const int *len, int row) {
  double s = 0;
  for (int k = 0; k < len[row]; k++) {
    if (x[k] < 0.75) {
      out[k] = SCALE * x[k] * x[k];
      s += out[k];
    }
  }
  return s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 3;
  double *x = new double[n];
  double *out = new double[n];
  for (int i = 0; i < n; i++) x[i] = (i % 4) * 0.25;  // 0, 0.25, 0.5, 0.75: 3 in 4 below the cutoff
  int len[2] = {n, n / 2};
  double sum = 0;
  for (int step = 0; step < steps; step++) sum += sweep<1>(x, out, len, 0) + sweep<2>(x, out, len, 1);
  std::printf("%g\n", sum);
  delete[] out;
  delete[] x;
  MPI_Finalize();
  return 0;
}
