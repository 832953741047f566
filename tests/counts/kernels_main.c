/* Runs each counted kernel once: kernels_main N T (vector length, triangle size). */
#include <stdio.h>
#include <stdlib.h>

#include "kernels.h"

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1003;
  int t = argc > 2 ? atoi(argv[2]) : 50;
  int m = n > t ? n : t;
  double *x = malloc(sizeof(double) * m), *y = malloc(sizeof(double) * m);
  float *xf = malloc(sizeof(float) * m), *yf = malloc(sizeof(float) * m);
  for (int i = 0; i < m; i++) {
    x[i] = 1.0 / (i + 1);
    y[i] = 0.5;
    xf[i] = (float)x[i];
    yf[i] = 0.25f;
  }
  daxpy(n, 1.5, x, y);
  saxpy(n, 1.5f, xf, yf);
  double d = dot_fma(n, x, y);
  triangle(t, 0.5, x, y);
  daxpy_scalar(n, 0.75, x, y);
  sines(n, x, y);
  double check = d;
  for (int i = 0; i < m; i++) check += y[i] + yf[i];
  printf("%.17g\n", check);
  free(x);
  free(y);
  free(xf);
  free(yf);
  return 0;
}
