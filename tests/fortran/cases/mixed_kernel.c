/* The C half of mixed_main.f90: y += a * x, 2 flops per element (restrict:
 * Fortran's arguments do not alias, and the vectorised loop needs no
 * run-time overlap check). */
void axpy(int n, double a, const double *restrict x, double *restrict y) {
  for (int i = 0; i < n; ++i) y[i] += a * x[i];
}

/* Called from Fortran with no interface (`call scale_c(n, y)`), as Fortran
 * calls C: the name with an underscore, every argument by reference. Half of
 * each element: 1 flop per element. */
void scale_c_(const int *n, double *x) {
  int m = *n;
  for (int i = 0; i < m; ++i) x[i] *= 0.5;
}
