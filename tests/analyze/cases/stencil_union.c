/* One array read at several offsets is one stream: a loop nest's distinct
 * bytes are the union of the offsets' ranges, not their sum.
 *
 * cube7: a 7-point sweep shaped as mg's (its bounds and strides read through
 * a struct pointer inside the nest, the index a sum of size_t products), u
 * read at p, p+-1, p+-sx, p+-sxy, f read and un written at p.
 * line3: a 3-point sweep along rows whose starts are read from memory: no
 * interval bounds x, each access is counted, and the three walks of x, one
 * invariant shift apart, are one.
 * two_arrays: the same rows, a[p-1] + b[p+1]: two arrays, two walks.
 * two_starts: x read from two starts read from memory: shifted by an amount
 * that changes with the row, so never one walk. */
#include <mpi.h>
#include <stdlib.h>

typedef struct {
  int m[3];  /* points per dimension */
  int lo[3]; /* first updated index */
  int sx, sxy;
} Box;

static inline size_t ix(const Box *b, int i, int j, int k) {
  return (size_t)(i + 1) + (size_t)b->sx * (size_t)(j + 1) + (size_t)b->sxy * (size_t)(k + 1);
}

__attribute__((noinline)) void cube7(const Box *b, double *restrict un, const double *restrict u,
                                     const double *restrict f) {
  const int sx = b->sx, sxy = b->sxy;
  for (int k = b->lo[2]; k < b->m[2]; k++)
    for (int j = b->lo[1]; j < b->m[1]; j++)
      for (int i = b->lo[0]; i < b->m[0]; i++) {
        size_t p = ix(b, i, j, k);
        double s = u[p - 1] + u[p + 1] + u[p - sx] + u[p + sx] + u[p - sxy] + u[p + sxy];
        un[p] = u[p] + 0.1 * (f[p] + s - 6.0 * u[p]);
      }
}

__attribute__((noinline)) void line3(int rows, int len, const int *restrict start, double *restrict y,
                                     const double *restrict x) {
  for (int r = 0; r < rows; r++) {
    long s = start[r];
    for (long e = 0; e < len; e++) y[s + e] = x[s + e - 1] + x[s + e] + x[s + e + 1];
  }
}

__attribute__((noinline)) void two_arrays(int rows, int len, const int *restrict start, double *restrict y,
                                          const double *restrict a, const double *restrict b) {
  for (int r = 0; r < rows; r++) {
    long s = start[r];
    for (long e = 0; e < len; e++) y[s + e] = a[s + e - 1] + b[s + e + 1];
  }
}

__attribute__((noinline)) void two_starts(int rows, int len, const int *restrict start, const int *restrict other,
                                          double *restrict y, const double *restrict x) {
  for (int r = 0; r < rows; r++) {
    long s = start[r], t = other[r];
    for (long e = 0; e < len; e++) y[s + e] = x[s + e] + x[t + e];
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = atoi(argv[1]), rows = atoi(argv[2]), len = atoi(argv[3]);
  Box b = {{n, n, n}, {1, 0, 0}, n + 2, (n + 2) * (n + 2)};
  size_t points = (size_t)(n + 2) * (n + 2) * (n + 2), cells = (size_t)rows * len + 2;
  double *un = calloc(points, sizeof(double)), *u = calloc(points, sizeof(double)),
         *f = calloc(points, sizeof(double));
  double *x = calloc(2 * cells, sizeof(double)), *y = calloc(2 * cells, sizeof(double));
  int *start = calloc(rows, sizeof(int)), *other = calloc(rows, sizeof(int));
  for (int r = 0; r < rows; r++) start[r] = 1 + r * len, other[r] = (int)cells + r * len;
  cube7(&b, un, u, f);
  line3(rows, len, start, y, x);
  two_arrays(rows, len, start, y, x, u);
  two_starts(rows, len, start, other, y, x);
  MPI_Finalize();
  return (int)(un[1] + y[1]);
}
