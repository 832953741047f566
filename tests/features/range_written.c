// A rank's range of rows in the shape of a solver library's
// (hypre_ParCSRMatrixCreateAssumedPartition's `col_start = 0, col_end = 0`,
// then hypre_ParCSRMatrixGetLocalRange(A, ..., &col_start, &col_end)): two
// locals given a first value, then written by a call in another file
// (range_of.c) that is handed their addresses and reads the range from the
// partition's array; the loop over the range reads what the call wrote. Each
// row is stepped in main (2 flops), where the first values are the defaults
// of the model's parameters, and scaled in a function (1 flop), where they
// are no value at all.
// `range_written N`: N rows a rank.
#include <mpi.h>
#include <stdlib.h>

struct partition {
  const int* starts;  // the first row of each rank, and the end
  int rank;
};

void range_of(const struct partition* p, int* first, int* last);

__attribute__((noinline)) double scale_rows(const struct partition* p, double* rows) {
  int lo = 0, hi = 0;
  range_of(p, &lo, &hi);  // marker: scaled
  for (int row = lo; row <= hi; ++row) rows[row - lo] *= 0.5;
  return rows[0];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int rows = argc > 1 ? atoi(argv[1]) : 1000;
  int* starts = malloc(sizeof(int) * (size_t)(size + 1));
  for (int r = 0; r <= size; ++r) starts[r] = r * rows;
  struct partition p = {starts, rank};
  int first = 0, last = 0;
  range_of(&p, &first, &last);  // marker: range
  double stepped = 0;
  for (int row = first; row <= last; ++row) stepped = stepped * 0.5 + 1.0;
  double* scaled = calloc((size_t)rows, sizeof(double));
  stepped += scale_rows(&p, scaled);
  double total = 0;
  MPI_Reduce(&stepped, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  free(scaled);
  free(starts);
  MPI_Finalize();
  return 0;
}
