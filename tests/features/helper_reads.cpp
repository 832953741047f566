// Sizes an inline helper reads through the reference its caller hands it
// (HPCG's `ZeroVector(x)` in main): the optimiser inlines the helper, so the
// model reads the caller's variables' fields (`fine.cells`, `coarse.cells`);
// where the probes go in the helper is still a call, one copy for both
// grids, whose reads and loop mix the two sizes. The stores that set the
// sizes are in a call (`make_grid`) and differ grid by grid.
//   helper_reads N SWEEPS: grids of N and N / 4 cells, each relaxed SWEEPS
//   times; 2 flops a cell a sweep, and main's sum.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

struct Grid {
  int cells;
  double* values;
};

__attribute__((noinline)) void make_grid(Grid* grid, int cells) {
  grid->cells = cells;
  grid->values = new double[cells]();
}

inline void relax(Grid& grid, double factor) {
  const int cells = grid.cells;
  for (int i = 0; i < cells; ++i) grid.values[i] = grid.values[i] * factor + 1.0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 64;
  const int sweeps = argc > 2 ? std::atoi(argv[2]) : 3;
  Grid fine, coarse;
  make_grid(&fine, n);
  make_grid(&coarse, n / 4);
  for (int s = 0; s < sweeps; ++s) {
    relax(fine, 0.5);
    relax(coarse, 0.25);
  }
  double local = fine.values[0] + coarse.values[0], total = 0;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  std::printf("%g\n", total);
  delete[] fine.values;
  delete[] coarse.values;
  MPI_Finalize();
  return 0;
}
