/* Kernels compiled with -O2 -march=x86-64-v3 (AVX2 + FMA): auto-vectorised
 * loops with remainders, single and double precision, an explicit fma(). */
#include <math.h>

#include "kernels.h"

NOINLINE void daxpy(int n, double a, const double *restrict x, double *restrict y) {
  for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}

NOINLINE void saxpy(int n, float a, const float *restrict x, float *restrict y) {
  for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}

/* A strict floating-point reduction: not vectorised, one fused multiply-add per element. */
NOINLINE double dot_fma(int n, const double *x, const double *y) {
  double s = 0;
  for (int i = 0; i < n; i++) s = fma(x[i], y[i], s);
  return s;
}

/* Triangular: the inner trip count i+1 changes every outer iteration, so every
 * remainder length occurs. */
NOINLINE void triangle(int n, double s, const double *restrict x, double *restrict y) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++) y[j] = y[j] * s + x[j];
}
