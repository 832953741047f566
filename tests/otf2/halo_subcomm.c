/* The program tests/otf2 traces, exports to OTF2 and imports back: each step a
 * ring halo exchange (MPI_Irecv and MPI_Isend to both neighbours, MPI_Waitall),
 * busy compute, an MPI_Allreduce over MPI_COMM_WORLD and an MPI_Bcast on a
 * communicator of half the ranks (MPI_Comm_split by rank parity, its root the
 * half's second rank), then rank 0 sends one MPI_Send to the last rank.
 * Usage: mpirun -n 4 halo_subcomm STEPS HALO_BYTES COMPUTE_S */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 4 || size != 4) {
    if (rank == 0) fprintf(stderr, "usage: mpirun -n 4 halo_subcomm STEPS HALO_BYTES COMPUTE_S\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int steps = atoi(argv[1]);
  const int bytes = atoi(argv[2]);
  const double compute_s = atof(argv[3]);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half); /* keys reversed: half ranks in reverse world order */
  char* buffers = calloc(4, (size_t)bytes + 1);
  char *to_left = buffers, *to_right = buffers + bytes + 1;
  char *from_left = buffers + 2 * (bytes + 1), *from_right = buffers + 3 * (bytes + 1);
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  double value = rank, sum = 0, work = 0;
  int block[16] = {0};
  for (int s = 0; s < steps; ++s) {
    MPI_Request requests[4];
    MPI_Irecv(from_left, bytes, MPI_BYTE, left, 1, MPI_COMM_WORLD, &requests[0]);
    MPI_Irecv(from_right, bytes, MPI_BYTE, right, 2, MPI_COMM_WORLD, &requests[1]);
    MPI_Isend(to_right, bytes, MPI_BYTE, right, 1, MPI_COMM_WORLD, &requests[2]);
    MPI_Isend(to_left, bytes, MPI_BYTE, left, 2, MPI_COMM_WORLD, &requests[3]);
    MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
    const double until = now_s() + compute_s;
    while (now_s() < until) work += 1e-9;
    MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(block, 16, MPI_INT, 1, half);
  }
  if (rank == 0) MPI_Send(block, 16, MPI_INT, size - 1, 9, MPI_COMM_WORLD);
  if (rank == size - 1) MPI_Recv(block, 16, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Comm_free(&half);
  if (rank == 0) printf("sum %g (work %g)\n", sum, work > 0 ? 1.0 : 0.0);
  free(buffers);
  MPI_Finalize();
  return 0;
}
