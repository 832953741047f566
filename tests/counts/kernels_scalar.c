/* Kernels compiled with -O2 for baseline x86-64 (SSE2): a scalar loop and math calls. */
#include <math.h>

#include "kernels.h"

NOINLINE void daxpy_scalar(int n, double a, const double *x, double *y) {
#pragma clang loop vectorize(disable) interleave(disable)
  for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}

NOINLINE void sines(int n, const double *x, double *y) {
  for (int i = 0; i < n; i++) y[i] = sin(x[i]);
}
