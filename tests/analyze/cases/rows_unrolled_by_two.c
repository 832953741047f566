/* A Gauss-Seidel-like sweep over the rows of a sparse matrix whose lengths
 * are read from memory (a char per row). clang -O2 unrolls the row loop by 2
 * at run time: T div 2 pairs, then one element behind a test of T's lowest
 * bit, and no remainder loop. sum -= v*x is one multiply and one subtract per
 * element, however the compiler writes the negation (fneg then fmuladd in the
 * IR; mulsd and subsd on x86-64), and storing -x is a sign flip, no flop.
 * Per row: 2 flops and 20 bytes loaded per element, then one divide. */
#include <stdlib.h>

__attribute__((noinline)) void sweep(int nrow, const char *row_len, const int *const *cols,
                                     const double *const *vals, const double *rhs, const double *diag,
                                     double *x, double *negated) {
  for (int i = 0; i < nrow; i++) {
    double sum = rhs[i];
    for (int j = 0; j < row_len[i]; j++) sum -= vals[i][j] * x[cols[i][j]];
    x[i] = sum / diag[i];
    negated[i] = -x[i];
  }
}

int main(int argc, char **argv) {
  int nrow = argc > 1 ? atoi(argv[1]) : 100, len = argc > 2 ? atoi(argv[2]) : 7;
  char *row_len = malloc((size_t)nrow);
  int **cols = malloc(sizeof(int *) * (size_t)nrow);
  double **vals = malloc(sizeof(double *) * (size_t)nrow);
  double *rhs = calloc((size_t)nrow, sizeof(double)), *diag = malloc(sizeof(double) * (size_t)nrow);
  double *x = calloc((size_t)nrow, sizeof(double)), *negated = calloc((size_t)nrow, sizeof(double));
  for (int i = 0; i < nrow; i++) {
    row_len[i] = (char)len;
    cols[i] = calloc((size_t)len, sizeof(int));
    vals[i] = calloc((size_t)len, sizeof(double));
    diag[i] = 1;
  }
  sweep(nrow, row_len, (const int *const *)cols, (const double *const *)vals, rhs, diag, x, negated);
  return (int)negated[0];
}
