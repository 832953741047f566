/* Address streams of innermost loops (footprint.h, loop_streams): accesses of
 * one base a constant less than 256 bytes apart are one stream.
 * triad: a, b, c: 3.  neighbours: b[i-1..i+1] one stream, and a, c: 3.
 * rows: a 5-point update over rows of w: b's rows j-1, j, j+1 (w apart, a
 * symbolic distance) and a, c: 5.  stencil: u at 5 places (p-sx, p-sy,
 * p-1..p+1, p+sy, p+sx), up, un: 7.  gather: col and the gathers from x: 2. */
#include <mpi.h>
#include <stdlib.h>

__attribute__((noinline)) void triad(int n, double *restrict a, const double *restrict b, const double *restrict c) {
  for (int i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
}

__attribute__((noinline)) void neighbours(int n, double *restrict a, const double *restrict b,
                                          const double *restrict c) {
  for (int i = 1; i < n - 1; i++) a[i] = b[i - 1] + b[i] + b[i + 1] + c[i];
}

__attribute__((noinline)) void rows(int h, int w, double *restrict a, const double *restrict b,
                                    const double *restrict c) {
  for (int j = 1; j < h - 1; j++)
    for (int i = 1; i < w - 1; i++) {
      long p = (long)j * w + i;
      a[p] = c[p] + 0.25 * (b[p - w] + b[p + w] + b[p - 1] + b[p + 1]);
    }
}

#define IDX(i, j, k) (((size_t)(i) * (size_t)(n + 2) + (size_t)(j)) * (size_t)(n + 2) + (size_t)(k))
__attribute__((noinline)) void stencil(int n, double *restrict un, const double *restrict u,
                                       const double *restrict up) {
  const size_t sx = (size_t)(n + 2) * (size_t)(n + 2), sy = (size_t)(n + 2);
  for (int i = 1; i <= n; i++)
    for (int j = 1; j <= n; j++)
      for (int k = 1; k <= n; k++) {
        size_t p = IDX(i, j, k);
        un[p] = 2.0 * u[p] - up[p] + 0.1 * (u[p - sx] + u[p + sx] + u[p - sy] + u[p + sy] + u[p - 1] + u[p + 1]);
      }
}

__attribute__((noinline)) double gather(int m, const int *restrict col, const double *restrict x) {
  double s = 0;
  for (int k = 0; k < m; k++) s += x[col[k]];
  return s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = atoi(argv[1]);
  size_t points = (size_t)(n + 2) * (n + 2) * (n + 2);
  double *a = calloc(points, sizeof(double)), *b = calloc(points, sizeof(double)),
         *c = calloc(points, sizeof(double));
  int *col = calloc(points, sizeof(int));
  triad(n, a, b, c);
  neighbours(n, a, b, c);
  rows(n, n, a, b, c);
  stencil(n, a, b, c);
  double s = gather(n, col, a);
  MPI_Finalize();
  return (int)s;
}
