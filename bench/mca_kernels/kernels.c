/* Reference loop kernels for bench/mca_accuracy.py: how close LLVM MCA's
 * in-core cycles (what `perfcast analyze` attaches to innermost loops) come to
 * the cycles these loops really take on this machine, with their data in L1.
 *
 * Sizes are compile-time constants so that every trip count in the model is a
 * number; each kernel is noinline so the model keeps it as a function of its
 * own, and the timed region calls it `reps` times. Two kinds on purpose:
 * throughput-bound loops (independent iterations: ports decide) and
 * latency-bound ones (a loop-carried chain decides), because MCA's accuracy
 * differs between them.
 *
 * Usage: kernels KERNEL REPS   -> prints {"kernel":..., "time_s":..., "calls":..., "elements":...}
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 1024       /* 1-D kernels: 3 arrays x 8 KiB, in L1 */
#define M 40         /* 2-D grid M x M: 12.5 KiB per array */
#define P 16         /* 3-D grid P^3: 32 KiB per array (L2) */
#define NNZ 8        /* sparse rows of NNZ entries */
#define ROWS (N / NNZ)

static double a[N], b[N], c[N];
static double g0[M * M], g1[M * M];
static double u0[P * P * P], u1[P * P * P], u2[P * P * P];
static int col[N];
static volatile double sink;

/* Throughput-bound: STREAM's triad. */
__attribute__((noinline)) static void triad(void) {
  for (int i = 0; i < N; i++) a[i] = b[i] + 0.5 * c[i];
}
/* Throughput-bound: a copy with a scale. */
__attribute__((noinline)) static void scale(void) {
  for (int i = 0; i < N; i++) a[i] = 3.0 * b[i];
}
/* Latency-bound: a sum, one chain of dependent additions. */
__attribute__((noinline)) static double sum(void) {
  double s = 0;
  for (int i = 0; i < N; i++) s += b[i];
  return s;
}
/* Latency-bound: a dot product. */
__attribute__((noinline)) static double dot(void) {
  double s = 0;
  for (int i = 0; i < N; i++) s += b[i] * c[i];
  return s;
}
/* Throughput-bound, arithmetic heavy: a degree-4 polynomial per element (Horner). */
__attribute__((noinline)) static void poly(void) {
  for (int i = 0; i < N; i++) {
    double x = b[i];
    a[i] = (((0.5 * x + 1.0) * x + 2.0) * x + 3.0) * x + 4.0;
  }
}
/* Divider-bound. */
__attribute__((noinline)) static void divide(void) {
  for (int i = 0; i < N; i++) a[i] = b[i] / c[i];
}
/* Divider- and square-root-bound (nbody's inner shape). */
__attribute__((noinline)) static void rsqrt(void) {
  for (int i = 0; i < N; i++) a[i] = 1.0 / sqrt(b[i] + 1.0);
}
/* 2-D 5-point Jacobi sweep. */
__attribute__((noinline)) static void jacobi2d(void) {
  for (int i = 1; i < M - 1; i++)
    for (int j = 1; j < M - 1; j++)
      g1[i * M + j] = 0.25 * (g0[(i - 1) * M + j] + g0[(i + 1) * M + j] + g0[i * M + j - 1] + g0[i * M + j + 1]);
}
/* 3-D 7-point stencil, leapfrog form (wave3d's update). */
__attribute__((noinline)) static void stencil3d(void) {
  for (int i = 1; i < P - 1; i++)
    for (int j = 1; j < P - 1; j++)
      for (int k = 1; k < P - 1; k++) {
        int p = (i * P + j) * P + k;
        double c2 = 2.0 * u1[p];
        u2[p] = c2 - u0[p] + 0.1 * (u1[p - P * P] + u1[p + P * P] - c2) + 0.1 * (u1[p - P] + u1[p + P] - c2) +
                0.1 * (u1[p - 1] + u1[p + 1] - c2);
      }
}
/* Sparse matrix-vector product, fixed NNZ per row, indirect loads (cg's shape). */
__attribute__((noinline)) static void spmv(void) {
  for (int r = 0; r < ROWS; r++) {
    double s = 0;
    for (int k = r * NNZ; k < r * NNZ + NNZ; k++) s += c[k] * b[col[k]];
    a[r] = s;
  }
}

struct kernel {
  const char *name;
  void (*run)(void);
  long elements; /* per call: the innermost iterations of the source loop */
};
static void run_sum(void) { sink = sum(); }
static void run_dot(void) { sink = dot(); }
static const struct kernel kernels[] = {
    {"triad", triad, N},          {"scale", scale, N},
    {"sum", run_sum, N},          {"dot", run_dot, N},
    {"poly", poly, N},            {"divide", divide, N},
    {"rsqrt", rsqrt, N},          {"jacobi2d", jacobi2d, (M - 2) * (M - 2)},
    {"stencil3d", stencil3d, (P - 2) * (P - 2) * (P - 2)}, {"spmv", spmv, N},
};

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  const struct kernel *k = NULL;
  long reps, r;
  int i;
  double t0, t;
  if (argc != 3) {
    fprintf(stderr, "usage: %s KERNEL REPS\n", argv[0]);
    return 2;
  }
  for (i = 0; i < (int)(sizeof kernels / sizeof kernels[0]); i++)
    if (strcmp(argv[1], kernels[i].name) == 0) k = &kernels[i];
  reps = atol(argv[2]);
  if (!k || reps < 1) {
    fprintf(stderr, "%s: unknown kernel '%s' or REPS < 1\n", argv[0], argv[1]);
    return 2;
  }
  for (i = 0; i < N; i++) {
    a[i] = 0;
    b[i] = 1.0 + 1e-3 * i;
    c[i] = 2.0 + 1e-4 * i;
    col[i] = (i * 37) % N;
  }
  for (i = 0; i < M * M; i++) g0[i] = 1e-3 * (i % 11), g1[i] = 0;
  for (i = 0; i < P * P * P; i++) u0[i] = 1e-3 * (i % 7), u1[i] = 1e-3 * (i % 5), u2[i] = 0;
  for (r = 0; r < reps / 10 + 1; r++) k->run(); /* warm the caches and the predictors */
  t0 = now();
  for (r = 0; r < reps; r++) k->run();
  t = now() - t0;
  printf("{\"kernel\":\"%s\",\"time_s\":%.17g,\"calls\":%ld,\"elements\":%ld,\"check\":%.17g}\n", k->name, t, reps,
         k->elements, a[1] + g1[M + 1] + u2[P * P + P + 1] + sink);
  return 0;
}
