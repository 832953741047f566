/* A 1-d V-cycle whose size argument halves down to a floor: each level smooths
 * its n points (i = 1 .. n - 2, 3 flops a point), and, while n > 4, restricts
 * its residual to n / 2 points (4 flops a point), recurses on them and prolongs
 * the correction back (1 flop a point). `recursive_levels N` runs the levels
 * N, N / 2, ... down to the first of at most 4 points; each level's arrays are
 * its own, after the finer level's (u + n, r + n). Built with -DSTOP_ON_DATA the
 * recursion also stops on a value of the data, which the model cannot state. */
#include <stdio.h>
#include <stdlib.h>
#ifndef STOP_ON_DATA
#define STOP_ON_DATA 0
#endif

static void vcycle(double *u, double *r, int n) { /* marker: vcycle */
  for (int i = 1; i < n - 1; i++) u[i] = 0.5 * (u[i - 1] + u[i + 1]) + r[i];
  if (n <= 4 || (STOP_ON_DATA && r[0] > 1e300)) return;
  int c = n / 2;
  double *uc = u + n, *rc = r + n;
  for (int i = 0; i < c; i++) rc[i] = 0.25 * (r[2 * i] + 2.0 * r[2 * i + 1] + r[2 * i]);
  vcycle(uc, rc, c);
  for (int i = 0; i < c; i++) u[2 * i] += uc[i];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  double *u = calloc(2 * (size_t)n, sizeof(double)), *r = calloc(2 * (size_t)n, sizeof(double));
  vcycle(u, r, n);
  printf("%g\n", u[1]);
  free(u), free(r);
  return 0;
}
