/* Which cores share execution units: one core's throughput of independent divides and of
 * independent multiply-adds, timed while another named core runs the same loop.
 *
 *   core_pairs divide|fma SECONDS   (pin it with taskset; prints ns per operation)
 *
 * Two hardware threads of one physical core share its divider and its ports: run on two such
 * cores at once, each runs at about half its rate alone; on two physical cores, at its full rate.
 * A VM that reports one thread per core can still place its vCPUs on sibling threads. For any
 * set of cores, where cores_alone_or_together.c compares core 0 alone with both of two.
 *   gcc -O2 -o core_pairs core_pairs.c; taskset -c 3 ./core_pairs divide 0.4 & taskset -c 11 ./core_pairs divide 0.4 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[1], "divide") && strcmp(argv[1], "fma"))) {
    fprintf(stderr, "usage: core_pairs divide|fma SECONDS\n");
    return 2;
  }
  int divide = !strcmp(argv[1], "divide");
  double seconds = atof(argv[2]), t0 = now(), t = t0;
  volatile double sink;
  double a[8] = {1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8}, d = 1.0000001, m = 0.9999999;
  long ops = 0;
  while (t - t0 < seconds) {
    for (int r = 0; r < 100000; ++r)
      for (int k = 0; k < 8; ++k) a[k] = divide ? d / a[k] : a[k] * m + 1e-9;
    ops += 800000;
    t = now();
  }
  sink = a[0] + a[7];
  (void)sink;
  printf("{\"op\":\"%s\",\"ns_per_op\":%.6g}\n", argv[1], 1e9 * (t - t0) / ops);
  return 0;
}
