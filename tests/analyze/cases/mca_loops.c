/* Loop bodies for the MCA pricing (cycles per iteration of the machine code).
 * Unrolling and vectorisation are off so each loop's body is the one written:
 * daxpy is throughput-bound; reduce1 is a chain of one dependent add per
 * iteration (latency-bound); reduce2 is the same chain with two dependent adds
 * per iteration, so it must take about twice reduce1's cycles. */
__attribute__((noinline)) void daxpy(int n, double a, const double *restrict x, double *restrict y) {
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
  for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}

__attribute__((noinline)) double reduce1(int n, const double *x) {
  double s = 0;
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
  for (int i = 0; i < n; i++) s += x[i];
  return s;
}

__attribute__((noinline)) double reduce2(int n, const double *x) {
  double s = 0;
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
  for (int i = 0; i < n; i++) {
    s += x[2 * i];
    s += x[2 * i + 1];
  }
  return s;
}

int main(void) { return 0; }
