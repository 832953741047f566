/* The C half of mixed_main.f90: y += a * x, 2 flops per element (restrict:
 * Fortran's arguments do not alias, and the vectorised loop needs no
 * run-time overlap check). */
void axpy(int n, double a, const double *restrict x, double *restrict y) {
  for (int i = 0; i < n; ++i) y[i] += a * x[i];
}
