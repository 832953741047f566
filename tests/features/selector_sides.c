// A routine called in a loop whose local selector cycles through 1..4 and
// picks one of four sides, each doing different work, as CloverLeaf's
// advec_mom_kernel does with `mom_sweep = direction + 2*(sweep_number - 1)`
// (test ProbeRun.PricesTheTestsOfASelectorThatVariedByTheSidesThatRan).
// Over an odd number of steps, sides 1 and 4 run once more than 2 and 3:
// their mean, 2.5, would send every call to side 3. `tally` tests the same
// selector in a switch, whose sides the probes count.
#include <mpi.h>
#include <stdlib.h>

static int advect_x = 1;

__attribute__((noinline)) static void kernel(int direction, int sweep_number, int n, double* x) {
  int sel = direction + 2 * (sweep_number - 1);  // marker: sel
  if (sel == 1) {  // marker: first
    for (int i = 0; i < n; ++i) x[i] = x[i] * 0.5;
  } else if (sel == 2) {
    for (int i = 0; i < n; ++i) x[i] = x[i] * 0.5 + 1.0;
  } else if (sel == 3) {
    for (int i = 0; i < n; ++i) x[i] = (x[i] + 1.0) * (x[i] - 1.0) + 2.0;
  } else if (sel == 4) {
    for (int i = 0; i < n; ++i) x[i] = ((x[i] + 1.0) * 0.5 + 3.0) * 0.25 - 1.0;
  }
}

// The same selector in a switch, whose sides count without floating point
// (the flops stay the hand count).
__attribute__((noinline)) static void tally(int direction, int sweep_number, int n, long* counts) {
  int sel = direction + 2 * (sweep_number - 1);  // marker: switch_sel
  switch (sel) {  // marker: switch
    case 1: for (int i = 0; i < n; ++i) counts[i] += 1; break;
    case 2: for (int i = 0; i < n; ++i) counts[i] += i; break;
    case 3: for (int i = 0; i < n; ++i) counts[i] ^= i; break;
    default: for (int i = 0; i < n; ++i) counts[i] -= 3; break;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 64;
  int steps = argc > 2 ? atoi(argv[2]) : 5;
  double* x = malloc(sizeof(double) * n);
  long* counts = calloc(n, sizeof(long));
  for (int i = 0; i < n; ++i) x[i] = 1.0;
  for (int step = 0; step < steps; ++step) {
    int direction = advect_x ? 1 : 2;
    kernel(direction, 1, n, x);
    kernel(3 - direction, 2, n, x);
    tally(direction, 1, n, counts);
    tally(3 - direction, 2, n, counts);
    advect_x = !advect_x;
  }
  free(x);
  free(counts);
  MPI_Finalize();
  return 0;
}
