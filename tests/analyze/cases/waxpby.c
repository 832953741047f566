/* w = alpha x + beta y with pointers that may alias: the vectoriser adds a
 * run-time overlap check before its vector loop and keeps a scalar loop for
 * the remainder (and for overlapping arrays). 3 flops per element. */
__attribute__((noinline)) void waxpby(int n, double alpha, const double *x, double beta, const double *y,
                                      double *w) {
  for (int i = 0; i < n; i++) w[i] = alpha * x[i] + beta * y[i];
}

int main(void) { return 0; }
