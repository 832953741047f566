/* A tiny MPI program for the timing tests: spins for a requested time, then
 * rank 0 prints the JSON line apps print (ranks, time_s). --fail exits 3. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double work_s = 0.01;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--fail")) {
      if (rank == 0) fprintf(stderr, "mpi_probe: failing on purpose\n");
      MPI_Finalize();
      return 3;
    }
    if (!strcmp(argv[i], "--work") && i + 1 < argc) work_s = atof(argv[++i]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  volatile double x = 0;
  while (MPI_Wtime() - t0 < work_s) x += 1.0;
  double local = MPI_Wtime() - t0, elapsed;
  MPI_Reduce(&local, &elapsed, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("probe done\n{\"app\":\"mpi_probe\",\"ranks\":%d,\"time_s\":%.9f}\n", size, elapsed);
  MPI_Finalize();
  return 0;
}
