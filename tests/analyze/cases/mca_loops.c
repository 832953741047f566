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

/* reduce1's chain as the inner loop of a nest three deep: the code generator
 * marks a nested loop's header differently ("=>  This Inner Loop Header:
 * Depth=3", after its parents' lines), and it must be priced as reduce1 is. */
__attribute__((noinline)) double nested(int n, const double *x) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
      for (int k = 0; k < n; k++) s += x[(i * n + j) * n + k];
  return s;
}

/* A division per element: the divider, not the ports daxpy keeps busy, bounds it. */
__attribute__((noinline)) void divide(int n, const double *restrict x, double *restrict y) {
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
  for (int i = 0; i < n; i++) y[i] = x[i] / y[i];
}

int main(void) { return 0; }
