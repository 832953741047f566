/* Point-to-point calls through the program's own wrappers (hypre's
   hypre_MPI_Isend(buf, n, type, dest, ...), whose 64-bit peer it hands MPI as
   an int), each caller passing a peer it reads from a list the data fills, or
   MPI_ANY_SOURCE: as a direct call's
   peer read from memory, a parameter with a real neighbour for its default,
   never one the user must bind, never a message to no one. */
#include <mpi.h>
#include <stdlib.h>

__attribute__((noinline)) int my_isend(double *buf, int n, long long dest, MPI_Request *r) {
  return MPI_Isend(buf, n, MPI_DOUBLE, (int)dest, 0, MPI_COMM_WORLD, r);
}

__attribute__((noinline)) int my_irecv(double *buf, int n, int source, MPI_Request *r) {
  return MPI_Irecv(buf, n, MPI_DOUBLE, source, 0, MPI_COMM_WORLD, r);
}

__attribute__((noinline)) void exchange(long long *procs, int count, double *out, double *in, int n) {
  MPI_Request *r = malloc(2 * (size_t)count * sizeof(MPI_Request));
  for (int i = 0; i < count; i++) my_irecv(in + i * n, n, (int)procs[i], &r[i]);
  for (int i = 0; i < count; i++) my_isend(out + i * n, n, procs[i], &r[count + i]);
  MPI_Waitall(2 * count, r, MPI_STATUSES_IGNORE);
  free(r);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = atoi(argv[1]);
  long long procs[1] = {(rank + 1) % size};
  double *out = calloc((size_t)n, sizeof(double)), *in = calloc((size_t)n, sizeof(double));
  exchange(procs, 1, out, in, n);
  MPI_Request r[2];
  my_irecv(in, n, MPI_ANY_SOURCE, &r[0]);
  my_isend(out, n, (rank + size - 1) % size, &r[1]);
  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  MPI_Finalize();
  return 0;
}
