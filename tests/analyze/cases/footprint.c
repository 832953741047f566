/* Loop footprints: the distinct bytes one run of a loop nest touches.
 * stencil: a 7-point update of the interior of (n+2)^3 grids; u is read at
 * +-1 in each direction, up read and un written at the point only.
 * gather: reads x through an index array, which bounds nothing: no footprint. */
#include <mpi.h>
#include <stdlib.h>

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
  stencil(n, a, b, c);
  double s = gather(n, col, a);
  MPI_Finalize();
  return (int)s;
}
