/* Which side of the branch runs depends on data the code computes: the
 * analyser can only guess (0.5), and the model's coverage lists it. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = 1000;
  double *x = malloc((size_t)n * sizeof(double));
  for (int i = 0; i < n; ++i) x[i] = rand() / (double)RAND_MAX;
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += x[i] * x[i];
  if (sum > 1.0) {
    for (int i = 0; i < n; ++i) x[i] /= sum;
  } else {
    for (int i = 0; i < n; ++i) x[i] = x[i] * 3.0 + 1.0;
  }
  MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  free(x);
  MPI_Finalize();
  return 0;
}
