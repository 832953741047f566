/* A loop tested at the bottom whose trips are data: each x[i] is halved until
 * it is at most 1 (x[i] = 1, 3, 5, 7 by turns: 1, 2, 3, 3 halvings, 9 in 4 on
 * the mean). `bottom_tested N` */
#include <mpi.h>
#include <stdlib.h>

__attribute__((noinline)) double halvings(const double *x, long len) {
  double acc = 0.0;
  for (long i = 0; i < len; ++i) {
    double v = x[i];
    do { /* marker: halve */
      v = v * 0.5;
    } while (v > 1.0);
    acc += v;
  }
  return acc;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  long n = atol(argv[1]); /* N: required */
  double *x = malloc((size_t)n * sizeof(double));
  for (long i = 0; i < n; ++i) x[i] = (double)(i % 4) * 2.0 + 1.0;
  double acc = halvings(x, n);
  double all = 0.0;
  MPI_Reduce(&acc, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  free(x);
  MPI_Finalize();
  return all < 0.0;
}
