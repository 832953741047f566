/* A ring in LMPI_* and in MPI_*, an allreduce whose result steers the control
 * flow, and MPI_Wtime around a compute burst. Each check that fails returns its
 * own exit code; markers put values into the event stream for the test. */
#include <bsim.h>
#include <mpi.h>
#include <stddef.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;

  BSIM_Add_time(0.25);
  LMPI_Sendrecv(NULL, 1000, MPI_DOUBLE, right, 7, NULL, 1000, MPI_DOUBLE, left, 7, MPI_COMM_WORLD,
                MPI_STATUS_IGNORE);

  int token = 100 + rank, got = -1;
  MPI_Request reqs[2];
  MPI_Irecv(&got, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &reqs[0]);
  MPI_Isend(&token, 1, MPI_INT, right, 3, MPI_COMM_WORLD, &reqs[1]);
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  if (got != 100 + left) return 10;
  if (reqs[0] != MPI_REQUEST_NULL || reqs[1] != MPI_REQUEST_NULL) return 11;

  int untouched = -5;
  LMPI_Irecv(&untouched, 1, MPI_INT, left, 4, MPI_COMM_WORLD, &reqs[0]);
  LMPI_Isend(&token, 1, MPI_INT, right, 4, MPI_COMM_WORLD, &reqs[1]);
  LMPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  if (untouched != -5) return 12;

  double mine = rank + 1.0, total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (total != size * (size + 1) / 2.0) return 13;
  if (total > 1) BSIM_Add_time(1.0); /* control flow that depends on the reduced value */
  BSIM_Marker((int)total);

  double t0 = MPI_Wtime();
  BSIM_Add_time(0.5);
  double t1 = MPI_Wtime();
  if (t1 - t0 != 0.5) return 14;
  BSIM_Marker((int)(t1 * 1000 + 0.5));

  BSIM_Set_size_scale(8);
  LMPI_Bcast(NULL, 10, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  BSIM_Set_time_scale(3);
  BSIM_Add_flops(1e6);
  BSIM_Add_bytes(2e6);
  MPI_Finalize();
  return 0;
}
