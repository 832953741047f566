/* Early exits before the work, shaped like an MPI program's option handling:
 * the option loop returns early (help, bad option), and
 * `if (rc != 0) { MPI_Finalize(); return rc; }` shares its block with those
 * paths (jump threading sends them straight there, past the later checks).
 * The loops after it run whenever the program gets there: k * n points. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int n, k;
double *v;

__attribute__((noinline)) void bad_option(const char *arg) { fprintf(stderr, "bad option %s\n", arg); }

static int parse_args(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] != '-' || i + 1 >= argc) {
      bad_option(argv[i]);
      return 2;
    }
    if (argv[i][1] == 'h') return 1;
    if (argv[i][1] == 'n') n = atoi(argv[++i]);
    else if (argv[i][1] == 'k') k = atoi(argv[++i]);
    else {
      bad_option(argv[i]);
      return 2;
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  int rank, rc;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  rc = parse_args(argc, argv);
  if (rc == 1) {
    if (rank == 0) puts("usage: early_return -n N -k K");
    MPI_Finalize();
    return 0;
  }
  if (rc == 0 && n < 1) {
    if (rank == 0) fprintf(stderr, "early_return: -n must be positive\n");
    rc = 2;
  }
  if (rc != 0) {
    MPI_Finalize();
    return rc;
  }
  double total;
  v = calloc((size_t)n, sizeof(double));
  for (int s = 0; s < k; s++)
    for (int i = 0; i < n; i++) v[i] = v[i] * 0.5 + 1.0;
  MPI_Allreduce(&v[0], &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("total %g\n", total);
  MPI_Finalize();
  return 0;
}
