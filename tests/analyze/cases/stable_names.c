/* Parameter names that stay put: an option parser inlined into main, a loop
 * whose exit is data (its trips a parameter), a helper called twice with a
 * size, MPI calls. The test edits lines above the loops (blank lines, a
 * comment, an unrelated function) and expects the same names. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

struct options {
  int n, steps;
};

static int parse(int argc, char **argv, struct options *o) {
  o->n = 100;
  o->steps = 10;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--n") == 0 && i + 1 < argc)
      o->n = atoi(argv[++i]);
    else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
      o->steps = atoi(argv[++i]);
    else
      return 1;
  }
  return 0;
}

/* ABOVE_THE_LOOP */
__attribute__((noinline)) int until_zero(const int *v) {
  int k = 0;
  while (v[k] != 0) k++;
  return k;
}

__attribute__((noinline)) double sweep(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  struct options o;
  if (parse(argc, argv, &o)) {
    MPI_Finalize();
    return 1;
  }
  int *v = calloc((size_t)o.n + 1, sizeof(int));
  double *x = calloc((size_t)o.n, sizeof(double)), s = 0, total = 0;
  for (int t = 0; t < o.steps; t++) {
    s += sweep(x, o.n) + until_zero(v);
    MPI_Allreduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return (int)total;
}
