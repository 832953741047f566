/* MPI calls through the program's own wrappers, which hand on the datatype
   their callers pass (hypre's hypre_MPI_Allreduce(buf, n, type, ...)): one
   wrapper called with three datatypes, and a wrapper of that wrapper. */
#include <mpi.h>
#include <stdlib.h>

__attribute__((noinline)) int my_allreduce(void *in, void *out, int count, MPI_Datatype type) {
  return MPI_Allreduce(in, out, count, type, MPI_SUM, MPI_COMM_WORLD);
}

__attribute__((noinline)) int my_bcast(void *buf, int count, MPI_Datatype type) {
  return MPI_Bcast(buf, count, type, 0, MPI_COMM_WORLD);
}

__attribute__((noinline)) int sum_into(void *in, void *out, int count, MPI_Datatype type) {
  return my_allreduce(in, out, count, type);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = atoi(argv[1]);
  double *d = calloc((size_t)n, sizeof(double)), *e = calloc((size_t)n, sizeof(double));
  int *i = calloc((size_t)n, sizeof(int)), *j = calloc((size_t)n, sizeof(int));
  char *c = calloc((size_t)n, 1), *k = calloc((size_t)n, 1);
  my_allreduce(d, e, n, MPI_DOUBLE);
  my_allreduce(i, j, n, MPI_INT);
  my_allreduce(c, k, n, MPI_CHAR);
  sum_into(d, e, 2 * n, MPI_DOUBLE);
  my_bcast(i, n, MPI_INT);
  MPI_Finalize();
  return 0;
}
