// A smoother picked per level by a chain of tests on a value read from data
// (a multigrid cycle's `relax_type`): the optimiser makes the chain one switch
// whose value the analyser cannot state, so each case is a guess that the
// probes' counts of the chain's tests at their own lines price. Inside one
// case, a two-test condition whose `else` starts with a test of a constant
// the optimiser folds (`thread_count() == 1`): the optimised code's side
// starts a line further than the probes' side does.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) double smooth_a(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += x[i] * 1.5;
  return s;
}
__attribute__((noinline)) double smooth_b(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += x[i] * x[i] + 2.0;
  return s;
}
__attribute__((noinline)) double smooth_c(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += x[i] / 3.0 - 1.0;
  return s;
}
__attribute__((noinline)) double solve_coarse(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += x[i] * x[i] * x[i];
  return s;
}
__attribute__((noinline)) double smooth_points(const double* x, int n, int points) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += x[i] * points;
  return s;
}

static int thread_count(void) { return 1; }

// dispatch_chain LEVELS N ORDER CYCLE
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int levels = argc > 1 ? atoi(argv[1]) : 6, n = argc > 2 ? atoi(argv[2]) : 1000;
  int order = argc > 3 ? atoi(argv[3]) : 0, cycle = argc > 4 ? atoi(argv[4]) : 1;
  int* kind = malloc(sizeof(int) * levels);
  for (int l = 0; l < levels; ++l) kind[l] = l == levels - 1 ? 9 : (l % 3 == 0 ? 3 : 18);
  double* x = calloc(n, sizeof(double));
  double s = 0;
  for (int l = 0; l < levels; ++l) {
    int t = kind[l];
    if (t == 9 || t == 99) {  // marker: chain
      s += solve_coarse(x, n);
    } else if (t == 18) {
      if (order == 1 && cycle < 3) {  // marker: two_tests
        int points[2];
        if (cycle < 2) {
          points[0] = 1;
          points[1] = -1;
        } else {
          points[0] = -1;
          points[1] = 1;
        }
        for (int i = 0; i < 2; i++) s += smooth_points(x, n, points[i]);
      } else {
        if (thread_count() == 1)
          s += smooth_b(x, n);
        else
          s += smooth_c(x, n);
      }
    } else if (t == 16) {
      s += smooth_c(x, n);
    } else if (t == 17) {
      s += smooth_c(x, n / 2);
    } else {
      s += smooth_a(x, n);
    }
  }
  printf("%g\n", s);
  free(x);
  free(kind);
  MPI_Finalize();
  return 0;
}
