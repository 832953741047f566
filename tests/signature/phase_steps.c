/* A two-phase MPI program for signature runs: `steps` steps of a ring
 * exchange (Sendrecv with both neighbours) and an Allreduce, then
 * `second_steps` steps of a Bcast and a Barrier, each step after `work`
 * iterations of arithmetic. Rank 0 prints "step N" as each first-phase step
 * ends and "second N" for the others (flushed at once), so a test can count
 * how far a run got when it was stopped. HALO (default 256) is how many
 * doubles each Sendrecv moves: the same calls with other sizes.
 *
 *   phase_steps STEPS SECOND_STEPS WORK [HALO]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double busy(long work, double x) {
  for (long i = 0; i < work; i++) x = x * 1.0000001 + 1e-9;
  return x;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int halo_count = argc == 5 ? atoi(argv[4]) : 256;
  if ((argc != 4 && argc != 5) || halo_count < 1 || halo_count > 256) {
    if (rank == 0) fprintf(stderr, "usage: phase_steps STEPS SECOND_STEPS WORK [HALO, 1 to 256]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int steps = atoi(argv[1]), second_steps = atoi(argv[2]);
  long work = atol(argv[3]);
  double halo[256] = {0}, in[256], x = rank + 1, sum = 0;
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int s = 0; s < steps; s++) {
    x = busy(work, x);
    halo[0] = x;
    MPI_Sendrecv(halo, halo_count, MPI_DOUBLE, right, 1, in, halo_count, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
      printf("step %d\n", s + 1);
      fflush(stdout);
    }
  }
  for (int s = 0; s < second_steps; s++) {
    x = busy(work, x);
    MPI_Bcast(halo, 128, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      printf("second %d\n", s + 1);
      fflush(stdout);
    }
  }
  if (rank == 0) printf("done %.3f\n", sum + in[0]);
  MPI_Finalize();
  return 0;
}
