/* Loops that poll whose exit flag is set under branches on what the tests
 * wrote, as hypre_DataExchangeList's `while (!terminate)` is: each rank sends
 * a contact to its right (MPI_Issend, matched once received), answers the
 * contacts MPI_Iprobe finds, and once its own contact is matched tells its
 * right so; it is done when its left has told it. How many passes that takes
 * is timing. Three shapes: the tests called through wrappers that copy their
 * `int` flag into the caller's `long` (hypre's mpistubs), `terminate` written
 * by one of them; the tests called directly, `terminate` set inside
 * `if (peer_done)` under a branch on a setting; the same with `terminate`'s
 * address passed on each pass, so it stays in memory. And one loop that is
 * not polling: it tests a request, but its exit is set under a branch on its
 * own arithmetic, stored each pass after the join of `if (flag)`.
 * Usage: polling_exit N (2 ranks or more). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int verbose = 0;
int serving = 0; /* a rank left answering contacts after the exchange (a setting) */

__attribute__((noinline)) long copy_test(MPI_Request *request, long *flag, MPI_Status *status) {
  int mpi_flag;
  int ierr = MPI_Test(request, &mpi_flag, status);
  *flag = (long)mpi_flag;
  return ierr;
}

__attribute__((noinline)) long copy_testall(int count, MPI_Request *requests, long *flag, MPI_Status *statuses) {
  int mpi_flag;
  int ierr = MPI_Testall(count, requests, &mpi_flag, statuses);
  *flag = (long)mpi_flag;
  return ierr;
}

__attribute__((noinline)) long copy_iprobe(int source, int tag, MPI_Comm comm, long *flag, MPI_Status *status) {
  int mpi_flag;
  int ierr = MPI_Iprobe(source, tag, comm, &mpi_flag, status);
  *flag = (long)mpi_flag;
  return ierr;
}

__attribute__((noinline)) void show(const int *state) {
  if (verbose) printf("state %d\n", *state);
}

/* Answers one contact: its receive and n flops on what came. */
static void answer(int source, int tag, int n, double *work) {
  double in = 0;
  MPI_Recv(&in, 1, MPI_DOUBLE, source, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int i = 0; i < n; ++i) *work = *work * 0.5 + in;
}

__attribute__((noinline)) void exchange_wrapped(int rank, int size, int n, double *work) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double out = rank;
  int one = 1, told = 0;
  MPI_Request contact, tell = MPI_REQUEST_NULL, told_request;
  MPI_Status status;
  long flag, sent = 0, terminate = 0;
  MPI_Irecv(&told, 1, MPI_INT, left, 11, MPI_COMM_WORLD, &told_request);
  MPI_Issend(&out, 1, MPI_DOUBLE, right, 10, MPI_COMM_WORLD, &contact);
  while (!terminate) {
    copy_iprobe(MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, &flag, &status);
    if (flag) answer(status.MPI_SOURCE, 10, n, work);
    if (!sent) {
      copy_testall(1, &contact, &sent, MPI_STATUSES_IGNORE);
      if (sent) MPI_Isend(&one, 1, MPI_INT, right, 11, MPI_COMM_WORLD, &tell);
    } else {
      copy_test(&told_request, &terminate, MPI_STATUS_IGNORE);
    }
  }
  MPI_Wait(&tell, MPI_STATUS_IGNORE);
}

__attribute__((noinline)) void exchange_nested(int rank, int size, int n, double *work) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double out = rank;
  int one = 1, told = 0;
  MPI_Request contact, tell = MPI_REQUEST_NULL, told_request;
  MPI_Status status;
  int flag, sent = 0, peer_done = 0, terminate = 0;
  MPI_Irecv(&told, 1, MPI_INT, left, 13, MPI_COMM_WORLD, &told_request);
  MPI_Issend(&out, 1, MPI_DOUBLE, right, 12, MPI_COMM_WORLD, &contact);
  while (!terminate) {
    MPI_Iprobe(MPI_ANY_SOURCE, 12, MPI_COMM_WORLD, &flag, &status);
    if (flag) answer(status.MPI_SOURCE, 12, n, work);
    if (!sent) {
      MPI_Testall(1, &contact, &sent, MPI_STATUSES_IGNORE);
      if (sent) MPI_Isend(&one, 1, MPI_INT, right, 13, MPI_COMM_WORLD, &tell);
    } else {
      MPI_Test(&told_request, &peer_done, MPI_STATUS_IGNORE);
      if (peer_done) {
        if (verbose) printf("rank %d: every contact answered\n", rank);
        if (!serving) terminate = 1;
      }
    }
  }
  MPI_Wait(&tell, MPI_STATUS_IGNORE);
}

__attribute__((noinline)) void exchange_shown(int rank, int size, int n, double *work) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double out = rank;
  int one = 1, told = 0;
  MPI_Request contact, tell = MPI_REQUEST_NULL, told_request;
  MPI_Status status;
  int flag, sent = 0, peer_done = 0, terminate = 0;
  MPI_Irecv(&told, 1, MPI_INT, left, 15, MPI_COMM_WORLD, &told_request);
  MPI_Issend(&out, 1, MPI_DOUBLE, right, 14, MPI_COMM_WORLD, &contact);
  while (!terminate) {
    MPI_Iprobe(MPI_ANY_SOURCE, 14, MPI_COMM_WORLD, &flag, &status);
    if (flag) answer(status.MPI_SOURCE, 14, n, work);
    if (!sent) {
      MPI_Testall(1, &contact, &sent, MPI_STATUSES_IGNORE);
      if (sent) MPI_Isend(&one, 1, MPI_INT, right, 15, MPI_COMM_WORLD, &tell);
    } else {
      MPI_Test(&told_request, &peer_done, MPI_STATUS_IGNORE);
      if (peer_done) {
        if (verbose) printf("rank %d: every contact answered\n", rank);
        if (!serving) terminate = 1;
      }
    }
    show(&terminate);
  }
  MPI_Wait(&tell, MPI_STATUS_IGNORE);
}

/* Not polling: the flag is set under a branch on the loop's own arithmetic,
 * stored each pass after the join of `if (flag)`; the test, once its
 * message is in, only stops being called. */
__attribute__((noinline)) void settle(int rank, int size, int n, double *work) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double in = 0, out = rank;
  MPI_Request request;
  int flag = 0, received = 0, settled = 0;
  MPI_Irecv(&in, 1, MPI_DOUBLE, left, 16, MPI_COMM_WORLD, &request);
  MPI_Send(&out, 1, MPI_DOUBLE, right, 16, MPI_COMM_WORLD);
  while (!settled) {
    if (!received) {
      MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
      if (flag) received = 1;
    }
    *work = *work * 0.5 + 1.0;
    if (*work > 1.99 - 1e-3 / (n + 1)) {
      if (verbose) printf("rank %d: settled at %g\n", rank, *work);
      settled = 1;
    }
    show(&settled);
  }
  MPI_Wait(&request, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = argc > 1 ? atoi(argv[1]) : 100;
  double work = 0;
  exchange_wrapped(rank, size, n, &work);
  exchange_nested(rank, size, n, &work);
  exchange_shown(rank, size, n, &work);
  settle(rank, size, n, &work);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0 && work < 0) return 1;
  MPI_Finalize();
  return 0;
}
