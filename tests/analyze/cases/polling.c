/* Loops that poll for a message: their trips are how long it takes to arrive,
 * not a count of the input. Four shapes: MPI_Test until its flag is set;
 * MPI_Iprobe whose flag sets a `done` the loop tests, with other work; a
 * wrapper that tests a request passed by address, the loop going on until
 * MPI_Test has reset the request to MPI_REQUEST_NULL; MPI_Testall's flag
 * breaking a `for (;;)`. And two loops that are not: MPI_Test inside a
 * solver's iteration whose exit is its residual, held in a register or in the
 * field beside the tested request. Usage: polling N (2 ranks or more). */
#include <mpi.h>
#include <stdlib.h>

/* A solver's state: the wrapper tests its request, its loop reads the residual. */
struct solver {
  MPI_Request request;
  double residual;
};
struct solver state = {MPI_REQUEST_NULL, 1.0};

__attribute__((noinline)) void test_request(MPI_Request *request) {
  int flag;
  MPI_Test(request, &flag, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = argc > 1 ? atoi(argv[1]) : 100;
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double out = rank, in = 0, work = 0;
  MPI_Request requests[2];
  int flag = 0;

  MPI_Irecv(&in, 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &requests[0]);
  MPI_Send(&out, 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD);
  do {
    MPI_Test(&requests[0], &flag, MPI_STATUS_IGNORE);
  } while (!flag);

  MPI_Send(&out, 1, MPI_DOUBLE, right, 2, MPI_COMM_WORLD);
  int done = 0;
  while (!done) {
    MPI_Iprobe(left, 2, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if (flag) {
      MPI_Recv(&in, 1, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      done = 1;
    }
    for (int i = 0; i < n; ++i) work = work * 0.5 + in;
  }

  MPI_Irecv(&in, 1, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &requests[0]);
  MPI_Send(&out, 1, MPI_DOUBLE, right, 3, MPI_COMM_WORLD);
  while (requests[0] != MPI_REQUEST_NULL) test_request(&requests[0]);

  MPI_Irecv(&in, 1, MPI_DOUBLE, left, 4, MPI_COMM_WORLD, &requests[0]);
  MPI_Isend(&out, 1, MPI_DOUBLE, right, 4, MPI_COMM_WORLD, &requests[1]);
  for (;;) {
    MPI_Testall(2, requests, &flag, MPI_STATUSES_IGNORE);
    if (flag) break;
  }

  /* Not polling: the exit is the residual, whatever the test says. */
  double residual = 1.0;
  MPI_Irecv(&in, 1, MPI_DOUBLE, left, 5, MPI_COMM_WORLD, &requests[0]);
  MPI_Send(&out, 1, MPI_DOUBLE, right, 5, MPI_COMM_WORLD);
  while (residual > 1e-6 * (n + 1)) {
    MPI_Test(&requests[0], &flag, MPI_STATUS_IGNORE);
    residual = residual * 0.5;
  }
  MPI_Wait(&requests[0], MPI_STATUS_IGNORE);

  /* Nor this one: the test writes one field of the state, the exit reads another. */
  MPI_Irecv(&in, 1, MPI_DOUBLE, left, 6, MPI_COMM_WORLD, &state.request);
  MPI_Send(&out, 1, MPI_DOUBLE, right, 6, MPI_COMM_WORLD);
  while (state.residual > 1e-6 * (n + 2)) {
    test_request(&state.request);
    state.residual = state.residual * 0.5;
  }
  MPI_Wait(&state.request, MPI_STATUS_IGNORE);

  if (rank == 0 && work < 0) return 1;
  MPI_Finalize();
  return 0;
}
