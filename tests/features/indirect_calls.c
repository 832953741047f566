/* Work behind calls through pointers: a solver chosen from a table by a
 * command-line option and called through its struct's `apply` pointer each
 * sweep, and a callback from a table called for every element. The analyser
 * cannot say which functions these calls reach; a probe run can.
 * `indirect_calls N SWEEPS SOLVER` (SOLVER 0: jacobi, 1: damped; N a multiple of 4). The
 * solvers' size is not named n: the probe binds main's n by its name alone. */
#include <mpi.h>
#include <stdlib.h>

struct solver {
  const char *name;
  void (*apply)(double *x, const double *b, long len);
};

static void jacobi(double *x, const double *b, long len) { /* 2 flops an element */
  for (long i = 0; i < len; ++i) x[i] = 0.5 * (x[i] + b[i]);
}

static void damped(double *x, const double *b, long len) { /* 4 flops an element */
  for (long i = 0; i < len; ++i) x[i] = x[i] + 0.25 * (b[i] - x[i]) * 0.5;
}

static const struct solver solvers[] = {{"jacobi", jacobi}, {"damped", damped}};

typedef double (*weight)(double);
static double square(double v) { return v * v; }     /* 1 flop */
static double cube(double v) { return v * v * v; }   /* 2 flops */
double kept(double v); /* indirect_calls_kept.c: outside the analysed code, no flops */
static const weight weights[] = {cube, square, square, kept};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  long n = argc > 1 ? atol(argv[1]) : 1024; /* marker: n */
  int sweeps = argc > 2 ? atoi(argv[2]) : 10;
  int choice = argc > 3 ? atoi(argv[3]) : 0;
  const struct solver *s = &solvers[choice == 1 ? 1 : 0];
  double *x = malloc((size_t)n * sizeof(double));
  double *b = malloc((size_t)n * sizeof(double));
  for (long i = 0; i < n; ++i) {
    x[i] = 1.0;
    b[i] = (double)(i % 7);
  }
  double residual = 0.0, total = 0.0;
  for (int k = 0; k < sweeps; ++k) { /* marker: sweeps */
    s->apply(x, b, n); /* marker: apply */
    MPI_Allreduce(&x[0], &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  double acc = 0.0;
  for (long i = 0; i < n; ++i) acc += weights[i % 4](x[i]); /* marker: weights */
  MPI_Reduce(&acc, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  free(x);
  free(b);
  MPI_Finalize();
  return total < 0.0 && residual < 0.0;
}
