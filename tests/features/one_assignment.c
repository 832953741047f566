/* A local assigned twice, the second from the first (`size = v->size; size
 * *= v->num_vectors;`, a vector's length over its vectors), then sizing a
 * loop the optimiser vectorises: the model reads the second assignment's
 * value, which the pooled stores of both are not. `one_assignment N`: five
 * passes over 2N values, 2 flops each. */
#include <mpi.h>
#include <stdlib.h>

struct vec { double *data; int size, num_vectors; };

__attribute__((noinline)) void set_constant(struct vec *v, double value) {
  double *data = v->data;
  int size = v->size;
  size *= v->num_vectors; /* marker: scaled */
  for (int i = 0; i < size; i++) data[i] = data[i] * value + 1.0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 100;
  struct vec v = {calloc((size_t)(2 * n), sizeof(double)), n, 2};
  for (int k = 0; k < 5; ++k) set_constant(&v, 1.0 + k);
  double local = v.data[0], total;
  MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  free(v.data);
  MPI_Finalize();
  return 0;
}
