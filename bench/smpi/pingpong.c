/* Ping-pong between ranks 0 and 1 (the other ranks idle), for comparing
 * simulators: built with `perfcast cc` and with `smpicc`, unchanged.
 *
 *   pingpong BYTES ITERS      prints one JSON line on rank 0; time_s is the
 *                             latest rank's MPI_Wtime at the end of the loop
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int bytes = argc > 1 ? atoi(argv[1]) : 8;
  int iters = argc > 2 ? atoi(argv[2]) : 10;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char* buf = calloc((size_t)bytes + 1, 1);
  double start = MPI_Wtime();
  for (int i = 0; i < iters && size > 1; ++i) {
    if (rank == 0) {
      MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  }
  double elapsed = MPI_Wtime() - start, latest = 0;
  MPI_Reduce(&elapsed, &latest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("{\"test\": \"pingpong\", \"ranks\": %d, \"bytes\": %d, \"iters\": %d, \"time_s\": %.12g}\n", size, bytes,
           iters, latest);
  free(buf);
  MPI_Finalize();
  return 0;
}
