/* A count that really wraps: (n - 4) / 2 in unsigned 64 bits, guarded only by
 * its own value being non-zero, so at n < 4 the loop runs about 2^63 times.
 * The model must say so (and predict refuse it), not price 0. */
__attribute__((noinline)) void halves(unsigned long n, double *restrict y) {
  for (unsigned long i = 0; i < (n - 4) / 2; i++) y[i] += 1.0;
}

int main(void) { return 0; }
