// A kernel given its loop bounds as arguments read from fields of an array of
// structs, as CloverLeaf's C kernels are given their tiles' extents (test
// ProbeRun.BindsTheArgumentsAKernelIsCalledWith): the analyser cannot follow
// `tiles[t].xmin` through the heap, so each argument is a parameter of the
// call site; the probes record the values the call passes. Tile t is
// (t + 1) n columns wide (the bounds vary between calls); the rows are
// numbered globally (constant on a rank, different between ranks).
#include <mpi.h>
#include <stdlib.h>

struct tile {
  int xmin, xmax, ymin, ymax;
};

__attribute__((noinline)) static void smooth_kernel(double* field, int xmin, int xmax, int ymin, int ymax) {
  const int width = xmax - xmin + 1;
  for (int k = ymin; k <= ymax; ++k)
    for (int j = xmin; j <= xmax; ++j) {
      double* cell = &field[(k - ymin) * width + (j - xmin)];
      *cell = *cell * 0.5 + 1.0;  // 2 flops a cell
    }
}

// The tiles of a rank's rows, side by side along x, as a decomposition
// computes them at set-up.
__attribute__((noinline)) static void decompose(struct tile* tiles, int count, int n, int rank) {
  for (int t = 0; t < count; ++t) {
    tiles[t].xmin = n * t * (t + 1) / 2 + 1;
    tiles[t].xmax = n * (t + 1) * (t + 2) / 2;
    tiles[t].ymin = rank * n + 1;
    tiles[t].ymax = (rank + 1) * n;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int n = argc > 1 ? atoi(argv[1]) : 16;
  const int tiles_per_rank = argc > 2 ? atoi(argv[2]) : 2;
  struct tile* tiles = malloc(tiles_per_rank * sizeof(struct tile));
  decompose(tiles, tiles_per_rank, n, rank);
  double* field = calloc((size_t)tiles_per_rank * n * n, sizeof(double));
  for (int step = 0; step < 3; ++step)
    for (int t = 0; t < tiles_per_rank; ++t)
      smooth_kernel(field, tiles[t].xmin, tiles[t].xmax, tiles[t].ymin, tiles[t].ymax);
  double sum = field[0], all = 0;
  MPI_Allreduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  free(field);
  free(tiles);
  MPI_Finalize();
  return all < 0;
}
