// A local struct filled by a callee that takes it by reference, from a field
// of a struct the function was given by reference: the optimiser splits the
// local into values, its length a copy of that field, which the loops read.
// `local_copy ROWS`: ROWS products and sums.
#include <mpi.h>

#include <cstdlib>

struct Grid {
  int rows;
  double scale;
};

struct Column {
  int length;
  double* values;
};

static void make_column(Column& c, int length) {
  c.length = length;
  c.values = new double[length];
}

__attribute__((noinline)) static double column_sum(const Grid& grid) {
  Column c;
  make_column(c, grid.rows);
  for (int i = 0; i < c.length; i++) c.values[i] = i * grid.scale;
  double sum = 0;
  for (int i = 0; i < c.length; i++) sum += c.values[i];
  delete[] c.values;
  return sum;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Grid grid;
  grid.rows = argc > 1 ? std::atoi(argv[1]) : 10;
  grid.scale = 0.5;
  double sum = column_sum(grid);
  double total = 0;
  MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return total < 0;
}
