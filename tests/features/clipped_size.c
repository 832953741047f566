/* A size clipped to another's and then scaled (`size = x->size; if (size >
 * y_size) size = y_size; size *= x->num_vectors;`), sizing a vectorised loop:
 * the optimiser's min is a merge of two assignments, and the remainder's test
 * reads the scaled size as the min times the count. `clipped_size N`: five
 * scalings of N values at 1 flop. */
#include <mpi.h>
#include <stdlib.h>

struct vec { double *data; int size, num_vectors; };

__attribute__((noinline)) void scale(const struct vec *x, struct vec *y) {
  int size = x->size; /* marker: first */
  int size_y = y->size;
  if (size > size_y) size = size_y; /* marker: clipped */
  size *= x->num_vectors; /* marker: scaled */
  for (int i = 0; i < size; i++) y->data[i] = 2.0 * x->data[i];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? atoi(argv[1]) : 100;
  struct vec x = {calloc((size_t)n, sizeof(double)), n, 1}, y = {calloc((size_t)(2 * n), sizeof(double)), 2 * n, 1};
  for (int k = 0; k < 5; ++k) scale(&x, &y);
  double local = y.data[0], total;
  MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  free(x.data);
  free(y.data);
  MPI_Finalize();
  return 0;
}
