/* The scale skeleton: a 1D ring halo exchange in LMPI_* (NULL buffers), an
 * allreduce of real data every few steps. Steps from argv[1]. */
#include <bsim.h>
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, n, steps = argc > 1 ? atoi(argv[1]) : 3;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  int right = (rank + 1) % n, left = (rank + n - 1) % n;
  MPI_Request r[4];
  for (int s = 0; s < steps; ++s) {
    BSIM_Add_time(1e-3);
    LMPI_Irecv(NULL, 8192, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &r[0]);
    LMPI_Irecv(NULL, 8192, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &r[1]);
    LMPI_Isend(NULL, 8192, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &r[2]);
    LMPI_Isend(NULL, 8192, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &r[3]);
    LMPI_Waitall(4, r, MPI_STATUSES_IGNORE);
  }
  double one = 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return sum == n ? 0 : 1;
}
