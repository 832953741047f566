// A size the source cannot say, in the shape of HPCG's CG (test
// ProbeRun.BindsTheSizesAFunctionReadsAndPassesOn): one function reads it
// from a struct in memory and passes it to another's loop (a unit of its own
// in the real program: no loop of the reader's is sized by it), called for a
// fine grid and a coarse one, so the value varies between calls. The grids'
// sizes are stored through a reference, which the probes follow to the field.
#include <mpi.h>

#include <cstdlib>

struct Grid {
  int rows;  // marker: rows (set through a reference at set-up)
  double* values;
};

__attribute__((noinline)) static void scale(double* x, int n, double factor) {
  for (int i = 0; i < n; ++i) x[i] *= factor;  // 1 flop an element
}

__attribute__((noinline)) static void smooth(const Grid& grid) {
  const int nrow = grid.rows;  // marker: nrow
  scale(grid.values, nrow, 0.5);
}

__attribute__((noinline)) static void set_up(Grid& grid, int rows) {
  grid.rows = rows;
  grid.values = static_cast<double*>(std::calloc(rows, sizeof(double)));
}

__attribute__((noinline)) static void relax(const Grid& grid, int steps) {
  for (int step = 0; step < steps; ++step) smooth(grid);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Grid fine, coarse;
  const int rows = argc > 1 ? std::atoi(argv[1]) : 64;
  set_up(fine, rows);
  set_up(coarse, rows / 2);
  relax(fine, 3);
  relax(coarse, 3);
  double sum = fine.values[0] + coarse.values[0], all = 0;
  MPI_Allreduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  std::free(fine.values);
  std::free(coarse.values);
  MPI_Finalize();
  return all < 0;
}
