/* clockchain [ms]: a dependent chain of register adds (one a cycle) run for about ms
 * milliseconds (default 30) on the calling core; prints the clock the fastest 1 ms chunk implies and the mean over the window, in GHz. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC_RAW, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(int argc, char **argv) {
  double ms = argc > 1 ? atof(argv[1]) : 30, best = 0;
  unsigned long x = 1, n = 1000000;
  double t0 = now(), end = t0 + ms * 1e-3, chunks = 0;
  while (now() < end) {
    double a = now();
    unsigned long i;
    for (i = 0; i < n; i++) __asm__ volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0" : "+r"(x));
    double ghz = 4.0 * n / (now() - a) * 1e-9;
    if (ghz > best) best = ghz;
    chunks++;
  }
  /* the median of the chunks would hide a state change; the best chunk is the clock of the
   * fastest moment, the whole mean the state over the window: print both */
  printf("%.3f %.3f\n", best, 4.0 * n * chunks / (now() - t0) * 1e-9);
  return (int)(x & 0);
}
