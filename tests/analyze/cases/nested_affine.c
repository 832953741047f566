/* Nested affine loops: 2 flops, 1 load and 1 store of a double per (i, j). */
#include <mpi.h>
#include <stdlib.h>

__attribute__((noinline)) void scale(int nx, int ny, double *restrict a, const double *restrict b) {
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < ny; j++) a[(size_t)i * ny + j] = 2.0 * b[(size_t)i * ny + j] + 1.0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int nx = atoi(argv[1]), ny = atoi(argv[2]);
  double *a = calloc((size_t)nx * ny, sizeof(double)), *b = calloc((size_t)nx * ny, sizeof(double));
  scale(nx, ny, a, b);
  MPI_Finalize();
  return (int)a[0];
}
