/* Every rank passes BYTES to rank+1 and receives from rank-1 (irecv, isend,
 * waitall), ITERS times, for comparing simulators: built with `perfcast cc`
 * and with `smpicc`, unchanged.
 *
 *   ring BYTES ITERS          prints one JSON line on rank 0; time_s is the
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
  char* send_buf = calloc((size_t)bytes + 1, 1);
  char* recv_buf = calloc((size_t)bytes + 1, 1);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double start = MPI_Wtime();
  for (int i = 0; i < iters; ++i) {
    MPI_Request requests[2];
    MPI_Irecv(recv_buf, bytes, MPI_BYTE, left, i, MPI_COMM_WORLD, &requests[0]);
    MPI_Isend(send_buf, bytes, MPI_BYTE, right, i, MPI_COMM_WORLD, &requests[1]);
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  }
  double elapsed = MPI_Wtime() - start, latest = 0;
  MPI_Reduce(&elapsed, &latest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("{\"test\": \"ring\", \"ranks\": %d, \"bytes\": %d, \"iters\": %d, \"time_s\": %.12g}\n", size, bytes, iters,
           latest);
  free(send_buf);
  free(recv_buf);
  MPI_Finalize();
  return 0;
}
