/* A main loop whose every iteration does the same thing, for the tracer's
 * loop folding: about 100 us of compute, a ring exchange (MPI_Irecv,
 * MPI_Isend, MPI_Waitall) and an MPI_Allreduce.
 *   fold_loop ITERATIONS same     the loop as it is
 *   fold_loop ITERATIONS change   the messages grow from 64 to 512 bytes half-way
 *   fold_loop ITERATIONS nested   ten exchanges per iteration, then the allreduce
 * Any number of ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Busy, not asleep: the gap the tracer records is compute. */
static volatile double sink;
static void compute(double seconds) {
  double end = now_s() + seconds;
  double x = 1;
  while (now_s() < end) x = x * 1.0000001 + 1e-9;
  sink = x;
}

static char send_buffer[512], recv_buffer[512];

static void exchange(int rank, int size, int bytes) {
  MPI_Request requests[2];
  int next = (rank + 1) % size, previous = (rank + size - 1) % size;
  MPI_Irecv(recv_buffer, bytes, MPI_BYTE, previous, 7, MPI_COMM_WORLD, &requests[0]);
  MPI_Isend(send_buffer, bytes, MPI_BYTE, next, 7, MPI_COMM_WORLD, &requests[1]);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 3 || atoi(argv[1]) < 1 ||
      (strcmp(argv[2], "same") && strcmp(argv[2], "change") && strcmp(argv[2], "nested"))) {
    if (rank == 0) fprintf(stderr, "usage: fold_loop ITERATIONS same|change|nested\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int iterations = atoi(argv[1]);
  int nested = strcmp(argv[2], "nested") == 0, change = strcmp(argv[2], "change") == 0;
  double value = rank, total = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < iterations; ++i) {
    compute(1e-4);
    int bytes = change && i >= iterations / 2 ? 512 : 64;
    for (int k = 0; k < (nested ? 10 : 1); ++k) exchange(rank, size, bytes);
    MPI_Allreduce(&value, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
