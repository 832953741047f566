/* cg's option handling: the parser loops while `rc == 0`, a bad value sets rc
 * and the loop stops; after it, size checks print and return 2. Inlined into
 * main at -O2, `MPI_Finalize(); return rc;` is one block shared by the
 * parser's failures and the later checks, so it is reachable from the work
 * too. The work after the checks still runs whenever the program gets there
 * (k * n points, one allreduce), and the help path's MPI_Finalize is not the
 * program's: one MPI_Finalize per run. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double *v;

__attribute__((noinline)) static int parse_int(const char *a, const char *text, int *out) {
  if (!text) {
    fprintf(stderr, "%s needs a value\n", a);
    return 2;
  }
  *out = atoi(text);
  return *out > 0 ? 0 : 2;
}

static int parse_args(int argc, char **argv, int rank, int *n, int *k) {
  int i, rc = 0;
  *n = 16;
  *k = 2;
  for (i = 1; i < argc && rc == 0; i++) {
    const char *a = argv[i];
    const char *val = (i + 1 < argc) ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0) return 1;
    if (strcmp(a, "--n") == 0) rc = parse_int(a, val, n), i++;
    else if (strcmp(a, "--k") == 0) rc = parse_int(a, val, k), i++;
    else {
      if (rank == 0) fprintf(stderr, "unknown option %s\n", a);
      rc = 2;
    }
  }
  if (rc) return rc;
  if ((long long)*n * *k > 1000000000LL) {
    if (rank == 0) fprintf(stderr, "too large\n");
    return 2;
  }
  return 0;
}

int main(int argc, char **argv) {
  int rank, ranks, rc, n, k;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  rc = parse_args(argc, argv, rank, &n, &k);
  if (rc == 1) {
    if (rank == 0) puts("usage: early_exit_shared [--n N] [--k K]");
    MPI_Finalize();
    return 0;
  }
  if (rc != 0) {
    MPI_Finalize();
    return rc;
  }
  if (n % ranks != 0) {
    if (rank == 0) fprintf(stderr, "--n must be a multiple of the rank count\n");
    MPI_Finalize();
    return 2;
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
