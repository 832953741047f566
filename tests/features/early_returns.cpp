// A report whose early returns test several conditions on one line each
// (`if (step > 0 && step % every) return;`): the work after them is reached
// on some paths only, as a statistics routine called every step that reports
// every `every` steps. report() runs for steps 0..steps and once more at -1;
// it is reached at step 0, at the multiples of `every` and at -1 when `steps`
// is no multiple of `every`: 2 flops an element each time.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

struct Stats {
  int every = 1;
  int calls = 0;
  double sum = 0;
};

__attribute__((noinline)) void report(int step, Stats &s, const double *v, int n) {
  if (step > 0 && step % s.every) return;
  if (step == -1 && s.every > 0 && s.calls % s.every == 0) return;
  double t = 0;
  for (int i = 0; i < n; i++) t += v[i] * v[i];
  s.sum += t;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 20;
  Stats s;
  s.every = argc > 3 ? std::atoi(argv[3]) : 8;
  double *v = new double[n];
  for (int i = 0; i < n; i++) v[i] = 1.0;
  report(0, s, v, n);
  for (int step = 1; step <= steps; step++) {
    s.calls++;
    report(step, s, v, n);
  }
  report(-1, s, v, n);
  std::printf("%g\n", s.sum);
  delete[] v;
  MPI_Finalize();
  return 0;
}
