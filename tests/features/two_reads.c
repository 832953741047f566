/* A local assigned twice outside loops, each value sizing a loop of its own
 * (`end = a->starts[1]; for (i = begin; i < end; ...); end = b->starts[1];
 * for (...)`, a send buffer packed from two communication packages): the
 * model reads each assignment's value where its loop reads it, which one name
 * for both cannot give. `two_reads N`: five packs of N values at 1 flop and 3N
 * at 2 flops. */
#include <mpi.h>
#include <stdlib.h>

struct package { int *starts; };

__attribute__((noinline)) void pack(const struct package *a, const struct package *b, double *buf, const double *x) {
  int begin = a->starts[0];
  int end = a->starts[1]; /* marker: first */
  for (int i = begin; i < end; ++i) buf[i - begin] = 2.0 * x[i];
  begin = b->starts[0];
  end = b->starts[1]; /* marker: second */
  for (int i = begin; i < end; ++i) buf[i - begin] = 3.0 * x[i] + 1.0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 100;
  int first[2] = {0, n}, second[2] = {0, 3 * n};
  struct package a = {first}, b = {second};
  double *x = calloc((size_t)(3 * n), sizeof(double)), *buf = calloc((size_t)(3 * n), sizeof(double));
  for (int k = 0; k < 5; ++k) pack(&a, &b, buf, x);
  double local = buf[0], total;
  MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  free(x);
  free(buf);
  MPI_Finalize();
  return 0;
}
