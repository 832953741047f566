/* Two ranks whose waits are known: three times one rank sleeps 50 ms while
 * the other is inside an MPI call that cannot return before the sleeper's
 * next call, so the tracer must record that call as taking about 50 ms and
 * the compute gap before it as short.
 *   1. rank 0 sleeps, then sends: rank 1's MPI_Recv waits;
 *   2. rank 1 sleeps, then sends: rank 0's MPI_Wait of an MPI_Irecv waits;
 *   3. rank 1 sleeps, then receives: rank 0's MPI_Ssend waits (a synchronous
 *      send returns only once its receive has started).
 * Runs on 2 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static void sleep_s(double seconds) {
  struct timespec t = {0, (long)(seconds * 1e9)};
  while (nanosleep(&t, &t) != 0) {
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, x = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "usage: mpirun -n 2 durations\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    sleep_s(0.05);
    MPI_Send(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
    MPI_Request request;
    MPI_Irecv(&x, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Ssend(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
  } else {
    MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    sleep_s(0.05);
    MPI_Send(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    sleep_s(0.05);
    MPI_Recv(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
