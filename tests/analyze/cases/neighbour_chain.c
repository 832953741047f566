/* The most common neighbour exchange: every rank but the last sends to the
 * next, every rank but the first receives from the previous, k times. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank, size, k = atoi(argv[1]);
  double buf[16] = {0};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int s = 0; s < k; s++) {
    if (rank < size - 1) MPI_Send(buf, 16, MPI_DOUBLE, rank + 1, 0, MPI_COMM_WORLD);
    if (rank > 0) MPI_Recv(buf, 16, MPI_DOUBLE, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
