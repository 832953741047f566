/* A program whose work its source cannot size: the sweeps run until a
 * residual read from the data falls below a tolerance given on the command
 * line, and a branch's side depends on the values in an array. With every
 * x[i] = 1, the residual after k sweeps is 2^-k, so a tolerance of 1e-3 takes
 * 10 sweeps; v[i] is 1 for every fourth i, so the branch is taken 1/4 of the
 * time; a loop of two conditions, one on the data, makes n / 8 passes; a
 * loop sized by the data sits on a path no small input takes.
 * `probe_run N TOL` */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  long n = argc > 1 ? atol(argv[1]) : 1000; /* marker: n */
  double tol = argc > 2 ? atof(argv[2]) : 1e-3;
  double *x = malloc((size_t)n * sizeof(double));
  double *v = malloc((size_t)n * sizeof(double));
  for (long i = 0; i < n; ++i) {
    x[i] = 1.0;
    v[i] = i % 4 == 0 ? 1.0 : 0.0;
  }
  double local = 0.0, total = 0.0;
  for (long i = 0; i < n; ++i) local += x[i];
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double residual = 1.0;
  while (residual > tol) { /* marker: sweeps */
    double sum = 0.0;
    for (long i = 0; i < n; ++i) {
      x[i] = 0.5 * x[i];
      sum += x[i];
    }
    MPI_Allreduce(&sum, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    residual = residual / total;
  }
  double acc = 0.0;
  long passes = 0;
  while (passes < n / 8 && x[passes] > 0.0) { /* marker: passes */
    acc += 2.0 * x[passes];
    ++passes;
  }
  for (long i = 0; i < n; ++i) {
    if (v[i] > 0.5) /* marker: branch */
      for (int j = 0; j < 8; ++j) acc = acc * 0.5 + x[j];
  }
  if (n > 1000000)
    for (long i = 0; i < (long)x[1]; ++i) acc += x[i]; /* marker: unreached */
  double all = 0.0;
  MPI_Reduce(&acc, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  free(x);
  free(v);
  MPI_Finalize();
  return all < 0.0;
}
