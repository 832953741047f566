/* Rank 1 sends to a rank that does not exist. */
#include <bsim.h>
#include <mpi.h>
#include <stddef.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) LMPI_Send(NULL, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
