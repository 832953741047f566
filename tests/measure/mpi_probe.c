/* A tiny MPI program for the timing tests: spins for a requested time, then
 * rank 0 prints the JSON line apps print (ranks, time_s). --fail exits 3.
 * --text prints the time as benchmarks of their own format do instead
 * (a set-up line, then "Wall clock" in Fortran's E format, twice: a
 * progress report, then the final one); --report FILE writes that report to
 * FILE rather than stdout, as SNAP and HPCG do; --stderr to stderr, as
 * Fortran's unit 0 is. */
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
  int text = 0;
  const char* report = NULL;
  int to_stderr = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--fail")) {
      if (rank == 0) fprintf(stderr, "mpi_probe: failing on purpose\n");
      MPI_Finalize();
      return 3;
    }
    if (!strcmp(argv[i], "--work") && i + 1 < argc) work_s = atof(argv[++i]);
    if (!strcmp(argv[i], "--text")) text = 1;
    if (!strcmp(argv[i], "--stderr")) text = to_stderr = 1;
    if (!strcmp(argv[i], "--report") && i + 1 < argc) report = argv[++i];
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  volatile double x = 0;
  while (MPI_Wtime() - t0 < work_s) x += 1.0;
  double local = MPI_Wtime() - t0, elapsed;
  MPI_Reduce(&local, &elapsed, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0 && (text || report)) {
    FILE* out = report ? fopen(report, "w") : to_stderr ? stderr : stdout;
    if (!out) {
      fprintf(stderr, "mpi_probe: cannot write %s\n", report);
      MPI_Abort(MPI_COMM_WORLD, 4);
    }
    fprintf(out, " Set-up done\n Wall clock %14.4E\n ranks %d\n Wall clock %14.4E\n", elapsed / 2, size, elapsed);
    if (report) fclose(out);
  } else if (rank == 0) {
    printf("probe done\n{\"app\":\"mpi_probe\",\"ranks\":%d,\"time_s\":%.9f}\n", size, elapsed);
  }
  MPI_Finalize();
  return 0;
}
