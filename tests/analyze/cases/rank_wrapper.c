/* The rank and the size read through the program's own wrappers: one that
   stores the int MPI wrote into the caller's wider integer (hypre's
   hypre_MPI_Comm_rank(comm, &id)), one that returns it. Only the last rank
   runs the loop, in a function the wrappers' callers are. */
#include <mpi.h>
#include <stdlib.h>

typedef long long big_int;

int n;
double *v;

__attribute__((noinline)) int comm_rank(MPI_Comm comm, big_int *rank) {
  int r;
  int err = MPI_Comm_rank(comm, &r);
  *rank = (big_int)r;
  return err;
}

__attribute__((noinline)) int comm_size(void) {
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

__attribute__((noinline)) void setup(char **argv) {
  n = atoi(argv[1]);
  v = calloc((size_t)n, sizeof(double));
}

__attribute__((noinline)) void smooth(MPI_Comm comm) {
  big_int id;
  comm_rank(comm, &id);
  int size = comm_size();
  if (id == size - 1)
    for (int i = 0; i < n; i++) v[i] = v[i] * 0.5;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  setup(argv);
  smooth(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
