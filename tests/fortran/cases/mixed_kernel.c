/* The C half of mixed_main.f90: y += a * x, 2 flops per element. */
void axpy(int n, double a, const double *x, double *y) {
  for (int i = 0; i < n; ++i) y[i] += a * x[i];
}
