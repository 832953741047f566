/* Does calibrate's 7-stream overlap probe see what a 3-D stencil sees? calibrate's kernel
 * (src/machine/calibrate/stream_overlap.cpp: a[i] = c[i] + w * (five two-wide loads of b around
 * i)) with b's five loads in the layouts calibrate uses (adjacent; 3 groups and 5 groups 32 KiB
 * apart) and in a stencil's (rows 784 B apart; rows and planes, 784 B and 75 KiB, as wave3d's
 * n=96 grid), over 24 MiB of arrays, beside its in-core time (adjacent, 8 KiB arrays) and the
 * transfers alone (a = b + c). Prints each layout's time and serial fraction
 * f = (both - max(core, mem)) / min(core, mem), medians over rounds run in turns.
 *
 *   cc -O2 -o /tmp/overlap_layouts bench/host_probes/overlap_layouts.c
 *   taskset -c 0 /tmp/overlap_layouts
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef double f64x2 __attribute__((vector_size(16), aligned(8), may_alias));
static inline f64x2 at(const double *p) { return *(const f64x2 *)p; }

static double cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static __attribute__((noinline)) void neighbours(double *restrict a, const double *restrict b,
                                                 const double *restrict c, size_t n, const long *o) {
  const long o0 = o[0], o1 = o[1], o3 = o[3], o4 = o[4];
  const f64x2 w = (f64x2){0, 0} + 0.125;
  for (size_t i = 0; i < n; i += 2) {
    f64x2 sum = at(c + i);
    const double *p = b + i;
    sum += w * ((at(p + o0) + at(p + o1)) + at(p) + (at(p + o3) + at(p + o4)));
    *(f64x2 *)(a + i) = sum;
  }
}

static __attribute__((noinline)) void copy_add(double *restrict a, const double *restrict b,
                                               const double *restrict c, size_t n) {
  for (size_t i = 0; i < n; i += 2) *(f64x2 *)(a + i) = at(b + i) + at(c + i);
}

/* ns per element over at least 30 ms (o == NULL: copy_add), in batches of at least a million
 * elements between clock reads (the thread's CPU clock is a system call). */
static double per_element(double *a, double *b, double *c, size_t n, const long *o) {
  const long batch = n >= (1 << 20) ? 1 : (long)((1 << 20) / n);
  double t0 = cpu_s();
  long runs = 0;
  while (cpu_s() - t0 < 0.03) {
    for (long k = 0; k < batch; k++) {
      if (o)
        neighbours(a, b, c, n, o);
      else
        copy_add(a, b, c, n);
    }
    runs += batch;
  }
  return 1e9 * (cpu_s() - t0) / (double)runs / (double)n;
}

static int cmp(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

#define ROUNDS 15
#define LAYOUTS 5

int main(void) {
  const size_t n = (size_t)(24 << 20) / 24, small = 1024;
  const long reach = 40000, skew = 40; /* arrays a few lines apart in their pages, as calibrate's */
  double *A = aligned_alloc(4096, (n + 3 * skew) * 8 + 4096);
  double *B = aligned_alloc(4096, (n + 2 * reach + 3 * skew) * 8 + 4096);
  double *C = aligned_alloc(4096, (n + 3 * skew) * 8 + 4096);
  double *a = A + skew, *b = B + 2 * skew + reach, *c = C + 3 * skew;
  for (size_t i = 0; i < n; i++) a[i] = 0, c[i] = 0.5;
  for (size_t i = 0; i < n + 2 * reach + 3 * skew; i++) B[i] = 1.0 + (double)(i % 7);
  static const long layout[LAYOUTS][5] = {
      {-2, -1, 0, 1, 2}, {-4096, -1, 0, 1, 4096}, {-8192, -4096, 0, 4096, 8192}, {-98, -1, 0, 1, 98},
      {-9604, -98, 0, 98, 9604}};
  static const char *name[LAYOUTS] = {"adjacent (calibrate, 3 streams)", "3 groups 32 KiB (calibrate, 5)",
                                      "5 groups 32 KiB (calibrate, 7)", "rows 784 B (a 2-D stencil)",
                                      "rows and planes (wave3d n=96)"};
  double both[LAYOUTS][ROUNDS], mem[ROUNDS], core[ROUNDS];
  for (int r = 0; r < ROUNDS; r++) {
    mem[r] = per_element(a, b, c, n, NULL);
    core[r] = per_element(a, b, c, small, layout[0]); /* the first 8 KiB: in L1 */
    for (int l = 0; l < LAYOUTS; l++) both[l][r] = per_element(a, b, c, n, layout[l]);
  }
  qsort(mem, ROUNDS, sizeof(double), cmp);
  qsort(core, ROUNDS, sizeof(double), cmp);
  double m = mem[ROUNDS / 2], k = core[ROUNDS / 2];
  printf("in-core %.3f ns/element, transfers alone %.3f (core/mem %.2f)\n", k, m, k / m);
  for (int l = 0; l < LAYOUTS; l++) {
    qsort(both[l], ROUNDS, sizeof(double), cmp);
    double t = both[l][ROUNDS / 2];
    printf("%-32s %.3f  f %.2f\n", name[l], t, (t - (k > m ? k : m)) / (k < m ? k : m));
  }
  return 0;
}
