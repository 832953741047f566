/* Rank 1 sends to a rank that does not exist: with LMPI_Send, or with MPI_Send
 * when the first argument is "mpi". */
#include <bsim.h>
#include <mpi.h>
#include <stddef.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int value = 0;
  if (rank == 1 && argc > 1 && strcmp(argv[1], "mpi") == 0)
    MPI_Send(&value, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
  else if (rank == 1)
    LMPI_Send(NULL, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
