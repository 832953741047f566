// Build and run: clang-19 -O2 bench/host_probes/nbody_pairs_alone.c -o /tmp/pairs -lm && taskset -c 0 /tmp/pairs
// nbody's accel_direct (apps/nbody/nbody.c) alone: N=1024, 39 evaluations, timed; one process = one sample.
// (issue 5, stop 19: 200-210 ms in most runs, 241-275 ms in some, as the app itself: 200-216 or 264-267 ms,
// alternating from one run to the next; ASLR off changes nothing)
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static void accel_direct(int nloc, int first, int n, const double *pos, const double *mass, double eps2, double *acc) {
  for (int i = 0; i < nloc; ++i) {
    double xi = pos[3 * (first + i)], yi = pos[3 * (first + i) + 1], zi = pos[3 * (first + i) + 2];
    double ax = 0.0, ay = 0.0, az = 0.0;
    for (int j = 0; j < n; ++j) {
      double dx = pos[3 * j] - xi, dy = pos[3 * j + 1] - yi, dz = pos[3 * j + 2] - zi;
      double r2 = dx * dx + dy * dy + dz * dz + eps2;
      double inv_r = 1.0 / sqrt(r2);
      double s = mass[j] * inv_r * inv_r * inv_r;
      ax += s * dx; ay += s * dy; az += s * dz;
    }
    acc[3 * i] = ax; acc[3 * i + 1] = ay; acc[3 * i + 2] = az;
  }
}
int main(int argc, char** argv) {
  int n = 1024, evals = argc > 1 ? atoi(argv[1]) : 39;
  double *pos = malloc(3 * n * sizeof(double)), *mass = malloc(n * sizeof(double)), *acc = malloc(3 * n * sizeof(double));
  srand(12345);
  for (int i = 0; i < 3 * n; ++i) pos[i] = rand() / (double)RAND_MAX;
  for (int i = 0; i < n; ++i) mass[i] = 1.0 / n;
  accel_direct(n, 0, n, pos, mass, 1e-4, acc);
  double t0 = now();
  for (int e = 0; e < evals; ++e) accel_direct(n, 0, n, pos, mass, 1e-4, acc);
  double t = now() - t0;
  printf("%.1f ms  %.2f ns/pair  pos %p mass %p acc %p\n", t * 1e3, t / ((double)evals * n * n) * 1e9, (void*)pos, (void*)mass, (void*)acc);
  return acc[5] == 12345.0;
}
