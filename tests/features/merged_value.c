// Locals assigned at two places and read after the merge: `next = reach / 3;
// if (next * 3 < reach) next++;`, which the optimiser makes one value (the
// first plus the test's outcome), and `start = -next; if (half) { start = 0;
// ... }`, a test of data whose branch does more than the assignment, so the
// merge stays a phi the analyser cannot follow. The model reads the merged
// values, which the probes measure at the reads after them.
#include <mpi.h>
#include <stdlib.h>

__attribute__((noinline)) double stencil(const double* u, int n, const int* reach_of, int which, int* halves) {
  int next = reach_of[which] / 3;
  if (next * 3 < reach_of[which]) next++;
  int start = -next;
  if (reach_of[which + 4]) {
    start = 0;
    ++*halves;
  }
  double s = 0;
  for (int k = start; k <= next; ++k)
    for (int i = 0; i < n; ++i) s += u[i] * (double)k;
  return s;
}

// merged_value N REACH: 10 steps, reach REACH..REACH+3 by turns, every other one half
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? atoi(argv[1]) : 100, reach = argc > 2 ? atoi(argv[2]) : 3;
  // Each turn's reach, then whether that turn is half.
  int* reach_of = malloc(8 * sizeof *reach_of);
  for (int w = 0; w < 4; ++w) reach_of[w] = reach + w, reach_of[w + 4] = w % 2;
  double* u = calloc((size_t)n, sizeof(double));
  double s = 0;
  int halves = 0;
  for (int step = 0; step < 10; ++step) s += stencil(u, n, reach_of, step % 4, &halves);
  MPI_Finalize();
  return s > 1 || halves < 0;
}
