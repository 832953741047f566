/* A solver iterates until its residual is small: the while loop's trip count
 * is data, so the model's coverage lists it as unknown. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n = 1000;
  double *x = calloc((size_t)n, sizeof(double));
  double residual = 1.0;
  while (residual > 1e-6) {
    double local = 0.0;
    for (int i = 0; i < n; ++i) {
      x[i] = 0.5 * x[i] + 1.0;
      local += x[i];
    }
    MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    residual = 1.0 / residual;
  }
  free(x);
  MPI_Finalize();
  return 0;
}
