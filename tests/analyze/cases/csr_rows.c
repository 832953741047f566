/* A CSR matrix-vector product: the entries of a row run from rowptr[row] to
 * rowptr[row + 1], data the analysis cannot see. LLVM unrolls that loop by 4
 * with a run-time remainder loop before it, both on the source's line, behind
 * guards on the same data. The rows loop's count is a struct field (a.nrows).
 * With T entries per row (the parameter of the entries loop), the product
 * counts 2 T flops per row: T mod 4 in the remainder, T div 4 unrolled trips. */
#include <stdlib.h>

typedef struct {
  int nrows;
  int *rowptr, *col;
  double *val;
} Csr;

__attribute__((noinline)) void build(Csr *a, int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100, k = argc > 2 ? atoi(argv[2]) : 5;
  a->nrows = n;
  a->rowptr = malloc(sizeof(int) * ((size_t)n + 1));
  a->col = malloc(sizeof(int) * (size_t)n * (size_t)k);
  a->val = malloc(sizeof(double) * (size_t)n * (size_t)k);
  a->rowptr[0] = 0;
  for (int i = 0; i < n; i++) a->rowptr[i + 1] = a->rowptr[i] + k;
}

__attribute__((noinline)) void spmv(const Csr *a, const double *x, double *y) {
  for (int row = 0; row < a->nrows; row++) {
    double s = 0.0;
    for (int e = a->rowptr[row]; e < a->rowptr[row + 1]; e++) s += a->val[e] * x[a->col[e]];
    y[row] = s;
  }
}

int main(int argc, char **argv) {
  Csr a;
  build(&a, argc, argv);
  double *x = calloc((size_t)a.nrows, sizeof(double)), *y = calloc((size_t)a.nrows, sizeof(double));
  spmv(&a, x, y);
  return (int)y[0];
}
