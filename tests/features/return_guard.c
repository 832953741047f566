// A send behind a guard whose taken side is a bare `return` (SNAP's plib
// `isend_d_3d` in C): the length assigned after the guard folds into the
// send's bytes, so the side the analyser reads starts at the send, while the
// probes' untaken side starts at the assignment; the taken side has no line
// of its own in the model. Called for four peers a step, read from a table
// the analyser cannot follow: each rank's own rank three times and the other
// rank once, so 1 in 4 calls sends (STEPS sends a rank), which only the run's
// counts of the guard's sides say; at its guess of one half the model would
// send twice as often.
// Usage: return_guard STEPS (on 2 ranks)
#include <mpi.h>
#include <stdlib.h>

// The peers of a step, in memory.
int peers[4];

__attribute__((noinline)) void isend_rows(int proc, int myproc, int rows, int cols, double* value, MPI_Comm comm,
                                          MPI_Request* req) {
  if (proc == myproc) return;  // marker: guard
  int count = cols;
  MPI_Isend(value + (long)(rows - 1) * cols, count, MPI_DOUBLE, proc, 7, comm, req);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int steps = argc > 1 ? atoi(argv[1]) : 5;
  int rank, yproc;
  MPI_Comm ycomm;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &ycomm);
  MPI_Comm_rank(ycomm, &yproc);
  peers[0] = peers[2] = peers[3] = yproc;
  peers[1] = 1 - yproc;
  double buf[6] = {1, 1, 1, 1, 1, 1}, inbox[3];
  for (int s = 0; s < steps; ++s) {
    for (int k = 0; k < 4; ++k) {
      MPI_Request req = MPI_REQUEST_NULL;
      isend_rows(peers[k], yproc, 2, 3, buf, ycomm, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Recv(inbox, 3, MPI_DOUBLE, MPI_ANY_SOURCE, 7, ycomm, MPI_STATUS_IGNORE);
  }
  MPI_Comm_free(&ycomm);
  MPI_Finalize();
  return 0;
}
