/* MPI datatypes: bytes = elements x datatype size, derived contiguous types included. */
#include <mpi.h>
#include <stdlib.h>

int n;

__attribute__((noinline)) void setup(char **argv) { n = atoi(argv[1]); }

int main(int argc, char **argv) {
  int rank, size;
  MPI_Datatype triple;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  setup(argv);
  void *buf = malloc((size_t)n * 24);
  int next = (rank + 1) % size;
  MPI_Send(buf, n, MPI_DOUBLE, next, 0, MPI_COMM_WORLD);
  MPI_Send(buf, n, MPI_INT, next, 1, MPI_COMM_WORLD);
  MPI_Send(buf, n, MPI_FLOAT, next, 2, MPI_COMM_WORLD);
  MPI_Send(buf, n, MPI_CHAR, next, 3, MPI_COMM_WORLD);
  MPI_Type_contiguous(3, MPI_DOUBLE, &triple);
  MPI_Type_commit(&triple);
  MPI_Send(buf, n, triple, next, 4, MPI_COMM_WORLD);
  MPI_Bcast(buf, 2 * n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
