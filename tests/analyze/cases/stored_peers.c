/* Neighbours in a local array that the optimiser keeps in memory: nbr[0]
 * and nbr[1] stored by hand (a chain over the ranks), nbr[2] and nbr[3]
 * from MPI_Cart_shift along the second dimension of a 2-d grid, whose writes
 * LLVM takes for writes of the whole array (it cannot forward the stores to
 * the reads). The loop over the four neighbours is unrolled. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank, size;
  int dims[2] = {0, 0}, periods[2] = {0, 0}, nbr[4];
  MPI_Comm grid;
  MPI_Request req[8];
  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int m = atoi(argv[1]);
  double *out = calloc((size_t)m, sizeof(double)), *in = calloc((size_t)m * 4, sizeof(double));
  MPI_Dims_create(size, 2, dims);
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
  nbr[0] = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  nbr[1] = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  MPI_Cart_shift(grid, 1, 1, &nbr[2], &nbr[3]);
  for (int k = 0; k < 4; k++) MPI_Irecv(in + (size_t)k * m, m, MPI_DOUBLE, nbr[k], k ^ 1, grid, &req[k]);
  for (int k = 0; k < 4; k++) MPI_Isend(out, m, MPI_DOUBLE, nbr[k], k, grid, &req[4 + k]);
  MPI_Waitall(8, req, MPI_STATUSES_IGNORE);
  MPI_Comm_free(&grid);
  MPI_Finalize();
  return 0;
}
