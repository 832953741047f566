/* Options read through the addresses main handed to MPI_Init (HPCG's
   HPCG_Init(&argc, &argv, ...)): the count the program sees after MPI_Init is
   the command line's, so the parser's test of it is a test of argc. */
#include <mpi.h>
#include <stdlib.h>

__attribute__((noinline)) int parse(int *argc_p, char ***argv_p) {
  int n = 10;
  if (*argc_p > 1) n = atoi((*argv_p)[1]);
  return n;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = parse(&argc, &argv);
  double *v = calloc((size_t)n, sizeof(double));
  for (int i = 0; i < n; i++) v[i] = v[i] * 0.5 + 1.0;
  free(v);
  MPI_Finalize();
  return 0;
}
