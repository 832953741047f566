// A loop whose guard reads a bound set at two places, in the shape of a
// lattice generator's walk up to its box's top row: `khi` from the box's
// height, then clamped to the grid; `while (oz * 8 <= khi)`, left early on
// the data. The loop's trips are the run's; its guard, `khi < 0` in the
// optimised code, reads a value the run saw assigned twice (the mean is no
// one place's value): the loop ran, so its guard's side that runs it is taken.
// `guard_reach N ZHI`: rows up to ZHI over a half cell of 0.8, at most 2 N - 1,
// 2 flops each.
#include <mpi.h>
#include <stdlib.h>

__attribute__((noinline)) static int rows(int n, double zhi, double* out) {
  int khi = (int)(zhi / 0.8 + 1);
  khi = khi < 2 * n - 1 ? khi : 2 * n - 1;
  int oz = 0;
  while (oz * 8 <= khi) {  // marker: rows
    out[oz % 64] += 0.5 * oz;
    if (out[0] > 1e300) break;
    oz++;
  }
  return oz;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? atoi(argv[1]) : 40;
  const double zhi = argc > 2 ? atof(argv[2]) : 50.0;
  double* out = calloc(64, sizeof(double));
  int total = 0;
  for (int call = 0; call < 3; call++) total += rows(n, zhi + call, out);
  free(out);
  MPI_Finalize();
  return total > 0 ? 0 : 1;
}
