/* Rows of a reduction whose chain restarts every row (s = 0), as a CSR
 * product's rows do: rows(m, k, ...) sums k entries per row. With a few
 * entries per row an out-of-order core runs several rows' chains at once
 * (the loop costs what its instructions need of the core's units); with
 * thousands, one row's chain of dependent adds is the time. Unrolling and
 * vectorisation are off so the machine loops are the source's: the entries
 * loop (its body: one add) inside the rows loop (its own code: the row's
 * set-up and the store of y[r]). */
__attribute__((noinline)) void rows(int m, int k, const double *restrict a, double *restrict y) {
#pragma clang loop unroll(disable)
  for (int r = 0; r < m; r++) {
    double s = 0;
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
    for (int e = 0; e < k; e++) s += a[(long)r * k + e];
    y[r] = s;
  }
}

/* A Gauss-Seidel sweep over the same rows: each row's chain restarts (s =
 * b[r]), but the row stores its result into x, which the next row's gathers
 * read (x[col[e]]): the next row's chain waits for this one's, so the rows do
 * not overlap in the window and the entries loop keeps its chain's cycles.
 * jacobi() is the same row written into another array: its rows overlap. */
__attribute__((noinline)) void sweep(int m, int k, const double *restrict a, const int *restrict col,
                                     const double *restrict b, double *x) {
#pragma clang loop unroll(disable)
  for (int r = 0; r < m; r++) {
    double s = b[r];
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
    for (int e = 0; e < k; e++) s -= a[(long)r * k + e] * x[col[(long)r * k + e]];
    x[r] = s;
  }
}

__attribute__((noinline)) void jacobi(int m, int k, const double *restrict a, const int *restrict col,
                                      const double *restrict b, const double *restrict x, double *restrict y) {
#pragma clang loop unroll(disable)
  for (int r = 0; r < m; r++) {
    double s = b[r];
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
    for (int e = 0; e < k; e++) s -= a[(long)r * k + e] * x[col[(long)r * k + e]];
    y[r] = s;
  }
}

int main(void) { return 0; }
