/* The kernels error_code_main.c calls, in a unit of their own: prepare()
 * always returns 0 after its loop; count_negative() returns a count of the
 * data. */
int prepare(double *v, int n) {
  for (int i = 0; i < n; i++) v[i] += 1.0;
  return 0;
}

int count_negative(const double *v, int n) {
  int negative = 0;
  for (int i = 0; i < n; i++) negative += v[i] < 0.0;
  return negative;
}
